"""One question of the template game: who wins a highest-die duel.

The parts every question has: a frozen ``Setup``, ``parse_duel`` (plain values -> Setup, with
one-line errors), the chain (``start``, ``transitions`` and ``outcome``; the engine's
:class:`~montecarlo.engine.chain_question.ChainQuestion` derives the exact solver, the kernel and
the note on why a setup has no exact value), ``reference_duel`` (one trial in plain Python, real
dice, written from the rules and not from the chain) and the ``Question`` that ties them together.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np

from montecarlo.engine.chain import Step
from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.dice import highest_die_pmf
from montecarlo.games._template.rules import Rules
from montecarlo.games.base import Metric, Question, build_dataclass, whole

MAX_STRENGTH = 6


@dataclass(frozen=True, slots=True)
class DuelSetup:
    """Two sides' Strengths, 1..6 (validated here, so every entry point gets the same errors)."""

    attacker: int
    defender: int

    def __post_init__(self) -> None:
        whole("attacker", self.attacker, 1, MAX_STRENGTH)
        whole("defender", self.defender, 1, MAX_STRENGTH)


def parse_duel(values: Mapping[str, Any]) -> DuelSetup:
    """Plain values (CLI, TOML) -> DuelSetup; unknown keys are named in the error."""
    return build_dataclass(DuelSetup, values, "duel setup")


class DuelState(NamedTuple):
    """Where a duel stands: each side's Strength (0 = lost)."""

    attacker: int
    defender: int


@functools.lru_cache(maxsize=None)
def round_odds(faces: int, a: int, d: int) -> tuple[float, float, float]:
    """(P(attacker's highest die is higher), P(defender's), P(tie)) for a vs d dice."""
    pa, pd = highest_die_pmf(a, faces), highest_die_pmf(d, faces)
    below_d = np.cumsum(pd) - pd
    below_a = np.cumsum(pa) - pa
    return float(pa @ below_d), float(pd @ below_a), float(pa @ pd)


def start(rules: Rules, setup: DuelSetup) -> DuelState:
    """Where a duel starts: both sides at full Strength."""
    return DuelState(setup.attacker, setup.defender)


def transitions(rules: Rules, s: DuelState) -> list[Step[DuelState]]:
    """The next roll from ``s``: (probability, next state, tags); none once a side is at 0."""
    if s.attacker == 0 or s.defender == 0:
        return []
    win, lose, tie = round_odds(rules.die_faces, s.attacker, s.defender)
    hit_defender, hit_attacker = s._replace(defender=s.defender - 1), s._replace(attacker=s.attacker - 1)
    if rules.ties == "defender":
        return [(win, hit_defender, ("roll",)), (lose + tie, hit_attacker, ("roll",))]
    return [(win, hit_defender, ("roll",)), (lose, hit_attacker, ("roll",)), (tie, s, ("roll", "tie"))]


def outcome(rules: Rules, s: DuelState) -> dict[str, Any]:
    """What a finished duel reports (counters such as rounds come from the tags)."""
    return {"attacker_win": s.defender == 0, "winner_strength": max(s.attacker, s.defender)}


METRICS = (
    Metric("attacker_win", "probability", "the attacker wins", complement_swaps=True),
    Metric("winner_strength", "distribution", "the winner's Strength at the end", tuple(range(1, 7))),
    Metric("rounds", "mean", "rolls, re-rolled ties included"),
)


# home: pickled as a reference, so each worker process keeps its own solved chains
DUEL = ChainQuestion(start, transitions, outcome, METRICS, {"rounds": "roll"}, home=(__name__, "DUEL"))


def reference_duel(rules: Rules, setup: DuelSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One duel as a player plays it: roll every die, compare the highest, repeat."""
    strength = [setup.attacker, setup.defender]
    rounds = 0
    while min(strength) > 0:
        rounds += 1
        high = [max(int(rng.integers(1, rules.die_faces + 1)) for _ in range(s)) for s in strength]
        if high[0] == high[1] and rules.ties == "reroll":
            continue
        strength[1 if high[0] > high[1] else 0] -= 1
    return {"attacker_win": strength[1] == 0, "winner_strength": max(strength), "rounds": rounds}


QUESTIONS = {
    "duel": Question(
        name="duel",
        description="highest-die duel: the lower highest die loses a point, ties re-roll",
        setup_type=DuelSetup,
        metrics=METRICS,
        simulate=DUEL.simulate,
        exact=DUEL.exact,
        why_no_exact=DUEL.why_no_exact,
        affinity=DUEL.context_of,
        parse_setup=parse_duel,
        reference=reference_duel,
        example={"attacker": 3, "defender": 2},
    ),
}
