"""The facts of the three pages this product was made from (../shared/seeds), one table a seed.

Each fact: the line of the seed that states it, the fact in our own words, the rule of
/work/shared/spec/rules.md it states ("site" for the site's own frame), what carries it on our
page, and how main stood before issue 27 (``carried``, ``wrong``, ``missing``, or ``differs``:
said, but not the way the seed says it). Where rules.md contradicts the seed, the fact says
``overridden`` with the reason, and its carrier is what our page says instead.

A carrier is any of: catalog entries whose translations the page shows (an entry with
parameters is looked for by each piece of text between its parameters; ``(context, msgid)`` for
an entry with a context), a pattern the page's HTML matches, and a table row (its label's entry,
and entries its cells name). tests/web/test_seed_facts.py checks every carrier on the page in
every language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARRIED, WRONG, MISSING, DIFFERS = "carried", "wrong", "missing", "differs"

# a msgid; (context, msgid); or (singular, plural, count) for an entry with plural forms
Entry = str | tuple[str, str] | tuple[str, str, int]

LAST_PLACE = (
    "Whoever plays their last card goes out and takes the next free place. When only one player "
    "still holds cards, the round ends and that player is last."
)


@dataclass(frozen=True)
class Fact:
    line: int  # the line of the seed file
    says: str
    rule: str
    entries: tuple[Entry, ...] = ()
    element: str | None = None  # a regular expression the page's HTML matches
    row: tuple[str, tuple[str, ...]] | None = None  # a row's label, and entries its cells hold
    page: str | None = None  # the page, when not the seed's own
    before: str = CARRIED
    overridden: str | None = None


@dataclass(frozen=True)
class Seed:
    file: str
    page: str
    facts: list[Fact] = field(default_factory=list)


# --- 000: the Finnish Straights page -> /rules/straights ----------------------------------

RANKS_RUN = (
    "Ranks run from 3 up to 2 and do not wrap around: K-A-2 is the highest straight of three, "
    "and A-2-3 is no straight at all. A straight has no upper length, and the longer it is, the "
    "harder it is to follow. Four cards of a straight never count as a four of a kind."
)
A_STRAIGHT_IS = (
    "A straight is three or more cards of one suit with ranks that follow one another, such as "
    "the 5, 6 and 7 of hearts. With this option you may lead a straight instead of a set, and "
    "only a straight of the same length can follow it."
)
TO_BEAT = (
    "To beat a straight, play a straight of the same length with a higher top card, in any suit: "
    "the 6, 7 and 8 of clubs beat the 5, 6 and 7 of hearts. With equal plays, the same top card "
    "is enough."
)
NEVER_MIXED = (
    "Never mixed: a set follows only a set of its size, a straight only a straight of its length"
)
STRAIGHTS_IN_A_REVOLUTION_ROW = (
    "During a revolution a straight is beaten by one with a lower bottom card, or the same "
    "bottom card with equal plays; a straight of four cards starts no revolution"
)
STRAIGHTS_HISTORY = (
    "Runs of one suit come from Dai Fugō (大富豪), the Japanese climbing game that is generally "
    "held to be the likely direct ancestor of President. There a run is three or more "
    "consecutive cards of one suit, beaten only by a higher run of the same length; the lowest "
    "run of three is 3-4-5, the highest K-A-2. An early form of Dai Fugō, recorded in 1979, had "
    "two jokers but no runs."
)
RULE_COLLECTIONS = (
    "Rule collections disagree: some allow runs of mixed suits or limit their length. In "
    "CardVerse a straight is always of one suit and has no maximum length. With equal plays, "
    "which let every play equal the one it covers, a straight may also be covered by one that "
    "only equals it."
)
# the options a table may set, as the seeds list them (the row lists every other one)
SEED_000_OPTIONS = ("Jokers", "Revolution", "Eight clears the pile", "Card exchange")
SEED_001_OPTIONS = ("Jokers", "Straights", "Eight clears the pile", "Card exchange")

STRAIGHTS = Seed(
    "000_930c4d65f47158e9.txt",
    "/rules/straights",
    [
        Fact(1, "the page asks what a straight is", "site", ("What is a straight?",)),
        Fact(
            2,
            "in the standard game every play is a set of one rank: one to four cards",
            "R5",
            ("1 to 4 cards of one rank",),
        ),
        Fact(
            2,
            "with straights on, you may also play three or more cards of one suit in a row, "
            "such as the 5, 6 and 7 of hearts",
            "R6",
            (A_STRAIGHT_IS,),
            element=r'class="card-row"',
        ),
        Fact(2, "straights follow the normal order, from 3 up to A and then 2", "R6", (RANKS_RUN,)),
        Fact(
            2,
            "ranks do not wrap: K-A-2 is the highest straight of three, A-2-3 is none",
            "R6",
            (RANKS_RUN, "The highest straight of three."),
        ),
        Fact(3, "a trick led with a straight is a trick of straights", "R9", (NEVER_MIXED,)),
        Fact(3, "every next play is a straight of the same length", "R9", (A_STRAIGHT_IS,)),
        Fact(3, "in any suit", "R10", (TO_BEAT,)),
        Fact(
            3,
            "whose top card equals or beats the top card of the straight on the pile (equal "
            "where equal plays allow it: on in the standard game)",
            "R10",
            (TO_BEAT,),
        ),
        Fact(3, "no sets on straights and no straights on sets", "R9", (NEVER_MIXED,)),
        Fact(3, "a straight may be as long as your hand allows", "R6", (RANKS_RUN,)),
        Fact(
            3,
            "the longer a straight, the harder it is to follow",
            "R6",
            (RANKS_RUN,),
            before=MISSING,
        ),
        Fact(
            4,
            "straights never clear the pile by themselves, not even one that ends in a 2: only "
            "a set of 2s does",
            "R14",
            (
                "A straight never clears the pile because of its top card: even a straight that "
                "ends in a 2 leaves the trick open, and the next player may cover it.",
            ),
        ),
        Fact(
            4,
            "passing, winning a trick and going out work as in the standard game",
            "R11-R13, R20",
            ("Passing, winning a trick and going out work as in the standard game.",),
            before=MISSING,
        ),
        Fact(5, "a section of rule changes", "site", ("Rule changes",)),
        Fact(
            8,
            "what you may play: only sets in the standard game; sets or straights of three or "
            "more cards of one suit in a row with straights",
            "R5, R6",
            row=("What you may play", ("A set", "A set or a straight")),
        ),
        Fact(
            9,
            "length: no straights and at most four cards in the standard game; three or more "
            "cards with no upper length with straights",
            "R5, R6",
            ("A set of 1 to 4 cards, or a straight of 3 or more cards with no upper length",),
        ),
        Fact(
            9,
            "the ranks run from 3 to 2 without wrapping, so K-A-2 is the highest straight of three",
            "R6",
            (RANKS_RUN,),
        ),
        Fact(
            10,
            "beating a straight: only by a straight of the same length, any suit, with an equal "
            "or higher top card",
            "R10",
            (
                "A straight of the same length with a higher top card, in any suit; the same top "
                "card is enough with equal plays",
            ),
        ),
        Fact(
            11,
            "a trick led with a straight takes only straights of its length, one led with a set "
            "only sets of its size",
            "R9",
            row=("Sets and straights in one trick", ("Only sets", NEVER_MIXED)),
        ),
        Fact(
            12,
            "clearing: a set of 2s clears the pile; unchanged with straights, and a straight "
            "ending in a 2 does not clear it",
            "R14",
            ("A set of 2s; a straight never clears, not even one that ends in a 2",),
        ),
        Fact(
            13,
            "the other options a table may choose: jokers, revolution, eight clears the pile, "
            "card exchange and the number of rounds",
            "R4 (section 2)",
            row=("Other options", ("Number of rounds", *SEED_000_OPTIONS)),
            before=MISSING,
        ),
        Fact(
            13,
            "straights work with all of them",
            "R4",
            ("Straights work with all of them.",),
            before=MISSING,
        ),
        Fact(
            13,
            "a joker may fill any place of a straight",
            "R6",
            ("A joker also fills any place of a straight; you say which rank it stands for",),
        ),
        Fact(
            13,
            "during a revolution a straight must be equal or lower, measured by its bottom card "
            "(equal where equal plays allow it)",
            "R10",
            (STRAIGHTS_IN_A_REVOLUTION_ROW,),
            before=WRONG,  # main said "a lower bottom card" only
        ),
        Fact(
            13,
            "a straight of four cards starts no revolution",
            "R7, R18",
            (STRAIGHTS_IN_A_REVOLUTION_ROW,),
        ),
        Fact(
            13,
            "with eight clears the pile, a straight through an 8 clears it",
            "R14",
            ("A straight that holds an 8 clears the pile too",),
        ),
        Fact(14, "a history section", "site", ("History",)),
        Fact(15, "straights of one suit come from Dai Fugō", "history", (STRAIGHTS_HISTORY,)),
        Fact(
            15,
            "Dai Fugō is the Japanese climbing game generally held to be President's likely "
            "direct ancestor",
            "history",
            (STRAIGHTS_HISTORY,),
            before=MISSING,  # on the standard and revolution pages only
        ),
        Fact(
            15,
            "in Dai Fugō a run is three or more cards of one suit in a row, beaten only by a "
            "higher run of as many cards",
            "history",
            (STRAIGHTS_HISTORY,),
        ),
        Fact(
            15,
            "its highest run of three is K-A-2, its lowest 3-4-5",
            "history",
            (STRAIGHTS_HISTORY,),
        ),
        Fact(
            15,
            "the early form of the game, recorded in 1979, had two jokers and no runs",
            "history",
            (STRAIGHTS_HISTORY,),
            before=MISSING,  # on the jokers page only
        ),
        Fact(
            16,
            "with runs of single and of several cards the game is much like the Chinese climbing "
            "game Zheng Shangyou",
            "history",
            (
                "With runs of single cards as well as sets of several cards, the game comes quite "
                "close to the Chinese climbing game Zheng Shangyou.",
            ),
            before=MISSING,  # on the standard page only
        ),
        Fact(
            16,
            "rule collections differ: some allow mixed suits or limit the length",
            "history",
            (RULE_COLLECTIONS,),
        ),
        Fact(
            16,
            "here a straight is of one suit and has no maximum length",
            "R6",
            (RULE_COLLECTIONS,),
        ),
        Fact(
            16,
            "a straight may be followed by one that only equals it, as this game lets every "
            "play equal the one before (equal plays, on in the standard game)",
            "R10",
            (RULE_COLLECTIONS,),
        ),
    ],
)


# --- 001: the Polish Revolution page, with the site's frame -> /rules/revolution ----------

REVOLUTION_WHAT = (
    "A revolution turns the order of the cards upside down. Whoever plays a set of four starts "
    "one: from that moment the 2 is the lowest card and the 3 the highest. The next set of four "
    "starts a counter-revolution and puts the order back."
)
FOUR_JUDGED = (
    "A set of four is judged by the order before it is played: it may be led, or played on a set "
    "of four that it beats, or that it equals when equal plays are on. It does not end the "
    "trick. The reversed order applies from the very next play, and every round starts in the "
    "normal order again."
)
REVOLUTION_OTHER = (
    "With jokers, a set of three and a joker is a set of four and starts a revolution, and a set "
    "made only of jokers stays the highest play of its size. With straights, during a revolution "
    "a straight is beaten by one with a lower bottom card, or the same bottom card where equal "
    "plays allow it, and straights never start a revolution."
)
REVOLUTION_HISTORY = (
    "The revolution comes from Dai Fugō (大富豪), the Japanese climbing game that is generally "
    "held to be the likely direct ancestor of President. There every four of a kind, even one "
    "made with a joker, starts a revolution, a second one reverses it, and a new deal brings back "
    "the normal order."
)
REVOLUTION_THERE = (
    "In Dai Fugō the reversed order only takes effect once the table has been cleared; in "
    "CardVerse it applies as soon as the four cards are down."
)
WESTERN = (
    "A Western form of the rule lets four of a kind, played at once or as four single cards in a "
    "row, reverse both the ranking and the direction of play. Here the direction of play never "
    "changes."
)
REVERSED_RANKS = "During a revolution, from the lowest to the highest, the ranks are: %(ranks)s."
TWOS_AND_THREES = (
    "A set of 2s; during a revolution a set of 3s instead, and a set of 2s is the lowest set"
)

REVOLUTION = Seed(
    "001_6d650f824021b162.txt",
    "/rules/revolution",
    [
        Fact(
            1,
            "a link to skip to the main content, in the page's language (the seed shows it twice, "
            "once left in English)",
            "site",
            ("Skip to main content",),
            element=r'<a class="skip-link" href="#main">',
        ),
        Fact(5, "the site is in beta", "site", ("Beta",)),
        Fact(7, "the page is a variant of President", "site", ("President variant",)),
        Fact(
            9, "the title is Revolution", "site", element=r"<h1>[^<]+</h1>", entries=("Revolution",)
        ),
        Fact(
            11,
            "every set of four reverses the order, 3 highest and 2 lowest, until the next four "
            "turns it back",
            "R15",
            (
                "With this option a set of four turns the order of the cards upside down, so that "
                "a hand of low cards can win.",
                REVOLUTION_WHAT,
            ),
        ),
        Fact(13, "the page asks what a revolution is", "site", ("What is a revolution?",)),
        Fact(
            15,
            "in the standard game the ranks run from the 3, lowest, to the 2, highest",
            "R3",
            ("3 lowest, 2 highest, all round long",),
        ),
        Fact(
            15,
            "a set of 2s clears the pile",
            "R14",
            ("A set of 2s clears the pile, and its player leads the next trick",),
        ),
        Fact(
            15,
            "with revolution on, every set of four starts a revolution",
            "R15",
            (REVOLUTION_WHAT,),
        ),
        Fact(
            15,
            "the order reverses at once: the 3 is the highest card and the 2 the lowest",
            "R15",
            (REVOLUTION_WHAT,),
        ),
        Fact(
            15,
            "so every later play must be lower than the one before in the normal order, or equal "
            "(where equal plays allow it)",
            "R10",
            (
                "While a revolution lasts, every play must be lower than the one it covers, by "
                "the normal order, or of the same rank where equal plays allow it.",
            ),
            before=DIFFERS,  # main: "the reversed order applies from the very next play"
        ),
        Fact(
            17,
            "the four itself is judged by the order in force when it is played",
            "R16",
            (FOUR_JUDGED,),
        ),
        Fact(
            17,
            "as in the standard game, a four may be led or played on a four it equals or beats",
            "R16",
            (FOUR_JUDGED,),
        ),
        Fact(
            17, "once it is down, the next player follows the reversed order", "R16", (FOUR_JUDGED,)
        ),
        Fact(
            19,
            "during a revolution a set of 3s clears the pile instead of 2s",
            "R14",
            (TWOS_AND_THREES,),
        ),
        Fact(
            19,
            "the next four starts a counter-revolution and brings the normal order back",
            "R15",
            (REVOLUTION_WHAT,),
        ),
        Fact(
            19,
            "every four after that reverses it again",
            "R15",
            ("Reversed by every set of four, turned back by the next one",),
        ),
        Fact(
            19,
            "every new round starts in the normal order",
            "R19",
            (FOUR_JUDGED, "Normal order again"),
        ),
        Fact(
            19,
            "so the exchange between rounds always uses the normal ranks",
            "R19",
            ("Still the normal order",),
        ),
        Fact(21, "a section of rule changes", "site", ("Rule changes",)),
        Fact(
            23,
            "a table of how the revolution differs from the standard game",
            "site",
            ("How the standard game changes with the revolution.",),
        ),
        Fact(
            24,
            "a set of four in the standard game: an ordinary play that beats a lower four (or an "
            "equal one with equal plays) and nothing else happens",
            "R10, R16",
            ("An ordinary set", "A higher set of four, or an equal one with equal plays"),
        ),
        Fact(
            24,
            "with revolution: it starts a revolution at once, is judged by the order when it is "
            "played, and the next play by the reversed order",
            "R15, R16",
            (
                "Starts a revolution, or a counter-revolution, at once; the trick goes on",
                "The same, judged by the order in force before the new four",
            ),
        ),
        Fact(
            25,
            "the standard order: the 3 lowest, up through the king and the ace, the 2 highest",
            "R3",
            ("3 lowest, 2 highest, all round long",),
        ),
        Fact(
            25,
            "during a revolution: the 2 lowest, then the ace down to the 4, the 3 highest",
            "R3",
            (REVERSED_RANKS,),
            element=r'<figure class="card-row">\s*<div class="cards">(?:\s*<svg.*?</svg>){13}',
            before=DIFFERS,  # main: "the 2 is the lowest card and the 3 the highest" only
        ),
        Fact(
            26,
            "in the standard game a set of 2s clears the pile, and its player leads the next trick",
            "R14",
            ("A set of 2s clears the pile, and its player leads the next trick",),
            before=MISSING,  # main said "A set of 2s" only
        ),
        Fact(
            26,
            "during a revolution a set of 3s clears it instead, and a set of 2s is the weakest "
            "play",
            "R14, R3",
            (TWOS_AND_THREES,),
        ),
        Fact(
            27,
            "in the standard game the order never changes; with revolution the next four "
            "starts a counter-revolution, and every four after it reverses the order again",
            "R15",
            (
                "3 lowest, 2 highest, all round long",
                "Reversed by every set of four, turned back by the next one",
            ),
        ),
        Fact(
            28,
            "a new round uses the normal order, whatever happened in the round before",
            "R19",
            ("Normal order", "Normal order again"),
        ),
        Fact(
            29,
            "the other options a table may choose: jokers, straights, eight clears the pile, card "
            "exchange and the number of rounds",
            "R4 (section 2)",
            row=("Other options", ("Number of rounds", *SEED_001_OPTIONS)),
            before=MISSING,
        ),
        Fact(
            29,
            "revolution works with all of them",
            "R4",
            ("Revolution works with all of them.",),
            before=MISSING,
        ),
        Fact(
            29,
            "three of a kind and a joker count as a set of four",
            "R5, R15",
            (REVOLUTION_OTHER,),
        ),
        Fact(29, "a lone joker stays the highest play", "R5", (REVOLUTION_OTHER,)),
        Fact(
            29,
            "with straights, a straight during a revolution must be equal or lower, measured by "
            "its bottom card (equal where equal plays allow it)",
            "R10",
            (REVOLUTION_OTHER,),
            before=WRONG,  # main said "a lower bottom card" only
        ),
        Fact(29, "a straight of four cards starts no revolution", "R7, R18", (REVOLUTION_OTHER,)),
        Fact(31, "a history section", "site", ("History",)),
        Fact(33, "the revolution comes from Dai Fugō", "history", (REVOLUTION_HISTORY,)),
        Fact(
            33,
            "Dai Fugō is the Japanese climbing game generally held to be President's likely "
            "direct ancestor",
            "history",
            (REVOLUTION_HISTORY,),
            before=DIFFERS,  # main: "the Japanese game that is most likely the direct ancestor"
        ),
        Fact(
            33,
            "in the usual Dai Fugō rules every four of a kind, with a joker too, starts a "
            "revolution",
            "history",
            (REVOLUTION_HISTORY,),
        ),
        Fact(
            33,
            "a second four is a counter-revolution back to the first order",
            "history",
            (REVOLUTION_HISTORY,),
        ),
        Fact(33, "a new deal always brings the first order back", "history", (REVOLUTION_HISTORY,)),
        Fact(
            33,
            "there the reversed order holds from the next clearing of the table",
            "history",
            (REVOLUTION_THERE,),
        ),
        Fact(33, "here it holds as soon as the four cards are down", "R15", (REVOLUTION_THERE,)),
        Fact(
            35,
            "a Western form: four of a kind, at once or as four single cards in a row, reverses "
            "both the ranks and the direction of play",
            "history",
            (WESTERN,),
        ),
        Fact(35, "here the direction of play does not change", "R12", (WESTERN,)),
        Fact(
            37,
            "no registration: share a link and start playing",
            "site",
            ("No registration. Share a link and start playing.",),
        ),
        Fact(
            37,
            "the version and the source commit",
            "site",
            element=r'<span class="version" title="[^"]+">v\d+\.\d+\.\d+ · \w+</span>',
        ),
    ],
)


# --- 003: a Lithuanian rules sheet of a cardverse table -> its sheet ----------------------

SHEET_PAGE = "/rules/sheet?preset=cardverse&players=4"
SHEET_PAGE_ROUNDS = "/rules/sheet?preset=cardverse&players=4&rounds=3"

SHEET = Seed(
    "003_6de50325bc7be08a.txt",
    SHEET_PAGE,
    [
        Fact(
            1,
            "a title line naming the game",
            "site",
            (("the game", "President"),),
            element=r'<p class="sheet-title">',
            before=MISSING,
        ),
        Fact(
            3,
            "a summary line at the top: the preset, revolution on, equal plays off, the version",
            "site",
            ("%(preset)s preset", "Version %(version)s"),
            element=r'<p class="sheet-summary">.+?·.+?·.+?·.+?</p>',
            before=MISSING,
        ),
        Fact(
            7,
            "the goal: be the first to get rid of all your cards",
            "R20",
            (
                "Be the first to play every card in your hand, and avoid being the last. The "
                "order in which players go out gives each a title and points.",
            ),
        ),
        Fact(
            7,
            "and avoid being the last",
            "R20, R21",
            (
                "Be the first to play every card in your hand, and avoid being the last. The "
                "order in which players go out gives each a title and points.",
            ),
            before=MISSING,
        ),
        Fact(
            11,
            "all the cards are dealt as evenly as possible",
            "R23",
            (
                (
                    "The cards are shuffled and dealt one at a time: everyone gets %(num)s card.",
                    "The cards are shuffled and dealt one at a time: everyone gets %(num)s cards.",
                    13,
                ),
            ),
        ),
        Fact(
            11,
            "to 3 to 6 players",
            "R4 (section 2)",
            ("The %(preset)s preset is for %(low)s to %(high)s players.",),
        ),
        Fact(
            12,
            "the player in the first seat leads the first round, with any rank: no 3 of clubs "
            "needed",
            "R24",
            ("The player in the first seat leads the first round, with any play.",),
        ),
        Fact(
            13,
            "the normal order of the ranks, written out: 3, 4, … K, A, 2",
            "R3",
            ("Suits do not matter. From the lowest to the highest, the ranks are: %(ranks)s.",),
            before=DIFFERS,  # main drew the cards without writing the ranks out
        ),
        Fact(
            14,
            "revolution on by default: a set of four reverses the order",
            "R15",
            (
                "Every set of four starts a revolution: at once the order is reversed, the 2 is "
                "the lowest and the 3 the highest. The next set of four turns it back.",
            ),
        ),
        Fact(
            14,
            "no jokers and no straights",
            "R4 (section 2)",
            ("The %(preset)s preset locks these options: %(options)s.",),
        ),
        Fact(
            18,
            "the first player plays a set of 1 to 4 cards of one rank",
            "R5, R8",
            ("The player on lead puts down any set: 1 to 4 cards of one rank.",),
        ),
        Fact(
            19,
            "the next player plays as many cards of a higher rank by the order in force, or passes",
            "R9-R11",
            (
                "Then, seat after seat, each player either plays something that beats the last "
                "play, or passes.",
            ),
        ),
        Fact(
            20,
            "when everyone else has passed, the last to play wins the trick and leads freely",
            "R13",
            (
                "When everyone else has passed, the last player to play wins the trick, clears "
                "the pile and leads the next trick.",
            ),
        ),
        Fact(
            21,
            "a player with no cards left takes a place and leaves the round",
            "R20",
            (LAST_PLACE,),
        ),
        Fact(
            25,
            "the cards of one play are of one rank",
            "R5",
            ("The player on lead puts down any set: 1 to 4 cards of one rank.",),
        ),
        Fact(
            26,
            "a play has as many cards as the play it covers",
            "R9",
            ("A set is followed only by a set of the same size.",),
        ),
        Fact(
            27,
            "the rank must be strictly higher: no equal plays",
            "R10",
            ("To beat a set, play a higher rank: the same rank is not enough.",),
        ),
        Fact(
            28,
            "a pass keeps you out until the end of the round",
            "R11",
            ("Whoever passes takes no further part in this trick.",),
            overridden="R11: a pass keeps a player out of this trick only; the sheet says so",
        ),
        Fact(
            29,
            "a set of four reverses the order when revolution is on, and does not end the trick",
            "R15, R16",
            (
                "A set of four does not end the trick. It is judged by the order in force before "
                "it: you may lead it, or play it on a set of four that it beats. The next play is "
                "judged by the new order.",
            ),
        ),
        Fact(
            29,
            "a new set of four reverses the order again",
            "R15",
            (
                "Every set of four starts a revolution: at once the order is reversed, the 2 is "
                "the lowest and the 3 the highest. The next set of four turns it back.",
            ),
        ),
        Fact(
            33,
            "the titles: first out President, second Vice-President, second to last Vice-Scum, "
            "last Scum",
            "R21",
            ("President", "Vice-President", "Vice-Scum", "Scum"),
            element=r'<table class="places">',
        ),
        Fact(
            34,
            "each round the first gets as many points as there are players, each next place one "
            "fewer, the last 1",
            "R22",
            ("Each place gives a title and points:",),
            element=r"<td>1\.</td><td>[^<]+</td><td>4</td>.*<td>4\.</td><td>[^<]+</td><td>1</td>",
        ),
        Fact(
            34,
            "the points of a game's rounds add up",
            "R22",
            ("Points add up over the rounds. The highest total wins; equal totals share a place.",),
        ),
        Fact(
            38,
            "a round ends when all players but one have emptied their hands",
            "R20",
            (LAST_PLACE,),
        ),
        Fact(
            39,
            "the game ends after the rounds set for the table",
            "R22",
            (("The game lasts %(num)s round.", "The game lasts %(num)s rounds.", 1),),
        ),
        Fact(
            39,
            "one round by default",
            "section 2",
            (("The game lasts %(num)s round.", "The game lasts %(num)s rounds.", 1),),
            element=r"\b1\b",
        ),
        Fact(
            39,
            "the results show the last round's places and the totals",
            "R22",
            ("At the end, the results show the places of the last round and the totals.",),
        ),
        Fact(
            43,
            "over several rounds the Scum gives the President their two best cards automatically, "
            "and the President chooses two to give back",
            "R25",
            (
                "In every round after the first, once the cards are dealt and before the first "
                "play, the Scum gives the President their two highest cards, and the President "
                "gives back any two cards.",
                "The highest cards are given automatically; the President and the Vice-President "
                "choose the cards they give back.",
            ),
            page=SHEET_PAGE_ROUNDS,
        ),
        Fact(
            43,
            "from four players on the Vice-Scum and the Vice-President swap one card",
            "R25",
            (
                "The Vice-Scum gives the Vice-President their highest card and gets back any one "
                "card.",
            ),
            page=SHEET_PAGE_ROUNDS,
        ),
        Fact(
            44,
            "if the player who should lead a new round has gone out, the next player still in "
            "the round leads",
            "R13",
            (
                "If the player who should lead next has gone out, the next player in seat order "
                "who still holds cards leads.",
            ),
        ),
        Fact(
            45,
            "during a revolution the 2 is lowest and the 3 highest: 2, A, K, Q, J, 10 … 4, 3",
            "R3",
            (REVERSED_RANKS,),
        ),
        Fact(
            45,
            "the normal order comes back when the next round starts",
            "R19",
            ("Every round starts in the normal order.",),
        ),
        Fact(
            46,
            "the options the preset locks stay as they are: no equal plays, no jokers, no "
            "straights",
            "R4",
            ("The %(preset)s preset locks these options: %(options)s.", "locked"),
        ),
        Fact(
            50,
            "a computer player uses only its own hand, the public cards and history, and the "
            "moves the server allows",
            "R27",
            (
                "Empty seats can be filled with computer players. They see only what a person in "
                "their seat would see.",
            ),
        ),
        Fact(52, "easy plays the lowest legal set", "R28", ("Plays the lowest play it can.",)),
        Fact(
            53,
            "normal keeps its 2s and fours to win back the lead and does not break up pairs and "
            "triples for nothing",
            "R29",
            (
                "Keeps its 2s and its fours of a kind to win back the lead, and does not break up "
                "pairs and triples when it need not.",
            ),
        ),
        Fact(
            54,
            "hard counts the cards of each rank still out from the public cards, and plans how "
            "to empty its hand",
            "R30",
            (
                "Counts which cards can still be in other hands, from what it has seen, tells "
                "from each opponent's plays how that opponent plays, and plans how to empty its "
                "own hand first.",
            ),
        ),
        Fact(
            3,
            "the version of the rules (with its commit, which the issue adds)",
            "site",
            ("These are the rules of CardVerse %(version)s, commit %(commit)s.",),
            before=DIFFERS,  # main gave the version at the bottom, without the commit
        ),
    ],
)

SEEDS: list[Seed] = [STRAIGHTS, REVOLUTION, SHEET]
