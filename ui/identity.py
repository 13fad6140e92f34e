"""Who is here and what they may do: sign-in through Streamlit's st.login when `[auth]` is configured in
.streamlit/secrets.toml (roles from the file CONCORD_ROLES names), else the local single user at 127.0.0.1. app.py
calls gate() before anything reads the store; pages call allowed(action) and require(action) with the actions of
analytics/access/roles.py's table (docs/deploy.md)."""

from __future__ import annotations

import functools
import ipaddress
import logging
import os
from dataclasses import dataclass
from typing import NoReturn

import pandas as pd
import streamlit as st

from analytics.access import roles
from ui import explore_owner
from ui.text import md_escape

ALLOW_ANONYMOUS = "CONCORD_ALLOW_ANONYMOUS"
LOCAL_NAME = "concord_local_name"  # the sidebar's "Your name" field (local mode)
KEY = "concord_identity"  # session state: this run's Identity, set by gate()
LOCAL_USER = "local user"  # recorded when the local user gave no name
log = logging.getLogger("concord")


@dataclass(frozen=True)
class Identity:
    """Who is here: the signed-in member, or the local single user (every right, as a lead)."""

    role: str
    email: str | None = None
    rater_id: str | None = None
    signed_in: bool = False
    anonymous: bool = False  # served beyond this machine without sign-in (CONCORD_ALLOW_ANONYMOUS=1)


LOCAL = Identity(role=roles.LEAD)
NOBODY = Identity(role="")  # no role: allowed nothing


def auth_configured() -> bool:
    """Whether an `[auth]` section is configured in the secrets (st.login is then the only way in)."""
    try:
        return bool(st.secrets.get("auth"))
    except FileNotFoundError:  # no secrets file at all (StreamlitSecretNotFoundError is one)
        return False


def is_local_address(address: str | None) -> bool:
    """Whether the server's address (server.address) is loopback only; unset means every interface."""
    if not address:
        return False
    if address.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def _refuse(sentence: str, log_out: bool = False) -> NoReturn:
    """Show one sentence (and a log-out button to try another account) and serve nothing else."""
    st.title("Concord")
    st.error(md_escape(sentence), icon=None)
    if log_out:
        st.button("Log out", key="concord_logout", on_click=st.logout)
    st.stop()


def _sign_in_page() -> NoReturn:
    """The only thing an anonymous visitor sees when sign-in is configured: no data, a sign-in button."""
    st.title("Concord")
    st.markdown("Sign in to see the dashboard.")
    st.button("Sign in", key="concord_login", type="primary", on_click=st.login)
    st.stop()


def _member() -> Identity:
    """The signed-in visitor as the roles file names them; anyone else is refused in one sentence."""
    user = st.user
    if not user.is_logged_in:
        _sign_in_page()
    email = str(user.get("email") or "").strip().lower()
    if user.get("email_verified") is False:
        _refuse(f"The provider has not verified {email or 'this account'}'s email address, so it cannot be let in.")
    path = roles.roles_file()
    if path is None:
        log.error("sign-in is configured but %s names no roles file: every visitor is refused", roles.ROLES_ENV)
        _refuse("Sign-in is configured but no roles file is named (CONCORD_ROLES), so nobody can be let in.", True)
    try:
        members = roles.read_roles(path)
    except roles.RolesError as e:
        log.error("every visitor is refused: %s", e)
        _refuse("This dashboard's roles file cannot be used, so nobody can be let in: the server's log says why.", True)
    member = members.get(email)
    if member is None:
        _refuse(f"{email or 'This account'} is not in this dashboard's roles file: ask its lead to add you.", True)
    return Identity(role=member.role, email=member.email, rater_id=member.rater_id, signed_in=True)


@functools.cache
def _warn_anonymous(address: str) -> None:
    """Say once in the server's log that the dashboard is open to anyone who reaches it."""
    log.warning("serving %s without sign-in (%s=1): anyone who reaches it reads and changes everything",
                address or "every interface", ALLOW_ANONYMOUS)  # fmt: skip


def _local() -> Identity:
    """The local single user; refused when served beyond loopback without CONCORD_ALLOW_ANONYMOUS=1."""
    address = st.get_option("server.address")
    if is_local_address(address):
        return LOCAL
    if os.environ.get(ALLOW_ANONYMOUS) != "1":
        _refuse(
            "This dashboard has no sign-in configured and is served beyond this machine, so it shows nothing: "
            "whoever runs it must configure sign-in (Streamlit's [auth] settings and CONCORD_ROLES) or serve it on "
            "127.0.0.1."
        )
    _warn_anonymous(str(address or ""))
    return Identity(role=roles.LEAD, anonymous=True)


def gate() -> Identity:
    """Who is here, before anything reads the store: the sign-in page, a refusal, or the identity of this run."""
    who = _member() if auth_configured() else _local()
    st.session_state[KEY] = who
    return who


def current() -> Identity:
    """This run's identity; when gate() has not run (a page run on its own), the local single user, or nobody
    (no right at all) when sign-in is configured."""
    who = st.session_state.get(KEY)
    if isinstance(who, Identity):
        return who
    return NOBODY if auth_configured() else LOCAL


def allowed(action: str) -> bool:
    """Whether this run's identity may see or do `action` (analytics/access/roles.py's table)."""
    return roles.allowed(current().role, action)


def require(action: str) -> None:
    """Stop the page with one sentence when this run's identity may not see or do `action`."""
    if not allowed(action):
        role = current().role
        st.error(f"Your role ({role}) does not give access to this." if role else "Sign in to see this.", icon=None)
        st.stop()


def author() -> str:
    """What notes, markers, acknowledgements and unloads record: the signed-in email, else the local user's name
    (read at call time: a callback runs before this run's gate)."""
    who = current()
    if who.signed_in and who.email:
        return who.email
    return str(st.session_state.get(LOCAL_NAME) or "").strip() or LOCAL_USER


def owner_key() -> str:
    """Whose session this is, for per-owner limits: the signed-in email, else this browser (ui/explore_owner.py)."""
    who = current()
    if who.signed_in and who.email:
        return f"user:{who.email}"
    return explore_owner.browser_key()


def sidebar() -> None:
    """Who is here, at the top of the sidebar: the signed-in email and role with a log-out button, the roles in use
    for a lead; locally, "local, single user" and the name recorded with what this session writes."""
    who = current()
    with st.sidebar:
        if who.signed_in:
            st.caption(md_escape(f"Signed in as {who.email} ({who.role})"))
            st.button("Log out", key="concord_logout", on_click=st.logout)
            if allowed("roles_in_use"):
                _roles_in_use()
            return
        if who.anonymous:
            st.warning(
                "Served beyond this machine without sign-in (CONCORD_ALLOW_ANONYMOUS=1): anyone who reaches it "
                "reads and changes everything.",
                icon=None,
            )
        else:
            st.caption("Concord: local, single user")
        st.text_input(
            "Your name",
            key=LOCAL_NAME,
            max_chars=roles.MAX_FIELD,
            help="Recorded with the notes, guideline changes, acknowledgements and unloads of this session.",
        )


def _roles_in_use() -> None:
    """The roles file's lines, for a lead (edited in the file, never here)."""
    path = roles.roles_file()
    members = roles.read_roles(path) if path else {}
    with st.expander(f"Roles in use ({len(members)})"):
        st.caption("Edited in the roles file (CONCORD_ROLES), never in the dashboard.")
        rows = [(m.email, m.role, m.rater_id or "") for m in members.values()]
        st.dataframe(pd.DataFrame(rows, columns=list(roles.HEADER)), hide_index=True)
