"""The roles file (CONCORD_ROLES: email,role,rater_id) and the one table of pages and actions by role: parsing,
the message naming file, line and field for a bad line, the rules of issue 49, and docs/deploy.md agreeing with
the table."""

from __future__ import annotations

import re

import pytest

from analytics.access import roles
from tests.conftest import ROOT

GOOD = "email,role,rater_id\nLead@Lab.org,lead,\nres@lab.org, researcher ,r01\n\nview@lab.org,viewer,\neli@lab.org,contractor,c06\n"


def test_a_roles_file_is_read_by_lower_case_email():
    members = roles.parse_roles(GOOD, "roles.csv")
    assert members == {
        "lead@lab.org": roles.Member("lead@lab.org", "lead", None),
        "res@lab.org": roles.Member("res@lab.org", "researcher", "r01"),
        "view@lab.org": roles.Member("view@lab.org", "viewer", None),
        "eli@lab.org": roles.Member("eli@lab.org", "contractor", "c06"),
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mail,role\nx@y.z,lead\n", "roles.csv, line 1, field header: the first line must be email,role,rater_id."),
        ("", "roles.csv, line 1, field header: the first line must be email,role,rater_id."),
        ("email,role,rater_id\na@b.c,lead,\nboss,lead,\n", "roles.csv, line 3, field email: 'boss' is not an email"),
        ("email,role,rater_id\na@b.c,boss,\n", "roles.csv, line 2, field role: 'boss' is not one of lead, researcher"),
        ("email,role,rater_id\na@b.c,contractor,\n", "roles.csv, line 2, field rater_id: a contractor needs"),
        ("email,role,rater_id\na@b.c,lead,,x\n", "roles.csv, line 2, field email: 4 fields where"),
        ("email,role,rater_id\na@b.c,lead,\nA@B.C,viewer,\n", "roles.csv, line 3, field email: a@b.c is already"),
        (f"email,role,rater_id\na@b.c,contractor,{'c' * 300}\n", "roles.csv, line 2, field rater_id: longer than"),
    ],
)
def test_a_bad_line_is_refused_naming_file_line_and_field(text, message):
    with pytest.raises(roles.RolesError) as e:
        roles.parse_roles(text, "roles.csv")
    assert str(e.value).startswith(message)


def test_a_missing_file_is_one_readable_error_and_an_edited_file_is_read_again(tmp_path):
    path = tmp_path / "roles.csv"
    with pytest.raises(roles.RolesError, match=r"roles.csv: the roles file cannot be read \(No such file"):
        roles.read_roles(str(path))
    path.write_text("email,role,rater_id\na@b.c,viewer,\n", encoding="utf-8")
    assert roles.read_roles(str(path))["a@b.c"].role == "viewer"
    path.write_text("email,role,rater_id\na@b.c,researcher,\n", encoding="utf-8")  # a size change is an edit
    assert roles.read_roles(str(path))["a@b.c"].role == "researcher"


def test_the_rules_of_each_role():
    every = {r.key for r in roles.RULES}
    lead = {a for a in every if roles.allowed("lead", a)}
    assert lead == every  # a lead sees and changes everything, and the roles in use
    researcher = {a for a in every if roles.allowed("researcher", a)}
    assert every - researcher == {"unload", "feedback_event", "roles_in_use"}
    viewer = {a for a in every if roles.allowed("viewer", a)}
    assert viewer == {k for k in every if k.startswith("page:") and k != "page:explore"} | {
        "download",
        "follow_ups",
        "other_raters",
    }
    contractor = {a for a in every if roles.allowed("contractor", a)}
    assert contractor == {"page:feedback", "download"}
    assert roles.pages_for("contractor") == ["feedback"] and "explore" not in roles.pages_for("viewer")


def test_an_action_outside_the_table_is_a_programming_error():
    with pytest.raises(KeyError, match="no rule for 'unlaod'"):
        roles.allowed("lead", "unlaod")


def test_docs_deploy_lists_each_page_and_action_with_the_tables_roles():
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_:]+)` \| [^|]+ \|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|$", text, re.M)
    documented = {
        key: {role for role, cell in zip(roles.ROLES, cells, strict=True) if cell.strip()} for key, *cells in rows
    }
    assert documented == {r.key: set(r.roles) for r in roles.RULES}


def test_every_page_file_has_its_rule_and_calls_its_gate():
    files = {p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "app_pages").glob("*.py")}
    assert set(roles.pages_for("lead")) == set(files)  # a new page adds its line to the table
    for name, text in files.items():
        assert f'identity.require("page:{name}")' in text, name
