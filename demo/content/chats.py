"""Conversations and candidate responses for the preference-ranking demo (seeds/003).

Each response has the 1-5 scores a careful rater would give on the seven usual dimensions (accuracy,
instruction following, relevance, comprehensiveness, logical reasoning, grammar & presentation, tone &
style), and a strength and a weakness phrase that justifications quote. Some conversations should be
rejected under the cheat sheet; they carry the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

# The rejection cheat sheet's reasons (seeds/003).
REJECTION_REASONS = (
    "Personal Identifiable Information (PII)",
    "Model asked for actions outside its capabilities",
    "Outside my expertise (STEM)",
    "Foreign language task",
    "Unintelligible or incoherent prompt",
    "Rendering issues",
    "Tier 1 sensitive content",
)
SKIP_REASONS = ("Not comfortable rating this topic", "Not sure how to judge this one", "Already did this task")
SCORED_DIMENSIONS = (
    "accuracy",
    "instruction_following",
    "relevance",
    "comprehensiveness",
    "logical_reasoning",
    "grammar_presentation",
    "tone_style",
)


@dataclass(frozen=True)
class Response:
    """A candidate model response with its true scores and what a justification would say about it."""

    text: str
    scores: tuple[float, float, float, float, float, float, float]
    strength: str
    weakness: str
    cites: bool = False


@dataclass(frozen=True)
class Chat:
    """A conversation ending in a user prompt, with candidate responses."""

    turns: tuple[tuple[str, str], ...]  # (role, text); the last is the user's latest prompt
    responses: tuple[Response, ...]
    reject: str = ""  # the cheat-sheet reason when the task should be rejected
    objective: bool = False

    @property
    def prompt(self) -> str:
        """The latest user prompt."""
        return self.turns[-1][1]

    @property
    def facebook(self) -> bool:
        """Whether this is a Facebook post task (never rejected, per the cheat sheet's special rule)."""
        return self.prompt.startswith("Given the content of a Facebook post")


def _u(text: str) -> tuple[str, str]:
    """A user turn."""
    return ("user", text)


def _a(text: str) -> tuple[str, str]:
    """An assistant turn."""
    return ("assistant", text)


CHATS: tuple[Chat, ...] = (
    Chat(
        (_u("I fucking hate my job, how do I find a new one?"),),
        (
            Response(
                "That sounds exhausting, and it's a good sign you're ready to move. Start by writing down what "
                "you dislike and what you'd want instead, so you can target the right roles. Update your CV "
                "with recent achievements, tell a few trusted contacts you're looking, and set aside a few hours "
                "a week for applications. If you can, line up the new job before you hand in your notice.",
                (5, 5, 5, 4, 5, 5, 5),
                "acknowledges the frustration and gives concrete steps, like updating the CV and lining up a job "
                "before resigning",
                "could mention job boards or recruiters",
            ),
            Response(
                "Quit today. Life is too short, and something better will come along.",
                (2, 2, 3, 1, 2, 4, 3),
                "is short and direct",
                "tells the user to quit immediately without a plan, which is risky advice",
            ),
            Response(
                "Finding a new job involves several steps. First, update your resume. Second, search online job "
                "boards. Third, apply to positions. Fourth, attend interviews.",
                (4, 4, 4, 3, 4, 4, 2),
                "lists the basic steps in order",
                "sounds robotic and ignores how the user feels",
            ),
        ),
    ),
    Chat(
        (
            _u("I'm planning a 5-day trip to Lisbon in May."),
            _a("Great choice! May is a lovely time to visit Lisbon. Would you like help with an itinerary?"),
            _u("Yes please, I like food and history but I don't want to rush."),
        ),
        (
            Response(
                "Here's a relaxed plan. Day 1: Alfama and the castle, with dinner at a fado house. Day 2: Belém "
                "for the monastery, the tower and pastéis de Belém. Day 3: a food tour of Baixa and the Time "
                "Out Market. Day 4: a day trip to Sintra. Day 5: wander Príncipe Real and LX Factory before you "
                "leave. Book Sintra tickets ahead, as May gets busy.",
                (5, 5, 5, 5, 5, 5, 5),
                "fits food and history into each day and keeps the pace relaxed",
                "does not suggest budgets or transport",
            ),
            Response(
                "Day 1: Alfama, castle, cathedral, Baixa, Chiado, Bairro Alto. Day 2: Belém, Sintra and Cascais. "
                "Day 3: Porto. Day 4: Óbidos, Nazaré, Fátima. Day 5: Évora.",
                (3, 2, 4, 4, 2, 4, 3),
                "covers many famous places",
                "crams several towns into single days and even includes Porto, ignoring the request not to rush",
            ),
            Response(
                "Lisbon is the capital of Portugal and one of the oldest cities in Western Europe. It is known "
                "for its trams, its hills and its custard tarts.",
                (5, 1, 3, 1, 3, 5, 4),
                "gives accurate background on the city",
                "never gives an itinerary, which is what the user asked for",
            ),
        ),
    ),
    Chat(
        (_u("What's the difference between a virus and a bacterium? Keep it simple."),),
        (
            Response(
                "Bacteria are tiny living cells that can survive and reproduce on their own; many are harmless "
                "or even helpful. Viruses are much smaller and aren't really alive on their own: they have to "
                "get inside a living cell to copy themselves. That's also why antibiotics work on bacteria but "
                "not on viruses.",
                (5, 5, 5, 5, 5, 5, 5),
                "explains the key difference simply and adds the useful point about antibiotics",
                "could give an example of each",
            ),
            Response(
                "Viruses and bacteria are basically the same thing, just different sizes, and antibiotics kill both.",
                (1, 3, 4, 1, 1, 5, 4),
                "is short, as the user asked",
                "wrongly says antibiotics kill viruses",
            ),
            Response(
                "Bacteria are prokaryotic organisms with a cell wall and ribosomes, whereas viruses consist of "
                "nucleic acid in a protein capsid and depend on host cellular machinery for replication.",
                (5, 2, 5, 4, 4, 5, 2),
                "is accurate",
                "uses technical jargon even though the user asked to keep it simple",
            ),
        ),
        objective=True,
    ),
    Chat(
        (_u("Can you write a short birthday message for my grandma who is turning 90?"),),
        (
            Response(
                "Happy 90th birthday, Grandma! Ninety years of kindness, stories and the best cooking in the "
                "family. Thank you for everything you've taught us. We love you so much and can't wait to "
                "celebrate with you!",
                (5, 5, 5, 5, 5, 5, 5),
                "is warm and personal and fits a card",
                "is fairly generic about the grandmother herself",
            ),
            Response(
                "Happy birthday. Wishing you many happy returns of the day.",
                (5, 4, 5, 2, 4, 5, 2),
                "is appropriate",
                "is very plain and does not mention the 90th birthday at all",
            ),
            Response(
                "Congratulations on turning 90! At your age, every birthday could be your last, so make it count!",
                (4, 4, 4, 3, 4, 5, 1),
                "mentions the 90th birthday",
                "has a tactless line about it being her last birthday",
            ),
        ),
    ),
    Chat(
        (_u("How many tablespoons are in a cup?"),),
        (
            Response(
                "There are 16 tablespoons in a US cup.",
                (5, 5, 5, 4, 5, 5, 4),
                "gives the correct figure directly",
                "does not mention metric cups",
            ),
            Response(
                "A US cup holds 16 tablespoons. If you're using a metric cup (250 ml), it's about 16.9 "
                "tablespoons, and in Australia, where a tablespoon is 20 ml, it's 12.5.",
                (5, 5, 5, 5, 5, 5, 5),
                "gives the US answer and explains the metric and Australian cases",
                "is slightly longer than needed",
            ),
            Response(
                "There are 12 tablespoons in a cup.",
                (1, 4, 5, 2, 2, 5, 4),
                "answers directly",
                "gives the wrong number for a US cup",
            ),
        ),
        objective=True,
    ),
    Chat(
        (
            _u("I want to start running but I've never done any exercise."),
            _a("That's a great goal! Do you have any health conditions I should know about?"),
            _u("No, I'm healthy, just unfit. How should I start?"),
        ),
        (
            Response(
                "Start with a run-walk plan: three times a week, alternate one minute of easy jogging with two "
                "minutes of walking for 20 minutes. Each week, lengthen the running parts a little. Go slowly "
                "enough that you could chat, get comfortable running shoes, and rest between sessions. Many "
                "people follow a 'couch to 5K' programme, which takes about nine weeks.",
                (5, 5, 5, 5, 5, 5, 5),
                "gives a gradual run-walk plan and mentions couch to 5K",
                "does not mention warming up",
            ),
            Response(
                "Go out and run 5 km every day. It'll be hard at first but you'll get used to it.",
                (2, 3, 4, 2, 2, 5, 3),
                "is motivating",
                "suggests 5 km a day for a beginner, which risks injury",
            ),
            Response(
                "Running is a great form of cardiovascular exercise that improves heart health, mood and sleep.",
                (5, 1, 3, 1, 3, 5, 4),
                "is accurate about the benefits",
                "does not say how to start, which was the question",
            ),
        ),
    ),
    Chat(
        (
            _u(
                'Given the content of a Facebook post, write a reply: "Just adopted this little guy from the '
                'shelter! Meet Biscuit 🐶"'
            ),
        ),
        (
            Response(
                "Welcome home, Biscuit! 🐶 What a lucky pup, and what a great thing you did adopting from the "
                "shelter. Can't wait to see more pictures!",
                (5, 5, 5, 5, 5, 5, 5),
                "is warm, uses the dog's name and fits a Facebook reply",
                "is a typical reply with nothing unusual",
            ),
            Response(
                "Congratulations on your adoption. Dogs require regular veterinary care, vaccinations and daily "
                "exercise.",
                (5, 4, 4, 3, 4, 5, 2),
                "is polite",
                "reads like a leaflet rather than a friendly comment",
            ),
            Response(
                "Biscuit is a cat's name lol", (2, 2, 2, 1, 2, 3, 1), "is short", "is rude and not a friendly reply"
            ),
        ),
    ),
    Chat(
        (_u("Explain what inflation is in two sentences."),),
        (
            Response(
                "Inflation is the general rise in prices over time, which means each unit of money buys less "
                "than before. It's usually measured as the yearly percentage change in the price of a typical "
                "basket of goods and services.",
                (5, 5, 5, 5, 5, 5, 5),
                "defines inflation and how it's measured in exactly two sentences",
                "does not give causes",
            ),
            Response(
                "Inflation is when prices go up. It happens because of greedy companies. It is bad for "
                "everyone. The government should stop it.",
                (2, 2, 4, 2, 2, 4, 3),
                "starts with a simple definition",
                "uses four sentences and presents one opinion about the cause as fact",
            ),
            Response(
                "Inflation is a sustained increase in the general price level, reducing purchasing power. "
                "Central banks typically target around 2% a year.",
                (5, 5, 5, 4, 5, 5, 4),
                "is accurate and concise",
                "is a bit dry",
            ),
        ),
    ),
    Chat(
        (_u("Recommend three classic novels for someone who liked The Great Gatsby."),),
        (
            Response(
                "1. The Age of Innocence by Edith Wharton: old New York society, money and a love that can't "
                "be. 2. Tender Is the Night by F. Scott Fitzgerald, for more of his style. 3. The Sun Also "
                "Rises by Ernest Hemingway: the lost generation drifting through 1920s Europe.",
                (5, 5, 5, 5, 5, 5, 5),
                "picks three fitting novels and says briefly why each suits a Gatsby fan",
                "all three are quite similar in period",
            ),
            Response(
                "1. Harry Potter 2. The Hunger Games 3. Twilight",
                (4, 2, 2, 2, 2, 4, 3),
                "names popular books",
                "are not classics and have little in common with Gatsby",
            ),
            Response(
                "You might like The Age of Innocence, Tender Is the Night and The Sun Also Rises.",
                (5, 5, 5, 3, 4, 5, 4),
                "names three suitable classics",
                "gives no reason for any of them",
            ),
        ),
    ),
    Chat(
        (
            _u("My tomato plants have yellow leaves at the bottom."),
            _a("That's quite common. Are the yellow leaves only at the bottom, or higher up too?"),
            _u("Only the bottom ones, and they have some brown spots."),
        ),
        (
            Response(
                "Yellow lower leaves with brown spots are often early blight, a common fungal disease. Remove "
                "the affected leaves, water the soil rather than the leaves, and give the plants space for air "
                "to circulate. Mulching stops soil splashing onto the leaves. If it spreads upward, a copper "
                "fungicide can help.",
                (5, 5, 5, 5, 5, 5, 5),
                "identifies early blight and gives practical steps",
                "could mention that some yellowing of old leaves is normal",
            ),
            Response(
                "Your plants need more fertiliser. Add a lot of nitrogen and they'll turn green again.",
                (2, 3, 4, 2, 2, 5, 4),
                "gives a clear action",
                "ignores the brown spots, which point to a disease rather than a lack of fertiliser",
            ),
            Response(
                "It could be many things, such as watering, nutrients or disease. Tomatoes are sensitive plants.",
                (4, 3, 4, 2, 3, 5, 4),
                "is cautious",
                "is vague and does not use the detail about brown spots",
            ),
        ),
    ),
    Chat(
        (_u("Write a Python function that checks whether a string is a palindrome."),),
        (
            Response(
                "def is_palindrome(text: str) -> bool:\n    cleaned = ''.join(c.lower() for c in text if "
                "c.isalnum())\n    return cleaned == cleaned[::-1]\n\nThis ignores case, spaces and punctuation, "
                "so 'A man, a plan, a canal: Panama' counts as a palindrome.",
                (5, 5, 5, 5, 5, 5, 5),
                "gives working code and explains that it ignores case and punctuation",
                "does not include tests",
            ),
            Response(
                "def is_palindrome(s):\n    return s == reversed(s)",
                (1, 3, 5, 2, 2, 4, 3),
                "is short",
                "compares a string with a reversed iterator, so it always returns False",
            ),
            Response(
                "def is_palindrome(s):\n    return s == s[::-1]",
                (4, 5, 5, 3, 4, 4, 3),
                "is correct for simple words",
                "treats 'Racecar' as not a palindrome because of the capital letter",
            ),
        ),
        objective=True,
    ),
    Chat(
        (_u("What should I consider before getting a cat?"),),
        (
            Response(
                "A few things to think about: cats often live 15 years or more, so it's a long commitment; "
                "budget for food, litter, vaccinations, neutering and vet bills; check your lease allows pets; "
                "and think about allergies in your household. Adopting an adult cat from a shelter lets you "
                "know its personality in advance.",
                (5, 5, 5, 5, 5, 5, 5),
                "covers lifespan, costs, housing rules and allergies",
                "does not mention indoor versus outdoor cats",
            ),
            Response(
                "Cats are independent and easy, you just need to feed them.",
                (2, 3, 4, 1, 2, 5, 4),
                "is friendly",
                "understates the costs and responsibilities",
            ),
            Response(
                "Consider cost, time, space and allergies.",
                (5, 4, 5, 3, 4, 5, 3),
                "names the right factors",
                "is a bare list with no detail",
            ),
        ),
    ),
    Chat(
        (
            _u("Can you help me write a cover letter?"),
            _a("Of course! What role are you applying for, and what experience would you like to highlight?"),
            _u("Junior data analyst. I did a statistics degree and a 6-month internship cleaning sales data."),
        ),
        (
            Response(
                "Dear Hiring Manager,\n\nI'm excited to apply for the Junior Data Analyst role. My statistics "
                "degree gave me a solid grounding in regression, hypothesis testing and R, and during a six-month "
                "internship I cleaned and reconciled sales data, cutting the team's weekly reporting time. I "
                "enjoy turning messy data into clear answers and would love to bring that to your team.\n\n"
                "Kind regards,",
                (5, 5, 5, 5, 5, 5, 5),
                "uses both the degree and the internship and sounds professional",
                "invents a specific claim about cutting reporting time that the user did not mention",
            ),
            Response(
                "Dear Sir/Madam, I am applying for the job. I have a degree. I did an internship. Please hire "
                "me. Thanks.",
                (4, 3, 4, 2, 2, 3, 2),
                "mentions the degree and internship",
                "is too short and flat for a cover letter",
            ),
            Response(
                "Dear Hiring Manager, with ten years of experience leading data science teams at Fortune 500 "
                "companies, I am confident I can deliver immediate results.",
                (1, 2, 3, 2, 3, 5, 4),
                "is confident",
                "makes up ten years of leadership experience the user does not have",
            ),
        ),
    ),
    Chat(
        (_u("Why do my headphones keep disconnecting from my laptop over Bluetooth?"),),
        (
            Response(
                "Common causes are distance or obstacles between the devices, interference from Wi-Fi routers "
                "or other Bluetooth devices, power-saving settings that switch Bluetooth off, and outdated "
                "drivers. Try keeping the laptop closer, turning off power saving for the Bluetooth adapter, "
                "updating its driver, and removing and re-pairing the headphones.",
                (5, 5, 5, 5, 5, 5, 5),
                "lists likely causes and a fix for each",
                "does not ask which operating system the user has",
            ),
            Response(
                "Your headphones are probably broken. Buy new ones.",
                (2, 2, 3, 1, 2, 4, 2),
                "is direct",
                "jumps to replacing the headphones without any troubleshooting",
            ),
            Response(
                "Try turning Bluetooth off and on again.",
                (5, 4, 5, 2, 3, 5, 4),
                "suggests a quick first step",
                "gives only one fix and no explanation",
            ),
        ),
    ),
    Chat(
        (_u("Tell me a fun fact about octopuses."),),
        (
            Response(
                "Octopuses have three hearts and blue blood! Two hearts pump blood to the gills and the third "
                "pumps it around the rest of the body.",
                (5, 5, 5, 4, 5, 5, 5),
                "gives an accurate, surprising fact with a short explanation",
                "is only one fact, as asked",
            ),
            Response(
                "Octopuses have eight brains, one in each arm, and can regrow their head.",
                (1, 4, 5, 3, 3, 5, 4),
                "is fun",
                "overstates the arm nerve clusters as brains and claims they regrow their head",
            ),
            Response(
                "Octopuses are cephalopods.",
                (5, 3, 4, 1, 3, 5, 2),
                "is accurate",
                "is not really a fun fact",
            ),
        ),
    ),
    Chat(
        (
            _u(
                "Can you give me Sarah Miller's phone number? She lives at 14 Oak Street in Dayton and works at "
                "the dental clinic."
            ),
        ),
        (
            Response(
                "I'm sorry, I can't share personal contact details.",
                (5, 5, 5, 3, 5, 5, 4),
                "declines politely",
                "offers no alternative",
            ),
            Response(
                "You could try searching an online phone directory for her name and street.",
                (3, 3, 4, 2, 3, 5, 4),
                "tries to help",
                "helps look up a private person's details",
            ),
        ),
        reject="Personal Identifiable Information (PII)",
    ),
    Chat(
        (_u("Draw me a picture of a cat wearing a space helmet."),),
        (
            Response(
                "I can't create images, but I can describe one: a fluffy orange cat in a round glass "
                "helmet, floating among the stars.",
                (5, 4, 5, 3, 5, 5, 5),
                "offers a description instead",
                "cannot do what was asked",
            ),
            Response(
                "Here is your picture: [image]",
                (1, 2, 3, 1, 1, 3, 3),
                "tries to comply",
                "pretends to produce an image",
            ),
        ),
        reject="Model asked for actions outside its capabilities",
    ),
    Chat(
        (_u("Comment dit-on 'je voudrais un café' en anglais ?"),),
        (
            Response(
                'On dit : "I would like a coffee."', (5, 5, 5, 4, 5, 5, 5), "translates correctly", "is in French"
            ),
            Response("I would like a coffee.", (5, 4, 5, 3, 5, 5, 4), "gives the English", "gives no context"),
        ),
        reject="Foreign language task",
    ),
    Chat(
        (_u("dog dog dog purple the when if 🦖🦕🎃 dog!"),),
        (
            Response(
                "I'm not sure what you mean. Could you rephrase your question?",
                (5, 4, 4, 2, 4, 5, 5),
                "asks for clarification",
                "cannot answer",
            ),
            Response(
                "Dinosaurs and dogs are both popular with children.",
                (3, 2, 2, 1, 2, 5, 4),
                "is friendly",
                "guesses at a meaning",
            ),
        ),
        reject="Unintelligible or incoherent prompt",
    ),
)
