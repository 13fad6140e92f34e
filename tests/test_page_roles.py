"""AppTest of the dashboard signed in as each role (st.user as a provider's sign-in leaves it, with `[auth]` in the
secrets and CONCORD_ROLES naming a roles file): what each role sees and may change, the sign-in page before any
store is read, and refusals. The real sign-in through an OpenID provider is tests/e2e/test_sign_in.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from analytics.store import people
from tests.conftest import ROOT, click_downloads, connect_copy
from ui import identity
from ui.text import md_escape

AUTH = {  # the shape docs/deploy.md gives; no provider is reached in these tests
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "a-test-secret-of-some-length",
    "client_id": "concord",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ROLES = "email,role,rater_id\nlead@lab.org,lead,\nres@lab.org,researcher,r01\nview@lab.org,viewer,\neli@lab.org,contractor,c06\n"
WRITE_BUTTONS = {
    "mk_add",
    "mk_remove_button",
    "unload_ask",
    "cons_recheck",
    "dataset_load",
    "ov_alarms_ack",
    "plan_issue",
}


@pytest.fixture
def roles_file(tmp_path, monkeypatch) -> Path:
    """A roles file named by CONCORD_ROLES."""
    path = tmp_path / "roles.csv"
    path.write_text(ROLES, encoding="utf-8")
    monkeypatch.setenv("CONCORD_ROLES", str(path))
    return path


def signed_in(email: str | None, page: str | None = None) -> AppTest:
    """app.py run once with sign-in configured, as `email` (None: nobody signed in), opened on `page`."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": False} if email is None else {"is_logged_in": True, "email": email, "name": email}
    return (at.switch_page(page) if page else at).run()


def texts(at: AppTest) -> str:
    """Everything the run sent to the browser (both the main area and the sidebar, tables and charts' data too),
    as it reads: markdown's escapes undone."""
    out: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(proto.SerializeToString().decode("utf-8", "ignore"))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return re.sub(r"\\([^\w\s])", r"\1", "\n".join(out).replace("\u2060", ""))  # markdown escapes undone


def buttons(at: AppTest) -> set[str]:
    """The keys of the buttons drawn (form submit buttons too)."""
    keys = {b.key for b in at.button} | {b.key for b in at.get("form_submit_button") if hasattr(b, "key")}
    return {k for k in keys if k}


def refused(at: AppTest) -> str:
    """The one sentence of the run's error, or '' when it shows none."""
    return at.error[0].value if len(at.error) else ""


def test_an_anonymous_visitor_sees_the_sign_in_page_and_no_store_is_opened(roles_file, tmp_path, monkeypatch):
    db = tmp_path / "never.duckdb"
    monkeypatch.setenv("CONCORD_DB", str(db))
    at = signed_in(None)
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert at.title[0].value == "Concord" and "Sign in to see the dashboard." in at.markdown[0].value
    assert not db.exists()  # the store was never opened (nor the demo loaded): nothing is read before sign-in
    assert not len(at.sidebar.text_input) and not at.get("multiselect")


def test_no_identity_set_beside_sign_in_is_believed(roles_file, shared_app_store):
    """No test seam to refuse: the identity a page reads is the one gate() derives from st.user each run, so one
    put in the session state (as a test or a stale session might) is overwritten, or never reached."""
    lead = identity.Identity(role="lead", email="lead@lab.org", signed_in=True)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": False}
    at.session_state[identity.KEY] = lead
    at.run()
    assert [b.label for b in at.button] == ["Sign in"] and not at.dataframe
    at.user = {"is_logged_in": True, "email": "view@lab.org"}
    at.session_state[identity.KEY] = lead
    at.switch_page("app_pages/data.py").run()
    assert at.session_state[identity.KEY].role == "viewer" and "Load files" not in texts(at)


def test_an_email_not_in_the_roles_file_is_refused_in_one_sentence(roles_file, tmp_path, monkeypatch):
    db = tmp_path / "never.duckdb"
    monkeypatch.setenv("CONCORD_DB", str(db))
    at = signed_in("stranger@else.org")
    assert refused(at) == md_escape("stranger@else.org is not in this dashboard's roles file: ask its lead to add you.")
    assert [b.label for b in at.button] == ["Log out"]
    assert not db.exists()


def test_a_bad_roles_file_refuses_everyone_and_the_log_names_file_line_and_field(roles_file, caplog):
    roles_file.write_text("email,role,rater_id\nlead@lab.org,boss,\n", encoding="utf-8")
    at = signed_in("lead@lab.org")
    assert refused(at) == md_escape(
        "This dashboard's roles file cannot be used, so nobody can be let in: the server's log says why."
    )
    assert str(roles_file) not in texts(at)  # the server's path stays in its log
    assert f"{roles_file}, line 2, field role: 'boss' is not one of" in caplog.text


def test_sign_in_without_a_roles_file_refuses_everyone(monkeypatch):
    monkeypatch.delenv("CONCORD_ROLES", raising=False)
    assert refused(signed_in("lead@lab.org")) == md_escape(
        "Sign-in is configured but no roles file is named (CONCORD_ROLES), so nobody can be let in."
    )


def test_a_lead_sees_every_page_and_every_write(roles_file, shared_app_store):
    at = signed_in("lead@lab.org", "app_pages/data.py")
    assert not at.exception, at.exception
    shown = texts(at)
    assert "Signed in as lead@lab.org (lead)" in shown and "Roles in use (4)" in shown
    assert "eli@lab.org" in shown  # the roles in use, for the lead
    assert "Load files" in shown and "Unload a file" in shown and {"unload_ask", "dataset_load"} & buttons(at)
    at = signed_in("lead@lab.org", "app_pages/overview.py")
    assert {"mk_add", "ov_alarms_ack"} <= buttons(at)
    assert not refused(signed_in("lead@lab.org", "app_pages/explore.py"))
    assert "plan_issue" in buttons(signed_in("lead@lab.org", "app_pages/plan.py"))


def test_a_researcher_changes_all_but_unloads(roles_file, shared_app_store):
    at = signed_in("res@lab.org", "app_pages/data.py")
    shown = texts(at)
    assert "Load files" in shown and "Unload a file" not in shown and "unload_ask" not in buttons(at)
    assert "Roles in use" not in shown
    assert {"mk_add", "ov_alarms_ack"} <= buttons(signed_in("res@lab.org", "app_pages/overview.py"))
    assert not refused(signed_in("res@lab.org", "app_pages/explore.py"))


@pytest.mark.parametrize("name", ["overview", "data", "disagreements", "consistency", "feedback", "plan"])
def test_a_viewer_reads_and_downloads_but_writes_nothing(roles_file, shared_app_store, name):
    at = signed_in("view@lab.org", f"app_pages/{name}.py")
    assert not at.exception and not refused(at), (at.exception, refused(at))
    assert not buttons(at) & WRITE_BUTTONS and "Load files" not in texts(at)
    assert not at.get("form_submit_button") or name != "disagreements"  # no note form
    assert at.get("download_button") or len(at.dataframe)  # reads (downloads are offered beside tables)


def test_a_viewer_has_no_explore(roles_file, shared_app_store):
    at = signed_in("view@lab.org", "app_pages/explore.py")  # a page outside the role's navigation: its first page
    assert [t.value for t in at.title] == ["Overview"] and not at.text_area


def test_a_page_run_by_a_role_not_allowed_it_stops_with_one_sentence():
    at = AppTest.from_string(
        "import streamlit as st\n"
        "from ui import identity\n"
        "st.session_state[identity.KEY] = identity.Identity(role='viewer', email='v@lab.org', signed_in=True)\n"
        "identity.require('page:explore')\n"
        "st.text_area('SQL')\n",
        default_timeout=30,
    ).run()
    assert refused(at) == "Your role (viewer) does not give access to this." and not at.text_area
    alone = AppTest.from_string(  # a page run without app.py's gate, sign-in configured: nobody, no right
        "from ui import identity\nidentity.require('download')\n", default_timeout=30
    )
    alone.secrets["auth"] = AUTH
    assert refused(alone.run()) == "Sign in to see this."


@pytest.fixture
def offered(monkeypatch) -> list[bytes]:
    """Every file a download button offered during the test, as written when clicked."""
    files: list[bytes] = []
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        files.append(path_or_data if isinstance(path_or_data, bytes) else str(path_or_data).encode())
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return files


def test_a_contractor_sees_only_their_own_card_and_no_other_contractor(
    roles_file, shared_app_store, demo_store, tmp_path, download_buttons, offered
):
    at = signed_in("eli@lab.org")  # the default page is their only one
    assert not at.exception, at.exception
    assert at.title[0].value == "Feedback"
    assert not at.get("selectbox") or "fb_contractor" not in {s.key for s in at.selectbox}
    with connect_copy(demo_store, tmp_path / "copy.duckdb") as con:
        names = people.display_names(con)
        contractors = [
            r for (r,) in con.execute("SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor'").fetchall()
        ]
    click_downloads(at, download_buttons)  # the report in HTML, Markdown and CSV, and every table's CSV
    assert len(offered) >= 3
    shown = texts(at) + "\n".join(f.decode("utf-8", "ignore") for f in offered)
    assert "c06" in shown and names["c06"] in shown
    others = [c for c in contractors if c != "c06"]
    leaked = [c for c in others if re.search(rf"\b{c}\b", shown)] + [
        names[c] for c in others if names.get(c, c) in shown
    ]
    assert not leaked, leaked
    assert not buttons(at) & WRITE_BUTTONS and "Acknowledge an alarm" not in shown
    assert "SQL behind this page" not in shown


@pytest.mark.parametrize("name", ["overview", "agreement", "raters", "data", "explore", "disagreements"])
def test_a_contractor_opening_another_page_gets_their_card(roles_file, shared_app_store, name):
    at = signed_in("eli@lab.org", f"app_pages/{name}.py")
    assert [t.value for t in at.title] == ["Feedback"] and "fb_contractor" not in {s.key for s in at.selectbox}
