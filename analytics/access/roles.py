"""Who may do what: the roles file (CSV `email,role,rater_id`, named by CONCORD_ROLES, edited in the file and never
in the dashboard) and the one table of pages and actions with the roles allowed each (docs/deploy.md lists it)."""

from __future__ import annotations

import csv
import functools
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

ROLES_ENV = "CONCORD_ROLES"
LEAD, RESEARCHER, VIEWER, CONTRACTOR = "lead", "researcher", "viewer", "contractor"
ROLES = (LEAD, RESEARCHER, VIEWER, CONTRACTOR)
HEADER = ("email", "role", "rater_id")
MAX_FIELD = 200  # an email or rater id longer than this is a mistake in the file
EMAIL = re.compile(r"^[^@\s,]+@[^@\s,]+$")

READERS = frozenset({LEAD, RESEARCHER, VIEWER})
WRITERS = frozenset({LEAD, RESEARCHER})
EVERYONE = frozenset(ROLES)


class RolesError(ValueError):
    """A roles file that cannot be used; the message names the file, line and field."""


@dataclass(frozen=True)
class Member:
    """One line of the roles file: who signs in, as what, and (a contractor) whose ratings are theirs."""

    email: str
    role: str
    rater_id: str | None


@dataclass(frozen=True)
class Rule:
    """One page or action and the roles allowed it; `what` is how docs/deploy.md names it."""

    key: str
    what: str
    roles: frozenset[str]


# The one place for the rule: the pages, the navigation, the forms and docs/deploy.md all read this table.
RULES: tuple[Rule, ...] = (
    Rule("page:overview", "Overview page", READERS),
    Rule("page:agreement", "Agreement page", READERS),
    Rule("page:distributions", "Distributions page", READERS),
    Rule("page:disagreements", "Disagreements page", READERS),
    Rule("page:feedback", "Feedback page (a contractor: their own card only)", EVERYONE),
    Rule("page:consistency", "Consistency page", READERS),
    Rule("page:raters", "Raters page", READERS),
    Rule("page:plan", "Plan page (where researchers label next; issued plans)", READERS),
    Rule("page:explore", "Explore page (read-only SQL on every table)", WRITERS),
    Rule("page:data", "Data page (ingest log, quarantine, rater directory)", READERS),
    Rule("download", "Download a table or report shown on a page the role sees", EVERYONE),
    Rule("follow_ups", "Read follow-ups", READERS),
    Rule("other_raters", "See other raters: the sidebar's rater lists, team tables naming raters", READERS),
    Rule("upload", "Upload files, a scales file or a dataset (Data page)", WRITERS),
    Rule("unload", "Unload a file (Data page)", frozenset({LEAD})),
    Rule("note", "Save a review note on a disagreement (Disagreements page)", WRITERS),
    Rule("marker", "Add or remove a guideline change marker (Overview page)", WRITERS),
    Rule("recheck", "Check every submission against the rubric rules again (Consistency page)", WRITERS),
    Rule("acknowledge", "Acknowledge an alarm or withdraw it (Overview and Feedback pages)", WRITERS),
    Rule("feedback_event", "Mark a report card as sent, a feedback event (Feedback page)", frozenset({LEAD})),
    Rule("labelling_plan", "Issue or withdraw a labelling plan (Plan page)", WRITERS),
    Rule("roles_in_use", "See the roles in use (the roles file's lines, in the sidebar)", frozenset({LEAD})),
)
TABLE: dict[str, Rule] = {rule.key: rule for rule in RULES}


def allowed(role: str, action: str) -> bool:
    """Whether `role` may see or do `action` (a key of TABLE; an unknown key is a programming error)."""
    if action not in TABLE:
        raise KeyError(f"no rule for {action!r} in analytics/access/roles.py")
    return role in TABLE[action].roles


def pages_for(role: str) -> list[str]:
    """The pages `role` may see, by name (page:overview gives overview), in the table's order."""
    return [r.key.removeprefix("page:") for r in RULES if r.key.startswith("page:") and role in r.roles]


def _field_error(name: str, line: int, field: str, problem: str) -> RolesError:
    """The one message of a bad line: file, line, field and what is wrong."""
    return RolesError(f"{name}, line {line}, field {field}: {problem}.")


def _member(name: str, line: int, row: list[str]) -> Member:
    """One data line as a Member, or the error naming its line and field."""
    if len(row) != len(HEADER):
        raise _field_error(name, line, "email", f"{len(row)} fields where email,role,rater_id are 3")
    email, role, rater_id = (cell.strip() for cell in row)
    for field, value in zip(HEADER, (email, role, rater_id), strict=True):
        if len(value) > MAX_FIELD:
            raise _field_error(name, line, field, f"longer than {MAX_FIELD} characters")
    if not EMAIL.match(email):
        raise _field_error(name, line, "email", f"{email!r} is not an email address")
    if role.lower() not in ROLES:
        raise _field_error(name, line, "role", f"{role!r} is not one of {', '.join(ROLES)}")
    if role.lower() == CONTRACTOR and not rater_id:
        raise _field_error(name, line, "rater_id", "a contractor needs their rater id")
    return Member(email.lower(), role.lower(), rater_id or None)


def parse_roles(text: str, name: str) -> dict[str, Member]:
    """The members of a roles file's text by lower-case email; `name` is how messages name the file."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None or tuple(c.strip().lower() for c in header) != HEADER:
        raise _field_error(name, 1, "header", "the first line must be email,role,rater_id")
    members: dict[str, Member] = {}
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        member = _member(name, line, row)
        if member.email in members:
            raise _field_error(name, line, "email", f"{member.email} is already given a role above")
        members[member.email] = member
    return members


@functools.lru_cache(maxsize=4)
def _read(path: str, stamp: tuple[int, int]) -> dict[str, Member]:
    """The parsed file at `path` as it was at `stamp` (modification time and size): an edit is read again."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise RolesError(f"{path}: the roles file cannot be read ({getattr(e, 'strerror', None) or e}).") from e
    return parse_roles(text, path)


def read_roles(path: str) -> dict[str, Member]:
    """The roles file at `path`, read again whenever it changes."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise RolesError(f"{path}: the roles file cannot be read ({e.strerror}).") from e
    return _read(path, (st.st_mtime_ns, st.st_size))


def roles_file() -> str | None:
    """The roles file CONCORD_ROLES names, or None when it names none."""
    return os.environ.get(ROLES_ENV) or None
