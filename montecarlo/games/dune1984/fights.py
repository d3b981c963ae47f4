"""Dune (1984) fights: Strength duels and fights with several characters a side.

The rules as modelled, with the rulebook sections they come from ("Fight/Ambush", "Fighting With
More Than One Character", "Winning the Fight", the Equipment Cards and the character list) and
every interpretation: ``docs/rules/dune1984.md``. Each round both sides roll one die per point
of Strength (a side's summed Strength in a multi-character fight), never more than
``max_dice``, and compare their highest die; ties are re-rolled; the loser's designated
character loses 1 Strength. The winner gains ``strength_gain`` (never above
``max_strength``). Sword: all the side's dice are d8. Gom Jabbar: one extra d8, outside the cap
unless ``gom_counts_toward_cap``.

>>> from montecarlo.games.dune1984.rules import Rules
>>> e = exact(Rules(), DuelSetup(attacker=4, defender=5))
>>> round(e["attacker_win"], 4), round(e["rounds"], 3), round(exact(Rules(), DuelSetup(1, 1))["rounds"], 4)
(0.2597, 7.755, 1.2)

Interpretations (the rulebook is silent; reports say so):

- **Poison**: right after its holder's side first inflicts a point of damage, the
  damaged character makes a Guile check (see :mod:`.checks`, ``rules.guile_roll``) and is eliminated
  if it fails; the card is spent either way. If that point of damage already eliminated the
  character there is nothing to poison and no check.
- Equipment in a multi-character fight belongs to the side and acts on the side's dice pool.
- A designated character takes every point of damage until it is eliminated; the policy
  (``weakest_first`` / ``strongest_first``) picks among living characters, the first listed on
  a tie. Without ``fight_to_last`` the fight ends when a designated character is eliminated.
- ``tied_rounds`` counts re-rolled ties; under ``ties_favour_defender`` a tie is a decisive round
  that the defender wins.

How it is computed: a fight is an absorbing Markov chain whose state is every character's
Strength, the designated characters, the unused Poison cards and a pending Poison check. The
per-round odds come from the closed-form distribution of the highest die
(:func:`montecarlo.engine.dice.highest_die_cdf`). This module writes only the rule
(:func:`_transitions`, tagged "roll", "decisive" or "tie") and what a finished fight reports
(:func:`_outcome`); :class:`montecarlo.engine.chain_question.ChainQuestion` derives from them the
exact values (worked backwards with memoised values: Strength only falls) and the kernel (one
random byte per active trial and step), with one chain per context (rules, dice, Guiles).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np

from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.dice import highest_die_cdf
from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question, build_dataclass, is_whole, whole
from montecarlo.games.dune1984.checks import MAX_GUILE, survival
from montecarlo.games.dune1984.rules import CHARACTERS, DEFAULT_GUILE, Rules, character

MAX_STRENGTH = 6  # the Strength track runs 1..6
MAX_CHARACTERS = 3  # characters per side in a multi-character fight
EQUIPMENT = ("gom_jabbar", "poison", "sword")
SIDES = ("attacker", "defender")
STRENGTHS = tuple(range(1, MAX_STRENGTH + 1))


# --- setups -------------------------------------------------------------------------------------


def equipment(value: Any, field: str) -> tuple[str, ...]:
    """Equipment from a list or a comma-separated string -> sorted canonical names.

    >>> equipment("Sword, gom-jabbar", "attacker_equipment")
    ('gom_jabbar', 'sword')
    """
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise InputError(f"{field} must be a list of equipment names, got {value!r}")
    names = set()
    for item in items:
        key = "_".join(str(item).strip().lower().replace("-", " ").split())
        if key not in EQUIPMENT and key:
            raise InputError(
                f"{field}: unknown equipment {item!r}; known: sword, gom_jabbar (or gom-jabbar), poison"
            )
        names.update([key] if key else [])
    return tuple(sorted(names))


def fighter(value: Any, field: str) -> tuple[int | str, int, int]:
    """A Strength 1..6 or a character name -> (label, Strength, Guile); label is the int or the name."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value)
    if isinstance(value, str):
        try:
            found = character(value)
        except InputError as exc:
            raise InputError(f"{field}: {exc}") from None
        return found.name, found.strength, found.guile
    if not is_whole(value) or not 1 <= value <= MAX_STRENGTH:
        raise InputError(f"{field} must be a Strength 1..{MAX_STRENGTH} or a character name, got {value!r}")
    return int(value), int(value), DEFAULT_GUILE


@dataclass(frozen=True, slots=True)
class DuelSetup:
    """One character against one.

    Attributes:
        attacker, defender: a Strength 1..6 or a character name (normalised to the int or the
            character's printed name).
        attacker_equipment, defender_equipment: names among sword, gom_jabbar, poison (a list or
            a comma-separated string; normalised to a sorted tuple).
        attacker_guile, defender_guile: Guile 0..10 for Poison checks; default the character's,
            or ``DEFAULT_GUILE`` (3) for a plain Strength.
    """

    attacker: int | str
    defender: int | str
    attacker_equipment: tuple[str, ...] = ()
    defender_equipment: tuple[str, ...] = ()
    attacker_guile: int | None = None
    defender_guile: int | None = None

    def __post_init__(self) -> None:
        for side in SIDES:
            given = getattr(self, f"{side}_guile")
            labels, guiles = _characters(side, [getattr(self, side)], None if given is None else [given])
            _normalise(self, side, labels[0], guiles[0])


@dataclass(frozen=True, slots=True)
class FightSetup:
    """One to three characters a side (summed Strength, one designated character takes the damage).

    Attributes:
        attacker, defender: lists of Strengths 1..6 or character names (or a comma-separated
            string), normalised to tuples.
        attacker_equipment, defender_equipment: the side's equipment, as in :class:`DuelSetup`.
        attacker_guile, defender_guile: one Guile per character (an int applies to all); default
            each character's own, or 3 for a plain Strength.
    """

    attacker: tuple[int | str, ...]
    defender: tuple[int | str, ...]
    attacker_equipment: tuple[str, ...] = ()
    defender_equipment: tuple[str, ...] = ()
    attacker_guile: tuple[int, ...] | None = None
    defender_guile: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for side in SIDES:
            items, given = _listed(getattr(self, side)), getattr(self, f"{side}_guile")
            if not 1 <= len(items) <= MAX_CHARACTERS:
                raise InputError(f"{side} must list 1..{MAX_CHARACTERS} characters, got {len(items)}")
            if isinstance(given, (int, np.integer)) and not isinstance(given, bool):
                given = [given] * len(items)  # one Guile for the whole side
            _normalise(self, side, *_characters(side, items, None if given is None else _listed(given)))


def _listed(value: Any) -> list:
    """A list from a list, a tuple, one value, or a comma-separated string."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _characters(side: str, items: list, guiles: list | None) -> tuple[tuple, tuple[int, ...]]:
    """Labels and Guiles of one side's characters; a Guile not given is the character's (or 3)."""
    people = [fighter(item, side) for item in items]
    if guiles is None:
        guiles = [g for _, _, g in people]
    if len(guiles) != len(people):
        raise InputError(f"{side}_guile needs one Guile per character ({len(people)}), got {len(guiles)}")
    guiles = [int(g) if isinstance(g, str) and g.strip().isdigit() else g for g in guiles]
    return tuple(label for label, _, _ in people), tuple(
        whole(f"{side}_guile", g, 0, MAX_GUILE) for g in guiles
    )


def _normalise(setup: Any, side: str, labels: Any, guiles: Any) -> None:
    """Store one side's normalised fields on a frozen setup."""
    object.__setattr__(setup, side, labels)
    object.__setattr__(setup, f"{side}_guile", guiles)
    object.__setattr__(
        setup, f"{side}_equipment", equipment(getattr(setup, f"{side}_equipment"), f"{side}_equipment")
    )


def parse_duel(values: Mapping[str, Any]) -> DuelSetup:
    """Plain values (TOML, CLI) -> DuelSetup; attacker and defender are required."""
    for side in SIDES:
        if side not in values:
            raise InputError(f"duel setup: {side} is required (a Strength 1..6 or a character name)")
    return build_dataclass(DuelSetup, values, "duel setup")


def parse_fight(values: Mapping[str, Any]) -> FightSetup:
    """Plain values (TOML, CLI) -> FightSetup; attacker and defender are required."""
    for side in SIDES:
        if side not in values:
            raise InputError(f"fight setup: {side} is required (a list of Strengths 1..6 or character names)")
    return build_dataclass(FightSetup, values, "fight setup")


@functools.lru_cache(maxsize=4096)
def _sides(
    setup: DuelSetup | FightSetup,
) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]], ...]:
    """Per side: (Strengths, Guiles, equipment) of a normalised setup."""
    duel = isinstance(setup, DuelSetup)
    a, d = ((setup.attacker,), (setup.defender,)) if duel else (setup.attacker, setup.defender)
    ga, gd = (
        ((setup.attacker_guile,), (setup.defender_guile,))
        if duel
        else (setup.attacker_guile, setup.defender_guile)
    )
    return (_strengths(a), ga, setup.attacker_equipment), (_strengths(d), gd, setup.defender_equipment)


def _strengths(labels: tuple[int | str, ...]) -> tuple[int, ...]:
    return tuple(v if isinstance(v, int) else CHARACTERS[v.lower()].strength for v in labels)


# --- one round ----------------------------------------------------------------------------------


def _dice(rules: Rules, kit: tuple[str, ...]) -> tuple[int, int, int]:
    """(faces of the Strength dice, faces of the Gom Jabbar die or 0, cap on the Strength dice)."""
    gom = rules.gom_faces if "gom_jabbar" in kit else 0
    cap = rules.max_dice - (1 if gom and rules.gom_counts_toward_cap else 0)
    return (rules.sword_faces if "sword" in kit else rules.die_faces), gom, cap


@functools.lru_cache(maxsize=None)
def _highest(faces: int, gom: int, max_dice: int, width: int) -> np.ndarray:
    """``rows[n]`` = distribution of the highest of ``n`` d``faces`` (plus the d``gom``), n = 0..max_dice.

    The CDF of a maximum is the product of the dice's CDFs (:func:`highest_die_cdf`).
    """
    one, extra = np.ones(width), np.ones(width)
    one[: faces + 1], extra[: gom + 1] = (
        highest_die_cdf(1, faces),
        highest_die_cdf(0, gom, (gom,) if gom else ()),
    )
    cdf = one ** np.arange(max_dice + 1)[:, None] * extra
    return np.diff(cdf, axis=1, prepend=0.0)


@functools.lru_cache(maxsize=None)
def _round_table(max_dice: int, side_a: tuple[int, int], side_d: tuple[int, int]) -> tuple:
    """``table[n_a][n_d] = (P(attacker's highest wins), P(defender's wins), P(tie))``.

    ``n`` counts a side's Strength dice (0..max_dice); ``side = (faces, gom faces or 0)``. The
    same sums as :func:`montecarlo.engine.dice.compare_highest`, for every pair at once.
    """
    width = max(*side_a, *side_d) + 1
    a, d = _highest(*side_a, max_dice, width), _highest(*side_d, max_dice, width)
    below_a, below_d = np.cumsum(a, axis=1) - a, np.cumsum(d, axis=1) - d  # P(highest < v)
    win_a, win_d, tie = a @ below_d.T, below_a @ d.T, a @ d.T
    return tuple(
        tuple(zip(win_a[i].tolist(), win_d[i].tolist(), tie[i].tolist())) for i in range(max_dice + 1)
    )


def round_odds(
    rules: Rules, strength_a: int, kit_a: tuple[str, ...], strength_d: int, kit_d: tuple[str, ...]
) -> tuple[float, float, float]:
    """(P(attacker wins), P(defender wins), P(tie)) of one roll at these (summed) Strengths.

    Raw odds of the dice, before ``rules.ties`` decides what a tie means.
    """
    fa, ga, ca = _dice(rules, kit_a)
    fd, gd, cd = _dice(rules, kit_d)
    return _round_table(rules.max_dice, (fa, ga), (fd, gd))[min(strength_a, ca)][min(strength_d, cd)]


# --- the chain ----------------------------------------------------------------------------------

END = 2  # ``pending`` of a final state: the fight is over


class FightState(NamedTuple):
    """Where a fight stands between two rolls.

    Attributes:
        strengths: per side, every character's Strength (0 = eliminated).
        designated: per side, the index of the character that takes the damage.
        unused_poison: one bit per side (1 = attacker, 2 = defender) holding an unused Poison.
        pending: the side whose designated character awaits a Poison check; -1 none; END over.
        poisoned: one bit per side that lost a character to Poison.
    """

    strengths: tuple[tuple[int, ...], tuple[int, ...]]
    designated: tuple[int, int]
    unused_poison: int
    pending: int
    poisoned: int


class _Context:
    """What stays fixed during one fight: rules, each side's dice and Guiles (interned, hashed once)."""

    __slots__ = ("rules", "dice", "guiles", "odds", "_hash")

    def __init__(self, rules: Rules, dice: tuple, guiles: tuple) -> None:
        self.rules, self.dice, self.guiles = rules, dice, guiles
        (fa, ga, _), (fd, gd, _) = dice
        self.odds = _round_table(rules.max_dice, (fa, ga), (fd, gd))
        self._hash = hash((rules, dice, guiles))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _Context) and self._key() == other._key())

    def _key(self) -> tuple:
        return self.rules, self.dice, self.guiles


_context = functools.lru_cache(maxsize=1024)(_Context)


def _designate(strengths: tuple[int, ...], strongest: bool) -> int:
    best = -1
    for i, v in enumerate(strengths):
        if v > 0 and (best < 0 or (v > strengths[best] if strongest else v < strengths[best])):
            best = i
    return best


@functools.lru_cache(maxsize=8192)
def _start(rules: Rules, setup: DuelSetup | FightSetup) -> tuple[_Context, FightState]:
    (sa, ga, ka), (sd, gd, kd) = _sides(setup)
    strongest = rules.designation == "strongest_first"
    ctx = _context(rules, (_dice(rules, ka), _dice(rules, kd)), (ga, gd))
    poison = ("poison" in ka) | ("poison" in kd) << 1
    return ctx, FightState((sa, sd), (_designate(sa, strongest), _designate(sd, strongest)), poison, -1, 0)


def _hit(ctx: _Context, state: FightState, target: int, poisoned: bool) -> FightState:
    """The state after ``target``'s designated character loses 1 Strength (or all, to Poison)."""
    strengths, designated, unused, _, lost = state
    i = designated[target]
    side = list(strengths[target])
    side[i] = 0 if poisoned else side[i] - 1
    side = tuple(side)
    strengths = (side, strengths[1]) if target == 0 else (strengths[0], side)
    pending = -1
    if poisoned:
        lost |= 1 << target
    elif unused & (1 << (1 - target)):  # the striker's first damage: its Poison is used now
        unused &= ~(1 << (1 - target))
        pending = target if side[i] > 0 else -1
    if side[i] == 0:
        if not ctx.rules.fight_to_last or not any(side):
            return FightState(strengths, designated, 0, END, lost)
        i = _designate(side, ctx.rules.designation == "strongest_first")
        designated = (i, designated[1]) if target == 0 else (designated[0], i)
    return FightState(strengths, designated, unused, pending, lost)


ROLL, TIE = ("roll", "decisive"), ("roll", "tie")  # tags of a decisive roll and of a re-rolled tie
COUNTERS = {"rounds": "roll", "decisive_rounds": "decisive", "tied_rounds": "tie"}


def _transitions(ctx: _Context, state: FightState) -> tuple[tuple[float, FightState, tuple[str, ...]], ...]:
    """The next step from ``state``: a roll of both sides' dice, or a pending Poison check."""
    strengths, designated, _, pending, _ = state
    if pending == END:
        return ()
    if pending >= 0:  # a Poison check: survive, or be eliminated
        keep = survival(ctx.rules, ctx.guiles[pending][designated[pending]])
        return ((keep, state._replace(pending=-1), ()), (1 - keep, _hit(ctx, state, pending, True), ()))
    win_a, win_d, tie = ctx.odds[min(sum(strengths[0]), ctx.dice[0][2])][
        min(sum(strengths[1]), ctx.dice[1][2])
    ]
    if tie >= 1.0 and ctx.rules.ties == "reroll":
        raise InputError("under these rules every roll is a tie, so the fight never ends")
    hit_d, hit_a = _hit(ctx, state, 1, False), _hit(ctx, state, 0, False)
    if ctx.rules.ties == "defender":
        return ((win_a, hit_d, ROLL), (win_d + tie, hit_a, ROLL))
    return ((win_a, hit_d, ROLL), (win_d, hit_a, ROLL), (tie, state, TIE))


def _outcome(question: str, ctx: _Context, end: FightState) -> dict[str, int | bool]:
    """The per-fight values fixed by the final state (the winner's Strength, survivors, ...)."""
    rules = ctx.rules
    strengths, designated, _, _, lost = end
    won = strengths[1][designated[1]] == 0  # the attacker won
    winner = strengths[0] if won else strengths[1]
    gain = [min(v + rules.strength_gain, max(rules.max_strength, v)) if v else 0 for v in winner]
    out: dict[str, int | bool] = {"attacker_win": won, "poisoned": lost != 0}
    if question == "duel":
        out.update(winner_strength=winner[0], winner_strength_after=gain[0])
    else:
        after = (gain, strengths[1]) if won else (strengths[0], gain)
        out.update(
            attacker_survivors=sum(v > 0 for v in strengths[0]),
            defender_survivors=sum(v > 0 for v in strengths[1]),
            attacker_strength_after=sum(after[0]),
            defender_strength_after=sum(after[1]),
        )
    return out


def _question(question: str) -> ChainQuestion[_Context, FightState]:
    """A duel or a fight on the chain engine: one chain per context, so solved states are shared."""
    return ChainQuestion(
        lambda rules, setup: _start(rules, setup)[1],
        _transitions,
        functools.partial(_outcome, question),
        _METRICS[question],
        COUNTERS,
        context=lambda rules, setup: _start(rules, setup)[0],
        cache_size=1024,
        home=(__name__, question.upper()),  # DUEL or FIGHT below
    )


def exact(rules: Rules, setup: DuelSetup | FightSetup) -> dict[str, float] | None:
    """Every metric of a duel or a fight, whichever ``setup`` is, exactly (expected rounds included)."""
    return (DUEL if isinstance(setup, DuelSetup) else FIGHT).exact(rules, setup)


def clear_caches() -> None:
    """Forget every memoised round table, chain and kernel table (for cold timings)."""
    for cached in (_sides, _highest, _round_table, _context, _start):
        cached.cache_clear()
    DUEL.clear()
    FIGHT.clear()


# --- the slow reference -------------------------------------------------------------------------


def reference_duel(rules: Rules, setup: DuelSetup | FightSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One duel or fight in plain Python, every die rolled, the rules applied literally (for tests)."""
    (str_a, guile_a, kit_a), (str_d, guile_d, kit_d) = _sides(setup)
    strength, guile, kit = [list(str_a), list(str_d)], [guile_a, guile_d], [kit_a, kit_d]
    strongest = rules.designation == "strongest_first"

    def pick(side):  # the living character the policy designates (first listed on a tie)
        alive = [i for i, v in enumerate(strength[side]) if v > 0]
        if strongest:
            return max(alive, key=lambda i: (strength[side][i], -i))
        return min(alive, key=lambda i: (strength[side][i], i))

    def roll(side):  # one die per point of summed Strength (capped), then the Gom Jabbar die
        gom = "gom_jabbar" in kit[side]
        faces = rules.sword_faces if "sword" in kit[side] else rules.die_faces
        count = min(sum(strength[side]), rules.max_dice - (1 if gom and rules.gom_counts_toward_cap else 0))
        dice = rng.integers(1, faces + 1, size=count).tolist()  # each die rolled
        return max(dice + ([int(rng.integers(1, rules.gom_faces + 1))] if gom else []))

    def guile_check(g):
        if rules.guile_roll == "2d6":
            return int(rng.integers(1, 7)) + int(rng.integers(1, 7)) <= 2 * g
        return int(rng.integers(1, (8 if rules.guile_roll == "d8" else 6) + 1)) <= g

    def out(side):
        return (
            all(v == 0 for v in strength[side])
            if rules.fight_to_last
            else strength[side][designated[side]] == 0
        )

    designated = [pick(0), pick(1)]
    poison = ["poison" in kit[0], "poison" in kit[1]]
    rounds = tied = decisive = 0
    poisoned = False
    while not (out(0) or out(1)):
        high_a, high_d = roll(0), roll(1)
        rounds += 1
        if high_a == high_d and rules.ties == "reroll":
            tied += 1
            continue
        loser = 1 if high_a > high_d else 0  # a tie here goes to the defender
        decisive += 1
        victim = designated[loser]
        strength[loser][victim] -= 1
        if poison[1 - loser]:
            poison[1 - loser] = False
            if strength[loser][victim] > 0 and not guile_check(guile[loser][victim]):
                strength[loser][victim] = 0
                poisoned = True
        if strength[loser][victim] == 0 and any(strength[loser]) and rules.fight_to_last:
            designated[loser] = pick(loser)
    won = out(1)
    before = [list(s) for s in strength]
    w = 0 if won else 1
    strength[w] = [min(v + rules.strength_gain, max(rules.max_strength, v)) if v else 0 for v in strength[w]]
    result = {
        "attacker_win": won,
        "rounds": rounds,
        "decisive_rounds": decisive,
        "tied_rounds": tied,
        "poisoned": poisoned,
    }
    if isinstance(setup, DuelSetup):
        result.update(winner_strength=before[w][0], winner_strength_after=strength[w][0])
    else:
        result.update(
            attacker_survivors=sum(v > 0 for v in strength[0]),
            defender_survivors=sum(v > 0 for v in strength[1]),
            attacker_strength_after=sum(strength[0]),
            defender_strength_after=sum(strength[1]),
        )
    return result


reference_fight = reference_duel  # one reading of the rules serves both (a duel is a 1-vs-1 fight)


# --- questions ----------------------------------------------------------------------------------

_COMMON = (
    Metric("attacker_win", "probability", "the attacker wins the fight"),
    Metric("rounds", "mean", "rolls of the dice, re-rolled ties included"),
    Metric("decisive_rounds", "mean", "rolls that cost a side 1 Strength"),
    Metric("tied_rounds", "mean", "tied rolls that were re-rolled"),
)
_POISONED = Metric("poisoned", "probability", "a Poison check eliminated a character (interpretation)")
_COUNTS = tuple(range(0, MAX_CHARACTERS + 1))
_METRICS = {
    "duel": _COMMON
    + (
        Metric(
            "winner_strength", "distribution", "the winner's Strength at the end, before the gain", STRENGTHS
        ),
        Metric("winner_strength_after", "distribution", "the winner's Strength after the gain", STRENGTHS),
        _POISONED,
    ),
    "fight": _COMMON
    + (
        Metric("attacker_survivors", "distribution", "attacker's characters still standing", _COUNTS),
        Metric("defender_survivors", "distribution", "defender's characters still standing", _COUNTS),
        Metric(
            "attacker_strength_after", "mean", "attacker's total Strength after the fight (gain included)"
        ),
        Metric(
            "defender_strength_after", "mean", "defender's total Strength after the fight (gain included)"
        ),
        _POISONED,
    ),
}
DUEL, FIGHT = _question("duel"), _question("fight")
simulate_duel, simulate_fight = DUEL.simulate, FIGHT.simulate  # the kernels, by the names tests use

QUESTIONS = {
    "duel": Question(
        name="duel",
        description="Strength duel of two characters with dice, Sword, Gom Jabbar and Poison",
        setup_type=DuelSetup,
        metrics=_METRICS["duel"],
        simulate=DUEL.simulate,
        exact=DUEL.exact,
        why_no_exact=DUEL.why_no_exact,
        parse_setup=parse_duel,
        reference=reference_duel,
        example={"attacker": 4, "defender": 5},
    ),
    "fight": Question(
        name="fight",
        description=(
            "fight with one to three characters a side (summed Strength, one designated to take damage)"
        ),
        setup_type=FightSetup,
        metrics=_METRICS["fight"],
        simulate=FIGHT.simulate,
        exact=FIGHT.exact,
        why_no_exact=FIGHT.why_no_exact,
        parse_setup=parse_fight,
        reference=reference_fight,
        example={"attacker": [4, 3], "defender": [5], "defender_equipment": ["sword"]},
    ),
}
