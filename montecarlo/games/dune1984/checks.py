"""Guile checks of Dune (1984): Sand Storm, Worm and Poison (``docs/rules/dune1984.md``, Guile checks).

The rulebook says Guile decides these attacks and that "for every 3 Spice you pay to the Spice
Bank, you will increase your character's Guile by 1 point. If enough Spice is paid, it will
become impossible for your character to be eliminated" (good for one attack only), and that a
Stillsuit adds 1 Guile "when attacked by a Worm or Sand Storm while on desert spaces". It does
not give the roll. Interpretation: the check rolls 1d6 and the character survives if
the roll is <= its Guile, so Guile 6 is safe; variants ``guile_check_d8`` (1d8 <= Guile) and
``guile_check_2d6`` (2d6 <= 2 x Guile). Spice left over below a full step buys nothing.

>>> from montecarlo.games.dune1984.rules import Rules
>>> survival(Rules(), 3), survival(Rules(guile_roll="2d6"), 3)
(0.5, 0.4166666666666667)
>>> [round(s.spice_per_point, 2) for s in spice_ladder(Rules(), 3)[1:]]
[0.18, 0.18, 0.18]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question
from montecarlo.games.dune1984.rules import GUILE_RULES, Rules, character
from montecarlo.validate import check_known, whole

MAX_GUILE = 10  # printed Guile is 3 or 4; the setup accepts 0..10 for what-ifs
FACES = {"d6": 6, "d8": 8}  # the one-die check rolls


@dataclass(frozen=True, slots=True)
class GuileSetup:
    """A character facing one Guile check.

    Attributes:
        guile: printed Guile, 0..10.
        spice: Spice paid to the Bank for this attack; each ``rules.spice_per_guile`` buys +1.
        stillsuit: +1 Guile (a Worm or Sand Storm on a desert space).
        character: the named character whose Guile this is, if one was given (for the record).
    """

    guile: int
    spice: int = 0
    stillsuit: bool = False
    # not a value to give: set by parse_guile when guile names a character
    character: str | None = field(default=None, metadata={"input": False})

    def __post_init__(self) -> None:
        whole("guile", self.guile, 0, MAX_GUILE)
        whole("spice", self.spice, 0)
        if not isinstance(self.stillsuit, bool):
            raise InputError(f"stillsuit must be true or false, got {self.stillsuit!r}")

    def effective_guile(self, rules: Rules) -> int:
        """Guile for this one check: printed + bought with Spice + Stillsuit."""
        return self.guile + self.spice // rules.spice_per_guile + int(self.stillsuit)


def parse_guile(values: Mapping[str, Any]) -> GuileSetup:
    """``{"guile": 3 | "Paul Atreides", "spice": 0, "stillsuit": False}`` -> GuileSetup."""
    check_known(values, ("guile", "spice", "stillsuit"), "guile setup")
    if "guile" not in values:
        raise InputError("guile setup: guile is required (an integer 0..10 or a character name)")
    guile, name = values["guile"], None
    if isinstance(guile, str):
        try:
            guile = int(guile)
        except ValueError:
            try:
                found = character(guile)
            except InputError as exc:
                raise InputError(
                    f"guile must be an integer 0..{MAX_GUILE} or a character name: {exc}"
                ) from None
            guile, name = found.guile, found.name
    return GuileSetup(guile, values.get("spice", 0), values.get("stillsuit", False), name)


def _threshold(rules: Rules, guile: int) -> tuple[int, int]:
    """(highest surviving roll, its rise per +1 Guile) under ``rules.guile_roll``."""
    return (2 * guile, 2) if rules.guile_roll == "2d6" else (guile, 1)


def _roll(rules: Rules, n: int, rng: np.random.Generator) -> np.ndarray:
    if rules.guile_roll == "2d6":
        return rng.integers(1, 7, size=(n, 2), dtype=np.int8).sum(axis=1, dtype=np.int16)
    return rng.integers(1, FACES[rules.guile_roll] + 1, size=n, dtype=np.int16)


def simulate_guile(
    rules: Rules, setup: GuileSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Roll ``n`` Guile checks: survival, and whether one more Guile step would have saved it."""
    top, step = _threshold(rules, setup.effective_guile(rules))
    roll = _roll(rules, n, rng)
    survive = roll <= top
    return {"survive": survive, "next_step_saves": ~survive & (roll <= top + step)}


def reference_guile(rules: Rules, setup: GuileSetup, rng: np.random.Generator) -> dict[str, bool]:
    """One check in plain Python, straight from the rule text (for tests)."""
    guile = setup.guile + setup.spice // rules.spice_per_guile + (1 if setup.stillsuit else 0)
    if rules.guile_roll == "2d6":
        roll, limit, next_limit = (
            int(rng.integers(1, 7)) + int(rng.integers(1, 7)),
            2 * guile,
            2 * (guile + 1),
        )
    else:
        roll = int(rng.integers(1, FACES[rules.guile_roll] + 1))
        limit, next_limit = guile, guile + 1
    return {"survive": roll <= limit, "next_step_saves": limit < roll <= next_limit}


def survival(rules: Rules, guile: int) -> float:
    """Exact P(survive) at effective Guile ``guile``: the share of faces at or under the threshold."""
    top, _ = _threshold(rules, guile)
    if rules.guile_roll == "2d6":  # ways for 2d6 <= t: sum over the first die of the second's options
        return sum(min(max(top - first, 0), 6) for first in range(1, 7)) / 36
    faces = FACES[rules.guile_roll]
    return min(top, faces) / faces


def exact_guile(rules: Rules, setup: GuileSetup) -> dict[str, float]:
    g = setup.effective_guile(rules)
    now = survival(rules, g)
    return {"survive": now, "next_step_saves": survival(rules, g + 1) - now}


@dataclass(frozen=True, slots=True)
class SpiceStep:
    """One rung of the Spice ladder (exact).

    Attributes:
        spice: Spice paid (a multiple of ``rules.spice_per_guile``).
        guile: effective Guile after paying it.
        survive: P(survive) at that Guile.
        gain: survival gained over the previous rung (0 on the first).
        spice_per_point: Spice paid per percentage point of survival this rung bought; None on the
            first rung.
    """

    spice: int
    guile: int
    survive: float
    gain: float
    spice_per_point: float | None


def spice_ladder(rules: Rules, guile: int, stillsuit: bool = False) -> list[SpiceStep]:
    """Survival for every whole step of Spice from 0 until the character is safe (exact).

    The marginal price ``spice_per_point`` is ``rules.spice_per_guile`` over the rung's gain in
    percentage points: how much Spice each point of survival probability costs at that rung.
    """
    start = guile + int(stillsuit)
    steps = [SpiceStep(0, start, survival(rules, start), 0.0, None)]
    safe = 6 if rules.guile_roll == "2d6" else FACES[rules.guile_roll]  # the Guile no roll beats
    for g in range(start + 1, safe + 1):  # (a for loop: it ends even if a rung's sum went wrong)
        p = survival(rules, g)
        gain = p - steps[-1].survive
        spice = steps[-1].spice + rules.spice_per_guile
        steps.append(SpiceStep(spice, g, p, gain, rules.spice_per_guile / (100 * gain)))
    return steps


QUESTIONS = {
    "guile": Question(
        name="guile",
        description="Guile check (Sand Storm, Worm, Poison): survival by Guile and Spice spent",
        setup_type=GuileSetup,
        metrics=(
            Metric("survive", "probability", "the character survives the check"),
            Metric(
                "next_step_saves",
                "probability",
                "the check fails, but one more Guile (as more Spice buys) would have saved it",
            ),
        ),
        simulate=simulate_guile,
        exact=exact_guile,
        reference=reference_guile,
        parse_setup=parse_guile,
        example={"guile": 3, "spice": 3},
        rule_fields=GUILE_RULES,
    ),
}
