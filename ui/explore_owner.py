"""Which browser this is, when nobody is signed in: the key Explore's slots are counted under locally
(ui/identity.owner_key; analytics/explore/worker.py's per-owner limit).

Streamlit's XSRF cookie `_streamlit_xsrf` holds one random token per browser, shared by its tabs. Its text changes
from one page load to the next (the token is re-masked with 4 random bytes each time, "2|mask|masked|time"), so
the key is a hash of the unmasked token. Without the cookie (XSRF protection off, AppTest) the session is the
owner."""

from __future__ import annotations

import binascii
import hashlib

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

XSRF_COOKIE = "_streamlit_xsrf"


def browser_key() -> str:
    """This browser's key (its tabs share it), else this session's when there is no browser cookie."""
    cookie = _cookie(XSRF_COOKIE)
    token = browser_token(cookie) if cookie else None
    if token is not None:
        return "browser:" + hashlib.sha256(token).hexdigest()[:32]  # the token itself is a secret: kept hashed
    ctx = get_script_run_ctx()
    return "session:" + str(getattr(ctx, "session_id", "none"))


def browser_token(cookie: str) -> bytes | None:
    """The token of an XSRF cookie (version 2 "2|mask|masked|time" unmasked, version 1 as it is); None if unreadable."""
    value = cookie.strip("\"'")
    if not value.startswith("2|"):
        return value.encode("utf-8") or None
    try:
        _, mask_hex, masked_hex, _ = value.split("|")
        mask, masked = binascii.a2b_hex(mask_hex), binascii.a2b_hex(masked_hex)
    except (ValueError, binascii.Error):
        return None
    if len(mask) != 4 or not masked:
        return None
    return bytes(b ^ mask[i % 4] for i, b in enumerate(masked))


def _cookie(name: str) -> str | None:
    """A cookie of this session's browser (None outside a browser session)."""
    try:
        return st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no request context (a bare script run): no browser to key on
        return None
