"""Questions for the answer-comparison demo, in the style of seeds/000 (mostly ELI5-type questions).

Each question carries the material answers are assembled from: numbered web sources with a
trustworthiness label, core and side facts (each backed by one source), claims no source supports
(the first would leave the reader mistaken about the answer itself, the second is a side detail)
and one irrelevant sentence. The simulator builds answers of varying quality from these parts.
"""

from __future__ import annotations

from dataclasses import dataclass

TRUSTWORTHY, NEUTRAL, SUSPICIOUS = "Trustworthy", "Neutral", "Suspicious"


@dataclass(frozen=True)
class Question:
    """One question with the sources, facts and flawed claims its answers are built from."""

    text: str
    sources: tuple[tuple[str, str, str], ...]  # (title, domain, trustworthiness)
    core: tuple[tuple[int, str], ...]  # (index into sources, sentence)
    side: tuple[tuple[int, str], ...]
    unsupported: tuple[str, str]  # (core claim with no support, side claim with no support)
    irrelevant: str
    flag: str = ""  # the question flag careful raters tick: does_not_make_sense / should_not_be_answered


QUESTIONS: tuple[Question, ...] = (
    Question(
        "Why is processed food significantly cheaper than unprocessed food? Shouldn't the extra labor drive "
        "the cost up, not down?",
        (
            ("Why Processed Food Is Cheaper Than Healthier Options", "www.npr.org", TRUSTWORTHY),
            ("The true cost of a calorie", "www.economist.com", TRUSTWORTHY),
            ("why is junk food so cheap?? : r/nutrition", "www.reddit.com", NEUTRAL),
        ),
        (
            (
                0,
                "The processed food industry is enormously efficient, turning a little wheat, some artificial "
                "cheese and chemical flavours into food that is very inexpensive.",
            ),
            (
                0,
                "Fresh produce has to be grown, harvested, transported and kept refrigerated and looking good "
                "until it is sold, and every one of those steps is expensive.",
            ),
            (
                1,
                "Crops such as corn and soybeans are heavily subsidised, which keeps the raw ingredients of "
                "processed food cheap.",
            ),
            (2, "Processed food keeps for months, so far less of it is thrown away before anyone buys it."),
        ),
        (
            (
                0,
                "Processed meals also save time, since they are quick to cook compared with cutting up fresh "
                "fruit and vegetables.",
            ),
            (
                1,
                "Measured per calorie, foods high in refined grains, added sugar and fat are the cheapest in the "
                "supermarket.",
            ),
        ),
        (
            "Most of the price of fresh food is made up of organic certification fees that the government "
            "charges farmers.",
            "Processed food factories are run almost entirely by robots and employ hardly anyone.",
        ),
        "Boxed macaroni and cheese was first sold in 1937 and was popular during the Second World War.",
    ),
    Question(
        "ELI5: Why do we get goosebumps when we're cold or scared?",
        (
            ("Why do we get goosebumps?", "www.scientificamerican.com", TRUSTWORTHY),
            ("Goose bumps - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("10 weird body facts you never knew", "www.buzzworthyfacts.net", SUSPICIOUS),
        ),
        (
            (
                0,
                "Goosebumps happen when tiny muscles at the base of each hair, called arrector pili, contract "
                "and pull the hair upright.",
            ),
            (
                1,
                "In furry animals, raised hair traps a thicker layer of air and keeps them warmer, which is why "
                "cold triggers the reflex.",
            ),
            (
                1,
                "When an animal is frightened, puffed-up fur makes it look bigger to a predator, so fear "
                "triggers the same response.",
            ),
            (0, "In humans the reflex is a leftover from our hairier ancestors and does very little to keep us warm."),
        ),
        (
            (
                0,
                "The reflex is controlled by the sympathetic nervous system, the same system behind the "
                "fight-or-flight response.",
            ),
            (1, "Some people also get goosebumps when listening to moving music, a reaction sometimes called frisson."),
        ),
        (
            "Goosebumps are the skin releasing stored heat through the pores to warm the blood.",
            "About one person in ten can make goosebumps appear on command.",
        ),
        "Geese are farmed for their down, which is used in pillows and winter jackets.",
    ),
    Question(
        "How do noise-cancelling headphones actually cancel noise?",
        (
            ("How Noise-Cancelling Headphones Work", "electronics.howstuffworks.com", TRUSTWORTHY),
            ("Active noise control - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Best ANC headphones 2021 | TechDealz", "www.techdealz-reviews.com", SUSPICIOUS),
        ),
        (
            (0, "Small microphones on the ear cups listen to the sound coming from outside."),
            (
                1,
                "A chip then produces a sound wave that is the exact mirror image of the incoming noise, with "
                "its peaks where the noise has troughs.",
            ),
            (1, "When the two waves meet they cancel each other out, a process called destructive interference."),
            (
                0,
                "This works best on steady, low-pitched sounds like engine hum, while sudden or high-pitched "
                "sounds get through more easily.",
            ),
        ),
        (
            (0, "The padding of the ear cups blocks much of the higher-pitched noise passively."),
            (1, "The same idea is used in some cars and aircraft cabins to reduce engine noise."),
        ),
        (
            "The headphones work by sucking the air out of the ear cup so that sound has nothing to travel through.",
            "Noise cancelling can damage your hearing if you wear the headphones for more than two hours a day.",
        ),
        "Headphones were invented in 1910 by Nathaniel Baldwin, who built the first pair at his kitchen table.",
    ),
    Question(
        "Why does the moon look so much bigger when it's near the horizon?",
        (
            ("The Moon Illusion", "science.nasa.gov", TRUSTWORTHY),
            ("Why does the moon look bigger on the horizon?", "www.livescience.com", TRUSTWORTHY),
            ("Moon illusion explained by an amateur astronomer", "stargazer-blog.org", NEUTRAL),
        ),
        (
            (
                0,
                "The moon is not actually bigger near the horizon; if you photograph it, it takes up the same "
                "space in the picture.",
            ),
            (
                1,
                "The effect is an optical illusion created by the brain, and scientists still disagree about "
                "its exact cause.",
            ),
            (
                1,
                "One explanation is that trees and buildings near the horizon give the brain something to "
                "compare the moon with, so it seems larger.",
            ),
            (
                2,
                "Another is that the brain treats the sky as a flattened dome, so an object near the horizon "
                "seems further away and therefore bigger.",
            ),
        ),
        (
            (
                0,
                "You can check this yourself by holding a pencil eraser at arm's length next to the moon when "
                "it rises and again later in the night.",
            ),
            (1, "The same illusion happens with the sun and with constellations low in the sky."),
        ),
        (
            "The atmosphere acts like a magnifying glass near the horizon and enlarges the moon by about half.",
            "The illusion is strongest in the southern hemisphere.",
        ),
        "The moon is slowly moving away from the Earth and the first landing on it was in 1969.",
    ),
    Question(
        "ELI5: How does a credit score work, and why does checking it yourself not lower it?",
        (
            ("What Is a Credit Score?", "www.consumerfinance.gov", TRUSTWORTHY),
            ("Hard vs. soft credit inquiries", "www.investopedia.com", TRUSTWORTHY),
            ("Credit score myths BUSTED", "www.fastcreditfix-now.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "A credit score is a number that predicts how likely you are to repay borrowed money, based on "
                "the information in your credit report.",
            ),
            (
                0,
                "The biggest factors are whether you pay bills on time and how much of your available credit "
                "you are using.",
            ),
            (
                1,
                "Checking your own score is a soft inquiry, which lenders cannot see and which does not affect "
                "the score.",
            ),
            (
                1,
                "A hard inquiry happens when you apply for a loan or card, and several in a short time can "
                "lower your score slightly because they suggest you need a lot of credit.",
            ),
        ),
        (
            (0, "The length of your credit history and the mix of account types also count, but less."),
            (1, "Hard inquiries usually stop affecting your score after about a year."),
        ),
        (
            "Your credit score also includes your salary, so getting a raise raises it automatically.",
            "Closing old credit cards always improves your score.",
        ),
        "The first credit cards were cardboard cards issued by department stores in the 1920s.",
    ),
    Question(
        "Why do onions make you cry, and why do some people seem immune?",
        (
            ("Why Do Onions Make You Cry?", "www.loc.gov", TRUSTWORTHY),
            ("Onion chemistry and tears", "www.compoundchem.com", NEUTRAL),
            ("Onion hacks your grandma knew", "www.kitchenhacks-daily.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "Cutting an onion breaks its cells and releases enzymes that react with sulfur compounds in the onion.",
            ),
            (0, "The reaction produces a gas called syn-propanethial-S-oxide, which drifts up to your eyes."),
            (
                1,
                "When the gas touches the moisture in your eyes it irritates them, and your tear glands make "
                "tears to wash it away.",
            ),
            (
                1,
                "People who seem immune are often wearing contact lenses, which shield part of the eye, or are "
                "using a very sharp knife that crushes fewer cells.",
            ),
        ),
        (
            (0, "Chilling the onion before cutting slows the reaction and reduces the amount of gas."),
            (1, "Plant breeders have developed onion varieties that produce much less of the irritating gas."),
        ),
        (
            "Onion tears are an allergic reaction, and people who do not cry simply have no onion allergy.",
            "Holding a piece of bread in your mouth absorbs the gas before it reaches your eyes.",
        ),
        "Onions were worshipped in ancient Egypt and were placed in the tombs of pharaohs.",
    ),
    Question(
        "Why can't a country just print more money to pay off its national debt?",
        (
            ("Why can't we just print more money?", "www.bankofengland.co.uk", TRUSTWORTHY),
            ("Hyperinflation in Zimbabwe", "www.bbc.co.uk", TRUSTWORTHY),
            ("The money printer theory they don't want you to know", "www.truthmoney.biz", SUSPICIOUS),
        ),
        (
            (
                0,
                "Printing money does not create more goods and services, so if there is more money chasing the "
                "same amount of stuff, prices rise.",
            ),
            (0, "Rising prices mean each unit of money buys less, which is inflation."),
            (
                1,
                "Countries that printed money to pay their bills, such as Zimbabwe in the 2000s, ended up with "
                "hyperinflation, where prices doubled every day.",
            ),
            (
                0,
                "Investors who expect inflation demand higher interest rates, which makes future borrowing more "
                "expensive.",
            ),
        ),
        (
            (
                0,
                "In many countries the central bank is independent of the government precisely to stop it "
                "printing money for political reasons.",
            ),
            (1, "Debt in a foreign currency cannot be paid off by printing your own currency at all."),
        ),
        (
            "Printing money is illegal under international law, so the United Nations would sanction any "
            "country that did it.",
            "Most countries' money is still backed by gold held in the central bank.",
        ),
        "Banknotes were first used in China during the Tang dynasty.",
    ),
    Question(
        "How do vaccines train the immune system without making you sick?",
        (
            ("How vaccines work", "www.who.int", TRUSTWORTHY),
            ("Understanding How Vaccines Work", "www.cdc.gov", TRUSTWORTHY),
            ("Natural immunity vs vaccines: what doctors won't say", "www.naturalhealthtruths.info", SUSPICIOUS),
        ),
        (
            (
                0,
                "Vaccines contain weakened or inactivated germs, or parts of them, that cannot cause the "
                "disease but still look like the real thing to the immune system.",
            ),
            (
                1,
                "The immune system responds by making antibodies and memory cells that recognise that particular germ.",
            ),
            (
                1,
                "If you later meet the real germ, the memory cells recognise it and the body fights it off "
                "quickly, before you become seriously ill.",
            ),
            (
                0,
                "Some newer vaccines give the body instructions to make a harmless piece of the germ instead "
                "of containing the germ itself.",
            ),
        ),
        (
            (
                1,
                "Mild side effects such as a sore arm or a slight fever are signs that the immune system is "
                "building protection.",
            ),
            (
                0,
                "Vaccinating many people also protects those who cannot be vaccinated, because the germ has "
                "fewer people to spread through.",
            ),
        ),
        (
            "Vaccines work by putting antibodies from other people's blood directly into your body.",
            "One dose of any vaccine protects you for life.",
        ),
        "Edward Jenner's smallpox vaccine was tested on his gardener's son in 1796.",
    ),
    Question(
        "Why does my voice sound so different on a recording?",
        (
            ("Why does my voice sound different on a recording?", "www.scientificamerican.com", TRUSTWORTHY),
            ("Bone conduction - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("I HATE my recorded voice, anyone else?", "forum.singersroom.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "When you speak, you hear your voice through the air and also through vibrations travelling "
                "through the bones of your skull.",
            ),
            (
                1,
                "Bone conduction boosts the lower frequencies, so your voice sounds deeper and fuller to you "
                "than it does to anyone else.",
            ),
            (0, "A recording only captures the sound travelling through the air, which is how other people hear you."),
            (
                0,
                "Because you are not used to hearing yourself without the bone-conducted part, the recording "
                "sounds thin and unfamiliar.",
            ),
        ),
        (
            (
                0,
                "Studies found that people rate their own recorded voice as more attractive when they do not "
                "realise it is theirs.",
            ),
            (1, "Cheap microphones and phone speakers can make the difference even bigger."),
        ),
        (
            "Recording equipment raises the pitch of every voice by about one octave.",
            "Professional singers never experience the effect because their ears are trained.",
        ),
        "The phonograph, the first device that could record and replay sound, was invented by Thomas Edison.",
    ),
    Question(
        "ELI5: Why do airliners cruise at around 35,000 feet?",
        (
            ("Why do planes fly at 35,000 feet?", "www.smithsonianmag.com", TRUSTWORTHY),
            ("Cruise altitude and fuel efficiency", "www.faa.gov", TRUSTWORTHY),
            ("Pilot answers your questions", "www.quora.com", NEUTRAL),
        ),
        (
            (0, "Air is much thinner at that height, so there is less drag and the plane uses less fuel to go fast."),
            (
                1,
                "Jet engines are designed to be most efficient at those altitudes, where thin air and cold "
                "temperatures suit them.",
            ),
            (0, "Flying high also keeps planes above most weather, so the ride is smoother."),
            (
                2,
                "Much higher than that, the air gets so thin that the wings cannot produce enough lift and the "
                "engines cannot get enough oxygen.",
            ),
        ),
        (
            (
                1,
                "Air traffic control assigns different altitudes to planes flying in different directions to "
                "keep them apart.",
            ),
            (2, "Shorter flights often cruise lower because climbing that high would take too long."),
        ),
        (
            "Planes fly at 35,000 feet because that is the height where the Earth's gravity is weaker.",
            "Pilots are not allowed to fly below 30,000 feet over the ocean.",
        ),
        "The Wright brothers' first flight in 1903 lasted 12 seconds.",
    ),
    Question(
        "Why is the sky blue, but sunsets are red and orange?",
        (
            ("Why Is the Sky Blue?", "spaceplace.nasa.gov", TRUSTWORTHY),
            ("Rayleigh scattering - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Sky color explained simply", "www.weatherfacts4kids.com", NEUTRAL),
        ),
        (
            (
                0,
                "Sunlight contains all colours, and when it enters the atmosphere it bumps into gas molecules "
                "that scatter it in different directions.",
            ),
            (
                1,
                "Blue light has a shorter wavelength and is scattered much more than red light, so blue comes "
                "at us from all over the sky.",
            ),
            (
                0,
                "At sunset, light travels through much more atmosphere to reach you, so most of the blue is "
                "scattered away before it arrives.",
            ),
            (2, "What is left is mostly the red and orange light, which is why sunsets have those colours."),
        ),
        (
            (1, "Violet light is scattered even more than blue, but our eyes are less sensitive to it."),
            (0, "Dust and smoke in the air can make sunsets especially vivid."),
        ),
        (
            "The sky is blue because it reflects the colour of the oceans.",
            "On Mars the sky is green during the day.",
        ),
        "The word 'blue' is one of the last colour words to appear in many languages.",
    ),
    Question(
        "How do bees make honey, and why doesn't it spoil?",
        (
            ("How Do Bees Make Honey?", "www.britannica.com", TRUSTWORTHY),
            ("The Science Behind Honey's Eternal Shelf Life", "www.smithsonianmag.com", TRUSTWORTHY),
            ("Raw honey cures everything!", "www.hivewellness-shop.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "Bees collect nectar from flowers and store it in a special honey stomach, where enzymes start "
                "breaking down its sugars.",
            ),
            (
                0,
                "Back at the hive they pass the nectar to other bees and store it in wax cells, fanning it with "
                "their wings until most of the water evaporates.",
            ),
            (1, "Honey has so little water and so much sugar that bacteria and moulds cannot survive in it."),
            (
                1,
                "It is also naturally acidic and contains small amounts of hydrogen peroxide, which further "
                "stop microbes growing.",
            ),
        ),
        (
            (1, "Edible honey has been found in ancient Egyptian tombs thousands of years old."),
            (0, "A single bee makes only about a twelfth of a teaspoon of honey in its whole life."),
        ),
        (
            "Bees add a natural preservative from their venom to the honey so that it never spoils.",
            "Honey that has crystallised has gone bad and should be thrown away.",
        ),
        "Bumblebees can fly at altitudes higher than Mount Everest in laboratory tests.",
    ),
    Question(
        "Why do cats purr?",
        (
            ("Why Do Cats Purr?", "www.scientificamerican.com", TRUSTWORTHY),
            ("Purr - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("My cat purrs when she's angry, is that normal?", "www.catforum.net", SUSPICIOUS),
        ),
        (
            (
                0,
                "Cats purr by rapidly twitching the muscles of the larynx, which makes the vocal cords vibrate "
                "as they breathe in and out.",
            ),
            (0, "Purring often signals contentment, for example when a cat is being stroked."),
            (
                1,
                "Cats also purr when they are stressed, injured or giving birth, so it seems to be a way of "
                "calming themselves as well.",
            ),
            (1, "Kittens purr while nursing, which may help the mother know they are getting milk."),
        ),
        (
            (
                0,
                "Purring happens at frequencies of roughly 25 to 150 hertz, and some researchers think these "
                "vibrations may help bones and tissues heal.",
            ),
            (1, "Some cats add a high-pitched cry to the purr when they want food, which people find hard to ignore."),
        ),
        (
            "Cats purr by swallowing air and releasing it slowly through the nose.",
            "Lions and tigers purr louder than house cats.",
        ),
        "Cats were domesticated in the Near East around 10,000 years ago.",
    ),
    Question(
        "ELI5: What actually happens when a bank 'fails'?",
        (
            ("When a Bank Fails - Facts for Depositors", "www.fdic.gov", TRUSTWORTHY),
            ("What happened to Silicon Valley Bank?", "www.reuters.com", TRUSTWORTHY),
            ("Banks are about to collapse - get your cash out NOW", "www.goldprepper.net", SUSPICIOUS),
        ),
        (
            (
                0,
                "A bank fails when it no longer has enough money or assets to cover what it owes, so regulators "
                "close it.",
            ),
            (
                0,
                "In the United States deposits are insured up to $250,000 per depositor, per bank, so most "
                "customers get all their money back.",
            ),
            (
                0,
                "Usually the regulator sells the failed bank to a healthier bank over a weekend, and customers "
                "can use their accounts as normal on Monday.",
            ),
            (
                1,
                "Failures often start with a bank run, where many customers try to withdraw at once and the "
                "bank cannot sell its investments fast enough.",
            ),
        ),
        (
            (
                1,
                "Silicon Valley Bank failed in 2023 after rising interest rates reduced the value of the bonds "
                "it held.",
            ),
            (0, "Shareholders and unsecured creditors of the failed bank usually lose their money."),
        ),
        (
            "When a bank fails, the money in customers' accounts is transferred to the government and is "
            "returned only after ten years.",
            "Bank failures always cause a recession.",
        ),
        "The oldest bank still operating is Banca Monte dei Paschi di Siena, founded in 1472.",
    ),
    Question(
        "Why does time seem to go faster as you get older?",
        (
            ("Why Does Time Seem to Speed Up with Age?", "www.scientificamerican.com", TRUSTWORTHY),
            ("The perception of time", "www.psychologytoday.com", NEUTRAL),
            ("Time is speeding up, here's the proof", "www.cosmic-awakening.org", SUSPICIOUS),
        ),
        (
            (
                0,
                "One explanation is that each year is a smaller fraction of your life so far, so it feels "
                "shorter in comparison.",
            ),
            (
                1,
                "Another is that children have many new experiences, and new experiences create more memories, "
                "which makes a period feel longer when you look back.",
            ),
            (
                1,
                "Adults fall into routines, and weeks full of routine leave few distinct memories, so they seem "
                "to have passed quickly.",
            ),
            (0, "Researchers have not settled on a single cause, and several of these effects probably work together."),
        ),
        (
            (1, "Trying new activities or travelling can make time feel slower in hindsight."),
            (0, "Time also seems to drag when you are bored and waiting, even for older people."),
        ),
        (
            "The brain's internal clock runs about twice as fast at age 60 as at age 10.",
            "Time perception is fully explained by the amount of daylight you get.",
        ),
        "The most accurate clocks today would lose less than a second in billions of years.",
    ),
    Question(
        "How does GPS know where I am?",
        (
            ("How GPS Works", "www.gps.gov", TRUSTWORTHY),
            ("Global Positioning System - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("GPS tracks you everywhere!! privacy warning", "www.privacyalertz.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "GPS satellites constantly broadcast signals saying where they are and the exact time the "
                "signal was sent.",
            ),
            (
                1,
                "Your phone measures how long each signal took to arrive and works out how far away each satellite is.",
            ),
            (
                1,
                "With distances to at least four satellites, the receiver can work out its position on Earth, "
                "a method called trilateration.",
            ),
            (
                0,
                "The satellites carry atomic clocks, because an error of a millionth of a second would put you "
                "hundreds of metres off.",
            ),
        ),
        (
            (1, "Phones also use nearby Wi-Fi networks and cell towers to find your position faster."),
            (
                1,
                "The clocks have to be corrected for relativity, because time runs slightly differently for "
                "the fast-moving satellites.",
            ),
        ),
        (
            "Your phone sends its location up to the satellites, which then send the map back down.",
            "GPS does not work at night because the satellites are solar powered.",
        ),
        "The first satellite, Sputnik 1, was launched in 1957.",
    ),
    Question(
        "Why do we have leap years?",
        (
            ("Leap Year - Explained", "www.timeanddate.com", TRUSTWORTHY),
            ("Why do we have leap years?", "www.rmg.co.uk", TRUSTWORTHY),
            ("leap year conspiracy", "www.reddit.com", SUSPICIOUS),
        ),
        (
            (0, "The Earth takes about 365 and a quarter days to go around the Sun, not exactly 365."),
            (0, "Adding an extra day every four years keeps the calendar in step with the seasons."),
            (
                1,
                "Without leap years the calendar would drift by about a day every four years, and after a few "
                "centuries summer would start in what the calendar calls winter.",
            ),
            (
                1,
                "Because the extra quarter day is actually slightly less than a quarter, century years are "
                "only leap years if they divide by 400.",
            ),
        ),
        (
            (1, "This rule comes from the Gregorian calendar, introduced in 1582."),
            (0, "The extra day is added as February 29."),
        ),
        (
            "Leap years exist because the Earth's rotation speeds up every four years.",
            "People born on February 29 legally age only once every four years.",
        ),
        "February was named after a Roman purification festival.",
    ),
    Question(
        "Why do our fingers get wrinkly in the bath?",
        (
            ("Why do fingers wrinkle in water?", "www.nature.com", TRUSTWORTHY),
            ("Water-induced wrinkles improve handling of wet objects", "www.bbc.co.uk", TRUSTWORTHY),
            ("Pruney fingers explained", "www.askthedoc-online.com", NEUTRAL),
        ),
        (
            (
                0,
                "For a long time people thought the skin simply absorbed water and swelled, but the wrinkles "
                "are actually caused by the nervous system.",
            ),
            (0, "Nerves signal blood vessels in the fingers to narrow, which pulls the skin down into wrinkles."),
            (
                1,
                "People with damaged nerves in their fingers do not get the wrinkles, which supports this explanation.",
            ),
            (1, "One theory is that wrinkles act like tyre treads and help us grip wet objects."),
        ),
        (
            (
                1,
                "In one experiment people with wrinkled fingers moved wet marbles faster than people with "
                "smooth fingers.",
            ),
            (2, "The wrinkles usually take about five minutes in warm water to appear."),
        ),
        (
            "Fingers wrinkle because the water washes away the natural oils that hold the skin flat.",
            "Wrinkling happens faster in salt water than in fresh water.",
        ),
        "Bathtubs became common in homes only in the early twentieth century.",
    ),
    Question(
        "ELI5: How do touchscreens know where you are touching?",
        (
            ("How Touchscreens Work", "electronics.howstuffworks.com", TRUSTWORTHY),
            ("Capacitive sensing - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Touchscreen not working? Try these tricks", "www.phonefix-tips.com", NEUTRAL),
        ),
        (
            (
                0,
                "Most phone screens are capacitive: they have a grid of tiny transparent wires that hold a "
                "small electric charge.",
            ),
            (
                1,
                "Your finger conducts electricity, so touching the glass changes the charge at the point where "
                "you touch.",
            ),
            (
                1,
                "The phone measures which rows and columns of the grid changed, and that tells it the location "
                "of your finger.",
            ),
            (0, "Because it needs a conductor, a normal glove or a plastic pen does not work on these screens."),
        ),
        (
            (0, "Older resistive screens instead used two flexible layers that had to be pressed together."),
            (2, "Special gloves with conductive thread in the fingertips let you use a phone in winter."),
        ),
        (
            "Touchscreens detect the heat of your finger with infrared cameras behind the display.",
            "Touchscreens work better if your hands are slightly wet.",
        ),
        "The first smartphone, the IBM Simon, went on sale in 1994.",
    ),
    Question(
        "Why does ice float when most solids sink in their own liquid?",
        (
            ("Why does ice float?", "www.usgs.gov", TRUSTWORTHY),
            ("Properties of water - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Water science for kids", "www.sciencekids-club.com", NEUTRAL),
        ),
        (
            (
                0,
                "Ice is about nine percent less dense than liquid water, and anything less dense than a liquid "
                "floats on it.",
            ),
            (
                1,
                "When water freezes, hydrogen bonds lock the molecules into an open, hexagonal pattern that "
                "takes up more space than liquid water.",
            ),
            (1, "In most other substances the molecules pack more tightly when they become solid, so the solid sinks."),
            (0, "This is why a bottle of water can crack in the freezer: the water expands as it turns to ice."),
        ),
        (
            (
                0,
                "Because ice floats, lakes freeze from the top down, and fish can survive the winter in the "
                "water below.",
            ),
            (2, "Water is densest at about 4 degrees Celsius."),
        ),
        (
            "Ice floats because it contains trapped air bubbles, and ice without bubbles would sink.",
            "Salt water ice sinks in the ocean.",
        ),
        "The word 'iceberg' comes partly from the Dutch word for mountain.",
    ),
    Question(
        "Why do some people need much less sleep than others?",
        (
            ("The short sleeper gene", "www.nih.gov", TRUSTWORTHY),
            ("How Much Sleep Do We Really Need?", "www.sleepfoundation.org", TRUSTWORTHY),
            ("I only sleep 4 hours and feel great AMA", "www.reddit.com", SUSPICIOUS),
        ),
        (
            (1, "Most adults need between seven and nine hours of sleep to function well."),
            (
                0,
                "A very small number of people carry genetic mutations, for example in a gene called DEC2, "
                "that let them feel rested after about six hours.",
            ),
            (
                1,
                "Many people who think they need little sleep are actually sleep deprived and have got used to "
                "feeling tired.",
            ),
            (1, "Age matters too: teenagers need more sleep than adults, and older adults often sleep less."),
        ),
        (
            (1, "Regularly sleeping too little is linked to health problems such as heart disease."),
            (0, "Natural short sleepers are thought to make up well under one percent of people."),
        ),
        (
            "Anyone can train their body to need only four hours of sleep within a month.",
            "People who need less sleep tend to be more intelligent.",
        ),
        "Giraffes sleep for only around four and a half hours a day.",
    ),
    Question(
        "How does a microwave oven heat food?",
        (
            ("How Microwave Ovens Work", "www.energy.gov", TRUSTWORTHY),
            ("Microwave oven - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Are microwaves killing your food's nutrients?", "www.cleaneating-secrets.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "A part called a magnetron produces microwaves, a type of radio wave, that bounce around inside "
                "the metal box.",
            ),
            (1, "The microwaves make water molecules in the food rotate back and forth billions of times a second."),
            (1, "This motion causes friction between molecules, which turns into heat."),
            (
                0,
                "Microwaves only penetrate a few centimetres, so the centre of thick food is heated by heat "
                "spreading from the outer layers.",
            ),
        ),
        (
            (0, "The turntable helps heat food evenly because the waves create hot and cold spots."),
            (1, "Microwave cooking does not make food radioactive."),
        ),
        (
            "Microwaves cook food from the inside out, starting at the very centre.",
            "Standing close to a microwave while it runs can give you cancer.",
        ),
        "The microwave oven was invented after an engineer noticed a chocolate bar melting in his pocket.",
    ),
    Question(
        "Why are there so many different kinds of USB cables?",
        (
            ("USB explained: all the different types", "www.theverge.com", TRUSTWORTHY),
            ("USB - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Cable guy rant", "www.techforumz.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "USB has been around since 1996, and the connectors changed as devices got smaller and needed "
                "more power and speed.",
            ),
            (
                1,
                "The large USB-A plug was designed for computers, while Mini-USB and Micro-USB were made for "
                "small devices like cameras and phones.",
            ),
            (
                0,
                "USB-C is reversible and can carry data, video and much more power, so it is replacing the "
                "older plugs.",
            ),
            (
                1,
                "Two cables with the same USB-C plug can support very different speeds and charging power, "
                "which is why they still cause confusion.",
            ),
        ),
        (
            (0, "The European Union now requires most new phones to use USB-C for charging."),
            (1, "The USB standard is managed by an industry group called the USB Implementers Forum."),
        ),
        (
            "Manufacturers are legally required to design a new USB plug every five years.",
            "Gold-plated USB cables transfer data twice as fast.",
        ),
        "Apple's Lightning connector was introduced with the iPhone 5 in 2012.",
    ),
    Question(
        "ELI5: Why do stock prices sometimes fall when a company reports record profits?",
        (
            ("Why Stocks Fall After Good Earnings", "www.investopedia.com", TRUSTWORTHY),
            ("Markets: buy the rumour, sell the news", "www.ft.com", TRUSTWORTHY),
            ("Stock market is rigged!!", "www.stocktalk-forum.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "A share price reflects what investors expect a company to earn in the future, not what it "
                "earned last quarter.",
            ),
            (
                0,
                "If investors expected even higher profits, a record result can still be a disappointment, and "
                "the price falls.",
            ),
            (
                1,
                "Companies also give forecasts, and weak guidance for the coming months can outweigh a good "
                "past quarter.",
            ),
            (
                1,
                "Sometimes investors who bought in anticipation of good news sell once it is announced, which "
                "is called 'buy the rumour, sell the news'.",
            ),
        ),
        (
            (
                0,
                "Analysts publish profit estimates before each report, and the price reaction depends on the "
                "gap between the estimate and the actual figure.",
            ),
            (1, "Wider market news on the same day can move a stock more than its own results."),
        ),
        (
            "Stock prices fall after record profits because companies must pay the profit out as tax to shareholders.",
            "Stock exchanges pause trading whenever a company reports record profits.",
        ),
        "The New York Stock Exchange traces its origins to an agreement signed under a buttonwood tree in 1792.",
    ),
    Question(
        "Why does caffeine stop working as well if you drink coffee every day?",
        (
            ("Caffeine tolerance: what the science says", "www.healthline.com", NEUTRAL),
            ("Caffeine and adenosine receptors", "www.ncbi.nlm.nih.gov", TRUSTWORTHY),
            ("Coffee addiction exposed", "www.wellnessguru-blog.com", SUSPICIOUS),
        ),
        (
            (
                1,
                "Caffeine works by blocking adenosine receptors in the brain; adenosine is a chemical that "
                "builds up during the day and makes you feel sleepy.",
            ),
            (1, "When you take caffeine every day, the brain responds by making more adenosine receptors."),
            (
                0,
                "With more receptors, the same amount of caffeine blocks a smaller share of them, so you feel "
                "less effect.",
            ),
            (
                0,
                "Stopping suddenly leaves all those extra receptors open to adenosine, which causes withdrawal "
                "headaches and tiredness.",
            ),
        ),
        (
            (0, "Tolerance usually fades after one to two weeks without caffeine."),
            (1, "Genes affect how quickly your liver breaks down caffeine, so some people feel it for much longer."),
        ),
        (
            "Caffeine stops working because the stomach learns to digest it before it reaches the blood.",
            "Decaf coffee contains more caffeine than espresso.",
        ),
        "Coffee was first drunk in Yemen in the fifteenth century.",
    ),
    Question(
        "Why do we yawn, and why is it contagious?",
        (
            ("Why Do We Yawn?", "www.livescience.com", TRUSTWORTHY),
            ("Contagious yawning and empathy", "www.psychologytoday.com", NEUTRAL),
            ("Yawning means your body lacks oxygen", "www.healthyhacks247.com", SUSPICIOUS),
        ),
        (
            (
                0,
                "Scientists are not completely sure why we yawn, but a leading theory is that it helps cool the brain.",
            ),
            (0, "People yawn more when the air is cooler than their body, which fits the cooling idea."),
            (
                1,
                "Contagious yawning is thought to be linked to empathy and social bonding, because we are more "
                "likely to catch yawns from people we are close to.",
            ),
            (1, "Young children and people who are less attuned to others' emotions catch yawns less often."),
        ),
        (
            (0, "Dogs can catch yawns from their owners."),
            (1, "Even reading about yawning can make people yawn."),
        ),
        (
            "We yawn because the blood is low on oxygen, and a yawn refills it.",
            "Yawning burns about ten calories each time.",
        ),
        "The longest recorded yawning fit lasted more than five weeks.",
    ),
    Question(
        "How do hurricanes get their names?",
        (
            ("Tropical Cyclone Naming", "public.wmo.int", TRUSTWORTHY),
            ("How Do Hurricanes Get Their Names?", "www.noaa.gov", TRUSTWORTHY),
            ("Hurricane name trivia", "www.weather-trivia.net", NEUTRAL),
        ),
        (
            (
                0,
                "Names are chosen in advance by a committee of the World Meteorological Organization, which "
                "keeps lists for each ocean region.",
            ),
            (
                1,
                "For the Atlantic there are six lists of names that are reused in rotation, so a list comes "
                "back every six years.",
            ),
            (
                0,
                "Names are given in alphabetical order as storms form during the season, alternating between "
                "male and female names.",
            ),
            (1, "If a storm is especially deadly or costly, its name is retired and replaced with a new one."),
        ),
        (
            (1, "Names are used because they are easier to remember and communicate than numbers or coordinates."),
            (2, "Katrina, Sandy and Maria are examples of retired names."),
        ),
        (
            "Each hurricane is named after the first person to spot it on a satellite image.",
            "Hurricanes that reach the Pacific are renamed after Greek gods.",
        ),
        "The strongest hurricane winds ever measured were above 300 kilometres per hour.",
    ),
    Question(
        "Why does bread go stale, and why does toasting it make it nice again?",
        (
            ("The Science of Stale Bread", "www.seriouseats.com", TRUSTWORTHY),
            ("Starch retrogradation - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("Bread storage tips from a baker", "www.homebakersforum.com", NEUTRAL),
        ),
        (
            (
                0,
                "Bread goes stale mainly because its starch molecules slowly crystallise again after baking, a "
                "process called retrogradation.",
            ),
            (1, "This makes the crumb firm and dry-feeling even though the bread has not lost much water."),
            (
                0,
                "Heating bread melts those starch crystals again, which is why toast or a few minutes in the "
                "oven make stale bread soft inside.",
            ),
            (2, "Keeping bread in the fridge speeds up staling, while freezing almost stops it."),
        ),
        (
            (0, "Toasting also browns the surface through the Maillard reaction, which adds flavour."),
            (1, "Breads with more fat or sugar, such as brioche, stay fresh longer."),
        ),
        (
            "Bread goes stale because bacteria eat the moisture out of it.",
            "Sourdough bread never goes stale.",
        ),
        "The sliced bread machine was first used in Missouri in 1928.",
    ),
    Question(
        "ELI5: How does a nuclear power plant make electricity?",
        (
            ("How a Nuclear Reactor Works", "www.energy.gov", TRUSTWORTHY),
            ("Nuclear power - World Nuclear Association", "world-nuclear.org", TRUSTWORTHY),
            ("The nuclear lie", "www.greenwarriors-now.org", SUSPICIOUS),
        ),
        (
            (
                0,
                "Inside the reactor, uranium atoms split apart in a process called fission, which releases a "
                "lot of heat.",
            ),
            (0, "The heat is used to boil water and make steam."),
            (
                1,
                "The steam spins a turbine connected to a generator, which produces electricity just like in a "
                "coal or gas power plant.",
            ),
            (1, "Control rods absorb neutrons and are moved in or out to speed up or slow down the chain reaction."),
        ),
        (
            (
                1,
                "A single uranium fuel pellet the size of a fingertip contains as much energy as about a tonne "
                "of coal.",
            ),
            (0, "The large cooling towers release water vapour, not smoke."),
        ),
        (
            "Nuclear plants make electricity directly from radiation, without needing any turbines.",
            "A nuclear power plant can explode like an atomic bomb if it overheats.",
        ),
        "The first nuclear power plant connected to a grid was in Obninsk in 1954.",
    ),
    Question(
        "Why are there so many bicycles in the Netherlands?",
        (
            ("Why is cycling so popular in the Netherlands?", "www.bbc.com", TRUSTWORTHY),
            ("How the Dutch got their cycle paths", "www.theguardian.com", TRUSTWORTHY),
            ("Amsterdam travel tips", "www.budgettravelblog.net", NEUTRAL),
        ),
        (
            (0, "The Netherlands is very flat and densely populated, so many trips are short and easy by bike."),
            (
                1,
                "In the 1970s protests against the number of children killed by cars led cities to build "
                "separate cycle paths and slow down traffic.",
            ),
            (
                1,
                "Today the country has tens of thousands of kilometres of cycle paths, and cycling is often "
                "quicker than driving in cities.",
            ),
            (0, "Cycling is seen as a normal way to get around for all ages, not as a sport."),
        ),
        (
            (1, "The 1973 oil crisis, with its car-free Sundays, also pushed people towards bicycles."),
            (2, "Amsterdam has huge bicycle parking garages near its main stations."),
        ),
        (
            "The Dutch government gives every citizen a free bicycle on their eighteenth birthday.",
            "Cars are banned in most Dutch city centres.",
        ),
        "The Netherlands is famous for its tulips and windmills.",
    ),
    Question(
        "what does the guy at 2:14 mean when he says it's 'basically the same thing' https://youtu.be/xR3kq9",
        (
            ("Video comments", "www.youtube.com", NEUTRAL),
            ("Speech and context", "en.wikipedia.org", TRUSTWORTHY),
            ("Video transcripts", "www.transcriptsfree.net", SUSPICIOUS),
        ),
        (
            (0, "Without knowing what the video shows, it is not possible to say what the speaker is comparing."),
            (1, "'Basically the same thing' usually means two things differ only in minor details."),
            (0, "The comments under the video may explain what he is referring to."),
            (1, "Speakers often use the phrase loosely when simplifying for an audience."),
        ),
        (
            (1, "Automatic captions can also help you check what was said."),
            (0, "Many videos list chapters in their description."),
        ),
        (
            "He is saying that the two phones in the video have identical hardware.",
            "The video was removed for copyright reasons.",
        ),
        "YouTube was founded in 2005.",
        flag="does_not_make_sense",
    ),
    Question(
        "Which religion is the true one?",
        (
            ("Religion - Wikipedia", "en.wikipedia.org", TRUSTWORTHY),
            ("The Global Religious Landscape", "www.pewresearch.org", TRUSTWORTHY),
            ("Proof that my faith is right", "www.one-true-path.org", SUSPICIOUS),
        ),
        (
            (0, "Which religion, if any, is true is a matter of faith on which people deeply disagree."),
            (1, "Christianity, Islam and Hinduism are the three largest religions by number of followers."),
            (0, "Each religion makes claims that its followers accept but that cannot be settled by evidence alone."),
            (1, "About one in six people worldwide do not identify with any religion."),
        ),
        (
            (0, "Philosophers of religion have debated arguments for and against different beliefs for centuries."),
            (1, "Religious affiliation varies greatly between countries."),
        ),
        (
            "Historians have proven that only one religion's founding events really happened.",
            "Most scientists are members of the same religion.",
        ),
        "The Vatican is the smallest country in the world.",
        flag="should_not_be_answered",
    ),
)
