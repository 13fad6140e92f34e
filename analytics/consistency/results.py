"""Rule results kept per submission: checked at ingest, on demand, and whenever the rules themselves change.

`rule_results` holds one row per (rule, submission the rule applies to). A load re-checks the rubrics it
brought submissions for, inside its own transaction (a rule may compare a submission with the same
contractor's other ones, so a rubric is checked whole); an unload re-checks the rubrics it took submissions
from. `meta.rules_signature` names the rules the kept results were computed with: when the code's rules differ
(a store from before a rule existed), `current` computes them again.
"""

from __future__ import annotations

import hashlib

import duckdb
import pandas as pd

from analytics.consistency import catalogue
from analytics.core.queries import Query
from analytics.store import tx

SIGNATURE_KEY = "rules_signature"
RESULT_COLUMNS = ("rule_id", "rubric", "submission_id", "violated", "detail")
FOUND = "rule_results_found"  # the relation of results computed but not kept (a read-only, outdated store)


def signature() -> str:
    """A fingerprint of the rules in the code: their ids and descriptions."""
    text = "\n".join(f"{r.rule_id}\t{r.rubric}\t{r.description}" for r in catalogue.rules())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check(con: duckdb.DuckDBPyConnection, rubrics: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Run the rules of `rubrics` (None: every rubric) on the store's submissions: RESULT_COLUMNS."""
    frames = []
    for r in catalogue.rules():
        if rubrics is not None and r.rubric not in rubrics:
            continue
        found = r.check(con)
        if len(found):
            frames.append(found[list(catalogue.CHECK_COLUMNS)].assign(rule_id=r.rule_id, rubric=r.rubric))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=bool if c == "violated" else str) for c in RESULT_COLUMNS})
    out = pd.concat(frames, ignore_index=True)[list(RESULT_COLUMNS)]
    out["violated"] = out["violated"].astype(bool)
    out["detail"] = out["detail"].fillna("").astype(str)
    return out


def refresh(con: duckdb.DuckDBPyConnection, rubrics: tuple[str, ...] | None = None) -> int:
    """Check `rubrics` again (None: all, and record the rules' signature) and keep the results; the caller
    holds the transaction. Returns the rows kept."""
    found = check(con, rubrics)
    if rubrics is None:
        con.execute("DELETE FROM rule_results")
        con.execute(
            "INSERT OR REPLACE INTO meta VALUES ($key, $signature)", {"key": SIGNATURE_KEY, "signature": signature()}
        )
    else:
        con.execute("DELETE FROM rule_results WHERE list_contains($rubrics, rubric)", {"rubrics": list(rubrics)})
    if len(found):
        con.register(FOUND, found)
        try:
            con.execute(f"INSERT INTO rule_results SELECT {', '.join(RESULT_COLUMNS)} FROM {FOUND}")
        finally:
            con.unregister(FOUND)
    return len(found)


def rubrics_with_rules() -> tuple[str, ...]:
    """The rubrics some rule checks."""
    return tuple(dict.fromkeys(r.rubric for r in catalogue.rules()))


def after_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """Check the rubrics a load brought submissions for (inside the load's transaction)."""
    touched = con.execute(
        "SELECT DISTINCT rubric FROM submissions WHERE ingest_id = $ingest_id AND list_contains($ruled, rubric)",
        {"ingest_id": ingest_id, "ruled": list(rubrics_with_rules())},
    ).fetchall()
    if not touched:
        return  # e.g. a canonical file of ratings only: no submission a rule reads (checked when one comes)
    if is_current(con):
        refresh(con, tuple(r for (r,) in touched))
    else:
        refresh(con)  # a new store, or one kept with other rules: every rubric, and the rules' signature


KEPT_SIGNATURE = Query("rules_signature_kept", "SELECT value FROM meta WHERE key = $key", {"key": SIGNATURE_KEY})


def is_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the kept results were computed with the code's rules."""
    row = KEPT_SIGNATURE.rows(con)
    return bool(row) and row[0][0] == signature()


def source(con: duckdb.DuckDBPyConnection) -> str:
    """The relation holding current rule results for `con`: the kept table, first checked again when it was
    kept with other rules; on a store open read-only, results computed now and registered under FOUND."""
    if is_current(con):
        return "rule_results"
    if _read_only(con):
        con.register(FOUND, check(con))
        return FOUND
    recheck(con)
    return "rule_results"


def _read_only(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store is open read-only (the command line's reports, a second viewer)."""
    row = con.execute("SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
    return bool(row and row[0][0])


def recheck(con: duckdb.DuckDBPyConnection) -> int:
    """Check every submission against every rule again and keep the results (on demand), in one transaction."""
    # The dataset version stays: the same rules on the same data give the same results, and the rules only
    # change with the code.
    with tx.write(con):
        return refresh(con)
