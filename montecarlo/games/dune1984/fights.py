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
- "Subtract 1 Strength point ... and Set aside 1 die": by default a side's dice are recounted every
  round as min(cap, summed Strength); ``set_aside_die`` (the literal reading) starts from that
  count and sets one aside per lost round, which differs only above 6 Strength a side.
- ``tied_rounds`` counts re-rolled ties; under ``ties_favour_defender`` a tie is a decisive round
  that the defender wins.

How it is computed: a fight is an absorbing Markov chain whose state is every character's
Strength, the designated characters, the unused Poison cards, a pending Poison check and each
side's dice in play (under ``set_aside_die`` a lost round sets one aside). The
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
from montecarlo.engine.decisions import Choice, Objective
from montecarlo.engine.dice import highest_die_cdf
from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question, build_dataclass, is_whole, whole
from montecarlo.games.dune1984.checks import MAX_GUILE, survival
from montecarlo.games.dune1984.rules import (
    BEST_DESIGNATIONS, CHARACTERS, DEFAULT_GUILE, DUEL_RULES, FIGHT_RULES, Rules, character,
)

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
    if value is None or (isinstance(value, str) and not value.strip()):  # none
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise InputError(f"{field} must be a list of equipment names, got {value!r}")
    names: set[str] = set()
    for item in items:
        key = "_".join(str(item).strip().lower().replace("-", " ").split())
        if not key:  # "sword,,poison" or ",": a slip, as a fight's "4,,3" is
            raise InputError(f"{field}: an empty item in {value!r}; separate the items by single commas")
        if key not in EQUIPMENT:
            raise InputError(
                f"{field}: unknown equipment {item!r}; known: sword, gom_jabbar (or gom-jabbar), poison"
            )
        if key in names:  # a side's equipment acts once on its pool: a second card would do nothing
            raise InputError(f"{field}: {key} is listed twice; a side holds each equipment card once")
        names.add(key)
    return tuple(sorted(names))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def fighter(value: Any, field: str) -> tuple[int | str, int, int]:
    """A Strength 1..6 or a character name -> (label, Strength, Guile); label is the int or the name."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value)
    if isinstance(value, str) and _is_number(value):  # 3.5, 1e3: a Strength, not a name
        raise InputError(f"{field} must be a Strength 1..{MAX_STRENGTH} or a character name, got {value!r}")
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
            or 3 (the commonest printed Guile) for a plain Strength.
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
        _one_person_once((self.attacker,), (self.defender,))


@dataclass(frozen=True, slots=True)
class FightSetup:
    """One to three characters a side (summed Strength, one designated character takes the damage).

    Attributes:
        attacker, defender: lists of Strengths 1..6 or character names (or a comma-separated
            string), normalised to tuples.
        attacker_equipment, defender_equipment: the side's equipment, names among sword,
            gom_jabbar, poison (a list or a comma-separated string), as in a duel.
        attacker_guile, defender_guile: one Guile per character (an int applies to all); default
            each character's own, or 3 for a plain Strength.
        objective: ``"win"`` reports the metric ``objective`` (the deciding side's chance to win:
            the attacker's, or the defender's under ``designation = "defender_best"``), under
            whatever policy is played; ``""`` (default): not reported.
    """

    attacker: tuple[int | str, ...]
    defender: tuple[int | str, ...]
    attacker_equipment: tuple[str, ...] = ()
    defender_equipment: tuple[str, ...] = ()
    attacker_guile: tuple[int, ...] | None = None
    defender_guile: tuple[int, ...] | None = None
    objective: str = ""

    def __post_init__(self) -> None:
        for side in SIDES:
            items, given = _listed(getattr(self, side), side), getattr(self, f"{side}_guile")
            if not 1 <= len(items) <= MAX_CHARACTERS:
                raise InputError(f"{side} must list 1..{MAX_CHARACTERS} characters, got {len(items)}")
            if isinstance(given, (int, np.integer)) and not isinstance(given, bool):
                given = [given] * len(items)  # one Guile for the whole side
            guiles = None if given is None else _listed(given, f"{side}_guile")
            _normalise(self, side, *_characters(side, items, guiles))
        _one_person_once(self.attacker, self.defender)
        object.__setattr__(self, "objective", parse_objective(self.objective))


OBJECTIVES = ("", "win")


def parse_objective(text: Any) -> str:
    """The objective of a fight: ``"win"`` (the deciding side's chance to win) or ``""`` (none asked).

    >>> parse_objective(" Win "), parse_objective(None)
    ('win', '')
    """
    key = "" if text is None else "".join(text.lower().split()) if isinstance(text, str) else None
    if key not in OBJECTIVES:
        raise InputError(f"objective must be win (the deciding side's chance to win), got {text!r}")
    return key


def _listed(value: Any, field: str) -> list:
    """A list from a list, a tuple, a numpy array (or pandas Series), one value, or a
    comma-separated string ('4,,3' refused)."""
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",")]
        if len(parts) > 1 and not all(parts):
            raise InputError(f"{field}: an empty item in {value!r}; separate the items by single commas")
        return [part for part in parts if part]
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray) or hasattr(value, "to_numpy"):  # numpy or pandas, from a notebook
        return np.asarray(value).ravel().tolist()
    return [value]


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


def _one_person_once(attackers: tuple, defenders: tuple) -> None:
    """A named character is one person: refused twice on a side or on both sides."""
    seen: dict[str, str] = {}
    for side, labels in zip(SIDES, (attackers, defenders)):
        for label in labels:
            if not isinstance(label, str):
                continue  # plain Strengths may repeat: different characters
            if label in seen:
                where = f"twice on the {side} side" if seen[label] == side else "on both sides"
                raise InputError(f"{side}: {label} is named {where}; a character can fight only once")
            seen[label] = side


def _normalise(setup: Any, side: str, labels: Any, guiles: Any) -> None:
    """Store one side's normalised fields on a frozen setup."""
    object.__setattr__(setup, side, labels)
    object.__setattr__(setup, f"{side}_guile", guiles)
    object.__setattr__(
        setup, f"{side}_equipment", equipment(getattr(setup, f"{side}_equipment"), f"{side}_equipment")
    )


def parse_duel(values: Mapping[str, Any]) -> DuelSetup:
    """Plain values (TOML, CLI) -> DuelSetup; attacker and defender are required."""
    takes = "a Strength 1..6 or a character name"
    return build_dataclass(DuelSetup, values, "duel setup", dict.fromkeys(SIDES, takes))


def parse_fight(values: Mapping[str, Any]) -> FightSetup:
    """Plain values (TOML, CLI) -> FightSetup; attacker and defender are required."""
    takes = "a list of Strengths 1..6 or character names"
    return build_dataclass(FightSetup, values, "fight setup", dict.fromkeys(SIDES, takes))


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


def check_rolls_can_differ(rules: Rules, setup: "DuelSetup | FightSetup") -> None:
    """InputError before any trial (and naming the variant in a scenario) when no roll can be won
    under ``rules``: every die of both sides has one face and ties are re-rolled, so the fight
    would never end (the solver met it only inside its first round)."""
    if rules.ties != "reroll":
        return
    used = []
    for kit in (setup.attacker_equipment, setup.defender_equipment):
        faces, gom, _ = _dice(rules, kit)
        if faces > 1 or gom > 1:
            return
        used += ["sword_faces" if "sword" in kit else "die_faces"] + (["gom_faces"] if gom else [])
    fields = " and ".join(dict.fromkeys(used))
    raise InputError(
        f"under these rules every roll is a tie ({fields} = 1: each side's highest die always shows 1) and "
        "ties are re-rolled, so the fight never ends; give the dice 2 faces or more"
    )


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
        dice: per side, the Strength dice in play: min(cap, summed Strength) by default; under
            ``set_aside_die`` they start there and a lost round sets one aside.
    """

    strengths: tuple[tuple[int, ...], tuple[int, ...]]
    designated: tuple[int, int]
    unused_poison: int
    pending: int
    poisoned: int
    dice: tuple[int, int]


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


CHOOSE = -1  # ``designated`` of the deciding side under best play: it is about to choose


def chooser(rules: Rules) -> int | None:
    """The side (0 attacker, 1 defender) that chooses its designated character exactly, or None."""
    if rules.designation not in BEST_DESIGNATIONS:
        return None
    return 0 if rules.designation == "best" else 1


def same_house(setup: DuelSetup | FightSetup) -> list[str]:
    """Characters of one house on opposite sides, which one player owns both of: a setup the
    rules allow here but that a player may not mean (the question's ``cautions``)."""
    attacker, defender = setup.attacker, setup.defender
    if isinstance(attacker, int) or isinstance(defender, int):  # a duel of a Strength: no house (the
        return []  # common grid, where this is asked of every point)
    named = [[CHARACTERS[v.lower()] for v in _labels(setup, side) if isinstance(v, str)] for side in SIDES]
    sides = [{c.name: c.colour for c in characters} for characters in named]
    return [
        f"{a} and {d} are both {colour} characters (one player's) on opposite sides"
        for a, colour in sides[0].items()
        for d, other in sides[1].items()
        if colour == other
    ]


def _labels(setup: DuelSetup | FightSetup, side: str) -> tuple:
    """A side's labels (Strengths and character names) as a tuple, a duel's one too."""
    labels = getattr(setup, side)
    return labels if isinstance(labels, tuple) else (labels,)


def check_best_alone(rules: Rules, setup: DuelSetup | FightSetup) -> None:
    """One setup under best play: refused when the deciding side fights with one character, so
    there is no choice of who takes the damage (its odds would be the fixed policy's)."""
    side = chooser(rules)
    if side is None:
        return
    name = ("attacker", "defender")[side]
    fighters = getattr(setup, name)
    if not isinstance(fighters, tuple) or len(fighters) < 2:
        raise InputError(
            f"best play: the {name} fights with one character, so there is no choice of who takes the damage"
        )


def _pick(rules: Rules, side: int, strengths: tuple[int, ...]) -> int:
    """The character ``side`` designates: by the fixed policy, or CHOOSE where it decides among
    several living characters (best play; the side that does not decide designates its weakest)."""
    if side == chooser(rules) and sum(v > 0 for v in strengths) > 1:
        return CHOOSE
    return _designate(strengths, rules.designation == "strongest_first")


def option_name(index: int, strength: int) -> str:
    """The name of the option "designate character ``index``" (0-based) of a best-play choice."""
    return f"character {index + 1} (Strength {strength})"


def option_index(name: str) -> int:
    """The 0-based character of an option named by :func:`option_name`."""
    return int(name.split()[1]) - 1


@functools.lru_cache(maxsize=8192)
def _start(rules: Rules, setup: DuelSetup | FightSetup) -> tuple[_Context, FightState]:
    (sa, ga, ka), (sd, gd, kd) = _sides(setup)
    ctx = _context(rules, (_dice(rules, ka), _dice(rules, kd)), (ga, gd))
    poison = ("poison" in ka) | ("poison" in kd) << 1
    dice = (min(sum(sa), ctx.dice[0][2]), min(sum(sd), ctx.dice[1][2]))
    designated = (_pick(rules, 0, sa), _pick(rules, 1, sd))
    return ctx, FightState((sa, sd), designated, poison, -1, 0, dice)


def _dice_after(ctx: _Context, state: FightState, target: int, side: tuple[int, ...]) -> int:
    """``target``'s Strength dice in play after its designated character's hit.

    Default: recounted from the Strength left, min(cap, sum). ``set_aside_die``: one die fewer
    for a lost round; a side whose designated character is out (a lost round at Strength 1, or
    Poison, which is not a round) recounts, as at the start of a fight (``fight_to_last``).
    """
    if not ctx.rules.set_aside_die or side[state.designated[target]] == 0:
        return min(sum(side), ctx.dice[target][2])
    # none left to set aside: a house rule's max_dice below the Strength runs out of dice first
    return max(state.dice[target] - 1, 0)


def _hit(ctx: _Context, state: FightState, target: int, poisoned: bool) -> FightState:
    """The state after ``target``'s designated character loses 1 Strength (or all, to Poison)."""
    strengths, designated, unused, _, lost, dice = state
    i = designated[target]
    side = list(strengths[target])
    side[i] = 0 if poisoned else side[i] - 1
    side = tuple(side)
    strengths = (side, strengths[1]) if target == 0 else (strengths[0], side)
    left = _dice_after(ctx, state, target, side)
    dice = (left, dice[1]) if target == 0 else (dice[0], left)
    pending = -1
    if poisoned:
        lost |= 1 << target
    elif unused & (1 << (1 - target)):  # the striker's first damage: its Poison is used now
        unused &= ~(1 << (1 - target))
        pending = target if side[i] > 0 else -1
    if side[i] == 0:
        if not ctx.rules.fight_to_last or not any(side):
            return FightState(strengths, designated, 0, END, lost, dice)
        i = _pick(ctx.rules, target, side)
        designated = (i, designated[1]) if target == 0 else (designated[0], i)
    return FightState(strengths, designated, unused, pending, lost, dice)


ROLL, TIE = ("roll", "decisive"), ("roll", "tie")  # tags of a decisive roll and of a re-rolled tie
COUNTERS = {"rounds": "roll", "decisive_rounds": "decisive", "tied_rounds": "tie"}


def _transitions(ctx: _Context, state: FightState) -> Any:
    """The next step from ``state``: a roll of both sides' dice, or a pending Poison check; under
    best play, where the deciding side is to designate a character, a :class:`Choice` of its
    living characters (in order: the first listed wins a tie)."""
    strengths, designated, _, pending, _, dice = state
    if pending == END:
        return ()
    if CHOOSE in designated:
        side = designated.index(CHOOSE)
        return Choice([
            (option_name(i, v), [(1.0, state._replace(designated=_designating(designated, side, i)), ())])
            for i, v in enumerate(strengths[side])
            if v > 0
        ])
    if pending >= 0:  # a Poison check: survive, or be eliminated
        keep = survival(ctx.rules, ctx.guiles[pending][designated[pending]])
        return ((keep, state._replace(pending=-1), ()), (1 - keep, _hit(ctx, state, pending, True), ()))
    win_a, win_d, tie = ctx.odds[dice[0]][dice[1]]
    if tie >= 1.0 and ctx.rules.ties == "reroll":
        raise InputError("under these rules every roll is a tie, so the fight never ends")
    hit_d, hit_a = _hit(ctx, state, 1, False), _hit(ctx, state, 0, False)
    if ctx.rules.ties == "defender":
        return ((win_a, hit_d, ROLL), (win_d + tie, hit_a, ROLL))
    return ((win_a, hit_d, ROLL), (win_d, hit_a, ROLL), (tie, state, TIE))


def _designating(designated: tuple[int, int], side: int, i: int) -> tuple[int, int]:
    return (i, designated[1]) if side == 0 else (designated[0], i)


OBJECTIVE_TEXT = "the deciding side's chance to win (the attacker's; the defender's under defender_best)"


def _attacker_won(end: FightState) -> float:
    return float(end.strengths[1][end.designated[1]] == 0)


def _defender_won(end: FightState) -> float:
    return float(end.strengths[1][end.designated[1]] != 0)


def fight_objective(ctx: _Context) -> Objective:
    """``win``: 1 when the deciding side wins (the attacker, unless the defender plays best)."""
    defender = ctx.rules.designation == "defender_best"
    won = _defender_won if defender else _attacker_won
    return Objective(won, name="objective", description=OBJECTIVE_TEXT)


def _asks_best(ctx: _Context) -> bool:
    return chooser(ctx.rules) is not None


def _outcome(question: str, ctx: _Context, end: FightState) -> dict[str, int | bool]:
    """The per-fight values fixed by the final state (the winner's Strength, survivors, ...)."""
    rules = ctx.rules
    strengths, designated, _, _, lost, _ = end
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
    """A duel or a fight on the chain engine: one chain per context, so solved states are shared.

    A fight reports the objective (the deciding side's chance to win) and, under a best
    designation, plays the solved choice of characters; a duel has nothing to choose.
    """
    fight = question == "fight"
    return ChainQuestion(
        lambda rules, setup: _start(rules, setup)[1],
        _transitions,
        functools.partial(_outcome, question),
        _METRICS[question],
        COUNTERS,
        context=lambda rules, setup: _start(rules, setup)[0],
        objective=fight_objective if fight else None,
        best_play=_asks_best if fight else None,
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


# A roll that is not a tie costs a side a point of Strength. Ties come with probability 0.51 with six
# d6 a side (less with fewer dice), 0.97 with six d2 a side; a fight of 100,000 rolls has odds below
# 0.99**100_000 = e**-1005 unless ties are likelier than that: past it, the loop is a bug.
REFERENCE_ROUND_LIMIT = 100_000


def reference_duel(rules: Rules, setup: DuelSetup | FightSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One duel or fight in plain Python, every die rolled, the rules applied literally (for tests)."""
    (str_a, guile_a, kit_a), (str_d, guile_d, kit_d) = _sides(setup)
    strength, guile, kit = [list(str_a), list(str_d)], [guile_a, guile_d], [kit_a, kit_d]
    strongest = rules.designation == "strongest_first"
    deciding = chooser(rules)
    solved = deciding is not None and isinstance(setup, FightSetup)
    policy = FIGHT.solution(rules, setup).policy if solved else {}

    def pick(side):  # the living character the policy designates (first listed on a tie)
        alive = [i for i, v in enumerate(strength[side]) if v > 0]
        if side == deciding and len(alive) > 1:  # best play: the solved choice, asked of the state
            return option_index(policy[decision_state(side)])
        if strongest and deciding is None:
            return max(alive, key=lambda i: (strength[side][i], -i))
        return min(alive, key=lambda i: (strength[side][i], i))

    def decision_state(side):  # the chain's state where ``side`` chooses, as the table sees it
        dice = [in_play[s] if rules.set_aside_die else min(sum(strength[s]), cap(s)) for s in (0, 1)]
        dice[side] = min(sum(strength[side]), cap(side))  # a side designating afresh counts its dice
        chosen = [CHOOSE, CHOOSE]
        chosen[1 - side] = designated[1 - side] if designated else pick(1 - side)
        return FightState(
            (tuple(strength[0]), tuple(strength[1])), (chosen[0], chosen[1]),
            poison[0] | poison[1] << 1, -1, lost, (dice[0], dice[1]),
        )

    def cap(side):  # at most 6 Strength dice, 5 if the Gom Jabbar die counts toward the 6
        return rules.max_dice - (1 if "gom_jabbar" in kit[side] and rules.gom_counts_toward_cap else 0)

    def roll(side):  # one die per point of summed Strength (capped), then the Gom Jabbar die; none: 0
        gom = "gom_jabbar" in kit[side]
        faces = rules.sword_faces if "sword" in kit[side] else rules.die_faces
        count = in_play[side] if rules.set_aside_die else min(sum(strength[side]), cap(side))
        dice = rng.integers(1, faces + 1, size=count).tolist()  # each die rolled
        return max(dice + ([int(rng.integers(1, rules.gom_faces + 1))] if gom else []), default=0)

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

    designated: list[int] = []
    in_play = [min(sum(strength[0]), cap(0)), min(sum(strength[1]), cap(1))]  # set_aside_die only
    poison = ["poison" in kit[0], "poison" in kit[1]]
    lost = 0  # one bit per side that lost a character to Poison
    first = pick(1 - (deciding or 0))  # the side that does not decide designates first
    designated = [pick(0), first] if deciding != 1 else [first, pick(1)]
    rounds = tied = decisive = 0
    poisoned = False
    while not (out(0) or out(1)):
        if rounds == REFERENCE_ROUND_LIMIT:
            raise RuntimeError(f"a reference fight went on past {REFERENCE_ROUND_LIMIT:,} rolls: a bug")
        high_a, high_d = roll(0), roll(1)
        rounds += 1
        if high_a == high_d and rules.ties == "reroll":
            tied += 1
            continue
        loser = 1 if high_a > high_d else 0  # a tie here goes to the defender
        decisive += 1
        victim = designated[loser]
        strength[loser][victim] -= 1
        in_play[loser] = max(in_play[loser] - 1, 0)  # "Set aside 1 die" (if any is left)
        if poison[1 - loser]:
            poison[1 - loser] = False
            if strength[loser][victim] > 0 and not guile_check(guile[loser][victim]):
                strength[loser][victim] = 0
                poisoned = True
                lost |= 1 << loser
        if strength[loser][victim] == 0 and any(strength[loser]) and rules.fight_to_last:
            designated[loser] = pick(loser)
            in_play[loser] = min(sum(strength[loser]), cap(loser))  # a new character: dice recounted
    won = out(1)
    before = [list(s) for s in strength]
    w = 0 if won else 1
    strength[w] = [min(v + rules.strength_gain, max(rules.max_strength, v)) if v else 0 for v in strength[w]]
    result = {
        "attacker_win": won,
        "objective": float(won if rules.designation != "defender_best" else not won),
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
    Metric("attacker_win", "probability", "the attacker wins the fight", complement_swaps=True),
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
        Metric("attacker_survivors", "distribution", "the attacker's characters still standing", _COUNTS),
        # the objective (fight_objective) is added as a metric by the chain question
        Metric("defender_survivors", "distribution", "the defender's characters still standing", _COUNTS),
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


def applicable_fight(setup: FightSetup) -> tuple[str, ...]:
    """Every fight metric, but ``objective`` only where the setup asks for one."""
    names = tuple(m.name for m in _METRICS["fight"])
    return names + ("objective",) if setup.objective else names
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
        affinity=DUEL.context_of,
        check=check_rolls_can_differ,
        check_alone=check_best_alone,
        cautions=same_house,
        parse_setup=parse_duel,
        reference=reference_duel,
        example={"attacker": 4, "defender": 5},
        rule_fields=DUEL_RULES,
    ),
    "fight": Question(
        name="fight",
        description=(
            "fight with one to three characters a side (summed Strength, one designated to take damage)"
        ),
        setup_type=FightSetup,
        metrics=_METRICS["fight"] + (Metric("objective", "mean", OBJECTIVE_TEXT),),
        applicable=applicable_fight,
        simulate=FIGHT.simulate,
        exact=FIGHT.exact,
        why_no_exact=FIGHT.why_no_exact,
        affinity=FIGHT.context_of,
        check=check_rolls_can_differ,
        check_alone=check_best_alone,
        cautions=same_house,
        parse_setup=parse_fight,
        reference=reference_fight,
        example={"attacker": [4, 3], "defender": [5], "defender_equipment": ["sword"]},
        rule_fields=FIGHT_RULES,
        advise=lambda rules, setup, inputs: _advice().advice_table(rules, setup, inputs),
        advise_inputs={"side": "whose choice of the character that takes the damage: attacker (default) "
                       "or defender; the other side designates its weakest first"},
    ),
}


def _advice() -> Any:
    """The advice module (it imports this one)."""
    from montecarlo.games.dune1984 import advice

    return advice
