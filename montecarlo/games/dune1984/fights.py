"""Dune (1984) fights: Strength duels and fights with several characters a side (RULES.md 1.1-1.4).

Rulebook: ``shared/seeds/dune1984-rulebook.txt`` ("Fight/Ambush", "Fighting With More Than One
Character", "Winning the Fight", the Equipment Cards and the character list), as resolved by
RULES.md section 1. Each round both sides roll one die per point of Strength (a side's summed
Strength in a multi-character fight), never more than ``max_dice``, and compare their highest
die; ties are re-rolled; the loser's designated character loses 1 Strength. The winner gains
``strength_gain`` (never above ``max_strength``). Sword: all the side's dice are d8. Gom Jabbar:
one extra d8, outside the cap unless ``gom_counts_toward_cap``.

>>> from montecarlo.games.dune1984.rules import Rules
>>> e = exact(Rules(), DuelSetup(attacker=4, defender=5))
>>> round(e["attacker_win"], 4), round(e["rounds"], 3), round(exact(Rules(), DuelSetup(1, 1))["rounds"], 4)
(0.2597, 7.755, 1.2)

Interpretations (the rulebook is silent; reports say so):

- **Poison** (RULES.md 1.2): right after its holder's side first inflicts a point of damage, the
  damaged character makes a Guile check (RULES.md 1.5, ``rules.guile_roll``) and is eliminated
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
(:func:`montecarlo.engine.dice.highest_die_cdf`). :func:`exact` walks the chain backwards with
memoised values (Strength only falls, so no linear algebra); the kernel draws the same chain's
steps with one random byte per active trial (see :func:`_simulate`).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from montecarlo.engine.dice import highest_die_cdf
from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question, build_dataclass
from montecarlo.games.dune1984.checks import MAX_GUILE, survival, whole
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
            raise InputError(f"{field}: unknown equipment {item!r}; known: sword, gom_jabbar (or gom-jabbar), poison")
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
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_STRENGTH:
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
    """One to three characters a side (RULES.md 1.3).

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
    return tuple(label for label, _, _ in people), tuple(whole(f"{side}_guile", g, 0, MAX_GUILE) for g in guiles)


def _normalise(setup: Any, side: str, labels: Any, guiles: Any) -> None:
    """Store one side's normalised fields on a frozen setup."""
    object.__setattr__(setup, side, labels)
    object.__setattr__(setup, f"{side}_guile", guiles)
    object.__setattr__(setup, f"{side}_equipment", equipment(getattr(setup, f"{side}_equipment"), f"{side}_equipment"))


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
def _sides(setup: DuelSetup | FightSetup) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]], ...]:
    """Per side: (Strengths, Guiles, equipment) of a normalised setup."""
    duel = isinstance(setup, DuelSetup)
    a, d = ((setup.attacker,), (setup.defender,)) if duel else (setup.attacker, setup.defender)
    ga, gd = ((setup.attacker_guile,), (setup.defender_guile,)) if duel else (setup.attacker_guile, setup.defender_guile)
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
    one[: faces + 1], extra[: gom + 1] = highest_die_cdf(1, faces), highest_die_cdf(0, gom, (gom,) if gom else ())
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
    return tuple(tuple(zip(win_a[i].tolist(), win_d[i].tolist(), tie[i].tolist())) for i in range(max_dice + 1))


def round_odds(rules: Rules, strength_a: int, kit_a: tuple[str, ...], strength_d: int,
               kit_d: tuple[str, ...]) -> tuple[float, float, float]:
    """(P(attacker wins), P(defender wins), P(tie)) of one roll at these (summed) Strengths.

    Raw odds of the dice, before ``rules.ties`` decides what a tie means.
    """
    fa, ga, ca = _dice(rules, kit_a)
    fd, gd, cd = _dice(rules, kit_d)
    return _round_table(rules.max_dice, (fa, ga), (fd, gd))[min(strength_a, ca)][min(strength_d, cd)]


# --- the chain ----------------------------------------------------------------------------------
# A state is (strengths, designated, unused_poison, pending, poisoned): strengths per side (tuples),
# the designated character per side, a bit per side holding an unused Poison, the side whose
# designated character awaits a Poison check (-1: none; END: the fight is over) and a bit per side
# that lost a character to Poison.

END = 2


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
def _start(rules: Rules, setup: DuelSetup | FightSetup) -> tuple[_Context, tuple]:
    (sa, ga, ka), (sd, gd, kd) = _sides(setup)
    strongest = rules.designation == "strongest_first"
    ctx = _context(rules, (_dice(rules, ka), _dice(rules, kd)), (ga, gd))
    poison = ("poison" in ka) | ("poison" in kd) << 1
    return ctx, ((sa, sd), (_designate(sa, strongest), _designate(sd, strongest)), poison, -1, 0)


def _hit(ctx: _Context, state: tuple, target: int, poisoned: bool) -> tuple:
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
            return strengths, designated, 0, END, lost
        i = _designate(side, ctx.rules.designation == "strongest_first")
        designated = (i, designated[1]) if target == 0 else (designated[0], i)
    return strengths, designated, unused, pending, lost


@functools.lru_cache(maxsize=1 << 16)
def _transitions(ctx: _Context, state: tuple) -> tuple[tuple[float, tuple, bool], ...]:
    """The next step from ``state``: ((probability, next state, is a re-rolled tie), ...)."""
    strengths, designated, _, pending, _ = state
    if pending == END:
        return ()
    if pending >= 0:  # a Poison check: survive, or be eliminated
        keep = survival(ctx.rules, ctx.guiles[pending][designated[pending]])
        steps = ((keep, state[:3] + (-1, state[4]), False), (1 - keep, _hit(ctx, state, pending, True), False))
    else:
        win_a, win_d, tie = ctx.odds[min(sum(strengths[0]), ctx.dice[0][2])][min(sum(strengths[1]), ctx.dice[1][2])]
        if tie >= 1.0 and ctx.rules.ties == "reroll":
            raise InputError("under these rules every roll is a tie, so the fight never ends")
        hit_d, hit_a = _hit(ctx, state, 1, False), _hit(ctx, state, 0, False)
        if ctx.rules.ties == "defender":
            steps = ((win_a, hit_d, False), (win_d + tie, hit_a, False))
        else:
            steps = ((win_a, hit_d, False), (win_d, hit_a, False), (tie, state, True))
    return tuple(step for step in steps if step[0] > 0)


@functools.lru_cache(maxsize=1 << 16)
def _value(question: str, ctx: _Context, state: tuple) -> tuple[float, ...]:
    """Expected reported metrics from ``state`` on, in ``_NAMES[question]`` order."""
    steps = _transitions(ctx, state)
    if not steps:
        return _end_terms(question, ctx.rules, state)
    stay = sum(p for p, _, tie in steps if tie)
    parts = [(p / (1 - stay), _value(question, ctx, nxt)) for p, nxt, tie in steps if not tie]
    if len(parts) == 2:
        (q1, v1), (q2, v2) = parts
        out = [q1 * a + q2 * b for a, b in zip(v1, v2)]
    else:
        out = [sum(q * x for (q, _), x in zip(parts, column)) for column in zip(*(v for _, v in parts))]
    if state[3] < 0:  # a roll: 1 / (1 - P(tie)) rolls a visit, one of them decisive
        out[1] += 1 / (1 - stay)  # rounds
        out[2] += 1.0  # decisive_rounds
        out[3] += stay / (1 - stay)  # tied_rounds
    return tuple(out)


def _end_metrics(question: str, rules: Rules, end: tuple) -> dict[str, int]:
    """The per-fight values fixed by the final state (the winner's Strength, survivors, ...)."""
    strengths, designated, _, _, lost = end
    won = strengths[1][designated[1]] == 0  # the attacker won
    winner = strengths[0] if won else strengths[1]
    gain = [min(v + rules.strength_gain, max(rules.max_strength, v)) if v else 0 for v in winner]
    out = {"attacker_win": won, "poisoned": lost != 0}
    if question == "duel":
        out.update(winner_strength=winner[0], winner_strength_after=gain[0])
    else:
        after = (gain, strengths[1]) if won else (strengths[0], gain)
        out.update(
            attacker_survivors=sum(v > 0 for v in strengths[0]), defender_survivors=sum(v > 0 for v in strengths[1]),
            attacker_strength_after=sum(after[0]), defender_strength_after=sum(after[1]),
        )
    return out


def _end_terms(question: str, rules: Rules, end: tuple) -> tuple[float, ...]:
    """The reported values a final state fixes, in ``_NAMES[question]`` order."""
    values = _end_metrics(question, rules, end)
    terms = dict.fromkeys(_NAMES[question], 0.0)
    for m in QUESTIONS[question].metrics:
        if m.kind == "distribution" and values[m.name] in m.support:
            terms[f"{m.name}={values[m.name]}"] = 1.0
        elif m.name in values and m.kind != "distribution":
            terms[m.name] = float(values[m.name])
    return tuple(terms.values())


def exact(rules: Rules, setup: DuelSetup | FightSetup) -> dict[str, float]:
    """Every metric of a duel or fight, exactly (expected rounds included).

    With re-rolled ties each visit of a state costs 1 / (1 - P(tie)) rolls on average, of which
    P(tie) / (1 - P(tie)) are ties; the rest of the walk uses the odds given that a roll is
    decisive.
    """
    question = "duel" if isinstance(setup, DuelSetup) else "fight"
    ctx, start = _start(rules, setup)
    return dict(zip(_NAMES[question], _value(question, ctx, start)))


def clear_caches() -> None:
    """Forget every memoised round table, chain and kernel table (for cold timings)."""
    for cached in (_sides, _highest, _round_table, _context, _start, _transitions, _value, _kernel):
        cached.cache_clear()


# --- the kernel ---------------------------------------------------------------------------------

SCALE_BITS = 24  # step probabilities are quantised to multiples of 2**-24
STEP_COST, COMPACT_COST = 1.0, 3.0  # relative cost per trial of a step and of a compaction


@dataclass(frozen=True)
class _Kernel:
    """The chain as a lookup table over ``(code << 8) | byte`` (see :func:`_simulate`)."""

    table: np.ndarray  # the next (code << 8) | 1 for a re-rolled tie, 0 otherwise
    done: int  # values >= done are final states
    ends: np.ndarray  # per code, one record of the per-fight values its final state fixes
    schedule: tuple[int, ...]  # steps between compactions of the active set


@functools.lru_cache(maxsize=32)
def _kernel(question: str, rules: Rules, setup: DuelSetup | FightSetup) -> _Kernel:
    ctx, start = _start(rules, setup)
    order, index, decisive = [start], {start: 0}, {start: 0}
    for state in order:  # breadth first; the list grows while we walk it
        for _, nxt, tie in _transitions(ctx, state):
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
                decisive[nxt] = decisive[state] + (state[3] == -1 and not tie)
    live = [s for s in order if s[3] != END]
    ends = [s for s in order if s[3] == END]
    code = {s: i for i, s in enumerate(live)}
    code.update({s: -1 - i for i, s in enumerate(ends)})  # final states are numbered last
    rows: list = [None] * len(live)

    def fill(cum, targets, ties, low, width):
        """256 buckets of [low, low + width); a bucket holding a step boundary gets its own row."""
        step = width >> 8
        starts = low + step * np.arange(256, dtype=np.int64)
        first = np.searchsorted(cum, starts, side="right")
        last = np.searchsorted(cum, starts + step - 1, side="right")
        nxt, tie = targets[first], ties[first]
        for j in np.flatnonzero(first != last):
            rows.append(None)
            nxt[j], tie[j] = len(rows) - 1, 0
            rows[nxt[j]] = fill(cum, targets, ties, int(starts[j]), step)
        return nxt, tie

    for state in live:
        steps = _transitions(ctx, state)
        cum = np.rint(np.cumsum([p for p, _, _ in steps]) * (1 << SCALE_BITS)).astype(np.int64)
        cum[-1] = 1 << SCALE_BITS
        rows[code[state]] = fill(cum, np.array([code[n] for _, n, _ in steps], dtype=np.int64),
                                 np.array([t for _, _, t in steps], dtype=np.int64), 0, 1 << SCALE_BITS)
    first_end = len(rows)
    nxt = np.concatenate([r[0] for r in rows] + [first_end + np.repeat(np.arange(len(ends)), 256)])
    tie = np.concatenate([r[1] for r in rows] + [np.zeros(256 * len(ends), dtype=np.int64)])
    nxt = np.where(nxt < 0, first_end - 1 - nxt, nxt)
    table = ((nxt << 8) | tie).astype(np.uint16 if first_end + len(ends) <= 256 else np.uint32)

    values = [{**_end_metrics(question, rules, s), "decisive_rounds": decisive[s]} for s in ends]
    kinds = {name: bool if isinstance(v, (bool, np.bool_)) else np.uint16 if name == "decisive_rounds" else np.int8
             for name, v in values[0].items()}
    size = sum(np.dtype(kind).itemsize for kind in kinds.values())
    record = np.dtype({"names": list(kinds), "formats": list(kinds.values()),  # padded: 8-byte records copy fast
                       "itemsize": 1 << max(size - 1, 0).bit_length()})
    records = np.zeros(first_end + len(ends), dtype=record)  # zeros for the live codes
    for name in kinds:
        records[name][first_end:] = [v[name] for v in values]
    return _Kernel(table, first_end << 8, records, _schedule(ctx, order, index))


def _schedule(ctx: _Context, order: list, index: dict) -> tuple[int, ...]:
    """Steps between compactions of the active set, minimising the expected work.

    A step costs about ``STEP_COST`` per active trial and a compaction ``COMPACT_COST`` per
    trial it scans; the live share after each step is the chain's exact survival curve, so a
    small dynamic programme over compaction points finds the cheapest plan.
    """
    edges = [(i, index[nxt], p) for i, state in enumerate(order) for p, nxt, _ in _transitions(ctx, state)]
    src, dst, prob = (np.array(column) for column in zip(*edges))
    live = np.array([state[3] != END for state in order])
    mass = np.zeros(len(order))
    mass[0] = 1.0
    alive = [1.0]
    while alive[-1] > 1e-6 and len(alive) < 2000:
        mass = np.bincount(dst, weights=mass[src] * prob, minlength=len(order))
        alive.append(float(mass[live].sum()))
    cost, back = [0.0], [0]
    for i in range(1, len(alive)):
        options = [(cost[j] + alive[j] * ((i - j) * STEP_COST + COMPACT_COST), j) for j in range(max(0, i - 64), i)]
        best = min(options)
        cost.append(best[0])
        back.append(best[1])
    points, i = [], len(alive) - 1
    while i > 0:
        points.append(i)
        i = back[i]
    points.append(0)
    points.reverse()
    return tuple(b - a for a, b in zip(points, points[1:]))


def _simulate(question: str, rules: Rules, setup: DuelSetup | FightSetup, n: int,
              rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` fights: walk the chain with one random byte per active trial and step.

    The state code sits in the high bits of a small unsigned int, so a step is a few passes:
    XOR a fresh random byte into the low 8 bits, look the result up in ``table`` (the next code,
    whose low bit flags a re-rolled tie), and add that bit to the trial's tie count. A byte picks
    one of 256 equal slices of [0, 1); the rare slice that holds a boundary between two outcomes
    leads to a helper row that the next byte refines, three levels deep. Step probabilities are
    thus rounded to multiples of 2**-24, like float32 uniforms: a step's outcome odds are off by
    less than 1e-7, so a probability over a whole fight is biased by less than 1e-7 per step
    (about 1e-6 for a 5-vs-5 duel), some fifty times below the standard error of even 100
    million trials (5e-5). XOR with the tie bit keeps the next byte uniform. Poison checks are
    steps of their own (a separate draw). Finished trials leave the active set on a schedule
    planned from the chain's exact survival curve; results stay in trial order (paired runs).
    """
    k = _kernel(question, rules, setup)
    table, done, bits = k.table, k.done, rng.bit_generator
    state = np.zeros(n, dtype=table.dtype)  # every trial at the start state (code 0)
    ties = np.zeros(n, dtype=table.dtype)
    final, final_ties = np.empty(n, dtype=table.dtype), np.empty(n, dtype=table.dtype)
    where = None  # the original index of each active trial (None: all trials, in order)
    gaps = itertools.chain(k.schedule, itertools.repeat(2))
    index_buffer, flag_buffer = np.empty(n, dtype=np.intp), np.empty_like(state)  # reused: fewer page faults
    while state.size:
        m = state.size
        index, flag = index_buffer[:m], flag_buffer[:m]
        for _ in range(next(gaps)):
            np.bitwise_xor(state, bits.random_raw((m + 7) >> 3).view(np.uint8)[:m], out=index)
            np.take(table, index, out=state, mode="clip")
            np.bitwise_and(state, 1, out=flag)
            np.add(ties, flag, out=ties)
        finished = state >= done
        out = np.flatnonzero(finished)
        if not out.size:
            continue
        keep = np.flatnonzero(~finished)
        final_at = out if where is None else where[out]
        final[final_at], final_ties[final_at] = state[out], ties[out]
        state, ties = state[keep], ties[keep]
        where = keep if where is None else where[keep]
    record = np.take(k.ends, (final >> 8).astype(np.intp), mode="clip")
    ends = {name: record[name] for name in k.ends.dtype.names}
    ties = final_ties.astype(np.uint16, copy=False)
    ends.update(rounds=ends["decisive_rounds"] + ties, tied_rounds=ties)
    return ends


def simulate_duel(rules: Rules, setup: DuelSetup, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` duels (see :func:`_simulate` for how the kernel draws them)."""
    return _simulate("duel", rules, setup, n, rng)


def simulate_fight(rules: Rules, setup: FightSetup, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` multi-character fights (see :func:`_simulate`)."""
    return _simulate("fight", rules, setup, n, rng)


# --- the slow reference -------------------------------------------------------------------------

def reference_trial(rules: Rules, setup: DuelSetup | FightSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One fight in plain Python, every die rolled, the rules applied literally (for tests)."""
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
        return all(v == 0 for v in strength[side]) if rules.fight_to_last else strength[side][designated[side]] == 0

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
    result = {"attacker_win": won, "rounds": rounds, "decisive_rounds": decisive, "tied_rounds": tied, "poisoned": poisoned}
    if isinstance(setup, DuelSetup):
        result.update(winner_strength=before[w][0], winner_strength_after=strength[w][0])
    else:
        result.update(
            attacker_survivors=sum(v > 0 for v in strength[0]), defender_survivors=sum(v > 0 for v in strength[1]),
            attacker_strength_after=sum(strength[0]), defender_strength_after=sum(strength[1]),
        )
    return result


# --- questions ----------------------------------------------------------------------------------

_COMMON = (
    Metric("attacker_win", "probability", "the attacker wins the fight"),
    Metric("rounds", "mean", "rolls of the dice, re-rolled ties included"),
    Metric("decisive_rounds", "mean", "rolls that cost a side 1 Strength"),
    Metric("tied_rounds", "mean", "tied rolls that were re-rolled"),
)
_POISONED = Metric("poisoned", "probability", "a Poison check eliminated a character (interpretation)")
_COUNTS = tuple(range(0, MAX_CHARACTERS + 1))

QUESTIONS = {
    "duel": Question(
        name="duel",
        description="Strength duel of two characters with dice, Sword, Gom Jabbar and Poison",
        setup_type=DuelSetup,
        metrics=_COMMON + (
            Metric("winner_strength", "distribution", "the winner's Strength at the end, before the gain", STRENGTHS),
            Metric("winner_strength_after", "distribution", "the winner's Strength after the gain", STRENGTHS),
            _POISONED,
        ),
        simulate=simulate_duel,
        exact=exact,
        parse_setup=parse_duel,
        reference=reference_trial,
        example={"attacker": 4, "defender": 5},
    ),
    "fight": Question(
        name="fight",
        description="fight with one to three characters a side (summed Strength, one designated to take damage)",
        setup_type=FightSetup,
        metrics=_COMMON + (
            Metric("attacker_survivors", "distribution", "attacker's characters still standing", _COUNTS),
            Metric("defender_survivors", "distribution", "defender's characters still standing", _COUNTS),
            Metric("attacker_strength_after", "mean", "attacker's total Strength after the fight (gain included)"),
            Metric("defender_strength_after", "mean", "defender's total Strength after the fight (gain included)"),
            _POISONED,
        ),
        simulate=simulate_fight,
        exact=exact,
        parse_setup=parse_fight,
        reference=reference_trial,
        example={"attacker": [4, 3], "defender": [5], "defender_equipment": ["sword"]},
    ),
}
_NAMES = {name: q.reported_names() for name, q in QUESTIONS.items()}
assert all(names[1:4] == ("rounds", "decisive_rounds", "tied_rounds") for names in _NAMES.values())
