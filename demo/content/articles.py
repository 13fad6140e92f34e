"""Topics, reference articles and three model predictions for the article-Likert demo (seeds/004).

Each topic carries the Likert score (1-5) a careful annotator would give each prediction, judged against
the reference: factual consistency first, then adequacy, coherence, relevance and fluency.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One topic: the human reference article and three predictions with their true Likert scores."""

    topic: str
    reference: str
    predictions: tuple[str, str, str]
    quality: tuple[float, float, float]


TOPICS: tuple[Topic, ...] = (
    Topic(
        "2019 Cricket World Cup final",
        "The final of the 2019 ICC Cricket World Cup was played on 14 July 2019 at Lord's in London between "
        "England and New Zealand. New Zealand batted first and made 241 for 8 from their 50 overs. England "
        "were also bowled out for 241 on the last ball, so the match was tied, and the Super Over that "
        "followed was tied as well, with both sides scoring 15. England won the title on the boundary count "
        "rule, having hit more boundaries during the match. Ben Stokes, who scored 84 not out, was named "
        "player of the match. It was England's first men's World Cup title.",
        (
            "England won the 2019 Cricket World Cup final against New Zealand at Lord's on 14 July 2019. Both "
            "teams scored 241 in their innings and the Super Over was also tied, so England took the title "
            "because they had hit more boundaries. Ben Stokes made 84 not out and was player of the match. "
            "The victory gave England their first men's World Cup.",
            "The 2019 Cricket World Cup final was played at The Oval, where New Zealand beat England by 15 runs "
            "in a Super Over. Kane Williamson scored a century and was named player of the tournament.",
            "The Cricket World Cup is a cricket tournament. Cricket is popular in England, India, Australia and "
            "many other countries, and the World Cup is held every four years. Cricket is played with a bat "
            "and ball.",
        ),
        (4.6, 1.6, 1.4),
    ),
    Topic(
        "Notre-Dame de Paris fire",
        "On the evening of 15 April 2019, a fire broke out beneath the roof of Notre-Dame de Paris. The "
        "cathedral's spire collapsed and most of its wooden roof was destroyed, but the stone vaults largely "
        "held and the two bell towers were saved by around 400 firefighters. Relics including the crown of "
        "thorns were carried out during the fire. Investigators believe the blaze was accidental, possibly "
        "caused by an electrical fault or a cigarette. After a five-year restoration, the cathedral reopened "
        "in December 2024.",
        (
            "Notre-Dame de Paris caught fire in April 2019. The fire damaged the roof. The cathedral reopened "
            "later. Many people watched the fire on television and were very sad about the fire.",
            "On 15 April 2019 a fire started under the roof of Notre-Dame de Paris, bringing down the spire and "
            "destroying most of the roof. About 400 firefighters saved the bell towers and the main structure, "
            "and relics such as the crown of thorns were rescued. The fire is thought to have been accidental. "
            "The cathedral reopened in December 2024 after restoration.",
            "A fire at Notre-Dame de Paris on 15 April 2019 destroyed the roof and the spire. The cathedral's "
            "two towers survived. Investigators concluded that the fire was started deliberately, and the "
            "building reopened in 2020.",
        ),
        (2.3, 4.7, 2.1),
    ),
    Topic(
        "First image of a black hole",
        "On 10 April 2019, the Event Horizon Telescope collaboration published the first image of a black "
        "hole. It shows the supermassive black hole at the centre of the galaxy M87, about 55 million "
        "light-years from Earth, with a mass about 6.5 billion times that of the Sun. The image was made by "
        "combining observations from radio telescopes around the world, which together act like a telescope "
        "the size of the Earth. The data was collected in April 2017, and the picture shows a bright ring of "
        "glowing gas around a dark shadow.",
        (
            "Scientists released the first picture of a black hole in 2019. It shows a ring of light around a "
            "dark centre. The black hole is in a distant galaxy and is very heavy.",
            "In 2019 NASA's Hubble Space Telescope photographed the black hole at the centre of the Milky Way, "
            "which is about 55 light-years away.",
            "The Event Horizon Telescope collaboration released the first image of a black hole on 10 April "
            "2019. The black hole sits at the centre of the galaxy M87, 55 million light-years away, and weighs "
            "about 6.5 billion suns. Radio telescopes across the world were linked to work like one "
            "Earth-sized telescope, using data gathered in April 2017, and the image shows a glowing ring "
            "around a dark shadow.",
        ),
        (3.2, 1.3, 4.6),
    ),
    Topic(
        "2021 Suez Canal obstruction",
        "On 23 March 2021, the container ship Ever Given ran aground in the Suez Canal during strong winds "
        "and a sandstorm, blocking the canal for six days. Hundreds of ships queued at both ends, and some "
        "were rerouted around the Cape of Good Hope. Around 12 percent of global trade passes through the "
        "canal. The ship was freed on 29 March after dredging and the work of tugboats. Egypt held the ship "
        "until a compensation settlement with its owners was reached in July 2021.",
        (
            "The container ship Ever Given got stuck in the Suez Canal on 23 March 2021 after strong winds "
            "pushed it aground, blocking the canal for six days. Hundreds of ships were left waiting and some "
            "went around Africa instead. The ship was refloated on 29 March, and Egypt kept it until a "
            "compensation deal was agreed in July.",
            "In March 2021 the Ever Given blocked the Suez Canal for almost a week. Many ships were delayed, "
            "which affected global trade, since a large share of world trade uses the canal.",
            "Ever Given Ever Given ship canal stuck. The ship stuck in canal for days and days and the canal "
            "was stuck. Ships.",
        ),
        (4.4, 3.5, 1.2),
    ),
    Topic(
        "2010 Copiapó mining accident",
        "On 5 August 2010, a cave-in at the San José copper-gold mine near Copiapó in Chile trapped 33 miners "
        "about 700 metres underground. After 17 days, a drill probe reached their shelter and came back with "
        "a note saying that all 33 were alive. The miners were kept supplied through narrow boreholes while a "
        "rescue shaft was drilled. On 13 October 2010, after 69 days underground, all 33 were brought to the "
        "surface one by one in a capsule called Fénix 2.",
        (
            "In 2010, 33 Chilean miners were trapped in a mine. They were rescued by helicopter after two weeks "
            "and all of them survived.",
            "A collapse at the San José mine near Copiapó, Chile, trapped 33 miners around 700 metres "
            "underground on 5 August 2010. Seventeen days later a drill reached them and brought back a note "
            "saying all were alive. Supplies were sent down boreholes while a rescue shaft was drilled, and on "
            "13 October, after 69 days, every miner was lifted out in the Fénix 2 capsule.",
            "Thirty-three miners were trapped underground in Chile in August 2010 and were all rescued in "
            "October, after more than two months. They were brought up in a special capsule.",
        ),
        (1.8, 4.7, 3.4),
    ),
    Topic(
        "2010 eruptions of Eyjafjallajökull",
        "Eyjafjallajökull, a volcano covered by an ice cap in southern Iceland, began erupting in March 2010. "
        "An explosive phase starting on 14 April threw a large cloud of fine ash into the atmosphere, which "
        "winds carried over Europe. Because ash can damage jet engines, much of European airspace was closed "
        "for about six days. Around 100,000 flights were cancelled, affecting some 10 million passengers, "
        "the largest air-travel disruption in Europe since the Second World War.",
        (
            "The Eyjafjallajökull volcano in Iceland erupted in 2010 and produced an ash cloud. Airspace was "
            "closed over Europe and many flights were cancelled.",
            "In April 2010 an explosive eruption of Eyjafjallajökull, an ice-capped volcano in southern "
            "Iceland, sent a huge cloud of ash over Europe. Since ash can damage jet engines, much of European "
            "airspace closed for about six days, and around 100,000 flights were cancelled, affecting roughly "
            "10 million travellers.",
            "Iceland is known for volcanoes, geysers and glaciers. Many tourists visit Reykjavik and the Blue "
            "Lagoon every year. Icelandic is one of the oldest languages still spoken in Europe.",
        ),
        (3.4, 4.4, 1.5),
    ),
    Topic(
        "Philae comet landing",
        "The European Space Agency's Rosetta spacecraft reached comet 67P/Churyumov-Gerasimenko in August "
        "2014 after a ten-year journey. On 12 November 2014 its lander, Philae, made the first soft landing "
        "on a comet. Philae bounced twice and came to rest in the shadow of a cliff, where its solar panels "
        "got little light, and its batteries ran down after about 60 hours, though it sent back data first. "
        "Rosetta continued to study the comet until it was deliberately crash-landed on the surface on 30 "
        "September 2016.",
        (
            "Philae was the first probe to land on a comet, in 2014. It landed on comet 67P and sent back data.",
            "NASA's Philae lander touched down on comet 67P in November 2014 and operated for two years, "
            "drilling deep into the comet.",
            "On 12 November 2014, Philae, the lander carried by ESA's Rosetta spacecraft, made the first soft "
            "landing on a comet, 67P/Churyumov-Gerasimenko. It bounced and settled in a shadowed spot, so its "
            "batteries ran out after about 60 hours, but it returned data before going silent. Rosetta kept "
            "studying the comet until it was crash-landed on it in September 2016.",
        ),
        (3.0, 1.5, 4.6),
    ),
    Topic(
        "Tham Luang cave rescue",
        "On 23 June 2018, twelve boys from a youth football team and their assistant coach were trapped in "
        "the Tham Luang cave in northern Thailand when heavy rain flooded its passages. They were found alive "
        "on a rock shelf by two British divers nine days later. Between 8 and 10 July, an international team "
        "of divers brought all thirteen out through the flooded tunnels. A former Thai Navy SEAL, Saman "
        "Kunan, died during the operation.",
        (
            "Twelve boys from a football team and their coach were trapped by flood water in Thailand's Tham "
            "Luang cave on 23 June 2018. British divers found them alive nine days later, and between 8 and 10 "
            "July an international diving team brought all thirteen out. A former Navy SEAL, Saman Kunan, "
            "died during the rescue.",
            "In 2018 a football team was trapped in a cave in Vietnam. The boys were rescued after three months "
            "by drilling a tunnel down from the mountain.",
            "In 2018 a youth football team and their coach were trapped in a flooded cave in Thailand. Divers "
            "found them after more than a week and all were rescued in July.",
        ),
        (4.6, 1.3, 3.5),
    ),
    Topic(
        "Opening of the Channel Tunnel",
        "The Channel Tunnel was officially opened on 6 May 1994 by Queen Elizabeth II and French President "
        "François Mitterrand. The 50-kilometre rail tunnel links Folkestone in England with Coquelles near "
        "Calais in France, and 38 kilometres of it run beneath the sea, the longest undersea section of any "
        "tunnel in the world. It carries Eurostar passenger trains between London, Paris and Brussels, as "
        "well as shuttle trains that take cars and lorries across.",
        (
            "The Channel Tunnel opened in 1994. It goes under the sea between England and France. Trains use "
            "it. It was opened by the Queen. The tunnel is a tunnel under the sea for trains.",
            "Queen Elizabeth II and President François Mitterrand opened the Channel Tunnel on 6 May 1994. The "
            "50 km rail tunnel connects Folkestone with Coquelles near Calais, with 38 km under the sea, more "
            "than any other tunnel. Eurostar trains run through it between London, Paris and Brussels, and "
            "shuttle trains carry cars and lorries.",
            "The Channel Tunnel, opened in 1990, is a road tunnel that lets drivers go from Dover to Calais in "
            "about 20 minutes.",
        ),
        (2.8, 4.7, 1.6),
    ),
    Topic(
        "2022 FIFA World Cup final",
        "The 2022 FIFA World Cup final was played on 18 December 2022 at Lusail Stadium in Qatar between "
        "Argentina and France. Argentina led 2-0, but Kylian Mbappé scored twice in two minutes to take the "
        "game to extra time, where each side scored again to make it 3-3. Mbappé became the first player "
        "since Geoff Hurst in 1966 to score a hat-trick in a World Cup final. Argentina won the penalty "
        "shoot-out 4-2. Lionel Messi scored twice and was named the tournament's best player, as Argentina "
        "won their third World Cup.",
        (
            "Argentina beat France 3-0 in the 2022 World Cup final in Qatar, with Messi scoring a hat-trick.",
            "Argentina won the 2022 World Cup final against France in Qatar on penalties after a 3-3 draw. "
            "Messi scored twice and Mbappé scored three goals for France.",
            "On 18 December 2022 at Lusail Stadium in Qatar, Argentina and France drew 3-3 after extra time in "
            "the World Cup final, with Kylian Mbappé scoring the first final hat-trick since Geoff Hurst in "
            "1966. Argentina won the shoot-out 4-2 to claim their third title, and Lionel Messi, who scored "
            "twice, was named player of the tournament.",
        ),
        (1.4, 3.6, 4.7),
    ),
)
