"""The rubric documents' own rules as data: each rule's id, rubric, words and check (issue #14).

A rule's check reads the canonical tables and returns one row per submission the rule applies to (its
premise holds: e.g. every rated submission of the rubric, or every flagged one for the flag rule), with
CHECK_COLUMNS: whether the submission breaks the rule and, when it does, a one-line detail naming what.
Checks are SQL (named queries next to the rule) where they can be, Python where they must (near-duplicate
justifications). Each rubric's rules live in a module of this package named for the rubric; RULES collects them.
"""

from __future__ import annotations

from analytics.consistency import answer_comparison, article_likert, instruction_following, preference_ranking
from analytics.consistency.rule import CHECK_COLUMNS, Rule

# The modules that hold rules, one per rubric document (each has a module-level RULES tuple).
RULE_MODULES = (answer_comparison, instruction_following, preference_ranking, article_likert)
__all__ = ["CHECK_COLUMNS", "RULE_MODULES", "Rule", "rule", "rules"]


def rules() -> tuple[Rule, ...]:
    """Every rule of every rubric, in catalogue order."""
    return tuple(r for module in RULE_MODULES for r in module.RULES)


def rule(rule_id: str) -> Rule:
    """The rule with this id."""
    for r in rules():
        if r.rule_id == rule_id:
            return r
    raise KeyError(f"no rule {rule_id!r}")
