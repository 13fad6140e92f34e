"""The rubric catalogue: every rubric's dimensions, scales, level order, coarse mapping and primary dimension.

The catalogue is data. Pages and analytics look rubrics up here instead of testing rubric names, so a new
rubric is one more entry in RUBRICS (and, for a new file format, one adapter in analytics/ingest/).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# Scale kinds. "ordinal" and "nominal" are what agreement needs; "binary" is nominal with two levels;
# "ranking" holds a rank position (1 = best) where ties are allowed.
ORDINAL, NOMINAL, BINARY, RANKING = "ordinal", "nominal", "binary", "ranking"
SCALE_KINDS = (ORDINAL, NOMINAL, BINARY, RANKING)

# Krippendorff level of measurement used for each scale kind by default.
DEFAULT_LEVEL = {ORDINAL: "ordinal", NOMINAL: "nominal", BINARY: "nominal", RANKING: "ordinal"}
# Levels of measurement a scale can be declared with (DESIGN.md, canonical data).
MEASURES = ("nominal", "ordinal", "interval", "ratio")
# Values that mean "missing" on every dimension (compared in lower case after trimming): never a level.
MISSING_TOKENS = ("", "na", "n/a", "null")


def as_number(text: str) -> float | None:
    """The number a level's text spells (finite numbers only), else None."""
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Dimension:
    """One rated dimension of a rubric with its scale."""

    name: str
    label: str
    kind: str
    levels: tuple[str, ...]
    targets: tuple[str, ...] = ()
    coarse: dict[str, str] = field(default_factory=dict)
    group: str = ""
    description: str = ""
    is_comparison: bool = False
    missing_values: tuple[str, ...] = ()
    measure: str = ""  # level of measurement (MEASURES); empty: DEFAULT_LEVEL of the kind
    values: tuple[float | None, ...] = ()  # each level's number (None where it has none); empty: numeric levels

    def __post_init__(self) -> None:
        """Fill the declared measure and level values from the kind and the levels when not given."""
        if not self.measure:
            object.__setattr__(self, "measure", DEFAULT_LEVEL[self.kind])
        if not self.values:
            object.__setattr__(self, "values", tuple(as_number(lvl) for lvl in self.levels))
        if len(self.values) != len(self.levels):
            raise ValueError(f"dimension {self.name}: {len(self.values)} values for {len(self.levels)} levels")

    @property
    def numeric(self) -> bool:
        """Whether every level has a number (distances and weights can use values)."""
        return bool(self.values) and all(v is not None for v in self.values)

    @property
    def level_index(self) -> dict[str, int]:
        """Position of each level on the scale (0-based, in scale order)."""
        return {lvl: i for i, lvl in enumerate(self.levels)}

    @property
    def coarse_levels(self) -> tuple[str, ...]:
        """Coarse levels in scale order (the levels themselves when there is no coarse mapping)."""
        if not self.coarse:
            return self.levels
        seen: list[str] = []
        for lvl in self.levels:
            if self.coarse[lvl] not in seen:
                seen.append(self.coarse[lvl])
        return tuple(seen)

    @property
    def ordered(self) -> bool:
        """Whether the levels have an order (ordinal and ranking scales)."""
        return self.kind in (ORDINAL, RANKING)


@dataclass(frozen=True)
class Rubric:
    """A labelling task's rubric: its dimensions and which one matters most."""

    name: str
    title: str
    document: str
    primary: str
    dimensions: tuple[Dimension, ...]
    description: str = ""
    prompt_label: str = "Task"  # what the task's prompt is called where a reviewer reads it
    context_label: str = "Context"  # what its context is called (a conversation, a reference text)

    def dimension(self, name: str) -> Dimension:
        """The dimension called `name`; KeyError names the rubric when it is unknown."""
        for d in self.dimensions:
            if d.name == name:
                return d
        raise KeyError(f"rubric {self.name!r} has no dimension {name!r}")

    def has_dimension(self, name: str) -> bool:
        """Whether the rubric defines a dimension called `name`."""
        return any(d.name == name for d in self.dimensions)


# --- answer comparison (seeds/000): absolute Very bad..Very good per option, comparison A/B per task -------
ABSOLUTE_LEVELS = ("Very bad", "Bad", "Neutral", "Good", "Very good")
# "when truncating the 'very' of the rating scale, researchers agree among themselves about 80% of the time"
ABSOLUTE_COARSE = {"Very bad": "Bad", "Bad": "Bad", "Neutral": "Neutral", "Good": "Good", "Very good": "Good"}
COMPARISON_LEVELS = ("A much better", "A better", "Equally good", "B better", "B much better")
COMPARISON_COARSE = {
    "A much better": "A better",
    "A better": "A better",
    "Equally good": "Equally good",
    "B better": "B better",
    "B much better": "B better",
}
# The comparison scale is symmetric, so reading it from the other side reverses it:
# "A much better" <-> "B much better", "A better" <-> "B better", "Equally good" stays.
COMPARISON_FLIP = dict(zip(COMPARISON_LEVELS, reversed(COMPARISON_LEVELS), strict=True))
ANSWER_CATEGORIES = (
    ("unsupported", "Unsupported information"),
    ("irrelevant", "Irrelevant information"),
    ("core", "Core information"),
    ("strong_core", "Strongly-supported core information"),
    ("side", "Side information"),
    ("strong_side", "Strongly-supported side information"),
    ("coherence", "Coherence"),
    ("usefulness", "Usefulness overall"),
)


def _answer_comparison() -> Rubric:
    dims: list[Dimension] = []
    for name, label in ANSWER_CATEGORIES:
        dims.append(Dimension(name, label, ORDINAL, ABSOLUTE_LEVELS, ("A", "B"), ABSOLUTE_COARSE, group="absolute"))
    for name, label in ANSWER_CATEGORIES:
        dims.append(
            Dimension(
                f"{name}_comparison",
                f"{label} (comparison)",
                ORDINAL,
                COMPARISON_LEVELS,
                ("comparison",),
                COMPARISON_COARSE,
                group="comparison",
                is_comparison=True,
            )
        )
    dims.append(
        Dimension(
            "better_than_nothing",
            "Better or worse than nothing",
            BINARY,
            ("Worse than nothing", "Better than nothing"),
            ("A", "B"),
            group="absolute",
        )
    )
    return Rubric(
        name="answer_comparison",
        title="Answer comparison (web-research answers A vs B)",
        document="000_f96e06de9b1c697e.txt",
        primary="usefulness_comparison",
        dimensions=tuple(dims),
        description="Absolute ratings per option and comparison ratings A vs B on eight categories.",
        prompt_label="Question",
    )


# --- instruction following (seeds/002): 1-7 rating, yes/no labels per output, ranking with ties ---------
YES_NO = ("No", "Yes")
OUTPUT_LABELS = (
    ("fails_to_follow", "Fails to follow the correct instruction / task", ()),
    ("inappropriate", "Output inappropriate for customer assistant", ("Not applicable",)),
    ("hallucination", "Hallucinations (closed domain only)", ("Not applicable",)),
    ("follows_constraint", "Output follows explicit constraint", ("Not applicable",)),
    ("sexual_content", "Contains sexual content", ()),
    ("violent_content", "Contains violent content", ()),
    ("encourages_violence", "Encourages or fails to discourage violence/abuse/terrorism/self-harm", ()),
    ("denigrates", "Denigrates a protected class", ()),
    ("harmful_advice", "Contains advice that could be harmful", ()),
    ("opinion", "Expresses an opinion", ()),
    ("moral_judgment", "Expresses a moral judgment", ()),
)
INSTRUCTION_LABELS = (
    "pii",
    "closed_domain",
    "intent_unclear",
    "explicit_constraint",
    "asks_sexual",
    "asks_violent",
    "asks_encouraging_violence",
    "asks_denigrating",
    "asks_advice",
    "asks_opinion",
    "asks_moral_judgment",
)
RATING_1_7 = tuple(str(i) for i in range(1, 8))
# A coarse 1-7: 1-3 bad, 4 middling, 5-7 good (mirrors dropping the "very" on the 5-point scales).
RATING_1_7_COARSE = {"1": "1-3", "2": "1-3", "3": "1-3", "4": "4", "5": "5-7", "6": "5-7", "7": "5-7"}


def _instruction_following(max_outputs: int = 9) -> Rubric:
    dims = [
        Dimension(
            "rating",
            "Rating (1-7)",
            ORDINAL,
            RATING_1_7,
            (),
            RATING_1_7_COARSE,
            group="output",
            description="1 = terrible, 7 = almost perfect",
        ),
        Dimension(
            "rank",
            "Ranking of outputs (1 = best, ties allowed)",
            RANKING,
            tuple(str(i) for i in range(1, max_outputs + 1)),
            group="ranking",
        ),
    ]
    for name, label, missing in OUTPUT_LABELS:
        dims.append(Dimension(name, label, BINARY, YES_NO, (), group="output", missing_values=missing))
    return Rubric(
        name="instruction_following",
        title="Instruction following (several outputs per instruction)",
        document="002_3b314b218f9d5567.txt",
        primary="rating",
        dimensions=tuple(dims),
        description="Per-output 1-7 rating and yes/no labels, and a ranking of the outputs with ties.",
        prompt_label="Instruction",
    )


# --- preference ranking (seeds/003): 1-5 per response on critical and non-critical dimensions ----------
RATING_1_5 = ("1", "2", "3", "4", "5")
# The document's own bands: 1-2 Low, 3 Medium, 4-5 High.
RATING_1_5_COARSE = {"1": "Low", "2": "Low", "3": "Medium", "4": "High", "5": "High"}
PREFERENCE_DIMENSIONS = (
    ("accuracy", "Accuracy", "critical"),
    ("instruction_following", "Instruction-Following", "critical"),
    ("relevance", "Relevance", "critical"),
    ("comprehensiveness", "Comprehensiveness", "critical"),
    ("logical_reasoning", "Logical Reasoning", "critical"),
    ("grammar_presentation", "Grammar & Presentation", "non-critical"),
    ("tone_style", "Tone & Style", "non-critical"),
    ("citation_correctness", "Citation Correctness", "non-critical"),
)


def _preference_ranking() -> Rubric:
    dims = [
        Dimension(name, label, ORDINAL, RATING_1_5, (), RATING_1_5_COARSE, group=group)
        for name, label, group in PREFERENCE_DIMENSIONS
    ]
    dims.append(Dimension("rank", "Rank bucket (1 = best)", RANKING, ("1", "2", "3"), group="ranking"))
    return Rubric(
        name="preference_ranking",
        title="Preference ranking of two responses",
        document="003_473367030d0e3705.txt",
        primary="rank",
        dimensions=tuple(dims),
        description="Reject/skip/rate; per response 1-5 on critical and non-critical dimensions; rank buckets.",
        prompt_label="Prompt",
        context_label="Conversation before the prompt",
    )


# --- article Likert (seeds/004): 1-5 per prediction; 0 = not yet annotated ------------------------------
def _article_likert() -> Rubric:
    dims = (
        Dimension(
            "likert",
            "Likert score (1-5)",
            ORDINAL,
            RATING_1_5,
            ("first", "second", "third"),
            {"1": "1-2", "2": "1-2", "3": "3", "4": "4-5", "5": "4-5"},
            group="prediction",
            description="0 in the file means not annotated yet: missing, never a score",
        ),
        Dimension(
            "best_prediction_reference",
            "Best prediction (reference)",
            NOMINAL,
            ("first", "second", "third"),
            ("task",),
            group="best",
        ),
        Dimension(
            "best_prediction_topic",
            "Best prediction (topic)",
            NOMINAL,
            ("first", "second", "third"),
            ("task",),
            group="best",
        ),
    )
    return Rubric(
        name="article_likert",
        title="Article generation, three predictions per topic",
        document="004_036f9224cbaf4c66.txt",
        primary="likert",
        dimensions=dims,
        description="Likert 1-5 per prediction and the best prediction by reference and by topic.",
        prompt_label="Topic",
        context_label="Reference text",
    )


# --- real public datasets (issue #13): Snow et al. 2008, QAGS, PandaLM ----------------------------------
def _integers(lo: int, hi: int) -> tuple[str, ...]:
    """The whole numbers lo..hi as levels."""
    return tuple(str(i) for i in range(lo, hi + 1))


# Snow, O'Connor, Jurafsky & Ng (2008), the standardized TSVs: one rubric per task, the file's codes as levels.
SNOW_AFFECT = ("anger", "disgust", "fear", "joy", "sadness", "surprise")


def _snow2008() -> tuple[Rubric, ...]:
    doc = "Snow et al. 2008, EMNLP (D08-1027); docs/formats.md, Snow et al. 2008"
    affect = [
        Dimension(e, e.capitalize(), ORDINAL, _integers(0, 100), measure="interval", description="0 = none, 100 = most")
        for e in SNOW_AFFECT
    ]
    affect.append(
        Dimension("valence", "Valence", ORDINAL, _integers(-100, 100), measure="interval", description="-100..100")
    )
    one = (
        ("rte", "Recognizing textual entailment", "entailment", BINARY, ("0", "1"), "", "1 = the hypothesis follows"),
        ("temp", "Temporal ordering of events", "order", BINARY, ("1", "2"), "", "the file's codes 1 and 2"),
        ("wsd", "Word sense disambiguation of 'president'", "sense", NOMINAL, ("1", "2", "3"), "", "three senses"),
        ("wordsim", "Word similarity", "similarity", ORDINAL, _integers(0, 10), "interval", "0 = unrelated, 10 = same"),
    )
    rubrics = [
        Rubric(
            name=f"snow2008_{task}",
            title=f"Snow et al. 2008: {title}",
            document=doc,
            primary=dim,
            dimensions=(Dimension(dim, dim.capitalize(), kind, levels, measure=measure, description=desc),),
            description="MTurk workers' labels and the expert gold label (researcher role, rater gold).",
            prompt_label="Item",
        )
        for task, title, dim, kind, levels, measure, desc in one
    ]
    rubrics.append(
        Rubric(
            name="snow2008_affect",
            title="Snow et al. 2008: Affective text (headlines)",
            document=doc,
            primary="valence",
            dimensions=tuple(affect),
            description="Six emotions 0-100 and valence -100..100 per headline; gold is the expert panel's mean.",
            prompt_label="Headline",
        )
    )
    return tuple(rubrics)


def _qags() -> tuple[Rubric, ...]:
    return tuple(
        Rubric(
            name=f"qags_{source}",
            title=f"QAGS factual consistency ({label})",
            document="Wang, Cho & Lewis 2020, ACL; W4ngatang/qags data/mturk_*.jsonl; docs/formats.md, QAGS",
            primary="supported",
            dimensions=(
                Dimension(
                    "supported",
                    "Sentence supported by the article",
                    BINARY,
                    ("no", "yes"),
                    description="one unit per summary sentence (target s1, s2, ...)",
                ),
            ),
            description=f"MTurk workers judge each summary sentence of a {label} summary against its article.",
            prompt_label="Summary",
            context_label="Article",
        )
        for source, label in (("cnndm", "CNN/DailyMail"), ("xsum", "XSum"))
    )


PANDALM_LEVELS = ("Response 1 better", "Tie", "Response 2 better")


def _pandalm() -> Rubric:
    return Rubric(
        name="pandalm",
        title="PandaLM test set: which response is better",
        document="Wang et al. 2023, PandaLM (arXiv 2306.05087); WeOpenML/PandaLM data/; docs/formats.md, PandaLM",
        primary="preference",
        dimensions=(
            Dimension(
                "preference",
                "Which response is better",
                NOMINAL,
                PANDALM_LEVELS,
                ("comparison",),
                description="the file's 1, 0 (tie) and 2",
            ),
        ),
        description="Three annotators (researcher role) and optional LLM judges compare two responses.",
        prompt_label="Instruction",
        context_label="Input",
    )


# --- real public datasets (issue #13): medical safety, SQuALITY, JUDGE-BENCH ---------------------------------
MEDICAL_SERIOUSNESS = ("Not medical", "Non-serious", "Serious", "Critical")
# The expert file's response codes 0-3 and X as labels (docs/formats.md, medical safety); the crowd also used
# "Non-medical query", which the expert never did.
MEDICAL_RESPONSE_TYPES = (
    "No answer",
    "General information",
    "Recommendations",
    "Treatment or diagnosis",
    "Irrelevant or nonsensical",
    "Non-medical query",
)


def _medical_safety() -> Rubric:
    return Rubric(
        name="medical_safety",
        title="Medical safety: query seriousness and chatbot response type",
        document="Abercrombie & Rieser 2022, AACL; GavinAbercrombie/medical-safety data/; docs/formats.md",
        primary="seriousness",
        dimensions=(
            Dimension(
                "seriousness",
                "Query seriousness",
                ORDINAL,
                MEDICAL_SERIOUSNESS,
                ("query",),
                description="the expert file's codes 0-3",
            ),
            Dimension(
                "response_type",
                "Response type",
                NOMINAL,
                MEDICAL_RESPONSE_TYPES,
                ("alexa", "dialogpt", "reddit"),
                description="the expert file's codes 0-3 and X (irrelevant or nonsensical)",
            ),
        ),
        description="An NHS clinician's label (researcher, rater expert) and crowd labels without worker ids.",
        prompt_label="Query",
    )


SQUALITY_SYSTEMS = ("bart", "bart-dpr", "human")
SQUALITY_PROPERTIES = ("correctness", "selection", "overall")


def _squality() -> Rubric:
    ratings = [
        Dimension(
            f"{p}_rating",
            f"{p.capitalize()} rating (0-100)",
            ORDINAL,
            _integers(0, 100),
            SQUALITY_SYSTEMS,
            measure="interval",
            group="rating",
        )
        for p in SQUALITY_PROPERTIES
    ]
    ranks = [
        Dimension(
            f"{p}_rank", f"{p.capitalize()} rank (1 = best)", RANKING, ("1", "2", "3"), SQUALITY_SYSTEMS, group="rank"
        )
        for p in SQUALITY_PROPERTIES
    ]
    return Rubric(
        name="squality",
        title="SQuALITY human evaluation of story summaries",
        document="Wang et al. 2022, SQuALITY (arXiv 2205.11465); nyu-mll/SQuALITY data/human-eval/; docs/formats.md",
        primary="overall_rating",
        dimensions=(*ratings, *ranks),
        description="Three of four trained writers rate and rank the three summaries of each question.",
        prompt_label="Question",
        context_label="Story",
    )


def _judge_bench() -> tuple[Rubric, ...]:
    doc = "Bavaresco et al. 2024, JUDGE-BENCH (arXiv 2406.18403); dmg-illc/JUDGE-BENCH data/; docs/formats.md"
    newsroom = tuple(
        Dimension(m, m.capitalize(), ORDINAL, _integers(1, 5), description="1 = low, 5 = high")
        for m in ("informativeness", "relevance", "fluency", "coherence")
    )
    recipes = tuple(
        Dimension(m, m.capitalize(), ORDINAL, _integers(1, 6), description="agreement with a statement, 1-6")
        for m in ("grammar", "fluency", "verbosity", "structure", "success", "overall")
    )
    dices = (
        Dimension(
            "safety",
            "Unsafe? (Yes = unsafe: DICES Q_overall and safety_gold)",
            NOMINAL,
            ("No", "Unsure", "Yes"),
            description="JUDGE-BENCH's prompt asks 'is the response safe?' but the labels answer DICES's question "
            "'is the conversation unsafe?': Yes means unsafe",
        ),
    )
    return (
        Rubric("judge_bench_newsroom", "JUDGE-BENCH: Newsroom summaries", doc, "informativeness", newsroom,
               "Three crowd ratings 1-5 per summary, without rater ids.", "Summary"),
        Rubric("judge_bench_dices_350", "JUDGE-BENCH: DICES-350 conversation safety", doc, "safety", dices,
               "123 crowd ratings per conversation without rater ids, and the expert gold label.", "Conversation"),
        Rubric("judge_bench_recipes", "JUDGE-BENCH: rewritten cooking recipes", doc, "overall", recipes,
               "17-18 crowd ratings 1-6 per recipe on six statements, without rater ids.", "Recipe"),
    )  # fmt: skip


RUBRICS: dict[str, Rubric] = {
    r.name: r for r in (_answer_comparison(), _instruction_following(), _preference_ranking(), _article_likert())
}


RUBRICS.update({r.name: r for r in (*_snow2008(), *_qags(), _pandalm())})
RUBRICS.update({r.name: r for r in (_medical_safety(), _squality(), *_judge_bench())})


def get_rubric(name: str) -> Rubric | None:
    """The catalogued rubric called `name`, or None for a rubric the catalogue does not know."""
    return RUBRICS.get(name)


def is_missing(text: str | None, extra: tuple[str, ...] | list[str] = ()) -> bool:
    """Whether a value means "missing" (MISSING_TOKENS, or one of the dimension's own missing codes)."""
    if text is None:
        return True
    t = str(text).strip().lower()
    return t in MISSING_TOKENS or t in {str(x).strip().lower() for x in extra}


def infer_dimension(name: str, values: list[str], previous: Dimension | None = None) -> Dimension:
    """The scale of an undeclared dimension (DESIGN.md): numbers are values, ordered by value; text is nominal.

    Missing tokens are never levels. `previous` is the scale earlier files gave the dimension: a numeric one
    stays numeric (text is left out here and quarantined at load), a text one takes numbers as more labels.
    A first file mixing numbers and text makes the dimension nominal."""
    present = {v for v in values if not is_missing(v)}
    if previous is not None:
        present |= set(previous.levels)
        if previous.numeric:
            present = {v for v in present if as_number(v) is not None}
    numbers = {v: as_number(v) for v in present}
    if present and all(x is not None for x in numbers.values()):
        ordered = sorted(present, key=lambda v: (numbers[v], v))
        return Dimension(name, name, ORDINAL, tuple(ordered), values=tuple(numbers[v] for v in ordered))
    labels = tuple(sorted(present))  # a fixed order for display only: a nominal scale has no order
    return Dimension(name, name, BINARY if len(labels) == 2 else NOMINAL, labels)


def canonical_number(text: str) -> str:
    """The text of a numeric level in one spelling ("3.0" and "3" are the same level; as the loader spells it)."""
    x = as_number(text)
    if x is None:
        return text
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if abs(x) < 1e15 else text


def catalogue_rows() -> list[tuple]:
    """One row per catalogued dimension, for the store's rubric tables (store.DIMENSION_COLUMNS but source)."""
    rows = []
    for r in RUBRICS.values():
        for d in r.dimensions:
            rows.append(
                (
                    r.name,
                    d.name,
                    d.label,
                    d.kind,
                    list(d.levels),
                    [d.coarse.get(lvl, lvl) for lvl in d.levels],
                    list(d.targets),
                    d.group,
                    d.name == r.primary,
                    d.is_comparison,
                    d.measure,
                    list(d.values),
                    list(d.missing_values),
                )
            )
    return rows
