"""The command line's agreement JSON (DESIGN.md contract) and its readable text form.

Keys are added, never renamed: dimensions[] (all raters per dimension), raters[] (each contractor against
researchers), pooled[] (all contractors against researchers), ceiling[] (researcher pairs), rater_pairs[] (each
pair of raters, only on request: it grows with the square of the raters, DESIGN.md), every row with n_units and
n_tasks, the top level with min_tasks and a stamp saying what the figures were computed on, and needs_rater_ids[]
naming the dimensions whose labels came without rater ids (analytics/core/rater_ids.py) and the figures left out
for them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import report
from analytics.agreement.rows import MIN_TASKS
from analytics.agreement.scales import headline, not_headline_note
from analytics.agreement.spec import AgreementSpec
from analytics.core import rater_ids as an
from analytics.core.concurrent import side_by_side
from analytics.core.formatting import fmt, fmt_ci
from analytics.core.queries import QueryLog
from analytics.store.stamp import stamp

# Statistics that do not apply to multi-rater value counts (they need a subject and a reference side).
PAIR_ONLY = ("n_pairs", "cohen_kappa", "weighted_kappa", "mean_difference", "kendall_tau_b", "preference_agreement")
CONTRACT_CI = "cohen_kappa"  # the raters[] entry's `ci95` is the interval of Cohen's kappa (docs/agreement.md)
NOT_HEADLINE = "not shown"  # a text cell of an unweighted coefficient on a fine interval or ratio scale


def plain(v: Any) -> Any:
    """A JSON-ready Python value: NaN and NaT -> None, numpy scalars -> Python numbers, timestamps -> ISO text."""
    if v is pd.NaT:
        return None
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def records(df: pd.DataFrame, drop: tuple[str, ...] = ()) -> list[dict]:
    """Rows of a frame as JSON-ready dicts, without the `drop` statistics and their intervals."""
    cols = [c for c in df.columns if not any(c == d or c.startswith(f"{d}_ci_") for d in drop)]
    return [{c: plain(v) for c, v in zip(cols, row, strict=True)} for row in df[cols].itertuples(index=False)]


# Where each table starts, as a share of the payload's time (from the tables' measured times, bench/RESULTS.md),
# for its progress.
TABLE_STARTS = {"dimensions": 0.0, "raters": 0.17, "pooled": 0.21, "rater pairs": 0.25}


def contract_payload(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec = report.DEFAULT_SPEC,
    progress: Callable[[float, str], None] | None = None,
    pairs: bool = False,
    min_shared: int = 1,
) -> dict:
    """The `agreement --json` object (DESIGN.md, command line) under the spec's filter, levels, resamples and seed
    (every table names its own comparison); with `pairs`, rater_pairs[] too: each pair sharing at least
    `min_shared` units. `progress` hears the share done and the table under way as each table starts, and 1.0 at
    the end."""
    if min_shared < 1:
        raise ValueError(f"min_shared must be 1 or more, not {min_shared}")
    filters, level, coarse, n_boot, seed = spec.filters, spec.level, spec.coarse, spec.n_boot, spec.seed
    heard = progress or (lambda share, what: None)
    end = 1.0 if pairs else TABLE_STARTS["rater pairs"]  # without rater pairs the tables before them are the whole

    def say(start: float, what: str) -> None:
        heard(min(start / end, 1.0), what)

    log = QueryLog()  # one log: a statistic the tables share (dimensions with several targets, level counts) runs once
    side = isinstance(con, duckdb.DuckDBPyConnection)  # another engine (Spark) routes each statement itself
    dims_log = QueryLog() if side else log  # one log is one thread's

    def among_all(c: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame]:
        dims = report.dimension_agreement(c, spec.but(comparison="all_raters"), dims_log)
        return dims, report.ceiling_table(c, spec, queries=dims_log)

    def against_researchers(c: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame]:
        say(TABLE_STARTS["raters"], "each contractor against researchers")
        raters = report.rater_agreement(c, spec.but(comparison="contractor_vs_researcher"), queries=log)
        say(TABLE_STARTS["pooled"], "all contractors against researchers")
        return raters, report.pooled_table(c, spec, log)

    say(TABLE_STARTS["dimensions"], "agreement among all raters per dimension and among researchers")
    if side:
        # The multi-rater figures (numpy) and the pairings' queries (DuckDB) release the GIL: side by side on the
        # two cores, about 0.5 s a side at 1M tasks (dimensions 0.25 s and ceiling 0.3 s; raters 0.55 s and pooled
        # 0.4 s: bench/RESULTS.md).
        (dims, ceiling), (raters, pooled) = side_by_side(con, among_all, against_researchers)
    else:
        dims, ceiling = among_all(con)
        raters, pooled = against_researchers(con)
    pair_rows = None
    if pairs:
        say(TABLE_STARTS["rater pairs"], "each pair of raters")
        pair_rows = report.rater_pairs_table(con, spec, log)
        pair_rows = pair_rows[pair_rows["n_units"] >= min_shared]
    anonymous = an.needs_rater_ids(con, filters, log)
    say(1.0, "done")
    rater_rows = records(raters)
    for row in rater_rows:
        row["ci95"] = [row[f"{CONTRACT_CI}_ci_low"], row[f"{CONTRACT_CI}_ci_high"]]
        row["ci95_of"] = CONTRACT_CI
    comparison = {
        "dimensions": "all_raters",
        "raters": "contractor_vs_researcher",
        "pooled": "every contractor-researcher pair on a shared unit",
        "ceiling": "every researcher pair on a shared unit, all dates",
    }
    if pair_rows is not None:
        comparison["rater_pairs"] = f"each pair of raters on at least {min_shared} shared unit(s)"
    payload = {
        "comparison": comparison,
        "level": level or "declared scale of each dimension",
        "coarse": coarse,
        "n_boot": n_boot,
        "seed": seed,
        "min_tasks": MIN_TASKS,
        "min_units": MIN_TASKS,
        "stamp": stamp(con, filters, level, coarse, n_boot, seed),
        "dimensions": records(dims, drop=PAIR_ONLY),
        "raters": rater_rows,
        "pooled": records(pooled),
        "ceiling": records(ceiling),
        "needs_rater_ids": anonymous,
    }
    if pair_rows is not None:
        payload["rater_pairs"] = records(pair_rows)
        payload["min_shared"] = min_shared
    return payload


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two payloads (or any JSON-like values) differ, numbers to 1e-9 and NaN equal to NaN; empty when they
    hold the same figures (the Spark engine's parity tests and benchmark compare the two engines with it)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{where}: {len(a)} vs {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{where}[{i}]")]
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or not (math.isclose(a, b, rel_tol=0, abs_tol=1e-9) or (a != a and b != b)):
            return [f"{where}: {a!r} vs {b!r}"]
        return []
    return [] if a == b else [f"{where}: {a!r} vs {b!r}"]


def _fmt(v: Any, ci: tuple[Any, Any] | None = None) -> str:
    """A cell of the text tables: numbers by analytics.formatting, with the interval where asked."""
    if isinstance(v, float):
        lo, hi = ci or (None, None)
        return fmt_ci(v, lo, hi, 3, 2, missing="-")
    return fmt(v, missing="-")


def contract_text(payload: dict) -> str:
    """The readable tables the command line prints without --json."""
    lines = ["Agreement among all raters, per dimension"]
    dcols: tuple[str, ...] = ("rubric", "dimension", "level", "n_units", "n_tasks", "n_raters", "percent_agreement")
    dcols += ("krippendorff_alpha", "fleiss_kappa", "fleiss_kappa_name", "gwet_ac1", "gwet_ac2")
    lines += _text_table(payload["dimensions"], dcols, ("krippendorff_alpha",), payload["min_tasks"])
    pair_cols = ("n", "n_units", "n_tasks", "exact_agreement", "coarse_agreement", "cohen_kappa", "weighted_kappa")
    sections = (
        ("Each contractor against researcher labels", "raters", ("rater_id", "rubric", "dimension")),
        ("All contractors against researchers (pooled)", "pooled", ("rubric", "dimension")),
        (
            "Researcher-researcher agreement (pooled researcher pairs; a reference, not a bound)",
            "ceiling",
            ("rubric", "dimension"),
        ),
        ("Each pair of raters", "rater_pairs", ("rater_a", "rater_b", "rubric", "dimension")),
    )
    for title, key, lead in sections:
        if key not in payload:
            lines += ["", f"{title}: not computed (add --pairs; its size grows with the square of the raters)"]
            continue
        lines += ["", title]
        rows = payload[key]
        cols = (*lead, *[c for c in pair_cols if not rows or c in rows[0]])
        empty = "  (no shared units)"
        if any(key in an.NEEDS_RATER_IDS and _anonymous_side(key, e) for e in payload.get("needs_rater_ids", [])):
            empty = "  (none shown: raters without ids are left out, see 'Needs rater ids' below)"
        lines += _text_table(rows, cols, ("cohen_kappa",), payload["min_tasks"]) if rows else [empty]
    for entry in payload.get("needs_rater_ids", []):
        lines += [
            "",
            f"Needs rater ids: {entry['rubric']}/{entry['dimension']} ({entry['n_positions']} anonymous positions): "
            f"{', '.join(entry['figures'])} left out; {entry['reason']}",
        ]
    return "\n".join(lines)


def _anonymous_side(key: str, entry: dict) -> bool:
    """Whether a section's subjects include the entry's anonymous raters (contractors for raters[], researchers
    for the ceiling, anyone for rater pairs)."""
    role = {"raters": "contractor", "ceiling": "researcher"}.get(key)
    return role is None or role in entry["roles"]


def _cell(r: dict, c: str, with_ci: tuple[str, ...]) -> str:
    """One cell of a text table: the value (with its own interval where asked), or NOT_HEADLINE for an unweighted
    coefficient on a fine interval or ratio scale (scales.headline)."""
    if r.get("level") is not None and r.get("n_levels") is not None and not headline(c, r["level"], r["n_levels"]):
        return NOT_HEADLINE
    return _fmt(r.get(c), (r.get(f"{c}_ci_low"), r.get(f"{c}_ci_high")) if c in with_ci else None)


def _text_table(rows: list[dict], cols: tuple[str, ...], with_ci: tuple[str, ...], min_tasks: int) -> list[str]:
    cells = [[_cell(r, c, with_ci) for c in cols] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    out = ["  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    out += ["  " + "  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)) for row in cells]
    out += [
        f"  note: {r['rubric']}/{r['dimension']}{' ' + r['rater_id'] if 'rater_id' in r else ''}: {r['notes']}"
        for r in rows
        if r.get("notes")
    ]
    fine = {
        (r["rubric"], r["dimension"]): not_headline_note(r["level"], r["n_levels"])
        for r in rows
        if r.get("level") is not None and r.get("n_levels") is not None
    }
    out += [f"  note: {rb}/{d}: {why}; --json has them" for (rb, d), why in fine.items() if why]
    if any(r.get("small_n") for r in rows):
        out.append(f"  small n (< {min_tasks} tasks): indicative only, read the interval")
    return out
