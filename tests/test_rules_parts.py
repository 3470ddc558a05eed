"""Rules as parts (design.md "Rules as parts", R4): one module per option, one options table.

The suit lock (R31) was added as a proof: apart from its message-catalog entries and rules page,
it lives in one rule module, registered once, with one field in :class:`Rules`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardverse.engine import Game, Phase, Rules, options_table
from cardverse.engine.options import OPTION_NAMES, PRESETS, SPECS
from cardverse.engine.parts import PARTS
from cardverse.engine.ruleset import ruleset_for

PACKAGE = Path(__file__).parent.parent / "cardverse"


def python_files_naming(pattern: str) -> set[str]:
    found = set()
    regex = re.compile(pattern)
    for path in PACKAGE.rglob("*.py"):
        if regex.search(path.read_text(encoding="utf-8")):
            found.add(str(path.relative_to(PACKAGE)))
    return found


def test_R4_every_option_is_one_part_whose_module_is_named_after_it() -> None:
    names = [part.spec.name for part in PARTS]
    assert names == list(OPTION_NAMES) and len(set(names)) == len(names)
    for part in PARTS:
        module = type(part).__module__.rsplit(".", 1)[-1]
        assert module in (part.spec.name, "table"), (part.spec.name, module)
        assert set(part.spec.locked) <= set(PRESETS)


def test_R4_presets_and_locks_come_from_the_one_table() -> None:
    table = options_table()
    assert [o["name"] for o in table["options"]] == list(OPTION_NAMES)
    for preset in table["presets"]:
        name = preset["name"]
        assert preset["defaults"] == {n: s.value_in(name) for n, s in SPECS.items()}
        assert preset["locked"] == sorted(n for n, s in SPECS.items() if name in s.locked)
        assert Rules.make(name).to_dict() == {"preset": name, **preset["defaults"]}
    daifugo = next(p for p in table["presets"] if p["name"] == "daifugo")
    assert daifugo["locked"] == [] and daifugo["players"] == [3, 8]


def test_R31_adding_the_suit_lock_touched_one_rule_module() -> None:
    """In the Python code, the suit lock is named only by its module, the parts registry, the
    option's field of Rules and its catalog entries (label, help, sheet lines, refusal text);
    everything else (the referee, views, notation, bots, server, the table form and the rules
    sheet's code) reaches it through the parts, the options table and the trick's state."""
    assert python_files_naming(r"suit_lock|SuitLock|play_suits|outside_lock") == {
        "engine/parts/suit_lock.py",
        "engine/parts/__init__.py",
        "engine/options.py",
        "web/messages.py",
    }
    # Its rules page is a template named after it, found through its option's page slug.
    assert (PACKAGE / "web/templates/rules/suit_lock.html").exists()
    assert SPECS["suit_lock"].page == "suit-lock"


@pytest.mark.parametrize(
    ("rule", "names", "module"),
    [
        ("R41", r"straight_cover|StraightCover|all_higher|ALL_HIGHER", "straight_cover"),
        ("R42", r"straight_revolution|StraightRevolution", "straight_revolution"),
        ("R43", r"five_card_sets|FiveCardSets|full_ranks", "five_card_sets"),
        ("R46", r"lead_every_round|LeadEveryRound", "lead_every_round"),
    ],
)
def test_R41_R46_each_rule_of_section_11_is_one_module(rule: str, names: str, module: str) -> None:
    """The UECda rules were added as parts alone (issue 30's proof): each is named only by its
    module, the parts registry and the option's field of Rules (what it declares, the other
    layers read through the parts); its rules page is a template named after it."""
    assert python_files_naming(names) == {
        f"engine/parts/{module}.py",
        "engine/parts/__init__.py",
        "engine/options.py",
    }, rule
    assert (PACKAGE / f"web/templates/rules/{module}.html").exists()
    assert SPECS[module].page == module.replace("_", "-")


HOUSE_RULES = ("suit_lock", "jack_back", "spade_three", "forbidden_finish", "downfall")
HOUSE_RULES += ("seven_pass", "ten_discard")


@pytest.mark.parametrize("option", HOUSE_RULES)
def test_R31_R37_a_house_rule_is_named_by_its_part_registry_rules_and_page_alone(
    option: str,
) -> None:
    """Issue 30: the name of a house rule stands in at most four product files (its part, the
    parts registry, the option's field of Rules and its rules page), whatever the file's kind;
    a line about two rules together asks what the table's rules do (engine.words.FACTS)."""
    kinds = (".py", ".html", ".js", ".css", ".json")
    found = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*")
        if path.suffix in kinds
        and "_mypyc" not in path.parts
        and option in path.read_text(encoding="utf-8")
    }
    assert found == {
        f"engine/parts/{option}.py",
        "engine/parts/__init__.py",
        "engine/options.py",
        f"web/templates/rules/{option}.html",
    }


def test_R4_the_ruleset_composes_only_the_active_parts() -> None:
    standard = ruleset_for(Rules.make("standard"))
    # the exchange alone, which acts between rounds (R25) and never on a play
    assert [p.spec.name for p in standard.parts] == ["exchange"]
    assert standard.fast_tables and standard.fast_playouts and not standard.follows_play
    assert ruleset_for(Rules.make("standard", exchange=False)).parts == ()
    every = ruleset_for(Rules.make("daifugo", straights=True, jokers=2))
    assert {p.spec.name for p in every.house_rules} == {
        "suit_lock",
        "jack_back",
        "spade_three",
        "forbidden_finish",
        "downfall",
        "seven_pass",
        "ten_discard",
    }
    assert not every.fast_tables and not every.fast_playouts
    assert {report.name for report in every.reports} == {"lock", "jack_back"}


def test_R25_the_exchange_part_pairs_the_givers_and_the_game_asks_it() -> None:
    """The exchange is a part (issue 30: no spec-only parts): in force, it names who gives to
    whom from the previous round's places; off, there is no exchange and no pair."""
    on = ruleset_for(Rules.make("standard", players=5))
    pairs = on.exchange_pairs([3, 1, 4, 0, 2])
    assert [(p.giver, p.receiver, p.count) for p in pairs] == [(2, 3, 2), (0, 1, 1)]
    three = on.exchange_pairs([2, 0, 1])
    assert [(p.giver, p.receiver, p.count) for p in three] == [(1, 2, 2)]
    assert ruleset_for(Rules.make("standard", exchange=False)).exchange_pairs([0, 1, 2]) == []
    game = Game(Rules.make("standard", players=4, rounds=2, exchange=False), seed=5)
    while game.phase is not Phase.ROUND_OVER:
        game.apply(game.legal_moves()[0])
    game.start_next_round()
    assert game.phase is Phase.PLAY and game.pairs == []


def test_R4_the_rules_fields_are_the_specs_and_their_defaults() -> None:
    """:class:`Rules` is built from the parts' option specs: one field per spec, in the options
    table's order, its default the spec's (the standard preset's) value."""
    from dataclasses import fields

    rules_fields = [f for f in fields(Rules) if f.name != "preset"]
    assert [f.name for f in rules_fields] == list(OPTION_NAMES)
    assert all(f.default == SPECS[f.name].default for f in rules_fields)


def test_R4_a_part_names_its_own_words() -> None:
    """Every part names its option's label and help, and every house rule (section 10) its
    rules-sheet lines (msgids): the web layer's tables and the sheet read them from the parts,
    and no separate table of option words is kept."""
    from cardverse.web.messages import OPTION_HELP, OPTION_LABELS

    for part in PARTS:
        assert part.words.label and part.words.help, part.spec.name
        assert OPTION_LABELS[part.spec.name] == part.words.label
        assert OPTION_HELP[part.spec.name] == part.words.help
        if part.house_rule:
            assert part.words.sheet, part.spec.name
    assert python_files_naming(r"Everyone sees whether a jack back is in force") == {
        "engine/parts/jack_back.py"
    }


def test_R14_the_eight_stop_names_its_own_sheet_lines() -> None:
    """The sheet's clearing section takes the eight stop's lines from its part, each shown only
    where the options it needs are on (or off)."""
    from cardverse.web.rulesheet import rules_sheet_context

    def clearing(**options: object) -> list[str]:
        sheet = rules_sheet_context(Rules.make("standard", **options))
        section = next(s for s in sheet["sections"] if s.key == "clearing")
        return [line.msg for line in section.lines if isinstance(line.msg, str)]

    plain = clearing(eight_stop=True)
    assert "A set of 8s clears the pile too." in plain
    assert not any("straight" in msg for msg in plain)
    with_straights = clearing(eight_stop=True, straights=True, revolution=True)
    assert "A set of 8s clears the pile too." not in with_straights
    assert any(msg.startswith("So does a straight that holds an 8.") for msg in with_straights)
    assert any("never clears" in msg for msg in clearing(straights=True))


def test_R39_a_part_owns_its_trick_state() -> None:
    """Each part's trick state is a report of its own bits in the round's marks: the views, the
    positions' keys and the notation's output are made from the reports alone."""
    from cardverse.engine.parts import REPORTS
    from cardverse.engine.views import PUBLIC_FIELDS
    from cardverse.notation import POSITION_KEYS

    taken = 0
    for report in REPORTS:
        assert not taken & report.mask, report.name
        taken |= report.mask
        assert report.name in {f.name for f in PUBLIC_FIELDS} and report.name in POSITION_KEYS
        for value in (0, report.mask >> report.shift):
            assert report.read(report.mark(value)) == value
            assert report.from_json(report.to_json(value)) == value
    assert [r.name for r in REPORTS] == ["lock", "jack_back"]
    # no code outside its part (and the test kit) reads a part's bits: views and positions loop
    assert python_files_naming(r"\bLOCK\b|_ON_BIT|parts\.jack_back import") == {
        "engine/parts/suit_lock.py",
        "engine/parts/jack_back.py",
    }
