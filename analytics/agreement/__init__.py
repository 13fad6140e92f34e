"""Agreement between raters, as a package that reads top to bottom:

    pairs.py         the one pairing: who is compared with whom under which filter, counted per task (SQL)
    counts.py        per-unit value counts grouped by task, rater level counts (SQL)
    scales.py        declared scales: levels in order, values, level of measurement
    coefficients.py  every coefficient from sufficient statistics (numpy)
    intervals.py     task-level bootstrap and Wilson intervals
    report.py        the assembly: per dimension, per rater, pooled, ceiling, rater pairs
    team.py          the team median and the researcher ceiling as yardsticks
    views.py         one dimension's confusion matrix, kappa-paradox diagnostic, rater x rater matrix
    contract.py      the command line's JSON and text

Pages, the command line, the benchmark and notebooks import from here.
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
from analytics.agreement.intervals import DELTA_MIN_TASKS
from analytics.agreement.pairs import COMPARISONS
from analytics.agreement.report import (
    DIMENSION_COLUMNS,
    DIMENSION_STATS,
    LABELS,
    LONG_COLUMNS,
    MIN_TASKS,
    MIN_UNITS,
    PAIR_SET_COLUMNS,
    RATER_COLUMNS,
    RATER_STATS,
    AgreementReport,
    Ceiling,
    agreement_report,
    ceiling_scope,
    ceiling_table,
    dimension_agreement,
    pooled_table,
    rater_agreement,
    rater_pairs_table,
    researcher_ceiling,
)
from analytics.agreement.scales import Scale, ScaleError
from analytics.agreement.views import confusion_matrix, confusion_table, pairwise_matrix, paradox_diagnostic
from analytics.core.rater_ids import needs_rater_ids

__all__ = [
    "COMPARISONS",
    "DIMENSION_COLUMNS",
    "DIMENSION_STATS",
    "LABELS",
    "LEVELS",
    "LONG_COLUMNS",
    "MIN_TASKS",
    "DELTA_MIN_TASKS",
    "MIN_UNITS",
    "PAIR_SET_COLUMNS",
    "RATER_COLUMNS",
    "RATER_STATS",
    "AgreementReport",
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
    "fleiss_kappa",
    "gwet_ac",
    "gwet_ac_se",
    "kappa_paradox",
    "kendall_tau_b",
    "krippendorff_alpha",
    "needs_rater_ids",
    "pair_gwet_ac",
    "pairwise_matrix",
    "paradox_diagnostic",
    "percent_agreement",
    "pooled_table",
    "rater_agreement",
    "rater_pairs_table",
    "researcher_ceiling",
]
