"""The names analytics/feedback.py reads from the pairing, until its split imports them from their homes.

The pairing lives in sides.py (who is compared with whom under which filter), pairing.py (its SQL),
pair_plans.py (counted per task signature) and signatures.py (decoded); the level-count codec in
analytics/core/packing.py. Import from those; nothing else reads this module.
"""

from analytics.agreement.pairing import pair_ctes
from analytics.agreement.sides import Sides, comparison_sides

__all__ = ["Sides", "comparison_sides", "pair_ctes"]
