"""Names that would mean two things, text rules in expressions, setup values given as text, and the
limits on numbers and pools: each refused in one line naming the file and the key, in every kernel,
never a traceback and never a silently wrong number."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import montecarlo.engine.memory
from montecarlo.datagame import DefinitionError, parse_definition, read_definition
from montecarlo.datagame.compile import MAX_DICE, compile_text
from montecarlo.datagame.expr import LIMIT, Expr, ExprError
from montecarlo.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
RISK = (ROOT / "scenarios" / "games" / "risk.toml").read_text()
SHIELDS = (Path(__file__).parent / "test_count_and_size.py").read_text().split('SHIELDS = """')[1]
SHIELDS = SHIELDS[: SHIELDS.index('"""')]  # the counted battle of test_count_and_size.py


def bad(old: str, new: str, text: str = RISK) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def refused(text: str) -> str:
    with pytest.raises(DefinitionError) as info:
        parse_definition(text, "games/mine.toml")
    return str(info.value)


# --- a text rule named in an expression -------------------------------------------------------------

TEXT_RULE = (
    "'ties' is a text rule ('defender'); expressions compute with whole numbers and true/false only; "
    "name a text rule only as round.ties, or make the rule a number"
)


@pytest.mark.parametrize(
    "old, new, key",
    [
        ('"attackers - attacker_lost"', '"attackers - ties"', "round.update.attackers"),  # a traceback
        ('end = "attackers == 0 or defenders == 0"', 'end = "attackers == 0 or ties"', "end"),  # over at once
        ('end = "attackers == 0 or defenders == 0"', 'end = "ties == 1 or attackers == 0"', "end"),
        ('"min(attack_dice, attackers)"', '"min(ties, attackers)"', "round.roll.attacker.d6"),
        ("[dice.d6]\nfaces = 6", '[dice.d6]\nfaces = "ties"', "dice.d6.faces"),
        ('value = "defenders == 0"', 'value = "defenders == 0 and ties"', "metrics.attacker_win.value"),
        ("[rules]", '[state]\nattackers = "ties + 1"\ndefenders = "defenders"\n[rules]', "state.attackers"),
    ],
)
def test_a_text_rule_named_in_an_expression_is_refused_naming_the_key(old, new, key):
    assert refused(bad(old, new)) == f"games/mine.toml: {key}: {TEXT_RULE}"


def test_number_and_true_false_rules_stay_usable_in_expressions():
    text = bad("attack_dice = 3", "attack_dice = 3\nbonus = true").replace(
        '"min(attack_dice, attackers)"', '"min(attack_dice, attackers) - (not bonus)"'
    )
    game = compile_text(text, "flag.toml").game
    q = game.question()
    assert q.exact(game.rules(), q.setup({"attackers": 3, "defenders": 2}))["attacker_win"] > 0


# --- setup values as text ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["--5", "+-5", "-+5", "²", "٣", "5 5", "0x5", "5_0", "", " "])
def test_a_setup_value_that_is_not_a_plain_whole_number_is_an_input_error(value):
    q = compile_text(RISK, "risk.toml").game.question()
    with pytest.raises(InputError) as info:
        q.setup({"attackers": value, "defenders": 2})
    assert str(info.value) == f"attackers must be an integer 1..100, got {value!r}"


def test_a_setup_value_as_text_may_have_one_sign_and_spaces():
    q = compile_text(RISK, "risk.toml").game.question()
    for text in ("7", "+7", " 7 ", "\t+7\n", "007"):
        assert q.setup({"attackers": text, "defenders": "2"}).attackers == 7


# --- names that would mean two things ---------------------------------------------------------------


@pytest.mark.parametrize(
    "faces, message",
    [
        ('["hit", "hit", "shield", "shield", "dice", "blank"]',
         "face 'dice' makes 'red_dice' name both the number of dice red rolls and the 'dice' faces red "
         "rolls"),
        ('["hit", "hit", "shield", "shield", "lost", "blank"]',
         "face 'lost' makes 'red_lost' name both what red loses and the 'lost' faces red rolls"),
    ],
)
def test_a_face_named_like_a_round_quantity_is_refused(faces, message):
    text = bad('faces = ["hit", "hit", "shield", "shield", "special", "blank"]', f"faces = {faces}", SHIELDS)
    assert refused(text) == f"games/mine.toml: dice.battle.faces: {message}; rename the face"


def test_a_side_and_face_spelling_another_sides_name_are_refused():
    """Sides ``red`` (a face ``x_hit``) and ``red_x`` (a face ``hit``) would both define ``red_x_hit``."""
    start, end = SHIELDS.index("[dice.battle]"), SHIELDS.index("[metrics.red_win]")
    text = SHIELDS[:start] + """[dice.battle]
faces = ["hit", "shield", "blank"]
[dice.odd]
faces = ["x_hit", "blank"]
[round]
compare = "count"
[round.roll]
red = { odd = "red" }
red_x = { battle = "blue" }
[round.lost]
red = "red_x_hit"
red_x = "red_blank"
[round.update]
red = "max(0, red - red_lost)"
blue = "max(0, blue - red_x_lost)"
""" + SHIELDS[end:]
    assert refused(text) == (
        "games/mine.toml: dice.battle.faces: face 'hit' makes 'red_x_hit' name both the 'x_hit' faces red "
        "rolls and the 'hit' faces red_x rolls; rename the face"
    )
    assert parse_definition(text.replace('"x_hit"', '"y_hit"').replace('"red_x_hit"', '"red_y_hit"'))


@pytest.mark.parametrize(
    "rule, ties, what",
    [
        ('attacker = "defender"', "attacker", "a side"),
        ('reroll = "attacker"', "reroll", "the keyword reroll"),
    ],
)
def test_a_rule_named_like_a_tie_keyword_is_refused_when_round_ties_names_it(rule, ties, what):
    """``round.ties = "attacker"`` with a rule ``attacker = "defender"`` would give ties to the defender."""
    text = bad("attack_dice = 3", f"attack_dice = 3\n{rule}").replace('ties = "ties"', f'ties = "{ties}"')
    assert refused(text) == (
        f"games/mine.toml: round.ties: {ties!r} is both a rule and {what}; rename the rule"
    )


def test_dice_and_metrics_are_not_expression_names_and_may_share_a_name():
    """A die named like a rule and a metric named like a setup field change what no name means."""
    text = RISK.replace("[dice.d6]", "[dice.ties]").replace("{ d6 =", "{ ties =")
    text = text.replace("[metrics.attackers_left]", "[metrics.attackers]")
    shared, shipped = compile_text(text, "shared.toml").game, compile_text(RISK, "risk.toml").game
    setup = shipped.question().setup({"attackers": 5, "defenders": 3})
    values = shared.question().exact(shared.rules(), setup)
    expected = shipped.question().exact(shipped.rules(), setup)
    assert values == pytest.approx({k.replace("attackers_left", "attackers"): v for k, v in expected.items()})


def test_a_file_whose_name_is_not_usable_and_which_has_no_name_key_says_so(tmp_path):
    path = tmp_path / "my duel.toml"
    path.write_text(RISK.replace('name = "risk"\n', ""))
    with pytest.raises(DefinitionError) as info:
        read_definition(path)
    assert str(info.value) == (
        f"{path}: the file has no name key, and its file name 'my duel' is not a usable game name; "
        "add name = \"my-duel\" (letters, digits, '.', '_' or '-')"
    )
    with pytest.raises(DefinitionError) as info:  # a name key that is not usable names the key
        parse_definition(RISK.replace('name = "risk"', 'name = "my duel"'), str(path))
    assert str(info.value) == (
        f"{path}: name: 'my duel' is not a usable name; use letters, digits, '.', '_' or '-'"
    )
    assert read_definition(path.rename(tmp_path / "my-duel.toml")).name == "my-duel"


# --- limits on pools and numbers ---------------------------------------------------------------------


def kernels(compiled, setup_values):
    """Each kernel of a compiled game, called on one setup (exact, vectorised, reference)."""
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup(setup_values)
    return {
        "exact": lambda: q.exact(rules, setup),
        "direct": lambda: compiled.simulate_direct(rules, setup, 20, np.random.default_rng(1)),
        "reference": lambda: compiled.reference(rules, setup, np.random.default_rng(1)),
    }


@pytest.mark.parametrize("kernel", ["exact", "direct", "reference"])
def test_a_pool_beyond_the_most_dice_is_refused_in_every_kernel(kernel):
    text = RISK.replace('compare = "pairs"', 'compare = "highest"').replace(
        '"min(attack_dice, attackers)"', '"attackers * 1000000000000"'
    )
    with pytest.raises(DefinitionError) as info:
        kernels(compile_text(text, "huge.toml"), {"attackers": 3, "defenders": 2})[kernel]()
    assert str(info.value) == (
        "huge.toml: round.roll.attacker.d6: gives 3,000,000,000,000 dice in state (attackers=3, "
        "defenders=2); a side rolls at most 1,000 dice of a kind (cap it, e.g. min(1000, ...))"
    )


@pytest.mark.parametrize("kernel", ["exact", "direct", "reference"])
def test_the_most_dice_are_rolled_and_one_more_is_refused(kernel):
    text = RISK.replace('compare = "pairs"', 'compare = "highest"').replace(
        '"min(attack_dice, attackers)"', f'"{MAX_DICE - 1} + attackers"'
    )
    compiled = compile_text(text, "most.toml")
    assert kernels(compiled, {"attackers": 1, "defenders": 1})[kernel]()["attacker_win"] is not None
    with pytest.raises(DefinitionError, match=r"gives 1,001 dice in state \(attackers=2, defenders=1\); "):
        kernels(compiled, {"attackers": 2, "defenders": 1})[kernel]()


def test_a_round_too_large_for_the_memory_is_refused_before_it_is_rolled(monkeypatch):
    monkeypatch.setattr(montecarlo.engine.memory, "available_bytes", lambda: 2**20)
    text = RISK.replace('compare = "pairs"', 'compare = "highest"').replace(
        '"min(attack_dice, attackers)"', '"1000"'
    )
    compiled = compile_text(text, "mem.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 1, "defenders": 1})
    with pytest.raises(InputError) as info:
        compiled.simulate_direct(rules, setup, 20_000, np.random.default_rng(1))
    assert str(info.value) == (
        "mem.toml: round.roll.attacker.d6: 1,000 dice for each of 20,000 battles would need about 915.5 MiB "
        "of memory; 1.0 MiB are available: roll fewer dice or simulate fewer battles at once (a smaller "
        "chunk size)"
    )


@pytest.mark.parametrize("kernel", ["exact", "direct", "reference"])
def test_a_value_beyond_the_limit_is_refused_in_every_kernel_never_wrapped(kernel):
    """3 x 4e18 is 1.2e19: int64 wrapped it to about -6.4e18 (1.4e18 on average) without a word."""
    text = bad('value = "attackers"\ndescription = "the attacker\'s armies left at the end, on average',
               'value = "(attackers + defenders + 2) * 4000000000000000000"\ndescription = "big')
    with pytest.raises(DefinitionError) as info:  # every battle ends with one army on one side
        kernels(compile_text(text, "big.toml"), {"attackers": 1, "defenders": 1})[kernel]()
    assert str(info.value) == (
        "big.toml: metrics.attackers_remaining.value: 3 * 4000000000000000000 = 12000000000000000000 is "
        "too large; values must stay below 2**62"
    )


def test_values_up_to_the_limit_are_exact_in_every_kernel():
    text = bad('value = "attackers"\ndescription = "the attacker\'s armies left at the end, on average',
               'value = "attackers * 1000000000000000000 + 999"\ndescription = "big')
    compiled = compile_text(text, "big.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 4, "defenders": 1})
    direct = compiled.simulate_direct(rules, setup, 2000, np.random.default_rng(1))["attackers_remaining"]
    possible = {k * 10**18 + 999 for k in range(5)}  # 0 to 4 armies left: none wrapped around
    assert set(direct.tolist()) <= possible and direct.max() == 4 * 10**18 + 999
    assert compiled.reference(rules, setup, np.random.default_rng(1))["attackers_remaining"] in possible
    shipped = compile_text(RISK, "risk.toml")
    left = shipped.game.question().exact(rules, setup)["attackers_remaining"]
    assert q.exact(rules, setup)["attackers_remaining"] == pytest.approx(left * 10**18 + 999, rel=1e-12)


@pytest.mark.parametrize(
    "text, env, value",
    [
        ("x * y", {"x": 2**31, "y": 2**31 - 1}, 2**62 - 2**31),
        ("x * y", {"x": -(2**31), "y": 2**31 - 1}, -(2**62) + 2**31),
        ("x + y", {"x": 2**61, "y": 2**61 - 1}, 2**62 - 1),
        ("x - y", {"x": -(2**61), "y": 2**61 - 1}, 1 - 2**62),
        ("-x - y", {"x": 2**61, "y": 2**61 - 1}, 1 - 2**62),
    ],
)
def test_the_largest_values_are_computed_alike_on_ints_and_arrays(text, env, value):
    e = Expr(text, env)
    assert e(env) == value
    assert e.vector({k: np.array([0, v]) for k, v in env.items()}).tolist() == [0, value]


@pytest.mark.parametrize(
    "text, env, message",
    [
        ("x * y", {"x": 2**31, "y": 2**31}, f"2147483648 * 2147483648 = {2**62}"),
        ("x * y", {"x": -(2**31), "y": 2**31}, f"-2147483648 * 2147483648 = {-(2**62)}"),
        ("x * y * y", {"x": 3, "y": 2**32}, f"12884901888 * 4294967296 = {3 * 2**64}"),  # wraps to 0
        ("x + y", {"x": 2**61, "y": 2**61}, f"{2**61} + {2**61} = {2**62}"),
        ("x - y", {"x": -(2**61), "y": 2**61}, f"{-(2**61)} - {2**61} = {-(2**62)}"),
    ],
)
def test_a_value_reaching_the_limit_is_refused_on_ints_and_arrays(text, env, message):
    e = Expr(text, env)
    with pytest.raises(ExprError) as info:
        e(env)
    assert str(info.value) == f"{message} is too large; values must stay below 2**62"
    with pytest.raises(ExprError) as info:  # the first element that reaches it is named
        e.vector({k: np.array([1, v, v]) for k, v in env.items()})
    assert str(info.value) == f"{message} is too large; values must stay below 2**62"


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("attack_dice = 3", "attack_dice = {}", "rules.attack_dice"),
        ("overrides = { defend_dice = 3 }", "overrides = {{ defend_dice = {} }}",
         "variants.defender_three_dice.overrides.defend_dice"),
        ("min = 1\nmax = 100\nexample = 5", "min = 1\nmax = {}\nexample = 5", "setup.attackers.max"),
        ("min = 1\nmax = 100\nexample = 5", "min = -{}\nmax = 100\nexample = 5", "setup.attackers.min"),
        ("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = [1, -{}]", "dice.d6.faces"),  # EMPTY is below every face
    ],
)
def test_numbers_of_the_file_beyond_the_limit_are_refused(old, new, key):
    sign = "-" if "-{}" in new else ""
    assert refused(bad(old, new.format(LIMIT))) == (
        f"games/mine.toml: {key}: {sign}{LIMIT} is too large; numbers must be below 2**62 in size"
    )
    assert parse_definition(bad(old, new.format(LIMIT - 1)))  # one less is allowed


def test_a_rule_beyond_the_limit_given_to_the_api_is_refused():
    game = compile_text(RISK, "risk.toml").game
    with pytest.raises(InputError) as info:
        game.rules(overrides={"attack_dice": 10**30})
    assert str(info.value) == (
        f"risk.toml: rules.attack_dice: {10**30} is too large; numbers must be below 2**62 in size"
    )


@pytest.mark.parametrize("value", [LIMIT, -LIMIT, LIMIT - 1, -(LIMIT - 1)])
def test_a_rule_given_to_the_api_is_bounded_at_the_limit_on_both_sides(value):
    game = compile_text(RISK, "risk.toml").game
    if abs(value) < LIMIT:
        assert game.rules(overrides={"attack_dice": value}).attack_dice == value
    else:
        with pytest.raises(InputError, match=r"rules\.attack_dice: -?\d+ is too large"):
            game.rules(overrides={"attack_dice": value})


class _FileError(Exception):
    """An error that names a file and key, as the definition reader's does."""


def test_a_value_too_large_deep_inside_an_expression_raises_the_callers_error():
    """Every sub-expression reports through the caller's error (the file and key), not only the
    outermost operation."""
    nested = Expr("(x * 4000000000000000000) + 1", {"x"}, error=_FileError)
    for evaluate in (nested, lambda env: nested.vector({"x": np.array([1, 3])})):
        too_large = r"^3 \* 4000000000000000000 = 12000000000000000000 is too large"
        with pytest.raises(_FileError, match=too_large):
            evaluate({"x": 3})


@pytest.mark.parametrize(
    "coins, seed",
    [
        ("(defenders == 1) * 1001", 0),  # the other battles roll no coin: 0 is a valid pool
        ("(defenders == 1) * 1001 + (defenders == 2) * 1000", 2),  # the others roll 1,000: the most
    ],
)
def test_the_first_battle_with_too_many_dice_is_named_whatever_the_others_roll(coins, seed):
    """After the first round the battles of a chunk differ: the vector kernel names the first
    battle whose pool is out of range at the round it happens (attackers 3 against 1 defender),
    not a later one, whatever valid pools (none, or the most) the battles before it roll."""
    roll = f'{{ d6 = "min(attack_dice, attackers)", coin = "{coins}" }}'
    text = RISK.replace('compare = "pairs"', 'compare = "highest"')
    text = text.replace('{ d6 = "min(attack_dice, attackers)" }', roll)
    compiled = compile_text(text.replace("[dice.d6]", "[dice.coin]\nfaces = 2\n\n[dice.d6]"), "coins.toml")
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": 3, "defenders": 2})
    with pytest.raises(DefinitionError, match=r"gives 1,001 dice in state \(attackers=3, defenders=1\); "):
        compiled.simulate_direct(rules, setup, 20, np.random.default_rng(seed))


@pytest.mark.parametrize(
    "stem, suggested",
    [
        ("X_My duel!", "X_My-duel"),  # runs of other characters become one '-'; capitals kept
        ("-.My duel_", "My-duel"),  # no '.', '_' or '-' left at either end
        ("!!", "game"),  # nothing usable left
    ],
)
def test_the_name_suggested_for_a_file_without_one_is_usable(tmp_path, stem, suggested):
    path = tmp_path / f"{stem}.toml"
    path.write_text(RISK.replace('name = "risk"\n', ""))
    with pytest.raises(DefinitionError, match=f'add name = "{re.escape(suggested)}" '):
        read_definition(path)
    renamed = RISK.replace('name = "risk"', f'name = "{suggested}"')
    assert parse_definition(renamed, str(path)).name == suggested


@pytest.mark.parametrize("name", ["dune1984", "War_For_Arrakis", "IMPERIUM"])
def test_a_battle_named_as_a_built_in_game_is_refused_wherever_it_is_read(tmp_path, name):
    """Its reports said game 'dune1984', and report-all's index had two 'dune1984' headings."""
    import montecarlo as mc
    from montecarlo.registry import get_game

    risk = Path(__file__).resolve().parents[2] / "scenarios" / "games" / "risk.toml"
    file = tmp_path / "battle.toml"
    file.write_text(risk.read_text().replace('name = "risk"', f'name = "{name}"'))
    said = (f"{file}: name: {name!r} is the name of a game montecarlo has, which the reports would confuse "
            f'with it; give the battle another name (e.g. name = "{name}-battle")')
    for read in (lambda: get_game(str(file)), lambda: mc.odds(file, trials=100)):
        with pytest.raises(InputError) as err:
            read()
        assert str(err.value) == said
    unnamed = tmp_path / f"{name}.toml"  # no name key: the file's name stands in, and is said as such
    unnamed.write_text(risk.read_text().replace('name = "risk"\n', ""))
    with pytest.raises(InputError) as err:
        get_game(str(unnamed))
    assert str(err.value) == (
        f"{unnamed}: the file has no name key, and its file name {name!r} is the name of a game montecarlo "
        f'has, which the reports would confuse with it; add a name (e.g. name = "{name}-battle")'
    )
