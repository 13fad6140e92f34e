"""A contractor's feedback report: how they agree with researchers, against the team and the researchers' own
agreement, week by week, how they use each scale, their most severe disagreements, the rater effects and rubric
rules that apply to them, and their time per task; exported as Markdown, HTML and CSV (export/).

Other contractors only ever appear as a median ("team median": the median of every *other* contractor's own
figure, never a single other contractor's value), so a report can be handed to the contractor it describes.
The researcher ceiling and the team median are analytics.agreement.team's (one definition for every page and
export): the ceiling is researcher pairs on the same units over all dates (a contractor cannot be expected to
agree with researchers more than researchers agree with each other; seeds/000 puts researcher-researcher coarse
agreement on usefulness at about 80%).

Modules, each computing one part: scope (whom and what a report covers), weekly (agreement week by week and its
trend), durations (time per submission), levels (levels used against researchers'), cases (most severe
disagreements), team (the team's figures, shared by every report), card (the report card), review_first (the
contractor a page opens on), rater_effects, rules (rubric rules broken), highlights, next (who needs feedback next),
events (feedback events), followup and measures (what came after each feedback, against the team's same weeks),
report (the whole report).
"""

from analytics.feedback.report import FeedbackReport, feedback_report, feedback_reports
from analytics.feedback.team import TeamFigures, team_figures

__all__ = ["FeedbackReport", "TeamFigures", "feedback_report", "feedback_reports", "team_figures"]
