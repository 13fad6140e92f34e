"""Agreement between raters, as a package that reads top to bottom:

    sides.py         who is compared with whom under which filter: every filter rule of the pairing
    pairing.py       the one pairing as SQL, and the queries read straight off its pairs
    task_lists.py    SQL grouping tasks by signature lists
    pair_plans.py    the pairing counted per task signature, in the plan that fits (SQL)
    engine.py        the Engine a pairing runs on (DuckDB's; the Spark engine is one too)
    signatures.py    a pairing run and decoded into each group's task signatures
    counts.py        per-unit value counts grouped by task, rater level counts (SQL)
    scales.py        declared scales: levels in order, values, level of measurement
    coefficients.py  every coefficient from sufficient statistics (numpy)
    intervals.py     task-level bootstrap and Wilson intervals
    rows.py          a report's statistics, columns and labels; coefficients as wide and long rows
    pair_rows.py     pair coefficients of groups of pairs, with their intervals
    multi_rater.py   multi-rater coefficients of a dimension, with their intervals
    spec.py          AgreementSpec: what one computation is asked for (the pages' cache key)
    report.py        the assembly: per dimension, per rater, pooled, ceiling, rater pairs
    team.py          the team median and the researcher ceiling as yardsticks
    views.py         one dimension's confusion matrix, kappa-paradox diagnostic, rater x rater matrix
    contract.py      the command line's JSON and text

The level-count codec the pairing packs with is analytics/core/packing.py. Pages, the command line, the benchmark and
notebooks import from here.
"""

from analytics.agreement.coefficients import (
    LEVELS,
    Coefficient,
    ParadoxDiagnostic,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_kappa,
    gwet_ac,
    gwet_ac_se,
    kappa_paradox,
    kendall_tau_b,
    krippendorff_alpha,
    pair_gwet_ac,
    percent_agreement,
)
from analytics.agreement.contract import contract_payload, contract_text
from analytics.agreement.intervals import DELTA_MIN_TASKS, MIN_INTERVAL_TASKS
from analytics.agreement.report import (
    AgreementReport,
    Ceiling,
    agreement_report,
    ceiling_table,
    dimension_agreement,
    dimension_report,
    pooled_table,
    rater_agreement,
    rater_pairs_table,
    rater_points_report,
    researcher_ceiling,
)
from analytics.agreement.rows import (
    DIMENSION_COLUMNS,
    DIMENSION_STATS,
    LABELS,
    LONG_COLUMNS,
    MIN_TASKS,
    MIN_UNITS,
    PAIR_SET_COLUMNS,
    RATER_COLUMNS,
    RATER_STATS,
)
from analytics.agreement.scales import Scale, ScaleError, headline, not_headline_note
from analytics.agreement.sides import COMPARISON_ROLES, ceiling_scope, narrows_team, team_filters
from analytics.agreement.spec import AgreementSpec
from analytics.agreement.views import confusion_matrix, confusion_table, pairwise_matrix, paradox_diagnostic
from analytics.core.rater_ids import needs_rater_ids

__all__ = [
    "COMPARISON_ROLES",
    "DIMENSION_COLUMNS",
    "DIMENSION_STATS",
    "LABELS",
    "LEVELS",
    "LONG_COLUMNS",
    "MIN_TASKS",
    "DELTA_MIN_TASKS",
    "MIN_INTERVAL_TASKS",
    "MIN_UNITS",
    "PAIR_SET_COLUMNS",
    "RATER_COLUMNS",
    "RATER_STATS",
    "AgreementReport",
    "AgreementSpec",
    "Ceiling",
    "Coefficient",
    "ParadoxDiagnostic",
    "Scale",
    "ScaleError",
    "agreement_report",
    "brennan_prediger",
    "ceiling_scope",
    "ceiling_table",
    "cohen_kappa",
    "confusion_matrix",
    "confusion_table",
    "conger_kappa",
    "contract_payload",
    "contract_text",
    "dimension_agreement",
    "dimension_report",
    "fleiss_kappa",
    "gwet_ac",
    "gwet_ac_se",
    "headline",
    "kappa_paradox",
    "kendall_tau_b",
    "krippendorff_alpha",
    "narrows_team",
    "needs_rater_ids",
    "not_headline_note",
    "pair_gwet_ac",
    "pairwise_matrix",
    "paradox_diagnostic",
    "percent_agreement",
    "pooled_table",
    "rater_agreement",
    "rater_pairs_table",
    "rater_points_report",
    "researcher_ceiling",
    "team_filters",
]
