"""Best play of a Dune (1984) fight as advice: which character takes the damage, and what each
choice is worth (``montecarlo dune1984 advise``).

The rule (``designation``, section "Fighting With More Than One Character"): each side chooses
one of its characters to take every point of damage; under ``fight_to_last`` it chooses again
each time that character falls. :func:`advise` solves the deciding side's choices exactly on the
fight's own chain (:data:`montecarlo.games.dune1984.fights.FIGHT`), for its chance to win, the
other side designating its weakest first (as under ``--policy best``), and lists every choice
where the characters left are not all worth the same, with the chance to win of each.

>>> from montecarlo.games.dune1984.rules import Rules
>>> a = advise(Rules(), FightSetup(attacker=(3, 1), defender=(2, 2)))
>>> a.decisions[0].choice, round(a.value, 4), round(a.weakest_first, 4)
(0, 0.6069, 0.299)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, NamedTuple

from montecarlo.engine.decisions import as_good, evaluate
from montecarlo.errors import InputError
from montecarlo.games.base import AdviceRow, AdviceTable
from montecarlo.games.dune1984.fights import (
    CHOOSE, FIGHT, FightSetup, FightState, _designate, _start, _transitions, check_best_alone,
    fight_objective, option_index, option_name,
)
from montecarlo.games.dune1984.rules import Rules

SIDES = ("attacker", "defender")
DESIGNATION_OF = {"attacker": "best", "defender": "defender_best"}


class Designation(NamedTuple):
    """One choice of the deciding side: where it is made, what is chosen, and what each is worth."""

    at_start: bool  # the first designation of the fight (else: after the designated one fell)
    own: tuple[int, ...]  # the deciding side's Strengths there (0: out of the fight)
    other: tuple[int, ...]  # the other side's Strengths
    dice: tuple[int, int]  # dice in play (own, other): they differ from the Strengths' count
    # only under set_aside_die
    poison_unused: tuple[bool, bool]  # (own, other) Poison card not yet used
    choice: int  # the character to designate (0-based, as listed in the setup)
    values: dict[int, float]  # character -> chance to win designating it and playing best after;
    # one character of each kind (equal Strength and Guile, no name) stands for the others


class FightAdvice(NamedTuple):
    """Best play for one side of a fight (:func:`advise`)."""

    side: str  # "attacker" or "defender": the side that chooses
    value: float  # its chance to win under best play
    weakest_first: float  # ... designating its weakest living character each time
    strongest_first: float  # ... its strongest each time (the other side unchanged)
    decisions: tuple[Designation, ...]  # the start first, then by Strength left (most first)
    alike: int  # choices left out: every character left is worth the same there


def advise(rules: Rules, setup: FightSetup, side: str = "attacker") -> FightAdvice:
    """The choices of best play for ``side``, each with the chance to win of every option.

    ``rules.designation`` is set to ``side``'s best play here (the other side designates its
    weakest first, as under best play), so it must be the default, ``weakest_first``.

    Raises:
        InputError: ``side`` is neither side (case and spaces aside), it fights with one character
            (nothing to choose), or the rules set the designation.
    """
    given, side = side, "".join(side.lower().split()) if isinstance(side, str) else side
    if side not in SIDES:
        raise InputError(f"side must be attacker or defender, got {given!r}")
    if not isinstance(setup, FightSetup):
        raise InputError("advice is for fights (FightSetup): a duel has nothing to choose")
    if rules.designation != "weakest_first":
        raise InputError(
            f"designation {rules.designation}: advice plays the deciding side's best itself, the other side "
            "designating its weakest first; leave out the rules that set who takes the damage "
            "(strongest_first, best_play, defender_best_play)"
        )
    best = dataclasses.replace(rules, designation=DESIGNATION_OF[side])
    check_best_alone(best, setup)
    solution = FIGHT.solution(best, setup)
    ctx, start = _start(best, setup)
    rule = lambda state: _transitions(ctx, state)  # noqa: E731
    objective = fight_objective(ctx)
    fixed = [evaluate(rule, start, objective, _always(strongest)) for strongest in (False, True)]
    own = SIDES.index(side)
    decisions: dict[tuple, Designation] = {}
    seen, alike = set(), 0
    for state, chosen in solution.policy.items():
        key = _seen_as(state, own)
        if key in seen:
            continue  # the same choice, seen in another state (only Poison's past differs)
        seen.add(key)
        options = {option_index(name): v for name, v in solution.option_values(state).items()}
        options = {i: v for i, v in options.items() if _alike(setup, side, i, state.strengths[own])[0] == i}
        choice = option_index(chosen)
        if _alike(setup, side, choice, state.strengths[own])[0] != choice:  # a twin of one listed first
            choice = next(i for i in options if as_good(options[i], options[choice]))
        if all(as_good(v, options[choice]) for v in options.values()):
            alike += 1
            continue
        decisions[key] = Designation(
            state == start, state.strengths[own], state.strengths[1 - own],
            (state.dice[own], state.dice[1 - own]),
            (bool(state.unused_poison >> own & 1), bool(state.unused_poison >> (1 - own) & 1)),
            choice, options,
        )
    ordered = sorted(
        decisions.values(), key=lambda d: (not d.at_start, -sum(d.own), sum(d.other), d.own, d.other, d.dice)
    )
    return FightAdvice(side, solution.value, fixed[0], fixed[1], tuple(ordered), alike)


def _always(strongest: bool):
    """A fixed policy of the deciding side: its weakest (or strongest) living character, the first
    listed on a tie, as the designation rules ``weakest_first`` and ``strongest_first`` pick."""

    def policy(state: FightState, choice) -> str:
        side = state.designated.index(CHOOSE)
        i = _designate(state.strengths[side], strongest)
        return option_name(i, state.strengths[side][i])

    return policy


def _alike(setup: FightSetup, side: str, i: int, strengths: tuple[int, ...]) -> list[int]:
    """The characters of ``side`` just like character ``i`` (itself included), in listed order:
    plain Strengths of its Strength and Guile, which one option stands for; a named character is
    one of a kind."""
    labels, guiles = getattr(setup, side), getattr(setup, f"{side}_guile")
    if isinstance(labels[i], str):
        return [i]
    return [j for j, label in enumerate(labels)
            if not isinstance(label, str) and strengths[j] == strengths[i] and guiles[j] == guiles[i]]


def _seen_as(state: FightState, own: int) -> tuple:
    """What a player sees at a choice: Strengths, dice in play and unused Poison (not which side
    lost a character to Poison before, which changes no chance to win)."""
    return state.strengths[own], state.strengths[1 - own], state.dice, state.unused_poison, state.designated


def option_label(setup: FightSetup, side: str, i: int, strengths: tuple[int, ...]) -> str:
    """'character 2 (Strength 3)', 'Chani (Strength 2)' for a named character, 'character 2 or 3
    (Strength 1)' for plain Strengths alike (one option stands for them), with the Guile where the
    side's plain characters differ in it (it decides against Poison).

    >>> option_label(FightSetup([5, 1, 1], [4]), "attacker", 1, (5, 1, 1))
    'character 2 or 3 (Strength 1)'
    >>> option_label(FightSetup([3, 3], [4], attacker_guile=[3, 5]), "attacker", 1, (3, 3))
    'character 2 (Strength 3, Guile 5)'
    """
    labels, guiles = getattr(setup, side), getattr(setup, f"{side}_guile")
    if isinstance(labels[i], str):
        return f"{labels[i]} (Strength {strengths[i]})"
    plain = [j for j, label in enumerate(labels) if not isinstance(label, str)]
    alike = [str(j + 1) for j in _alike(setup, side, i, strengths)]
    who = "character " + (" or ".join([", ".join(alike[:-1]), alike[-1]]) if len(alike) > 1 else alike[0])
    guile = f", Guile {guiles[i]}" if len({guiles[j] for j in plain}) > 1 else ""
    return f"{who} (Strength {strengths[i]}{guile})"


def situation(setup: FightSetup, side: str, d: Designation, set_aside: bool) -> str:
    """Where a choice after a fall is made: 'your 4 + 3 left against their 2', with the dice in
    play under set_aside_die and the Poison cards not yet used where Poison is in the fight."""
    labels = getattr(setup, side)
    poison = any("poison" in kit for kit in (setup.attacker_equipment, setup.defender_equipment))
    own = " + ".join(
        f"{labels[i]} {v}" if isinstance(labels[i], str) else str(v) for i, v in enumerate(d.own) if v
    )
    other = " + ".join(str(v) for v in d.other if v)
    text = f"your {own} left against their {other}"
    if set_aside:
        text += f", rolling {d.dice[0]} Strength dice to {d.dice[1]}"  # a Gom Jabbar die comes on top
    if poison:
        unused = [w for w, u in zip(("your", "their"), d.poison_unused) if u]
        text += f", {' and '.join(unused)} Poison unused" if unused else ", no Poison left"
    return text


def advice_table(rules: Rules, setup: FightSetup, inputs: Mapping[str, Any]) -> AdviceTable:
    """:func:`advise` as the fight question's advice (``inputs``: ``side``, default attacker)."""
    advice = advise(rules, setup, inputs.get("side", "attacker"))
    side = advice.side
    rows = tuple(
        AdviceRow(
            "at the start" if d.at_start else situation(setup, side, d, rules.set_aside_die),
            option_label(setup, side, i, d.own), v, i == d.choice,
        )
        for d in advice.decisions
        for i, v in sorted(d.values.items(), key=lambda iv: (iv[0] != d.choice, -iv[1], iv[0]))
    )
    notes = (f"{advice.alike} choice{'s' if advice.alike != 1 else ''} where every character left is as good "
             "left out",) if advice.alike else ()
    return AdviceTable(
        f"P({side} wins)", advice.value,
        {"weakest_first": advice.weakest_first, "strongest_first": advice.strongest_first}, rows, notes,
    )
