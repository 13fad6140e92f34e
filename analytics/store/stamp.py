"""The stamp every figure set carries: what it was computed on, so a number can be traced and reproduced."""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

import duckdb

from analytics import __version__
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.core.rubrics import DEFAULT_LEVEL
from analytics.store.version import dataset_version


@lru_cache(maxsize=1)
def code_version() -> str:
    """The package version and, in a git checkout, the commit."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5
        )
        commit = out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{__version__}+{commit}" if commit else __version__


def _filters_dict(filters: Filters) -> dict:
    return {
        k: (list(v) if isinstance(v, tuple) else (v.isoformat() if hasattr(v, "isoformat") else v))
        for k, v in filters.__dict__.items()
    }


def stamp(
    con: duckdb.DuckDBPyConnection, filters: Filters, level: str | None, coarse: bool, n_boot: int, seed: int
) -> dict:
    """What a set of figures was computed on: dataset version, filters, scales used, resampling and the code."""
    q = Query(
        "scales_used",
        "SELECT * FROM dimensions WHERE ($rubric IS NULL OR rubric = $rubric) ORDER BY rubric, dimension",
        {"rubric": filters.rubric},
    )
    where, params = filters.where_named()
    rated = Query(
        "rated_dimensions",
        f"SELECT DISTINCT rubric, dimension FROM level_counts WHERE value_index IS NOT NULL AND {where}",
        params,
    )
    used = set(rated.rows(con))
    scales = []
    for _, r in q.df(con).iterrows():
        if (r["rubric"], r["dimension"]) not in used:
            continue
        measure = r.get("measure") if isinstance(r.get("measure"), str) else None
        scales.append(
            {
                "rubric": r["rubric"],
                "dimension": r["dimension"],
                "level": level or measure or DEFAULT_LEVEL.get(r["kind"], "nominal"),
                "levels": list(r["levels"]),
                "source": r.get("source"),
            }
        )
    return {
        "dataset_version": dataset_version(con),
        "filters": _filters_dict(filters),
        "level": level,
        "coarse": coarse,
        "scales": scales,
        "n_boot": n_boot,
        "seed": seed,
        "intervals": (
            "95% over tasks: Wilson at the effective number of tasks for proportions; the delta method on Fisher's z "
            "for kappa-type coefficients of two raters (none below 10 tasks); percentile bootstrap resampling tasks "
            "for multi-rater coefficients"
        ),
        "code_version": code_version(),
    }


def stamp_line(s: dict) -> str:
    """The stamp in one readable line (for exports)."""
    scales = ", ".join(f"{x['dimension']} {x['level']}" for x in s["scales"][:12])
    more = f" and {len(s['scales']) - 12} more" if len(s["scales"]) > 12 else ""
    filters = ", ".join(f"{k} {v}" for k, v in s["filters"].items() if v not in (None, [], ())) or "none"
    return (
        f"Dataset version {s['dataset_version']}; filters: {filters}; scales: {scales or 'none'}{more}; "
        f"{s['n_boot']} resamples, seed {s['seed']}; Concord {s['code_version']}."
    )
