"""Short texts raters write: comments, strengths and weaknesses, justifications and researcher explanations.

Templates take the specific detail (a claim, an output id, a response id) so that the text points at
the item it is about, as the rubric documents ask.
"""

from __future__ import annotations

# --- answer comparison ------------------------------------------------------------------------------------
STRENGTHS_GOOD = (
    "Answers the question directly in the first sentence.",
    "Covers the main reasons and cites a trustworthy source for each.",
    "Clear and well organised, easy to follow.",
    "Good mix of core explanation and useful background.",
    "Every key claim is backed by a reputable source.",
)
STRENGTHS_WEAK = (
    "At least it is short and readable.",
    "Starts in the right direction.",
    "One of the reasons given is well supported.",
)
WEAKNESS_UNSUPPORTED = '"{claim}" is not supported by any of the sources.'
WEAKNESS_IRRELEVANT = 'The sentence about "{claim}" has nothing to do with the question.'
WEAKNESS_THIN = "Only gives one reason, so it doesn't really answer the question."
WEAKNESS_CITATION = "Citation [{n}] doesn't support the sentence it's attached to."
WEAKNESS_NO_SIDE = "Could have added some helpful context."
CONTRACTOR_COMMENTS = (
    "Both answers are quite similar; went back and forth on overall usefulness.",
    "Source [{n}] looks like a forum post, so I marked it Suspicious.",
    "Took a while to check the sources on this one.",
    "One answer repeats the same point twice.",
    "Not sure whether the last sentence counts as side or irrelevant.",
    "The question is a bit ambiguous, I judged it on the most likely reading.",
)
FLAG_COMMENTS = {
    "does_not_make_sense": "Can't tell what is being asked without opening the link.",
    "should_not_be_answered": "Controversial religious question, people would disagree on any answer.",
}

# Researcher explanations, keyed by category; {better}/{worse} are option letters as the researcher saw them.
EXPLAIN_USEFULNESS = {
    "much": "{better} answers the question with well-supported core information, while {worse} {flaw}. "
    "I don't think anyone could reasonably argue for {worse}.",
    "better": "{better} is more useful overall: it {merit}. {worse} {flaw}, though it has some valid points.",
    "equal": "Both are about equally useful; {a_note} and {b_note}. Hard to be sure either is better.",
}
FLAWS = {
    "unsupported": 'states "{claim}" with no support, which would leave the reader mistaken',
    "thin": "has hardly any core information",
    "irrelevant": "spends a sentence on something irrelevant",
    "side": "misses helpful context",
    "citations": "has several citation errors",
    "none": "is a little less complete",
}
MERITS = {
    "core": "covers more of the core reasons with trustworthy sources",
    "clean": "has no unsupported claims",
    "coherent": "is easier to follow",
}
EXPLAIN_UNSUPPORTED = 'Option {opt} says "{claim}" but no source supports it, and it is core to the question.'
EXPLAIN_CORE = "Option {opt} gives {n} well-supported reasons; the other gives {m}."
EXPLAIN_IRRELEVANT = 'The sentence "{claim}" in option {opt} is irrelevant but not very distracting.'
EXPLAIN_COHERENCE = "Both read fine; option {opt} flows a little better."

# --- instruction following --------------------------------------------------------------------------------
IF_COMMENTS = {
    "hallucination": "{oid} adds details that are not in the instruction, so I marked it as a hallucination.",
    "constraint": "{oid} ignores the explicit constraint in the instruction.",
    "harmful": "{oid} gives advice that could cause harm if followed.",
    "refusal": "{oid} refuses a reasonable request.",
    "tie": "{a} and {b} are close in quality, ranked them as a tie.",
}
IF_SKIP_REASONS = (
    "I don't feel I can judge this task well.",
    "I have done this exact task before.",
    "Instruction is confusing and the intent is unclear.",
)

# --- preference ranking -----------------------------------------------------------------------------------
JUSTIFY_BETTER = "Response {best} is better because it {strength}. Response {other} {weakness}."
JUSTIFY_TIE = "Responses {best} and {other} are about equally good: {best} {strength}, and {other} {strength_other}."
JUSTIFY_OBJECTIVE = " This is an objective ranking."
JUSTIFY_SUBJECTIVE = " Another rater could reasonably prefer the other response, but I think the difference is clear."
JUSTIFY_LAZY = ("Response {best} is better.", "{best} better", "Both fine, {best} slightly better.")
JUSTIFY_REJECT = 'Rejected: {reason}. The prompt says: "{quote}".'
