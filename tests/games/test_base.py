"""The pieces every game module shares (montecarlo/games/base.py)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montecarlo.errors import InputError
from montecarlo.games.base import parse_weighted_objective, weighted_objective_text
from montecarlo.registry import get_game

weights = st.one_of(
    st.integers(0, 1_000_000).map(float),
    st.floats(0, 1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([1e6, 123456.7, 2.0000001, 1e-7, 5e-324, 0.1 + 0.2]),
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(kind=st.sampled_from(["keep", "trade"]), weight=weights)
def test_an_objective_reads_back_from_its_canonical_text_with_the_same_weight(kind, weight):
    """A report records the canonical text and reruns read it: a weight written as 1e+06 was
    refused, and one rounded to six digits (123457 for 123456.7) was another objective."""
    text = weighted_objective_text((kind, weight))
    assert parse_weighted_objective(text, kind, f"{kind}:2") == (kind, weight)
    assert "e" not in text.split(":")[1]


def test_a_weight_may_be_written_with_an_exponent_and_is_still_checked():
    assert parse_weighted_objective("keep:1e6", "keep", "keep:10") == ("keep", 1e6)
    assert parse_weighted_objective("trade:2.5E-1", "trade", "trade:2") == ("trade", 0.25)
    for text in ("keep:1e7", "keep:-1e2", "keep:1e", "keep:e5", "keep:inf", "keep:nan"):
        with pytest.raises(InputError, match="keep"):
            parse_weighted_objective(text, "keep", "keep:10")


def test_named_variants_that_set_one_rule_otherwise_are_refused():
    """-v best_play -v strongest_first: the later undid the earlier while the run still named both."""
    dune = get_game("dune1984")
    with pytest.raises(InputError, match="variant 'strongest_first' sets designation = 'strongest_first', "
                       "but variant 'best_play' sets it to 'best': give only one of them"):
        dune.rules(["best_play", "strongest_first"])
    assert dune.rules(["best_play", "best_play"]).designation == "best"  # the same value twice is one
    assert dune.rules(["best_play", "set_aside_die"]).set_aside_die  # other rules: together
    # overrides refine the variants (the API's rules=, a scenario's overrides) unless named as peers
    assert dune.rules(["best_play"], {"designation": "strongest_first"}).designation == "strongest_first"
    with pytest.raises(InputError, match="^--policy sets designation = 'weakest_first', but variant"):
        dune.rules(["best_play"], {"designation": "weakest_first"}, overrides_from="--policy")
    assert dune.rules(["best_play"], {"designation": "best"}, overrides_from="--policy").designation == "best"


@pytest.mark.parametrize("value", ["no", "off", "yes", "maybe", 2, 0.5, None])
def test_a_yes_no_rule_takes_true_or_false_only(value):
    """`--rule gom_counts_toward_cap=no` reached the rules as the text "no", which is true: the
    run played the rule the user had turned off. 0 and 1 (and numpy's bools) read as false and true."""
    import numpy as np

    from montecarlo.games.base import apply_overrides
    from montecarlo.games.dune1984.rules import Rules

    with pytest.raises(InputError, match=f"^rule: gom_counts_toward_cap must be true or false, got {value!r}"
                       .replace("(", "\\(")):
        apply_overrides(Rules(), {"gom_counts_toward_cap": value}, what="rule")
    assert apply_overrides(Rules(), {"gom_counts_toward_cap": 1}).gom_counts_toward_cap is True
    assert apply_overrides(Rules(), {"gom_counts_toward_cap": np.bool_(False)}).gom_counts_toward_cap is False
    with pytest.raises(InputError, match="must be true or false, got array"):  # not a numpy error
        apply_overrides(Rules(), {"gom_counts_toward_cap": np.array([1, 0])})


def test_an_override_of_rules_that_have_no_fields_says_so():
    """A battle file without [rules]: the line ended in 'known: ' and nothing."""
    import dataclasses

    from montecarlo.games.base import apply_overrides

    @dataclasses.dataclass(frozen=True)
    class NoRules:
        pass

    @dataclasses.dataclass(frozen=True)
    class TwoRules:
        ties: str = "defender"
        dice: int = 2

    with pytest.raises(InputError) as err:
        apply_overrides(NoRules(), {"ties": "attacker"}, what="variants.x.overrides")
    assert str(err.value) == (
        "variants.x.overrides: unknown rule field(s) ties; these rules have no fields to override"
    )
    with pytest.raises(InputError) as err:
        apply_overrides(TwoRules(), {"tie": "attacker", "die": 3})
    assert str(err.value) == "override: unknown rule field(s) die, tie; known: dice, ties"
