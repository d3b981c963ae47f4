"""The definition format: every mistake is one line naming the file, the key and the fix."""

from __future__ import annotations

import dataclasses
import doctest
import math
import inspect
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import montecarlo.cli.datagame
import montecarlo.datagame.expr
import montecarlo.datagame.rounds
from montecarlo.datagame import DefinitionError, is_definition, load_game, parse_definition
from montecarlo.datagame.spec import TOP_KEYS, read_definition
from montecarlo.datagame.compile import SAMPLER_MAX_STATES, compile_text
from montecarlo.datagame.expr import Expr, ExprError
from montecarlo.errors import InputError
from montecarlo.games.base import field_help

ROOT = Path(__file__).resolve().parents[2]
RISK = (ROOT / "scenarios" / "games" / "risk.toml").read_text()


def test_doctests_of_the_modules():
    for module in (montecarlo.datagame.expr, montecarlo.datagame.rounds, montecarlo.cli.datagame):
        assert doctest.testmod(module).failed == 0, module.__name__


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "x.y",
        "x / 2",
        "x ** 2",
        "x // 2",
        "'a'",
        "[1]",
        "x[0]",
        "lambda: 1",
        "abs(x)",
        "min(*x)",
        "min(x)",
        "max(x, y=1)",
        "(y := 1)",
        "1.5",
        "x if",
        "open('f')",
        "{x}",
        "f'{x}'",
        "x @ x",
        "x in (1, 2)",
        "x is 1",
    ],
)
def test_expressions_outside_the_language_are_refused(text):
    with pytest.raises(ExprError):
        Expr(text, {"x"})


def test_a_refused_operator_is_named_with_the_ones_allowed():
    for text, name in (("x / 2", "Div"), ("x % 2", "Mod"), ("x << 1", "LShift")):
        with pytest.raises(ExprError) as info:
            Expr(text, {"x"})
        assert str(info.value) == f"operator {name} is not allowed (only + - *)"


def test_a_refused_expression_names_its_kind_and_the_language():
    with pytest.raises(ExprError) as info:
        Expr("{x}", {"x"})
    assert str(info.value) == (
        "Set is not allowed: only numbers, names, + - *, min, max, comparisons, "
        "and/or/not and 'a if c else b'"
    )


@pytest.mark.parametrize(
    "text, message",
    [
        (2.5, "expected an expression (a string) or a whole number, got 2.5"),
        (True, "expected an expression (a string) or a whole number, got True"),
        (None, "expected an expression (a string) or a whole number, got None"),
        ("~x", "operator Invert is not allowed"),
        ("x + " + "1" * 30, "a whole number of 30 digits is too large; numbers must be below 2**62"),
        (str(2**62), "a whole number of 19 digits is too large; numbers must be below 2**62"),
        ("x + " + "1" * 497, "expression longer than 500 characters"),
        ("x + 1.5", "only whole numbers and True/False may be written, not 1.5"),
        ("x is 1", "comparison Is is not allowed (use == != < <= > >=)"),
        ("x in (1, 2)", "comparison In is not allowed (use == != < <= > >=)"),
        ("min(x)", "min(...) takes two or more plain arguments"),
        ("x if", "cannot parse 'x if': invalid syntax"),
        ("y", "unknown name 'y'; the names known here are: x"),
        # 490 minus signs fit in 500 characters and ended in a RecursionError traceback
        ("-" * 490 + "x", "too deeply nested (more than 260 levels of operations inside one another)"),
        ("(" * 240 + "x" + ")" * 240, "too many nested parentheses"),
    ],
)
def test_an_expression_that_is_not_text_too_long_or_too_large_says_which(text, message):
    with pytest.raises(ExprError) as info:
        Expr(text, {"x"})
    assert str(info.value).endswith(message)


def test_the_largest_expressions_and_numbers_allowed_are_read():
    assert Expr(str(2**62 - 1), {"x"})({"x": 0}) == 2**62 - 1
    assert Expr(f"-{2**62 - 1}", {"x"})({"x": 0}) == 1 - 2**62
    longest = "x + " + "0 + " * 123 + "   1"
    assert len(longest) == 500 and Expr(longest, {"x"})({"x": 2}) == 3
    deepest = "-" * 258 + "x"  # 258 signs, the name and its context: 260 levels of the tree
    assert Expr(deepest, {"x"})({"x": 2}) == 2 and Expr(deepest, {"x"}).vector({"x": np.array([2])}) == [2]
    with pytest.raises(ExprError, match="too deeply nested"):
        Expr("-" + deepest, {"x"})
    flat = "+".join(["x"] * 250)  # the longest sum that fits in 500 characters: no nesting to speak of
    assert len(flat) == 499 and Expr(flat, {"x"})({"x": 1}) == 250
    seven = Expr(7, {"x"})
    assert (seven.text, seven.constant, repr(seven)) == ("7", True, "Expr('7')")
    assert repr(Expr("x+1", {"x"})) == "Expr('x+1')"


@settings(max_examples=200, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(0, 5))
def test_scalar_and_vector_evaluation_agree_and_read_as_python_does(a, b, c):
    texts = [
        "min(3, a) + b * 2 - c",
        "max(a, b, c) - (a > b)",
        "a if a > b else b - c",
        "(a == b) + (b != c) + (a < b <= c)",
        "not a and (b or c)",
        "-a + +b",
        "(a > 0) * (b > 0) * c",
        "b if c else a",  # a number as a test: true when it is not zero
        "(not a) + (b and c) * 2 + (a or c) * 4",  # ... and in arithmetic, as 0 or 1
        "-(a > b) + c",  # minus a comparison: minus 0 or 1
        "(0 < a < 3) + (0 < b < 3) - (a > 0 and b > 0) + (a > 0 or c > 2)",  # numpy bools, below
        "max(a > 0, b > 0) + max(a > 0, c > 5) - (not c)",
        "-(0 < a < 9) * 3",
    ]
    env = {"a": a, "b": b, "c": c}
    vec = {k: np.array([v, v]) for k, v in env.items()}
    for text in texts:
        e = Expr(text, env)
        assert int(e(env)) == int(np.asarray(e.vector(vec))[0]), text
        # on scalars (the exact solver's counted rounds read the state and rules as scalars), and
        # chained comparisons, and/or give numpy bool scalars, which numpy adds as logical or
        assert int(e(env)) == int(e.vector(env)), text
        if " and " not in text and " or " not in text:  # Python's and/or give an operand, not True
            assert int(e(env)) == int(eval(text, {"min": min, "max": max}, dict(env))), text


UPDATE = '[round.update]\nattackers = "attackers - attacker_lost"\ndefenders = "defenders - defender_lost"\n'


def bad(old: str, new: str) -> str:
    assert old in RISK, old
    return RISK.replace(old, new, 1)


CASES = [
    (
        bad('format = "dice-battle/1"', 'format = "dice-battle/9"'),
        "format",
        ("expected format = 'dice-battle/1' (it marks the file as a game definition), got 'dice-battle/9'"),
    ),
    (
        bad('format = "dice-battle/1"\n', ""),
        "format",
        ("expected format = 'dice-battle/1' (it marks the file as a game definition), got nothing"),
    ),
    (
        bad('name = "risk"', 'name = "a b"'),
        "name",
        "'a b' is not a usable name; use letters, digits, '.', '_' or '-'",
    ),
    (
        bad('attackers = "attackers - attacker_lost"', 'attackers = "atackers - attacker_lost"'),
        "round.update.attackers",
        (
            "unknown name 'atackers'; the names known here are: attack_dice, attacker_dice, "
            "attacker_lost, attackers, defend_dice, defender_dice, defender_lost, defenders, "
            "tied, ties; fix the expression"
        ),
    ),
    (
        bad('attacker = { d6 = "min(attack_dice, attackers)" }', 'attacker = { d8 = "min(3, attackers)" }'),
        "round.roll.attacker.d8",
        "no die named 'd8'; define it under [dice.d8] (known: d6)",
    ),
    (
        bad('compare = "pairs"', 'compare = "sum"'),
        "round.compare",
        "'sum' is not a comparison; use one of: highest, pairs, count",
    ),
    (
        bad('ties = "ties"', 'ties = "nobody"'),
        "round.ties",
        (
            "'nobody' is not a tie rule; use one of attacker, defender, reroll, or the name "
            "of a rule holding one"
        ),
    ),
    (bad('ties = "ties"', "ties = 3"), "round.ties", "expected a non-empty string, got 3"),
    (
        bad('overrides = { ties = "attacker" }', 'overrides = { ties = "attackers" }'),
        "variants.ties_to_attacker.overrides.ties",
        "'attackers' is used as round.ties; use one of: attacker, defender, reroll",
    ),
    (
        bad('ties = "defender"        # who wins a tied pair', 'ties = "defenders"'),
        "rules.ties",  # the rule itself, not only a variant's override of it
        "'defenders' is used as round.ties; use one of: attacker, defender, reroll",
    ),
    (
        bad("overrides = { defend_dice = 3 }", 'overrides = { defend_dice = "3" }'),
        "variants.defender_three_dice.overrides.defend_dice",
        "expected a whole number like the rule's value 2, got '3'",
    ),
    (
        bad('overrides = { ties = "attacker" }', "overrides = { ties = 1 }"),
        "variants.ties_to_attacker.overrides.ties",
        "expected a string like the rule's value 'defender', got 1",
    ),
    (
        bad("overrides = { defend_dice = 3 }", "overrides = { defnd_dice = 3 }"),
        "variants.defender_three_dice.overrides.defnd_dice",
        "not a rule of this file; known rules: attack_dice, defend_dice, ties",
    ),
    (
        bad('support = "0..10"', 'support = "10..0"'),
        "metrics.attackers_left.support",
        ("expected \"LOW..HIGH\" (at most 1000 values) or a list of distinct whole numbers, got '10..0'"),
    ),
    (
        bad('kind = "probability"', 'kind = "chance"'),
        "metrics.attacker_win.kind",
        "'chance' is not a metric kind; use one of probability, mean, distribution",
    ),
    (
        bad('counts = "rounds"', 'counts = "turns"'),
        "metrics.rounds.counts",
        "'turns' is not a count; use one of rounds, decisive_rounds, tied_rounds",
    ),
    (
        bad('value = "defenders == 0"', "value = \"__import__('os').system('true')\""),
        "metrics.attacker_win.value",
        ("only min(...) and max(...) may be called, not __import__('os').system; fix the expression"),
    ),
    (
        bad("min = 1\nmax = 100\nexample = 5", "min = 1\nmax = 100\nexample = 500"),
        "setup.attackers.example",
        "500 is outside 1..100; pick a value in the range",
    ),
    (
        bad("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 6\nsides = 6"),
        "dice.d6.sides",
        "unknown key; use one of: faces",
    ),
    (
        bad("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = ["hit", "miss"]'),
        "round.roll.attacker.d6",
        ("compare = 'pairs' needs dice with numbers on their faces; use compare = 'count' for named faces"),
    ),
    (
        bad("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 100000"),
        "dice.d6.faces",
        "expected a whole number 1..10000, got 100000",
    ),
    (
        bad("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = [" + ", ".join(["1"] * 10_001) + "]"),
        "dice.d6.faces",
        "10,001 faces; a die has at most 10,000; use fewer faces",
    ),
    (
        bad('end = "attackers == 0 or defenders == 0"', 'end = "atackers == 0"'),
        "end",
        (
            "unknown name 'atackers'; the names known here are: attack_dice, attackers, defend_dice, "
            "defenders, ties; fix the expression"
        ),
    ),
    (bad('title = "Risk: one battle fought to the end"', "title = 3"), "title",
     "expected a non-empty string, got 3"),
    (bad('title = "Risk: one battle fought to the end"', 'state = 3\ntitle = "Risk: one battle"'), "state",
     "expected a table, got 3"),
    (bad('title = "Risk: one battle fought to the end"', 'rules = 3\ntitle = "Risk: one battle"').replace(
        RISK[RISK.index("[rules]\n") : RISK.index("[variants.")], ""), "rules", "expected a table, got 3"),
    (bad('description = "armies defending the territory"', "description = 3"), "setup.defenders.description",
     "expected a non-empty string, got 3"),
    (RISK[: RISK.index("[round]\n")] + RISK[RISK.index("[metrics.") :], "round",
     "missing; add this table (see docs/rules-as-data.md)"),
    (
        bad('end = "attackers == 0 or defenders == 0"', ""),
        "end",
        'missing; give the condition that ends the battle, e.g. end = "a == 0 or b == 0"',
    ),
    (
        bad("attack_dice = 3", "attackers = 3"),
        "rules.attackers",
        "'attackers' is already the name of a setup field; names must be distinct",
    ),
    (
        bad("defend_dice = 2 ", "defend_dice = 2.5 "),
        "rules.defend_dice",
        "expected a whole number, true/false or a string, got 2.5",
    ),
    (
        bad("min = 1\nmax = 100\nexample = 5", "min = 100\nmax = 1\nexample = 5"),
        "setup.attackers",
        "min 100 is above max 1; swap them",
    ),
    (
        bad('attacker = { d6 = "min(attack_dice, attackers)" }', "attacker = 3"),
        "round.roll.attacker",
        'expected a table of dice and counts like { d6 = "min(3, x)" }, got 3',
    ),
    (
        bad("defend_dice = 2 ", "defend_dice = 2\ntied = 1 "),
        "round.roll",
        "the round defines the name 'tied', which is already a rule; rename one",
    ),
    (
        bad('name = "risk"', 'name = "risk"\nmax_rounds = 0'),
        "max_rounds",
        "expected a whole number >= 1, got 0",
    ),
    (
        bad("[dice.d6]\nfaces = 6", "[dice.d6]\n"),
        "dice.d6.faces",
        "missing; give a number of faces (6), a rule's name, or a list of faces",
    ),
    (
        bad("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = ["hit", "2x"]'),
        "dice.d6.faces",
        "face '2x' is not a usable name; use letters, digits and _ (e.g. \"hit\")",
    ),
    (
        bad("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 2.5"),
        "dice.d6.faces",
        "expected a number of faces, a rule's name, or a non-empty list of numbers or of names, got 2.5",
    ),
    (bad("[dice.d6]\nfaces = 6\n", ""), "dice", "missing; add this table (see docs/rules-as-data.md)"),
    (
        RISK[: RISK.index("[setup.attackers]")] + "[setup]\n\n" + RISK[RISK.index("[rules]") :],
        "setup",
        "no setup fields; add at least one [setup.NAME] with min and max",
    ),
    (
        bad("[dice.d6]", '[state]\nattackers = "attackers"\ndefenders = "defenders"\ntied = "0"\n[dice.d6]'),
        "round.roll",
        "the round defines the name 'tied', which is already a state field; rename one",
    ),
    (
        bad('defenders = "defenders - defender_lost"', 'defenders = "defenders - defender_lost"\nleft = "0"'),
        "round.update.left",
        "not a state field; state fields: attackers, defenders",
    ),
    (
        bad("[variants.ties_to_attacker]", '[variants."ties to attacker"]'),
        "variants.ties to attacker",
        "'ties to attacker' is not a usable name; use letters, digits, '_' or '-'",
    ),
    (
        bad("defend_dice = 2 ", "defend_dice = 2\nodds = [1, 2] "),
        "rules.odds",
        "expected a whole number, true/false or a string, got [1, 2]",
    ),
    (
        bad('kind = "probability"', 'kind = "probability"\ncolour = "red"'),
        "metrics.attacker_win.colour",
        "unknown key; use one of: kind, value, counts, support, description",
    ),
    (
        bad("[metrics.attacker_win]", '[metrics."attacker win"]'),
        "metrics.attacker win",
        "'attacker win' is not a usable name; use letters, digits and _ (starting with a letter)",
    ),
    (
        bad("defend_dice = 2 ", "defend_dice = 2\nmax = 3 "),
        "rules.max",
        "'max' is a reserved word of the expression language; choose another name",
    ),
    (
        bad("defend_dice = 2 ", 'defend_dice = 2\n"2dice" = 3 '),
        "rules.2dice",
        "'2dice' is not a usable name; use letters, digits and _ (starting with a letter)",
    ),
    (
        bad("min = 1\nmax = 100\nexample = 5", "min = 1\nexample = 5"),
        "setup.attackers.max",
        "missing; give the smallest and largest allowed value",
    ),
    (
        bad("min = 1\nmax = 100\nexample = 5", "max = 100\nexample = 5"),
        "setup.attackers.min",
        "missing; give the smallest and largest allowed value",
    ),
    (
        bad(
            '[round.roll]\nattacker = { d6 = "min(attack_dice, attackers)" }\n'
            'defender = { d6 = "min(defend_dice, defenders)" }\n',
            "",
        ),
        "round.roll",
        "missing; add this table (see docs/rules-as-data.md)",
    ),
    (bad('compare = "pairs"', "compare = 3"), "round.compare", "expected a non-empty string, got 3"),
    (
        bad('compare = "pairs"', 'compare = "highest"\npairs = "1"'),
        "round.pairs",
        "only compare = 'pairs' has pairs; remove it",
    ),
    (
        bad('defender = { d6 = "min(defend_dice, defenders)" }', ""),
        "round.roll",
        "expected exactly two sides (e.g. attacker and defender), got 1",
    ),
    (
        bad("[round.update]", '[round.lost]\nattacker = "0"\n[round.update]'),
        "round.lost",
        "compare = 'pairs' decides the losses itself; remove lost (it is for compare = 'count')",
    ),
    (
        bad(
            '[round.update]\nattackers = "attackers - attacker_lost"\n'
            'defenders = "defenders - defender_lost"',
            "[round.update]",
        ),
        "round.update",
        'empty; say how the state changes, e.g. defenders = "defenders - defender_lost"',
    ),
    (
        bad('kind = "mean"\ncounts = "rounds"', 'kind = "probability"\ncounts = "rounds"'),
        "metrics.rounds.counts",
        "a counted metric has kind = 'mean' and no value; fix kind or remove value",
    ),
    (
        bad('kind = "mean"\ncounts = "rounds"', 'kind = "mean"\ncounts = "rounds"\nvalue = "1"'),
        "metrics.rounds.counts",
        "a counted metric has kind = 'mean' and no value; fix kind or remove value",
    ),
    (
        bad('kind = "mean"\ncounts = "rounds"', 'kind = "mean"\ncounts = "turns"'),
        "metrics.rounds.counts",
        "'turns' is not a count; use one of rounds, decisive_rounds, tied_rounds",
    ),
    (
        bad('kind = "probability"\nvalue = "defenders == 0"', 'kind = "probability"'),
        "metrics.attacker_win.value",
        "missing; give an expression of the final state (or counts = ...)",
    ),
    (
        bad('value = "defenders == 0"', 'value = "defenders == 0"\nsupport = "0..1"'),
        "metrics.attacker_win.support",
        "only a distribution has a support; remove it",
    ),
    (
        bad("faces = 6", 'faces = ["hit", "2x"]'),
        "dice.d6.faces",
        "face '2x' is not a usable name; use letters, digits and _ (e.g. \"hit\")",
    ),
    *(
        (
            bad("faces = 6", f"faces = {faces}"),
            "dice.d6.faces",
            "expected a number of faces, a rule's name, or a non-empty list of numbers or of names, "
            f"got {shown}",
        )
        for faces, shown in (('[1, "hit"]', "[1, 'hit']"), ("[]", "[]"), ("6.5", "6.5"), ("[true]", "[true]"))
    ),
    *(
        (
            bad('support = "0..10"', f"support = {support}"),
            "metrics.attackers_left.support",
            f'expected "LOW..HIGH" (at most 1000 values) or a list of distinct whole numbers, got {shown}',
        )
        for support, shown in (
            ('"10..0"', "'10..0'"),
            ('"0..1000"', "'0..1000'"),
            ('"0-10"', "'0-10'"),
            ("[1, 1]", "[1, 1]"),
            ("[]", "[]"),
            ("[true, 2]", "[true, 2]"),
            ("[0.5]", "[0.5]"),
            (str(list(range(1001))), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]"),
        )
    ),
    *(  # each mistake named by its own key
        (bad(old, new), key, message)
        for old, new, key, message in (
            ("[dice.d6]\nfaces = 6", "[dice.2d6]\nfaces = 6", "dice.2d6",
             "'2d6' is not a usable name; use letters, digits and _ (starting with a letter)"),
            ("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = "sides +"', "dice.d6.faces",
             "cannot parse 'sides +': invalid syntax; fix the expression"),
            ('description = "the attacker takes the territory"', "description = 3",
             "metrics.attacker_win.description", "expected a non-empty string, got 3"),
            ('kind = "probability"', "kind = 3", "metrics.attacker_win.kind",
             "expected a non-empty string, got 3"),
            ("[round.roll]\nattacker =", "[round.roll]\n2attacker =", "round.roll.2attacker",
             "'2attacker' is not a usable name; use letters, digits and _ (starting with a letter)"),
            ('{ d6 = "min(attack_dice, attackers)" }', '{ d6 = "min(attack_dice,, attackers)" }',
             "round.roll.attacker.d6",
             "cannot parse 'min(attack_dice,, attackers)': invalid syntax; fix the expression"),
            ('ties = "ties"', 'ties = "ties"\npairs = "attackers +"', "round.pairs",
             "cannot parse 'attackers +': invalid syntax; fix the expression"),
            ('compare = "pairs"', 'compare = "pairs"\nshuffle = true', "round.shuffle",
             "unknown key; use one of: compare, ties, pairs, roll, lost, update"),
            ('description = "armies defending the territory"', "description = 3",
             "setup.defenders.description",
             "expected a non-empty string, got 3"),
            ("[setup.defenders]", "[setup.2defenders]", "setup.2defenders",
             "'2defenders' is not a usable name; use letters, digits and _ (starting with a letter)"),
            ("[setup.defenders]\nmin = 1", "[setup.defenders]\nminimum = 1", "setup.defenders.minimum",
             "unknown key; use one of: min, max, example, description"),
            ("[setup.defenders]\nmin = 1", '[setup.defenders]\nmin = "1"', "setup.defenders.min",
             "expected a whole number, got '1'"),
            ("[setup.defenders]\nmin = 1\nmax = 100", '[setup.defenders]\nmin = 1\nmax = "100"',
             "setup.defenders.max", "expected a whole number, got '100'"),
            ("max = 100\nexample = 3", 'max = 100\nexample = "3"', "setup.defenders.example",
             "expected a whole number, got '3'"),
            ('[rules]\n', '[state]\n2x = "1"\n\n[rules]\n', "state.2x",
             "'2x' is not a usable name; use letters, digits and _ (starting with a letter)"),
            ('[rules]\n', '[state]\nx = "attackers +"\n\n[rules]\n', "state.x",
             "cannot parse 'attackers +': invalid syntax; fix the expression"),
            (UPDATE, "", "round.update", "missing; add this table (see docs/rules-as-data.md)"),
            (UPDATE, "[round.update]\n", "round.update",
             'empty; say how the state changes, e.g. defenders = "defenders - defender_lost"'),
            ("[variants.defender_three_dice]\n", '[variants.defender_three_dice]\nflavour = "x"\n',
             "variants.defender_three_dice.flavour", "unknown key; use one of: description, overrides"),
            ("overrides = { defend_dice = 3 }", "overrides = 3", "variants.defender_three_dice.overrides",
             "expected a table, got 3"),
            ('description = "house rule: the defender rolls up to 3 dice"', "description = 3",
             "variants.defender_three_dice.description", "expected a non-empty string, got 3"),
        )
    ),
    (
        RISK.replace("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 6\n[dice.d8]\nfaces = 8").replace(
            '{ d6 = "min(attack_dice, attackers)" }', '{ d10 = "min(attack_dice, attackers)" }'
        ),
        "round.roll.attacker.d10",
        "no die named 'd10'; define it under [dice.d10] (known: d6, d8)",
    ),
    (
        bad(UPDATE, "")
        .replace('compare = "pairs"', 'compare = "pairs"\nupdate = 3'),
        "round.update",
        "expected a table, got 3",
    ),
    (
        (RISK[: RISK.index("[variants.")] + RISK[RISK.index("[dice.d6]") :]).replace(
            'end = "', 'variants = 3\nend = "'
        ),
        "variants",
        "expected a table, got 3",
    ),
    (  # no rules at all: a variant has nothing to override
        RISK[: RISK.index("[rules]")]
        + '[variants.house]\noverrides = { ties = "attacker" }\n\n'
        + RISK[RISK.index("[dice.d6]") :].replace('ties = "ties"', 'ties = "defender"'),
        "variants.house.overrides.ties",
        "not a rule of this file; known rules: none",
    ),
    (
        'format = "dice-battle/1"\n[setup\n',
        "invalid TOML",
        (
            "invalid TOML: Expected ']' at the end of a table declaration (at line 2, column "
            "7); fix the syntax there"
        ),
    ),
]


@pytest.mark.parametrize("text,key,expected", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_definition_errors_name_the_file_the_key_and_the_fix(text, key, expected):
    """Every message: ``FILE: key: what is wrong; the fix`` (or ``expected ..., got ...``)."""
    with pytest.raises(DefinitionError) as info:
        parse_definition(text, "games/mine.toml")
    where = "" if key == "invalid TOML" else f"{key}: "
    assert str(info.value) == f"games/mine.toml: {where}{expected}"


def test_names_and_supports_as_written_or_defaulted():
    named = parse_definition(bad('question = "battle"', 'question = "fight"'))
    assert (named.name, named.question) == ("risk", "fight")
    start, end = RISK.index('question = "battle"'), RISK.index('end = "attackers')
    unnamed = parse_definition(RISK[:start] + RISK[end:])  # no question, no question_description
    assert (unnamed.question, unnamed.question_description) == ("battle", "one battle fought to the end")
    risk = parse_definition(RISK)
    assert risk.question_description == "one Risk battle: attack until one side has no armies left"
    assert risk.variant_descriptions["ties_to_attacker"] == "house rule: a tied pair is won by the attacker"
    undescribed = parse_definition(
        RISK.replace('description = "house rule: the defender rolls up to 3 dice"\n', "").replace(
            'description = "both house rules: ties to the attacker, and the defender rolls up to 3 dice"\n',
            "",
        )
        + "\n[variants.plain]\n"
    ).variant_descriptions
    assert undescribed == {  # no description: the overrides as written, else the variant's name
        "ties_to_attacker": "house rule: a tied pair is won by the attacker",
        "defender_three_dice": "defend_dice = 3",
        "both_house_rules": "ties = 'attacker', defend_dice = 3",
        "plain": "plain",
    }
    far = parse_definition(bad('support = "0..10"', 'support = "1000..1999"'))  # 1,000 values: the most
    assert far.metrics[2].support == tuple(range(1000, 2000))
    start = RISK.index('description = """')
    plain = RISK[:start] + RISK[RISK.index('"""\n', start + 20) + 4 :]
    assert parse_definition(plain).description == ""  # no description: none, not a placeholder
    with pytest.raises(DefinitionError) as info:
        parse_definition(bad('question = "battle"', "question = 5"), "games/mine.toml")
    assert str(info.value) == "games/mine.toml: question: expected a non-empty string, got 5"
    assert parse_definition(bad('name = "risk"\n', "")).name == "game"  # no name: the default
    with pytest.raises(DefinitionError, match="^<definition>: name: expected a non-empty string, got 5$"):
        parse_definition(bad('name = "risk"', "name = 5"))  # text with no file named
    with pytest.raises(ExprError, match="^unknown name 'x'; the names known here are: none$"):
        Expr("x", set())
    unexampled = parse_definition(bad("min = 1\nmax = 100\nexample = 5", "min = 2\nmax = 100"))
    assert unexampled.setup[0].example == 2  # no example: the smallest value
    numbered = parse_definition(bad("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = [1, 2, 3, 4, 5, 6]"))
    assert numbered.dice["d6"].name == "d6" and numbered.dice["d6"].values == (1, 2, 3, 4, 5, 6)
    kinds = parse_definition(
        bad("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = 6\n[dice.dx]\nfaces = "attack_dice"\n'
            '[dice.coin]\nfaces = ["a", "b"]')
    )
    assert [(n, die.name) for n, die in kinds.dice.items()] == [(n, n) for n in ("d6", "dx", "coin")]
    edge = parse_definition(bad("min = 1\nmax = 100\nexample = 3", "min = 3\nmax = 3\nexample = 3"))
    assert (edge.setup[1].low, edge.setup[1].high, edge.setup[1].example) == (3, 3, 3)  # one value allowed
    top = parse_definition(bad("min = 1\nmax = 100\nexample = 3", "min = 1\nmax = 9\nexample = 9"))
    assert top.setup[1].example == 9  # the largest value is an example too
    assert top.setup[1].description == "armies defending the territory"
    undescribed = parse_definition(bad('description = "armies defending the territory"\n', ""))
    assert undescribed.setup[1].description == "defenders"  # no description: the field's name
    capital = parse_definition(bad("[variants.ties_to_attacker]", "[variants.Ties-To-Attacker]"))
    assert "Ties-To-Attacker" in capital.variants
    listed = parse_definition(bad('support = "0..10"', "support = [0, 1, 2, 5]"))
    assert listed.metrics[2].support == (0, 1, 2, 5)
    for support, values in (
        ('" -3 .. -1 "', (-3, -2, -1)),
        ('"4..4"', (4,)),
        ('"0..999"', tuple(range(1000))),
        (str(list(range(1000))), tuple(range(1000))),
    ):
        widest = parse_definition(bad('support = "0..10"', f"support = {support}"))
        assert widest.metrics[2].support == values  # the largest support allowed, and its edges


def test_rules_overrides_are_checked_when_the_rules_are_built(tmp_path):
    path = tmp_path / "risk.toml"
    path.write_text(RISK)
    game = load_game(path)
    with pytest.raises(ValueError, match=r"risk\.toml: rules\.ties: 'nobody'"):
        game.rules(overrides={"ties": "nobody"})
    with pytest.raises(ValueError, match=r"rules\.attack_dice: expected a whole number"):
        game.rules(overrides={"attack_dice": "3"})
    with pytest.raises(ValueError, match="attackers must be an integer 1..100"):
        game.question().setup({"attackers": 0, "defenders": 1})
    with pytest.raises(ValueError, match="unknown field"):
        game.question().setup({"attackers": 1, "defenders": 1, "generals": 1})


def test_a_negative_pool_size_names_the_key_and_the_state(tmp_path):
    path = tmp_path / "neg.toml"
    path.write_text(RISK.replace('"min(defend_dice, defenders)"', '"defenders - 2"'))
    game = load_game(path)
    q = game.question()
    with pytest.raises(ValueError) as info:
        q.exact(game.rules(), q.setup({"attackers": 1, "defenders": 1}))
    assert str(info.value).endswith(
        "neg.toml: round.roll.defender.d6: gives -1 dice in state (attackers=1, defenders=1); "
        "a pool size must be a whole number >= 0 (use max(0, ...))"
    )
    compiled = compile_text(path.read_text(), str(path))
    setup = compiled.game.question().setup({"attackers": 3, "defenders": 1})
    for trials in (1, 50):  # the sampling kernel names the same key and state (one trial: the first)
        with pytest.raises(DefinitionError) as info:
            compiled.simulate_direct(compiled.game.rules(), setup, trials, np.random.default_rng(1))
        assert str(info.value) == (
            f"{path}: round.roll.defender.d6: gives -1 dice in state (attackers=3, defenders=1); "
            "a pool size must be a whole number >= 0 (use max(0, ...))"
        )


def test_the_files_description_a_metrics_description_and_exact_max_states_are_read_and_checked():
    start, end = RISK.index('description = """'), RISK.index('question = "battle"')
    for text, message in (
        (RISK[:start] + "description = 3\n" + RISK[end:], "description: expected a non-empty string, got 3"),
        (bad('question_description = "one Risk battle: attack until one side has no armies left"',
             'question_description = " "'),
         "question_description: expected a non-empty string, got ' '"),
        (bad('format = "dice-battle/1"', 'format = "dice-battle/1"\ncolour = "red"'),
         "colour: unknown key; use one of: " + ", ".join(TOP_KEYS)),
        (bad('name = "risk"', 'name = "risk"\nexact_max_states = 0'),
         "exact_max_states: expected a whole number >= 1, got 0"),
    ):
        with pytest.raises(DefinitionError) as info:
            compile_text(text, "risk.toml")
        assert str(info.value) == f"risk.toml: {message}"
    q = compile_text(RISK, "risk.toml").game.question()
    assert q.metric("attacker_win").description == "the attacker takes the territory"
    unsaid = compile_text(bad('description = "the attacker takes the territory"\n', ""), "risk.toml")
    assert unsaid.game.question().metric("attacker_win").description == "attacker_win"  # its name
    # the default limit of exact solving that docs/rules-as-data.md states, and the title's default
    untitled = parse_definition(bad('title = "Risk: one battle fought to the end"\n', ""))
    assert untitled.exact_max_states == 250_000 and "exact_max_states" not in RISK
    assert untitled.title == untitled.name == "risk"
    capitals = parse_definition(bad('name = "risk"', 'name = "Risk-2.0_classic"'))
    assert (capitals.name, capitals.title) == ("Risk-2.0_classic", "Risk: one battle fought to the end")


def test_a_setup_missing_a_field_names_it_its_range_and_an_example():
    q = compile_text(RISK, "risk.toml").game.question()
    with pytest.raises(InputError) as info:
        q.setup({"attackers": 2})
    assert str(info.value) == (
        "risk setup: defenders is required (a whole number 1..100); give it, e.g. defenders = 3"
    )
    assert q.setup({"attackers": " +7", "defenders": "2"}) == q.setup({"attackers": 7, "defenders": 2})
    for values, message in (
        ({"attackers": "X5", "defenders": 2}, "attackers must be an integer 1..100, got 'X5'"),
        ({"attacker": 5, "defenders": 2},
         "risk setup: unknown field(s) attacker; known: attackers, defenders"),
    ):
        with pytest.raises(InputError) as info:
            q.setup(values)
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("old", "new", "state", "solved"),
    [
        ("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 10000", (3, 2), False),  # 50,005,000 results a side
        (  # both sides pair every army: C(65, 60) = 8,259,888 sorted results a side
            '{ d6 = "min(defend_dice, defenders)" }', '{ d6 = "defenders" }', (60, 60), False,
        ),
        (  # the defender's 45 d6 (2,118,760 multisets, once refused): their 3 highest are 56 results
            '{ d6 = "min(defend_dice, defenders)" }', '{ d6 = "defenders" }', (3, 45), True,
        ),
        (  # a side rolling two kinds of dice: 1 coin and 49 d6, their 3 highest
            '{ d6 = "min(defend_dice, defenders)" }', '{ coin = "1", d6 = "defenders - 1" }', (3, 50), True,
        ),
        (  # 1,000 coins and 3 d6 against 45 d6 (refused before, naming the 45 d6), 3 pairs
            '{ d6 = "min(defend_dice, defenders)" }', '{ d6 = "defenders" }', (3, 45), "coins",
        ),
    ],
)
def test_a_pool_of_many_dice_is_solved_from_its_highest_dice_or_simulated(old, new, state, solved):
    """A pool is not enumerated whole: only its highest dice, the pairs compared, are worked out.
    Pools once refused as "too many to enumerate" are solved when their highest dice are few
    results, and simulated round by round, with the note naming the round, when both sides'
    sorted results are more than the exact solver lists; never an error."""
    text = bad(old, new).replace("[dice.d6]", "[dice.coin]\nfaces = 2\n\n[dice.d6]")
    if state == (60, 60):
        text = text.replace('{ d6 = "min(attack_dice, attackers)" }', '{ d6 = "attackers" }')
    if solved == "coins":
        text = text.replace('{ d6 = "min(attack_dice, attackers)" }',
                            '{ coin = "1000", d6 = "min(attack_dice, attackers)" }')
        text = text.replace('compare = "pairs"', 'compare = "pairs"\npairs = "min(attackers, defenders)"')
    compiled = compile_text(text, "big.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": state[0], "defenders": state[1]})
    q.check(rules, setup)  # nothing to refuse before the trials
    exact = q.exact(rules, setup)
    if solved:
        assert exact is not None and q.why_no_exact(rules, setup) is None
        assert exact["attacker_win"] < 1e-6  # 3 armies against 45 or 50 dice a round
    else:
        assert exact is None
        said = q.why_no_exact(rules, setup)
        assert said.startswith(f"exact value unavailable because a round of the battle at "
                               f"(attackers={state[0]}, defenders={state[1]}) has up to")
        assert "results of both sides' dice, more than the exact solver lists in a round" in said
    out = q.simulate(rules, setup, 200, np.random.default_rng(1))
    assert len(out["attacker_win"]) == 200
    text = text.replace('\npairs = "min(attackers, defenders)"', "")
    highest = compile_text(text.replace('compare = "pairs"', 'compare = "highest"'), "highest.toml")
    hq = highest.game.question()  # the highest die needs no enumeration: any pool is exact
    assert hq.exact(highest.game.rules(), hq.setup({"attackers": state[0], "defenders": state[1]}))


def test_missing_file_and_definition_detection(tmp_path):
    with pytest.raises(DefinitionError) as info:
        load_game(tmp_path / "nope.toml")
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: no such game definition file; check the path"
    with pytest.raises(DefinitionError) as info:
        load_game(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory; give the path of a .toml game definition file"
    (tmp_path / "scenario.toml").write_text('game = "dune1984"\nseed = 1\n')
    (tmp_path / "broken.toml").write_text("[[[")
    (tmp_path / "risk.toml").write_text(RISK)
    (tmp_path / "bom.toml").write_text("\ufeff" + RISK, encoding="utf-8")  # as Windows' Notepad saves it
    names = ("scenario.toml", "broken.toml", "risk.toml", "bom.toml")
    assert [is_definition(tmp_path / n) for n in names] == [
        False,
        False,
        True,
        True,
    ]


def test_state_table_carries_extra_fields(tmp_path):
    """A [state] table may carry more than the setup (here the attacker's starting armies)."""
    text = RISK.replace(
        "[rules]",
        '[state]\nattackers = "attackers"\ndefenders = "defenders"\nstart = "attackers"\n\n[rules]',
    ).replace(
        'value = "attackers"\ndescription = "the attacker\'s armies left at the end, on average',
        'value = "start - attackers"\ndescription = "the attacker\'s losses, on average',
    )
    path = tmp_path / "losses.toml"
    path.write_text(text)
    base = ROOT / "scenarios" / "games" / "risk.toml"
    g, g0 = load_game(path), load_game(base)
    setup = {"attackers": 7, "defenders": 4}
    losses = g.question().exact(g.rules(), g.question().setup(setup))["attackers_remaining"]
    left = g0.question().exact(g0.rules(), g0.question().setup(setup))["attackers_remaining"]
    assert losses == pytest.approx(7 - left, abs=1e-12)


@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=6),
    st.integers(0, 3),
    st.lists(st.integers(1, 6), min_size=1, max_size=6),
    st.integers(0, 3),
)
@settings(max_examples=60, deadline=None)
def test_highest_outcomes_agree_with_enumerating_every_roll(faces_a, n_a, faces_d, n_d):
    """The CDF shortcut of compare = "highest" against every roll of both pools, counted one by one."""
    import itertools

    from montecarlo.datagame import rounds

    total: dict[tuple[int, int, int], float] = {}
    rolls = list(itertools.product(faces_a, repeat=n_a))
    counter = list(itertools.product(faces_d, repeat=n_d))
    for ra in rolls:
        for rd in counter:
            a, d = max(ra, default=rounds.EMPTY), max(rd, default=rounds.EMPTY)
            key = (0, 1, 0) if a > d else (1, 0, 0) if a < d else (0, 0, 1)
            total[key] = total.get(key, 0.0) + 1 / (len(rolls) * len(counter))
    got = rounds.highest_outcomes(
        ((tuple(faces_a), n_a),), ((tuple(faces_d), n_d),), "reroll", ("attacker", "defender")
    )
    expected = {k: p for k, p in total.items() if p > 0}
    assert {(la, ld, t): p for p, la, ld, t in got} == pytest.approx(expected)


def test_a_die_of_the_most_faces_allowed_is_answered_exactly(tmp_path):
    """10,000 faces compared by the highest die (it used to hang): one die each, ties to the defender."""
    path = tmp_path / "d10000.toml"
    path.write_text(
        RISK.replace("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 10000").replace(
            'compare = "pairs"', 'compare = "highest"'
        )
    )
    game = load_game(path)
    q = game.question()
    exact = q.exact(game.rules(), q.setup({"attackers": 1, "defenders": 1}))
    assert exact["attacker_win"] == pytest.approx(9_999 / 20_000, abs=1e-12)  # P(a > d) = (n-1)/2n


@pytest.mark.parametrize(
    "pool, setups",
    [
        ('"min(defend_dice, defenders)"', [(2, 1), (3, 2)]),  # the defender rolls none at 1 army
        ('"min(attack_dice, attackers)"', [(1, 2), (2, 2)]),  # the attacker rolls none at 1 army
    ],
    ids=["defender", "attacker"],
)
def test_a_side_without_dice_loses_the_highest_die_comparison_in_every_kernel(pool, setups):
    """compare = 'highest' with a side that rolls no die at its last army: the other side's
    highest die beats no die, in the exact chain, the vectorised kernel and the reference trial."""
    fewer = pool.replace('s)"', 's - 1)"')
    text = RISK.replace('compare = "pairs"', 'compare = "highest"').replace(pool, fewer)
    text = text.replace('name = "risk"', 'name = "risk"\nmax_rounds = 200')  # a stalled battle fails at once
    compiled = compile_text(text, f"zero-{fewer}.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    for attackers, defenders in setups:
        setup = q.setup({"attackers": attackers, "defenders": defenders})
        p = q.exact(rules, setup)["attacker_win"]
        won = compiled.simulate_direct(rules, setup, 20_000, np.random.default_rng(5))["attacker_win"]
        assert abs(won.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / 20_000) + 1e-12, (attackers, defenders)
        rng = np.random.default_rng(6)
        plain = np.array([compiled.reference(rules, setup, rng)["attacker_win"] for _ in range(2000)])
        assert abs(plain.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / 2000) + 1e-12, (attackers, defenders)


def test_a_negative_number_of_pairs_is_refused_by_the_vector_kernel_too():
    text = RISK.replace('ties = "ties"', 'ties = "ties"\npairs = "attackers - 3"')
    compiled = compile_text(text, "neg.toml")
    setup = compiled.game.question().setup({"attackers": 1, "defenders": 1})
    with pytest.raises(DefinitionError) as info:
        compiled.simulate_direct(compiled.game.rules(), setup, 10, np.random.default_rng(1))
    assert str(info.value) == "neg.toml: round.pairs: gives a negative number of pairs; pairs must be >= 0"
    with pytest.raises(DefinitionError) as info:
        compiled.game.question().exact(compiled.game.rules(), setup)
    assert str(info.value) == (
        "neg.toml: round.pairs: gives -2 in state (attackers=1, defenders=1); pairs must be >= 0"
    )


def test_no_pairs_is_a_round_without_losses_in_every_kernel():
    """pairs = 0 at 3 attackers, where the defenders lose one army a round by attrition instead:
    from 3 against 2 the attacker wins in 2 rounds, surely."""
    text = RISK.replace('ties = "ties"', 'ties = "ties"\npairs = "attackers - 3"')
    text = text.replace('"defenders - defender_lost"', '"defenders - defender_lost - (attackers == 3)"')
    compiled = compile_text(text, "zero.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 3, "defenders": 2})
    exact = q.exact(rules, setup)
    assert (exact["attacker_win"], exact["rounds"]) == (1.0, 2.0)
    direct = compiled.simulate_direct(rules, setup, 100, np.random.default_rng(1))
    assert direct["attacker_win"].all() and (direct["rounds"] == 2).all()
    assert compiled.reference(rules, setup, np.random.default_rng(1))["rounds"] == 2


def test_a_probability_of_a_number_is_the_chance_it_is_not_zero_in_every_kernel():
    """``value = "attackers"``: attackers left at the end, i.e. the attack took the territory."""
    shipped = compile_text(RISK, "risk.toml")
    compiled = compile_text(RISK.replace('value = "defenders == 0"', 'value = "attackers"'), "risk.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 5, "defenders": 3})
    exact = q.exact(rules, setup)["attacker_win"]
    assert exact == pytest.approx(shipped.game.question().exact(rules, setup)["attacker_win"], abs=1e-12)
    rng = np.random.default_rng(4)
    plain = [compiled.reference(rules, setup, rng) for _ in range(3000)]
    assert all(type(t["attacker_win"]) is bool and type(t["rounds"]) is int for t in plain)
    vector = np.asarray(
        compiled.simulate_direct(rules, setup, 3000, np.random.default_rng(5))["attacker_win"]
    )
    assert vector.dtype == bool
    se = math.sqrt(exact * (1 - exact) / 3000)
    for estimate in (np.mean([t["attacker_win"] for t in plain]), vector.mean()):
        assert abs(estimate - exact) <= 4.5 * se, (estimate, exact)


def test_a_tie_keyword_in_the_round_plays_as_the_rule_naming_it():
    """round.ties = "defender" written in the round, or through the rule ties = "defender": the same
    battle, the same exact numbers."""
    games = [
        compile_text(RISK, "risk.toml").game,
        compile_text(RISK.replace('ties = "ties"', 'ties = "defender"'), "keyword.toml").game,
    ]
    for a, d in [(1, 1), (3, 2), (5, 3)]:
        rule, keyword = (
            g.question().exact(g.rules(), g.question().setup({"attackers": a, "defenders": d})) for g in games
        )
        assert keyword["attacker_win"] == pytest.approx(rule["attacker_win"], abs=1e-12), (a, d)


def test_the_rules_cache_drops_the_oldest_and_still_answers():
    """More rule sets than the cache keeps (64): the oldest are dropped, and worked out again."""
    compiled = compile_text(RISK, "cache.toml")
    game = compiled.game
    first = game.rules(overrides={"attack_dice": 1})
    before = compiled._rules_env(first)
    for dice in range(2, 70):
        compiled._rules_env(game.rules(overrides={"attack_dice": dice}))
    assert len(compiled._rules_envs) == 64 and first not in compiled._rules_envs
    assert compiled._rules_env(first) == before


@pytest.mark.parametrize(
    "compare, ties",
    [("pairs", "reroll"), ("highest", "reroll"), ("highest", "attacker"), ("pairs", "defender")],
)
def test_the_tied_pairs_of_a_round_are_counted_alike_in_every_kernel(compare, ties):
    """A house rule where every re-rolled tie (no one loses by it) also costs the attacker an army:
    the round quantity ``tied`` drives the battle, so every kernel must count it alike (and a tie
    won by a side is no tied pair)."""
    text = RISK.replace('ties = "ties"', f'ties = "{ties}"')
    text = text.replace('compare = "pairs"', f'compare = "{compare}"')
    text = text.replace(
        'attackers = "attackers - attacker_lost"', 'attackers = "max(0, attackers - attacker_lost - tied)"'
    )
    compiled = compile_text(text, f"tied-{compare}-{ties}.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 4, "defenders": 3})
    p = q.exact(rules, setup)["attacker_win"]
    rng = np.random.default_rng(8)
    runs = {
        "vector": compiled.simulate_direct(rules, setup, 20_000, np.random.default_rng(7))["attacker_win"],
        "reference": np.array([compiled.reference(rules, setup, rng)["attacker_win"] for _ in range(3000)]),
    }
    for label, won in runs.items():
        assert abs(won.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / won.size), label


def test_a_die_of_exactly_the_most_faces_listed_is_accepted():
    """CASES refuses 10,001 listed faces; 10,000 (every one a 1) make a die."""
    listed = "[dice.d6]\nfaces = [" + ", ".join(["1"] * 10_000) + "]"
    definition = parse_definition(bad("[dice.d6]\nfaces = 6", listed))
    assert definition.dice["d6"].values == (1,) * 10_000


@pytest.mark.parametrize("faces", [0, -2, 10_001])
def test_a_rule_giving_a_die_no_faces_or_too_many_is_refused_when_the_rules_are_made(faces):
    text = RISK.replace("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = "sides"').replace(
        "[rules]\n", "[rules]\nsides = 6\n"
    )
    game = compile_text(text, "sided.toml").game
    assert game.rules().sides == 6
    assert [game.rules(overrides={"sides": n}).sides for n in (1, 10_000)] == [1, 10_000]  # the bounds
    with pytest.raises(InputError) as info:
        game.rules(overrides={"sides": faces})
    assert str(info.value) == (
        f"sided.toml: dice.d6.faces: gives {faces} faces under these rules; a die needs 1..10000 faces"
    )


def test_a_definitions_rules_and_setup_types_say_what_they_hold():
    """What Python's help() shows a user of the API for a compiled file's two types."""
    game = compile_text(RISK, "risk.toml").game
    assert game.rules_type.__doc__ == "Rules of risk (risk.toml): attack_dice, defend_dice, ties."
    question = game.question()
    assert inspect.getdoc(question.setup_type) == (  # the Attributes mc.games() reads its help from
        "Setup of risk: attackers 1..100, defenders 1..100.\n\nAttributes:\n"
        "    attackers: armies that can attack (the army left behind not counted) (1..100)\n"
        "    defenders: armies defending the territory (1..100)"
    )
    assert field_help(question.setup_type)["defenders"] == "armies defending the territory (1..100)"
    setup = question.setup({"attackers": 5, "defenders": 5})
    assert question.setup_type.__name__ == "Setup" and repr(setup) == "Setup(attackers=5, defenders=5)"
    start = compile_text(RISK, "risk.toml").start(game.rules(), setup)
    assert repr(start) == "State(attackers=5, defenders=5)"  # as a chain's states are printed
    fixed = RISK[: RISK.index("[rules]")] + RISK[RISK.index("[dice.d6]") :]  # no rules, no variants
    for rule, value in (("attack_dice", "3"), ("defend_dice", "2"), ('"ties"', '"defender"')):
        fixed = fixed.replace(rule, value)
    assert compile_text(fixed, "fixed.toml").game.rules_type.__doc__ == "Rules of risk (fixed.toml): none."
    flag = RISK.replace("[rules]\n", "[rules]\nstrict = true\n")
    with pytest.raises(InputError) as info:
        compile_text(flag, "flag.toml").game.rules(overrides={"strict": 3})
    assert str(info.value) == "flag.toml: rules.strict: expected a true/false like True, got 3"
    with pytest.raises(DefinitionError) as info:  # the same in the file's own variant
        compile_text(flag.replace("{ defend_dice = 3 }", "{ strict = 1 }", 1), "flag.toml")
    assert str(info.value) == (
        "flag.toml: variants.defender_three_dice.overrides.strict: expected a true/false like the rule's "
        "value true, got 1"
    )


def test_a_file_without_a_name_is_named_after_the_file(tmp_path):
    unnamed = RISK.replace('name = "risk"\n', "")
    path = tmp_path / "duel.toml"
    path.write_text(unnamed)
    assert read_definition(path).name == "duel"
    assert compile_text(unnamed, "games/duel.toml").game.name == "duel"
    assert compile_text(unnamed, "").game.name == "game"  # no file name to go by


def test_a_compiled_games_rules_check_every_value_and_its_setups_cannot_change():
    game = compile_text(RISK, "risk.toml").game
    rules = game.rules(overrides={"attack_dice": np.int64(2)})  # numpy's whole numbers are whole numbers
    assert rules.attack_dice == 2 and repr(rules).startswith("Rules(attack_dice=")
    assert [(f.name, f.type) for f in dataclasses.fields(game.rules_type)] == [
        ("attack_dice", int), ("defend_dice", int), ("ties", str)
    ]
    for value, problem in (
        (1, "expected a string like 'defender', got 1"),
        ("attackers", "'attackers' is used as round.ties; use one of: attacker, defender, reroll"),
    ):
        with pytest.raises(InputError) as info:
            game.rules(overrides={"ties": value})
        assert str(info.value) == f"risk.toml: rules.ties: {problem}"
    with pytest.raises(InputError, match="rules.attack_dice: expected a whole number like 3, got True"):
        game.rules(overrides={"attack_dice": True})
    setup = game.question().setup({"attackers": 5, "defenders": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.attackers = 6  # type: ignore[misc]


def test_the_game_of_a_file_carries_its_question_and_variants_descriptions():
    game = compile_text(RISK, "risk.toml").game
    assert game.question().description == "one Risk battle: attack until one side has no armies left"
    assert game.variant_descriptions["ties_to_attacker"] == "house rule: a tied pair is won by the attacker"


def test_the_direct_kernel_gives_whole_numbers_and_takes_over_above_the_samplers_limit():
    """Above SAMPLER_MAX_STATES states (below the exact solver's limit) trials come from the
    vectorised kernel: the same draws as calling it directly, whole numbers as the chain gives."""
    text = RISK.replace("max = 100", "max = 300")
    compiled = compile_text(text, "big.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 220, "defenders": 220})
    assert SAMPLER_MAX_STATES < compiled.chains.size(rules, setup) < compiled.d.exact_max_states
    trials = q.simulate(rules, setup, 200, np.random.default_rng(3))
    direct = compiled.simulate_direct(rules, setup, 200, np.random.default_rng(3))
    assert all(np.array_equal(trials[k], direct[k]) for k in direct)
    kinds = {k: v.dtype.kind for k, v in direct.items()}  # b: true/false, i: whole numbers
    assert kinds == {k: "b" if k == "attacker_win" else "i" for k in direct}


def test_a_battle_of_exactly_max_rounds_ends_and_every_tied_pair_counts():
    """One-faced dice tie every pair; under reroll each tied pair costs the attacker an army here:
    3 against 2 is over in exactly 2 rounds (2 pairs tie, then 1), allowed by max_rounds = 2 and
    refused by max_rounds = 1 in both simulating kernels."""
    text = (
        RISK.replace("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 1")
        .replace('ties = "defender"        # who', 'ties = "reroll"        # who')
        .replace("attackers - attacker_lost", "attackers - attacker_lost - tied", 1)
    )
    for limit in (2, 1):
        limited = text.replace('name = "risk"', f'name = "risk"\nmax_rounds = {limit}')
        compiled = compile_text(limited, f"t{limit}.toml")
        q, rules = compiled.game.question(), compiled.game.rules()
        setup = q.setup({"attackers": 3, "defenders": 2})
        assert q.exact(rules, setup)["rounds"] == 2.0  # the exact chain has no round limit
        if limit == 2:
            direct = compiled.simulate_direct(rules, setup, 10, np.random.default_rng(1))
            assert direct["rounds"].tolist() == [2] * 10
            assert compiled.reference(rules, setup, np.random.default_rng(1))["rounds"] == 2
            continue
        # the state after the first round, still going (it named the ended state after one more roll)
        still = r"still going after 1 rounds \(one at attackers=1, defenders=2\)"
        with pytest.raises(DefinitionError, match=still):
            compiled.simulate_direct(rules, setup, 10, np.random.default_rng(1))
        with pytest.raises(DefinitionError, match="max_rounds: a battle was still going after 1 rounds"):
            compiled.reference(rules, setup, np.random.default_rng(1))


def test_a_battle_past_max_rounds_is_an_error_naming_the_limit_in_both_kernels():
    text = RISK.replace('name = "risk"', 'name = "risk"\nmax_rounds = 1')  # 5 against 5 needs 3 rolls or more
    compiled = compile_text(text, "short.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 5, "defenders": 5})
    with pytest.raises(DefinitionError) as info:
        compiled.simulate_direct(rules, setup, 100, np.random.default_rng(1))
    # where one battle stands after its first round (the message showed it after one more roll)
    assert str(info.value) == (
        "short.toml: max_rounds: some battles were still going after 1 rounds (one at attackers=4, "
        "defenders=4); a battle that large may need more rounds (raise max_rounds), or it never ends "
        "(check end and round.update)"
    )
    with pytest.raises(DefinitionError, match=r"\(one at attackers=\d, defenders=\d\); "):
        compiled.simulate_direct(rules, setup, 1, np.random.default_rng(1))  # one battle, still named
    with pytest.raises(DefinitionError) as info:
        compiled.reference(rules, setup, np.random.default_rng(1))
    assert str(info.value) == "short.toml: max_rounds: a battle was still going after 1 rounds"
    # 2 against 2 ends in one roll or two: the second is already one past the limit
    with pytest.raises(DefinitionError, match="still going after 1 rounds"):
        two = q.setup({"attackers": 2, "defenders": 2})
        compiled.simulate_direct(rules, two, 100, np.random.default_rng(1))
    one_roll = q.setup({"attackers": 1, "defenders": 1})
    assert compiled.simulate_direct(rules, one_roll, 100, np.random.default_rng(1))["rounds"].max() == 1


def test_a_scenario_read_as_a_battle_file_says_what_it_is():
    """The reader, not only the CLI: `mc.odds` on a scenario said "game: unknown key" too."""
    scenario = (ROOT / "scenarios" / "risk" / "house-rules.toml").read_text()
    with pytest.raises(DefinitionError) as info:
        parse_definition(scenario, "house-rules.toml")
    said = "house-rules.toml: a scenario file (it names a game), not a battle file: run it with"
    assert str(info.value).startswith(f"{said} montecarlo report")


def test_a_battle_file_with_a_stray_game_key_is_told_of_the_key_not_called_a_scenario():
    """Only a file without ``format`` is a scenario; a battle file's extra ``game`` is an unknown key."""
    with pytest.raises(DefinitionError) as info:
        parse_definition('game = "dune1984"\n' + RISK, "risk.toml")
    assert "a scenario file" not in str(info.value)
    assert str(info.value).startswith("risk.toml: game: unknown key; use one of:")


def test_a_distribution_keeps_its_support_in_the_compiled_game():
    """Its support is what a report lists, one probability a value ("attackers_left=3")."""
    compiled = compile_text(RISK, "risk.toml")
    declared = {m.name: m.support for m in parse_definition(RISK).metrics if m.kind == "distribution"}
    assert declared and all(declared.values())
    assert {m.name: m.support for m in compiled.metrics if m.kind == "distribution"} == declared
    for m in compiled.metrics:
        if m.kind == "distribution":
            assert m.reported_names() == tuple(f"{m.name}={v}" for v in declared[m.name])


def test_the_format_shown_in_the_docs_is_a_whole_risk_battle():
    """docs/rules-as-data.md shows every key in one file: it must read, and play Risk as the
    shipped risk.toml does."""
    page = (ROOT / "docs" / "rules-as-data.md").read_text()
    shown = page.split("## The format", 1)[1].split("```toml", 1)[1].split("```", 1)[0]
    documented = compile_text(shown, "format.toml").game
    shipped = compile_text(RISK, "risk.toml").game
    for attackers, defenders in ((5, 3), (2, 4)):
        setup = {"attackers": attackers, "defenders": defenders}
        values = []
        for game in (documented, shipped):
            q = game.question()
            values.append(q.exact(game.rules(), q.setup(setup))["attacker_win"])
        assert values[0] == pytest.approx(values[1], abs=1e-12) and 0 < values[0] < 1


def test_a_variant_of_the_file_that_cannot_play_its_smallest_setup_is_refused_when_the_file_is_read():
    """Before, `games FILE` and `odds FILE` passed and only `-v defender_three_dice` failed, naming
    round.roll.defender.d6 as if the file's key were wrong."""
    text = RISK.replace("overrides = { defend_dice = 3 }", "overrides = { defend_dice = -1 }", 1)
    with pytest.raises(DefinitionError) as err:
        compile_text(text, "neg.toml")
    assert str(err.value) == (
        "neg.toml: variants.defender_three_dice: under the rules defend_dice=-1 ([rules] has 2): "
        "round.roll.defender.d6: gives -1 dice in state (attackers=1, defenders=1); a pool size must be "
        "a whole number >= 0 (use max(0, ...))"
    )


def test_a_variant_too_large_to_solve_for_large_setups_only_leaves_the_file_and_its_small_setups_alone():
    """A variant of ten-faced dice pairing every die cannot be solved at 20 dice a side (once
    refused as too many to enumerate), but is at 3 against 3: the file loads, the small setup is
    solved, and the large one is simulated, with the note saying why."""
    text = (RISK.replace("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = \"die_faces\"")
            .replace("defend_dice = 2 ", "defend_dice = 2\ndie_faces = 6 ", 1)
            .replace("overrides = { defend_dice = 3 }", "overrides = { die_faces = 10 }", 1)
            .replace('d6 = "min(attack_dice, attackers)"', 'd6 = "attackers"')
            .replace('d6 = "min(defend_dice, defenders)"', 'd6 = "defenders"'))
    compiled = compile_text(text, "big.toml")
    q, game = compiled.game.question(), compiled.game
    ten = game.rules(["defender_three_dice"])
    assert q.exact(ten, q.setup({"attackers": 3, "defenders": 3})) is not None
    large = q.setup({"attackers": 20, "defenders": 20})
    q.check(ten, large)
    assert q.exact(ten, large) is None
    assert "a round of the battle at (attackers=20, defenders=20) has up to" in q.why_no_exact(ten, large)


def test_the_check_enumerates_no_pool_of_either_comparison():
    """The check before the trials reads each pool's size, nothing more: 45 d6 (refused before,
    2,118,760 multisets past a limit of 2,000,000) and 100 d6 pass, paired or the highest die."""
    text = RISK.replace('d6 = "min(attack_dice, attackers)"', 'd6 = "attackers"')
    compiled = compile_text(text, "many.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    for attackers in (44, 45, 100):
        q.check(rules, q.setup({"attackers": attackers, "defenders": 3}))
    highest = compile_text(text.replace('compare = "pairs"', 'compare = "highest"'), "highest.toml")
    hq = highest.game.question()
    hq.check(highest.game.rules(), hq.setup({"attackers": 100, "defenders": 3}))


def test_rules_of_ones_own_that_cannot_play_a_setup_are_named_before_any_trial(monkeypatch):
    """A --rule, rules= or a scenario's variant was met only when a run reached the setup (after
    16-33 s of a grid) and named the file's key, which is right as written."""
    compiled = compile_text(RISK.replace("max = 100", "max = 2000"), "risk.toml")
    q = compiled.game.question()
    setup = q.setup({"attackers": 1500, "defenders": 1})
    q.check(compiled.game.rules(), setup)  # the file's own rules play it
    many = compiled.game.rules(overrides={"attack_dice": 1500})
    with pytest.raises(InputError, match=r"^risk.toml: under the rules attack_dice=1500 \(\[rules\] has 3\): "
                                         r"round.roll.attacker.d6: gives 1,500 dice in state "
                                         r"\(attackers=1500, defenders=1\); a side rolls at most 1,000"):
        q.check(many, setup)
    q.check(many, q.setup({"attackers": 3, "defenders": 1}))  # 3 dice: within the limit
    two = compiled.game.rules(overrides={"attack_dice": 1500, "ties": "attacker"})
    with pytest.raises(InputError, match=r"^risk.toml: under the rules attack_dice=1500 \(\[rules\] has 3\), "
                                         r"ties=attacker \(\[rules\] has defender\): round.roll"):
        q.check(two, setup)
    negative = compiled.game.rules(overrides={"defend_dice": -1})
    with pytest.raises(InputError, match=r"^risk.toml: under the rules defend_dice=-1 \(\[rules\] has 2\): "):
        q.check(negative, setup)
    with pytest.raises(InputError, match=r"^risk.toml: under the rules defend_dice=-1 .*gives -1 dice"):
        q.exact(negative, setup)  # met while the chain is built, said the same way
