"""Battles of Dune: War for Arrakis: legions, one round exactly, whole battles on the chain engine.

The rules as modelled are in ``docs/rules/war-for-arrakis.md`` ("A battle"). A legion is written
as comma-separated items, ``N kind`` or a leader's name: ``"4 regular, 1 elite, bashar"``,
``"3 regular, 1 fedaykin, naib"``, ``"2 sardaukar, Feyd-Rautha"``; ``"3 regular"`` alone is a
legion.

>>> from montecarlo.games.war_for_arrakis.rules import Rules
>>> odds = round_odds(Rules(), BattleSetup("1 regular", "1 regular"))
>>> [round(odds[k] * 12, 6) for k in ("attacker_only", "defender_only", "both", "neither")]
[1.0, 1.0, 3.0, 7.0]
>>> e = exact_battle(Rules(), BattleSetup("1 regular", "1 regular"))
>>> round(e["attacker_win"], 6), round(e["both_destroyed"], 6), round(e["rounds"], 6)
(0.2, 0.6, 2.4)

How it is computed. Casualties are taken one hit at a time in a fixed order, so a legion is
fully described by the hits it has taken, and a battle by the pair of legions (plus, only where
it matters, "the surprise round is still to come" and the round number under ``max_rounds:N``).
One round's joint distribution of (hits on the attacker, hits on the defender) comes from the
two pools' exact (Hits, Shields, Specials) distributions (:mod:`.dice`), the leaders' Specials
best leader first, special elites cancelling Shields and Shields cancelling Hits. The battle is
an absorbing chain over those states (:data:`BATTLE`, a
:class:`montecarlo.engine.chain_question.ChainQuestion`): :func:`exact_battle` solves it
backwards and the kernel samples it; a round in which nothing happens and the attacker continues for free
is a self-loop. Only an enormous ``max_rounds:N`` makes the chain too large (:func:`chain_states`
bounds it before any walk): then the kernel plays the battles round by round over arrays
(:func:`simulate_direct`) and there is no exact value.

Best play (attack policy ``best``, setup field ``objective``): the attacker's decisions become
:class:`~montecarlo.engine.decisions.Choice` states of the same chain, solved exactly by the
builder for the objective (``win`` or ``trade:W``): after each round continue or retreat (an
``AFTER`` state), and, both rolls seen, which leaders turn its Specials (a :class:`Pick`, where
the choice changes what the round leaves). :func:`advise` reads the solved policy in words.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

import numpy as np

from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.decisions import Choice, Objective, as_good
from montecarlo.errors import InputError, MonteCarloError
from montecarlo.games.base import (
    AdviceRow, AdviceTable, Metric, Question, build_dataclass, parse_weighted_objective,
    weighted_objective_text,
)
from montecarlo.games.war_for_arrakis import dice
from montecarlo.games.war_for_arrakis.rules import (
    BATTLE_RULES,
    LEADERS,
    Rules,
    find_leader,
    forms,
    leader_order,
    leader_value,
    readings,
)
from montecarlo.validate import is_whole, whole

MAX_UNITS = 6  # stacking limit of an area (leaders are not units)
MAX_RANK = 3  # settlement ranks: Pyon village 1, Carthag 2, Arrakeen 3 (sietches 1..3)
MAX_CARDS = 6  # Planning cards discarded in one round (the dice cap makes more useless)
SIDES = ("attacker", "defender")

# unit kinds: name -> (index in (regular, elite, special), faction or None)
KINDS = {
    "regular": (0, None),
    "regulars": (0, None),
    "elite": (1, None),
    "elites": (1, None),
    "special": (2, None),
    "specials": (2, None),
    "special elite": (2, None),
    "special elites": (2, None),
    "sardaukar": (2, "harkonnen"),
    "fedaykin": (2, "atreides"),
}
UNIT_NAMES = "regular, elite, special elite (sardaukar or fedaykin)"


# --- legions ------------------------------------------------------------------------------------


class Legion(NamedTuple):
    """A legion: unit counts, leaders (table keys, sorted), and what its special elites are called."""

    regular: int
    elite: int
    special: int
    leaders: tuple[str, ...]
    special_name: str = "special"  # sardaukar (Harkonnen), fedaykin (Atreides), or special

    @property
    def units(self) -> int:
        return self.regular + self.elite + self.special

    @property
    def counts(self) -> tuple[int, int, int]:
        return self.regular, self.elite, self.special


_ITEM = re.compile(r"^(?:(-?\d+)\s*[x×]?\s+)?(.+)$")


def parse_legion(text: Any, what: str = "legion") -> Legion:
    """``"4 regular, 1 elite, bashar"`` -> Legion(4, 1, 0, ('bashar',)); InputError naming the fix.

    >>> parse_legion("3 regular, 1 Fedaykin, naib")
    Legion(regular=3, elite=0, special=1, leaders=('naib',), special_name='fedaykin')
    >>> parse_legion(4)  # a bare number is that many regulars
    Legion(regular=4, elite=0, special=0, leaders=(), special_name='special')
    >>> parse_legion("2 elites + Feyd-Rautha + 2 bashar")
    Legion(regular=0, elite=2, special=0, leaders=('bashar', 'bashar', 'feyd rautha'), \
special_name='sardaukar')
    """
    if isinstance(text, Legion):
        return text
    if is_whole(text):  # a bare number: that many regulars (scenario grids)
        text = f"{int(text)} regular"
    if not isinstance(text, str):
        raise InputError(f"{what} must be a legion like '4 regular, 1 elite, bashar', got {text!r}")
    counts, leaders, factions = [0, 0, 0], [], set()
    typed: dict[str, str] = {}  # a named leader's person -> the name typed for it
    items = [part.strip() for part in re.split(r"[,+]", text) if part.strip()]
    if [i.lower() for i in items] in ([], ["none"], ["empty"]):
        return Legion(0, 0, 0, ())
    for item in items:
        match = _ITEM.match(" ".join(item.split()))
        number, name = match.group(1), match.group(2)
        count = int(number) if number is not None else 1
        key = " ".join(name.lower().replace("-", " ").split())
        if count < 0:
            raise InputError(f"{what}: {item!r} has a negative count; counts are 0..{MAX_UNITS}")
        if key in KINDS:
            index, faction = KINDS[key]
            counts[index] += count
            if faction:
                factions.add(faction)
            continue
        found = find_leader(name)
        if found is None:
            known = ", ".join(v.name for v in LEADERS.values())
            raise InputError(
                f"{what}: unknown unit kind or leader {name!r}; units: {UNIT_NAMES}; leaders: {known}"
            )
        if count > 1 and not LEADERS[found].generic:
            raise InputError(f"{what}: there is only one {LEADERS[found].name}; write the name once")
        _one_person(typed, name, found, what)
        leaders += [found] * count
        factions.add(LEADERS[found].faction)
    units = sum(counts)
    if units > MAX_UNITS:
        raise InputError(
            f"{what}: {units} units, but an area holds at most {MAX_UNITS}; "
            f"remove {units - MAX_UNITS} unit(s) (leaders do not count)"
        )
    if leaders and not units:
        raise InputError(
            f"{what}: leaders cannot stand alone; add at least one unit, e.g. '1 regular, {items[0]}'"
        )
    if len(factions) > 1:
        raise InputError(
            f"{what}: mixes Atreides and Harkonnen figures (fedaykin/naib/Atreides leaders vs "
            "sardaukar/bashar/Harkonnen leaders); a legion belongs to one faction"
        )
    name = {"harkonnen": "sardaukar", "atreides": "fedaykin"}.get(next(iter(factions), ""), "special")
    return Legion(counts[0], counts[1], counts[2], tuple(sorted(leaders)), name)


def _one_person(typed: dict[str, str], name: str, key: str, what: str) -> None:
    """Refuse a named leader given twice, by one name or by both forms of one person (Paul Atreides
    and Paul-Muad'Dib, Lady Jessica and Reverend Mother Jessica: one figure, one card at a time),
    and two leaders of whom one leaves the game as the other enters it (Beast Rabban as
    Feyd-Rautha enters, Thufir Hawat as Gaius Helen Mohiam does); ``typed`` (person -> the name
    typed) fills as the legion is read.

    >>> typed = {}
    >>> _one_person(typed, "jessica", "lady jessica", "attacker")
    >>> _one_person(typed, "Reverend Mother", "reverend mother jessica", "attacker")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: attacker: 'jessica' and 'Reverend Mother' are one person: \
Lady Jessica becomes Reverend Mother Jessica during the game, and only one of the two is in play; \
give one of them
    """
    found = LEADERS[key]
    if found.generic:
        return
    for person, earlier in typed.items():  # one that the other's entering removes from the game
        gone, staying = (person, found.person) if found.replaces == person else (found.person, person)
        if LEADERS[staying].replaces == gone:
            raise InputError(
                f"{what}: {earlier!r} and {name!r} are never in play together: {LEADERS[gone].name} "
                f"leaves the game as {LEADERS[staying].name} enters it; give one of them"
            )
    if found.person not in typed:
        typed[found.person] = name
        return
    first = typed[found.person]
    if find_leader(first) == key:
        raise InputError(f"{what}: a named leader is listed twice ({first!r}, {name!r}); write the name once")
    raise InputError(
        f"{what}: {first!r} and {name!r} are one person: {' becomes '.join(forms(key))} during the game, "
        "and only one of the two is in play; give one of them"
    )


def legion_text(legion: Legion) -> str:
    """The canonical text of a legion (what setups store and reports show).

    >>> legion_text(parse_legion("naib, 3 Regulars, 1 special"))
    '3 regular, 1 fedaykin, Naib'
    """
    parts = [f"{n} {kind}" for n, kind in zip(legion.counts, ("regular", "elite", legion.special_name)) if n]
    parts += [LEADERS[k].name for k in legion.leaders]
    return ", ".join(parts) if parts else "none"


@dataclass(frozen=True)
class BattleSetup:
    """One battle.

    Attributes:
        attacker, defender: legions as text (``"4 regular, 1 elite, bashar"``), stored in
            canonical form. The defender may be ``"none"`` when it holds a settlement (an
            undefended settlement falls without a roll). Each text is parsed once, here; the
            parsed legions are :attr:`legions`.
        settlement: the rank (1..3) of the defender's settlement, 0 for none. It adds that many
            dice to the defender every round and makes each continuation cost the attacker 1 Hit.
        attacker_cards, defender_cards: Planning cards each side discards every round (+1 die
            each, within the 6-dice cap).
        surprise: a surprise attack (Leadership action; the attacker needs a leader).
        harkonnen: which side is Harkonnen, ``"attacker"`` or ``"defender"``, for the CHOAM and
            Landsraad Bans; ``""`` (default): told by the figures (sardaukar, bashar, a Harkonnen
            leader; fedaykin, naib, an Atreides leader on the other side).
        objective: what the deciding side's play is judged by (the attacker's, or the
            defender's under its best play), reported as the metric ``objective``: ``win``
            (P(it wins)) or ``trade:W`` (W x 1{it wins} + opposing units destroyed - own units
            destroyed); ``""``: none asked (best play then maximises ``win``). Stored canonical
            (``trade:2``).
    """

    attacker: str
    defender: str
    settlement: int = 0
    attacker_cards: int = 0
    defender_cards: int = 0
    surprise: bool = False
    harkonnen: str = ""
    objective: str = ""

    def __post_init__(self) -> None:
        a, d = parse_legion(self.attacker, "attacker"), parse_legion(self.defender, "defender")
        if not a.units:
            raise InputError("attacker: a battle needs at least one attacking unit, e.g. '1 regular'")
        if (
            isinstance(self.settlement, bool)
            or not is_whole(self.settlement)
            or not 0 <= self.settlement <= MAX_RANK
        ):
            raise InputError(
                f"settlement must be a rank 0..{MAX_RANK} (0 = no settlement), got {self.settlement!r}"
            )
        if not d.units and not self.settlement:
            raise InputError(
                "defender: no units and no settlement, so there is nothing to attack; "
                "give defending units or a settlement rank"
            )
        _two_factions(a, d)
        for side in SIDES:
            whole(f"{side}_cards", getattr(self, f"{side}_cards"), 0, MAX_CARDS)
        if not isinstance(self.surprise, bool):
            raise InputError(f"surprise must be true or false, got {self.surprise!r}")
        if self.surprise and not a.leaders:
            raise InputError(
                "surprise: a surprise attack is a Leadership action and needs a leader in the "
                "attacking legion; add one, e.g. 'bashar' or 'naib'"
            )
        object.__setattr__(self, "attacker", legion_text(a))
        object.__setattr__(self, "defender", legion_text(d))
        object.__setattr__(self, "settlement", int(self.settlement))
        object.__setattr__(self, "harkonnen", _harkonnen_field(self.harkonnen, a, d))
        object.__setattr__(self, "_legions", (a, d))  # not a field: the texts above say the same
        object.__setattr__(self, "objective", objective_text(parse_objective(self.objective)))

    @property
    def legions(self) -> tuple[Legion, Legion]:
        """Both legions, as parsed from the texts (once, when the setup was made)."""
        return self._legions  # type: ignore[attr-defined]

    @property
    def harkonnen_side(self) -> int | None:
        """0 (attacker) or 1 (defender) when the Harkonnen side is known, else None."""
        if self.harkonnen:
            return SIDES.index(self.harkonnen)
        found = [faction(legion) for legion in self.legions]
        if "harkonnen" in found or "atreides" in found:
            return 0 if found[0] == "harkonnen" or found[1] == "atreides" else 1
        return None


def faction(legion: Legion) -> str | None:
    """"harkonnen" or "atreides" when the legion's figures tell (special elites, leaders), else None."""
    return {"sardaukar": "harkonnen", "fedaykin": "atreides"}.get(legion.special_name)


def _two_factions(a: Legion, d: Legion) -> None:
    """Refuse two legions of one faction: a battle is the Atreides against the Harkonnen (a
    two-player game); a legion of generic units alone (regular, elite, special) can be either.

    >>> _two_factions(parse_legion("2 regular, bashar"), parse_legion("2 regular, Feyd-Rautha"))
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: defender: Harkonnen (Feyd-Rautha), like the attacker (Bashar); \
a battle is the Atreides against the Harkonnen: give one side Atreides figures (fedaykin, naib, \
an Atreides leader) or only generic units (regular, elite, special)
    """
    side = faction(a)
    if side is None or faction(d) != side:
        return
    tellers = lambda legion: ", ".join(  # noqa: E731  (the figures that tell the faction)
        [LEADERS[k].name for k in dict.fromkeys(legion.leaders)]
        or [f"{legion.special} {legion.special_name}"]
    )
    other = "Atreides figures (fedaykin, naib, an Atreides leader)" if side == "harkonnen" else (
        "Harkonnen figures (sardaukar, bashar, a Harkonnen leader)"
    )
    raise InputError(
        f"defender: {side.title()} ({tellers(d)}), like the attacker ({tellers(a)}); a battle is the "
        f"Atreides against the Harkonnen: give one side {other} or only generic units (regular, "
        "elite, special)"
    )


def _harkonnen_field(value: Any, a: Legion, d: Legion) -> str:
    """The ``harkonnen`` field normalised ("attacker", "defender" or ""); InputError on a contradiction."""
    key = str(value or "").strip().lower()
    if key not in ("", *SIDES):
        raise InputError(f"harkonnen must be attacker or defender (the Harkonnen side), got {value!r}")
    if key:
        side, other = (a, d) if key == "attacker" else (d, a)
        if faction(side) == "atreides" or faction(other) == "harkonnen":
            raise InputError(
                f"harkonnen: the {key} is named Harkonnen but its figures say otherwise; "
                "drop harkonnen or fix the legions"
            )
    return key


def _harkonnen_for(setup: BattleSetup, ban: str) -> int:
    """The Harkonnen side, which a Ban in force needs; InputError when the setup does not tell."""
    side = setup.harkonnen_side
    if side is None:
        raise InputError(
            f"the {ban} acts on the Harkonnen legion, and neither legion says which it is: set "
            "harkonnen = 'attacker' or 'defender' (--harkonnen), or give a Harkonnen figure "
            "(sardaukar, bashar, a Harkonnen leader)"
        )
    return side


def fighting_legions(rules: Rules, setup: BattleSetup) -> tuple[Legion, Legion]:
    """The legions that fight: under the CHOAM Ban a Harkonnen legion above 5 units loses the excess.

    "Any exceeding units must be immediately removed": the model removes the cheapest first
    (regulars, then plain elites, then special elites); the units removed count as losses.
    """
    legions = setup.legions
    top = rules.harkonnen_stacking
    if not rules.choam_ban or all(legion.units <= top for legion in legions):
        return legions
    side = _harkonnen_for(setup, "CHOAM Ban")
    legion = legions[side]
    excess, counts = max(0, legion.units - top), list(legion.counts)
    for kind in range(3):
        removed = min(excess, counts[kind])
        counts[kind] -= removed
        excess -= removed
    trimmed = legion._replace(regular=counts[0], elite=counts[1], special=counts[2])
    return (trimmed, legions[1]) if side == 0 else (legions[0], trimmed)


def fighting_cards(rules: Rules, setup: BattleSetup) -> tuple[int, int]:
    """Planning cards each side discards a round: none for the Harkonnen under the Landsraad Ban."""
    cards = (setup.attacker_cards, setup.defender_cards)
    if not rules.landsraad_ban or not any(cards):
        return cards
    side = _harkonnen_for(setup, "Landsraad Ban")
    return (0, cards[1]) if side == 0 else (cards[0], 0)


def ban_notes(rules: Rules, setup: BattleSetup) -> list[str]:
    """What the Bans in force do to this battle, in words (for outputs)."""
    notes = []
    fought, given = fighting_legions(rules, setup), setup.legions
    for side, legion, before in zip(SIDES, fought, given):
        if legion.units < before.units:
            notes.append(
                f"CHOAM Ban: the Harkonnen {side} fights with {legion.units} units "
                f"({before.units - legion.units} removed at once, regulars first; counted as lost)"
            )
    cards = fighting_cards(rules, setup)
    for side, now, asked in zip(SIDES, cards, (setup.attacker_cards, setup.defender_cards)):
        if now < asked:
            notes.append(f"Landsraad Ban: the Harkonnen {side} discards no Planning cards for dice")
    return notes


def parse_objective(text: Any) -> tuple[str, float]:
    """``"win"`` -> ("win", 0.0); ``"trade:2"`` -> ("trade", 2.0); ``""`` -> ("", 0.0) (none asked).

    >>> parse_objective("Trade: 1.5"), parse_objective(None)
    (('trade', 1.5), ('', 0.0))
    >>> parse_objective("trade:-1")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: objective must be win or trade:W (W >= 0, e.g. trade:2), got 'trade:-1'
    """
    return parse_weighted_objective(text, "trade", "trade:2")


def objective_text(objective: tuple[str, float]) -> str:
    """The canonical text of a parsed objective: ``""``, ``"win"`` or ``"trade:2"``."""
    return weighted_objective_text(objective)


def parse_battle(values: Mapping[str, Any]) -> BattleSetup:
    """Plain values (TOML, CLI) -> BattleSetup; attacker and defender are required."""
    takes = "a legion like '4 regular, 1 elite, bashar'"
    return build_dataclass(BattleSetup, values, "battle setup", dict.fromkeys(SIDES, takes))


# --- casualties ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def take_hits(counts: tuple[int, int, int], hits: int) -> tuple[int, int, int]:
    """(regular, elite, special) after ``hits`` hits, one at a time in the rule's order.

    A hit removes a regular; with none left it turns an elite into a regular (plain elites before
    special elites, which are worth more); leaders fall only with the last unit.

    >>> take_hits((1, 1, 1), 2), take_hits((1, 1, 1), 3), take_hits((0, 0, 2), 3)
    ((1, 0, 1), (0, 0, 1), (1, 0, 0))
    """
    r, e, s = counts
    for _ in range(hits):
        if r:
            r -= 1
        elif e:
            e, r = e - 1, r + 1
        elif s:
            s, r = s - 1, r + 1
        else:
            break
    return r, e, s


def capacity(counts: tuple[int, int, int]) -> int:
    """Hits that destroy the legion: one per regular, two per elite."""
    return counts[0] + 2 * (counts[1] + counts[2])


# --- one round ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def side_table(
    n: int, extra_specials: int, faces: tuple[int, ...], leaders: tuple[tuple[int, int], ...]
) -> np.ndarray:
    """``P[H, S]``: one side's Hits and Shields after its leaders used the Specials.

    ``leaders`` are (hits, shields) best first; each uses one Special, the rest are lost.
    """
    dist = dice.pool(n, faces)
    extra_h = np.cumsum([0] + [h for h, _ in leaders])
    extra_s = np.cumsum([0] + [s for _, s in leaders])
    top_h, top_s = n + int(extra_h[-1]), n + int(extra_s[-1])
    table = np.zeros((top_h + 1, top_s + 1))
    for (h, s, x), p in dist.items():
        used = min(x + extra_specials, len(leaders))
        table[h + extra_h[used], s + extra_s[used]] += p
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=None)
def round_table(
    side_a: tuple, side_d: tuple, cancel_a: int, cancel_d: int, cap_a: int, cap_d: int
) -> np.ndarray:
    """``P[k_a, k_d]``: hits the attacker takes (k_a) and the defender takes (k_d) in one round.

    ``side_x`` are the :func:`side_table` arguments of each side; ``cancel_a`` is the attacker's
    special elites (each cancels one defender Shield), ``cancel_d`` the defender's; hits are
    clipped at ``cap_a``/``cap_d`` (more cannot matter).
    """
    ta, td = side_table(*side_a), side_table(*side_d)
    ha, sa = np.indices(ta.shape)
    hd, sd = np.indices(td.shape)
    sa_left = np.maximum(sa - cancel_d, 0).ravel()  # attacker's Shields left after the defender's elites
    sd_left = np.maximum(sd - cancel_a, 0).ravel()
    pa, pd = ta.ravel(), td.ravel()
    on_d = np.clip(ha.ravel()[:, None] - sd_left[None, :], 0, cap_d)  # [attacker cell, defender cell]
    on_a = np.clip(hd.ravel()[None, :] - sa_left[:, None], 0, cap_a)
    weight = pa[:, None] * pd[None, :]
    flat = np.bincount(
        (on_a * (cap_d + 1) + on_d).ravel(), weights=weight.ravel(), minlength=(cap_a + 1) * (cap_d + 1)
    )
    table = flat.reshape(cap_a + 1, cap_d + 1)
    table.setflags(write=False)
    return table


class _Context(NamedTuple):
    """What stays fixed during one battle (the chain is built once per context)."""

    rules: Rules
    leaders: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]  # per side, best first
    cards: tuple[int, int]
    rank: int
    # (kind, W, attacking units, defending units) at the start: ("win", 0, 0, 0) unless trade:W
    objective: tuple[str, float, int, int] = ("win", 0.0, 0, 0)


def _context(rules: Rules, setup: BattleSetup) -> _Context:
    a, d = setup.legions
    return _Context(
        rules,
        (leader_order(rules, a.leaders), leader_order(rules, d.leaders)),
        fighting_cards(rules, setup),
        setup.settlement,
        _objective_key(setup, a, d),
    )


def _objective_key(setup: BattleSetup, a: Legion, d: Legion) -> tuple[str, float, int, int]:
    kind, weight = parse_objective(setup.objective)
    return ("trade", weight, a.units, d.units) if kind == "trade" else ("win", 0.0, 0, 0)


def _sides(
    ctx: _Context, a: tuple[int, int, int], d: tuple[int, int, int], surprise: bool
) -> tuple[tuple, tuple]:
    """The :func:`side_table` arguments of both sides for one round."""
    rules = ctx.rules
    die = surprise and rules.surprise == "die"
    n_a = min(rules.max_dice, sum(a) + ctx.cards[0] + die)
    n_d = min(rules.max_dice, sum(d) + ctx.cards[1] + ctx.rank)
    special = int(surprise and rules.surprise == "special")
    return (n_a, special, rules.die, ctx.leaders[0]), (n_d, 0, rules.die, ctx.leaders[1])


def round_distribution(rules: Rules, setup: BattleSetup) -> dict[tuple[int, int], float]:
    """``{(hits on the attacker, hits on the defender): p}`` of the battle's first round."""
    ctx = _context(rules, setup)
    a, d = (legion.counts for legion in fighting_legions(rules, setup))
    side_a, side_d = _sides(ctx, a, d, setup.surprise)
    table = round_table(side_a, side_d, a[2], d[2], capacity(a), capacity(d))
    return {(int(i), int(j)): float(table[i, j]) for i, j in zip(*np.nonzero(table))}


def round_odds(rules: Rules, setup: BattleSetup) -> dict[str, float]:
    """The first round alone: who is left (attacker only, defender only, both, neither) and the
    expected hits each side takes (net of Shields, clipped at what destroys the legion)."""
    a, d = (legion.counts for legion in fighting_legions(rules, setup))
    ca, cd = capacity(a), capacity(d)
    out = dict.fromkeys(
        ("attacker_only", "defender_only", "both", "neither", "hits_on_attacker", "hits_on_defender"), 0.0
    )
    if cd == 0:  # an undefended settlement falls without a roll, as in the whole battle
        out["attacker_only"] = 1.0
        return out
    for (ka, kd), p in round_distribution(rules, setup).items():
        dead_a, dead_d = ka >= ca, kd >= cd
        key = (
            "both"
            if dead_a and dead_d
            else "defender_only"
            if dead_a
            else "attacker_only"
            if dead_d
            else "neither"
        )
        out[key] += p
        out["hits_on_attacker"] += p * ka
        out["hits_on_defender"] += p * kd
    return out


# --- the chain ----------------------------------------------------------------------------------

GOING, STOPPED, RETREATED, DESTROYED = 0, 1, 2, 3  # ``end`` of a state
AFTER = 4  # best play only: a round is over, the attacker decides to continue or retreat
DEFENDS = 5  # the defender's best play only: the attacker went on, the defender retreats or fights


class BattleState(NamedTuple):
    """Where a battle stands before a round (or how it ended).

    Attributes:
        attacker, defender: (regular, elite, special) units left.
        surprise: the surprise attack's first round is still to come.
        round: rounds fought so far, kept only under ``max_rounds:N`` (else 0, so that a round
            where nothing happens is a self-loop).
        end: GOING, or how the battle ended: STOPPED (the attacker stopped), RETREATED (the
            defender retreated), DESTROYED (a side, or both, has no units); under best play
            also AFTER (a round is over and the attacker decides; units before any payment).
    """

    attacker: tuple[int, int, int]
    defender: tuple[int, int, int]
    surprise: bool
    round: int
    end: int


ROUND = ("round",)


def _continuation_cost(ctx: _Context) -> int:
    return 1 if ctx.rank > 0 or ctx.rules.continue_always_costs else 0


def _after_round(ctx: _Context, state: BattleState, a: tuple, d: tuple) -> BattleState:
    """The state after a round's casualties: the attacker's and the defender's decisions."""
    if not sum(a) or not sum(d):
        return BattleState(a, d, False, 0, DESTROYED)
    rules, cost = ctx.rules, _continuation_cost(ctx)
    paid = take_hits(a, cost) if cost else a
    limit = rules.max_rounds
    go = sum(paid) > 0  # never pay the last unit to continue
    if go and rules.attack == "while_ahead":
        go = sum(a) >= sum(d)
    elif go and limit is not None:
        go = state.round + 1 < limit
    if not go:
        return BattleState(a, d, False, 0, STOPPED)
    if rules.retreat == "when_outnumbered" and sum(paid) > sum(d):
        return BattleState(paid, d, False, 0, RETREATED)
    fought = state.round + 1 if limit is not None else 0
    return BattleState(paid, d, False, fought, DEFENDS if rules.retreat == "best" else GOING)


def _transitions(ctx: _Context, state: Any) -> Any:
    if ctx.rules.attack == "best":
        return _best_transitions(ctx, state)
    if state.end == DEFENDS:  # the defender's best play: fight on (listed first: a tie fights) or retreat
        return Choice({
            "fight": _transitions(ctx, state._replace(end=GOING)),
            "retreat": [(1.0, BattleState(state.attacker, state.defender, False, 0, RETREATED), ())],
        })
    if state.end != GOING:
        return []
    a, d = state.attacker, state.defender
    side_a, side_d = _sides(ctx, a, d, state.surprise)
    ca, cd = capacity(a), capacity(d)
    table = round_table(side_a, side_d, a[2], d[2], ca, cd)
    steps: list[tuple[float, BattleState, tuple[str, ...]]] = []
    for ka, kd in zip(*np.nonzero(table)):
        nxt = _after_round(ctx, state, take_hits(a, int(ka)), take_hits(d, int(kd)))
        steps.append((float(table[ka, kd]), nxt, ROUND))
    return steps


# --- best play: the attacker's decisions ---------------------------------------------------------


class Pick(NamedTuple):
    """Best play only: both rolls are seen, and the attacker picks which leaders turn its Specials.

    The situation is what each choice would leave (the same choices from different rounds are
    one decision).

    Attributes:
        options: ``(name, next state)`` per distinct way to use the Specials, today's fixed
            choice (the best leaders first) listed first; a name is the leaders' values,
            ``"2H+1S"`` or ``"2H & 2S"`` (:func:`leader_options`).
    """

    options: tuple[tuple[str, BattleState], ...]


def value_text(hits: int, shields: int) -> str:
    """What a leader's Special becomes, as on its card: ``"2H+1S"``, ``"3S"``, ``"nothing"``.

    >>> value_text(2, 1), value_text(0, 3), value_text(1, 0), value_text(0, 0)
    ('2H+1S', '3S', '1H', 'nothing')
    """
    parts = (f"{hits}H" if hits else "", f"{shields}S" if shields else "")
    return "+".join(p for p in parts if p) or "nothing"


NO_LEADER = "none"  # the option of using no leader at all (offered only where it may be best)


def every_option(ctx: _Context) -> bool:
    """Whether best play must be offered every set of leaders, not only the undominated ones.

    A hit more on the defender or a hit fewer on the attacker is never worse, except where it
    makes the defender retreat early (policy ``when_outnumbered``) and the attacker counts
    destroyed units (``trade:W``): then killing one defender fewer, or using no leader at all,
    can be worth more (2 elite and Beast Rabban against 2 regular, trade:1: 2.3574 against
    2.3178 with the best leaders always used).
    """
    return ctx.rules.retreat == "when_outnumbered" and ctx.objective[0] == "trade"


@functools.lru_cache(maxsize=4096)
def leader_options(
    leaders: tuple[tuple[int, int], ...], used: int, every: bool = False
) -> tuple[tuple[str, int, int], ...]:
    """The ways at most ``used`` of the leaders (best first) can each turn one Special: (name, Hits,
    Shields).

    Each leader may turn one Special. Every set of ``used`` leaders, the best first (today's fixed
    choice, listed first), without repeats of the same total and without a total that another
    beats or equals in both Hits and Shields (more Hits remove more defenders and more Shields save
    attackers, so such an option is never better where :func:`every_option` is false). Fewer
    leaders than Specials is never better there either, so it is not offered. With ``every``, every
    set of ``used`` leaders or fewer (down to none, :data:`NO_LEADER`), without repeats of a total.

    >>> leader_options(((2, 1), (2, 0)), 1)  # Feyd-Rautha or Rabban: Feyd-Rautha is as good in all
    (('2H+1S', 2, 1),)
    >>> leader_options(((2, 0), (0, 2), (1, 0)), 2)  # 2S & 1H is no better than 2H & 2S
    (('2H & 2S', 2, 2), ('2H & 1H', 3, 0))
    >>> leader_options(((2, 0), (0, 2), (1, 0)), 1)
    (('2H', 2, 0), ('2S', 0, 2))
    >>> leader_options(((2, 1), (2, 0)), 1, every=True)
    (('2H+1S', 2, 1), ('2H', 2, 0), ('none', 0, 0))
    """
    found: dict[tuple[int, int], str] = {}
    for size in range(used, -1, -1) if every else (used,):
        for chosen in itertools.combinations(leaders, size):
            total = (sum(h for h, _ in chosen), sum(s for _, s in chosen))
            found.setdefault(total, " & ".join(value_text(h, s) for h, s in chosen) or NO_LEADER)
    if every:
        return tuple((name, h, s) for (h, s), name in found.items())
    kept = [
        (name, h, s)
        for (h, s), name in found.items()
        if not any(h2 >= h and s2 >= s and (h2, s2) != (h, s) for h2, s2 in found)
    ]
    return tuple(kept)


@functools.lru_cache(maxsize=512)
def has_choice(leaders: tuple[tuple[int, int], ...], every: bool = False) -> bool:
    """Whether the attacker ever chooses between its leaders (some number of Specials leaves two
    options of :func:`leader_options`)."""
    return any(len(leader_options(leaders, used, every)) > 1 for used in range(1, len(leaders) + 1))


@functools.lru_cache(maxsize=None)
def pick_round(
    side_a: tuple, side_d: tuple, cancel_a: int, cancel_d: int, cap_a: int, cap_d: int, every: bool = False
) -> tuple[np.ndarray, tuple[tuple[float, tuple[tuple[str, int, int], ...]], ...]]:
    """One round when the attacker chooses which leaders turn its Specials, both rolls seen.

    Returns ``P[k_a, k_d]`` (hits on the attacker, on the defender) of the rolls that leave no
    real choice, and the rest grouped by situation: ``(p, ((option, k_a, k_d), ...))``, options in
    :func:`leader_options` order. An option is dropped where another gives the same hits, or
    (unless ``every``, :func:`every_option`) no more hits on the attacker and no fewer on the
    defender (never worse there: fewer losses, more defenders removed); a roll with one option
    left leaves no choice. The defender's Specials are its fixed policy's (:func:`side_table`).
    """
    n_a, extra, faces, leaders = side_a
    td = side_table(*side_d)
    hd, sd = np.nonzero(td)
    pd = td[hd, sd]
    sd_left = np.maximum(sd - cancel_a, 0)
    plain = np.zeros((cap_a + 1, cap_d + 1))
    # a situation: one digit per option, (hits on the attacker, on the defender) + 1, 0 = dropped
    picks: dict[tuple[tuple[str, int, int], ...], float] = {}
    groups: dict[int, list[tuple[int, int, float]]] = {}  # leaders used -> the attacker's (H, S, p)
    for (h, s, x), p in dice.pool(n_a, faces).items():
        groups.setdefault(min(x + extra, len(leaders)), []).append((h, s, p))
    for used, rolls in groups.items():
        options = leader_options(leaders, used, every)
        h, s, p = (np.array(v)[:, None, None] for v in zip(*rolls))  # [roll, option, defender cell]
        hits = np.array([o[1] for o in options])[None, :, None]
        shields = np.array([o[2] for o in options])[None, :, None]
        on_d = np.clip(h + hits - sd_left[None, None, :], 0, cap_d)
        on_a = np.clip(hd[None, None, :] - np.maximum(s + shields - cancel_d, 0), 0, cap_a)
        on_a, on_d = np.broadcast_arrays(on_a, on_d)
        weight = (p[:, 0, :] * pd[None, :]).ravel()  # [roll x cell]
        m = len(options)
        on_a = on_a.transpose(1, 0, 2).reshape(m, -1)  # [option, roll x cell]
        on_d = on_d.transpose(1, 0, 2).reshape(m, -1)
        if m == 1:  # no choice: every leader used, or none
            np.add.at(plain, (on_a[0], on_d[0]), weight)
            continue
        kept = np.ones(on_a.shape, dtype=bool)
        for i in range(m):  # drop what option i beats or equals (equals: when i is listed first)
            for j in range(m):
                if i != j:
                    equal = (on_a[i] == on_a[j]) & (on_d[i] == on_d[j])
                    drop = equal & (i < j)
                    if not every:
                        drop |= ~equal & (on_a[i] <= on_a[j]) & (on_d[i] >= on_d[j])
                    kept[j] &= ~drop
        alone = kept.sum(axis=0) == 1
        first = kept.argmax(axis=0)[alone]
        cells = np.flatnonzero(alone)
        np.add.at(plain, (on_a[first, cells], on_d[first, cells]), weight[alone])
        if alone.all():
            continue
        rest = ~alone
        digits = np.where(kept[:, rest], on_a[:, rest] * (cap_d + 1) + on_d[:, rest] + 1, 0)
        # one row of digits a situation, the last option's first: rows, not one packed integer
        # a situation (base ** m overflows 64 bits from 16 options: four distinct leaders)
        unique, inverse = np.unique(digits[::-1].T, axis=0, return_inverse=True)
        weights = np.bincount(inverse.ravel(), weights=weight[rest])
        for row, w in zip(unique.tolist(), weights.tolist()):
            key = []
            for (name, _, _), digit in zip(options, reversed(row)):
                if digit:
                    ka, kd = divmod(digit - 1, cap_d + 1)
                    key.append((name, ka, kd))
            situation = tuple(key)
            picks[situation] = picks.get(situation, 0.0) + w
    plain.setflags(write=False)
    return plain, tuple((p, key) for key, p in picks.items())


def _undominated(
    options: tuple, on_a: list[int], on_d: list[int], every: bool
) -> tuple[tuple[str, int, int], ...]:
    """The options whose (hits on the attacker, hits on the defender) no other option beats or
    equals in both (the first listed of equal ones kept; with ``every`` only equal ones are
    dropped), in their order (as :func:`pick_round`)."""
    results = list(zip(on_a, on_d))
    kept = []
    for j, (ka, kd) in enumerate(results):
        if any(
            ((a2, d2) == (ka, kd) and i < j)
            or (not every and a2 <= ka and d2 >= kd and (a2, d2) != (ka, kd))
            for i, (a2, d2) in enumerate(results)
            if i != j
        ):
            continue
        kept.append((options[j][0], ka, kd))
    return tuple(kept)


def _after_round_best(ctx: _Context, a: tuple, d: tuple) -> BattleState:
    """After a round under best play: destroyed, stopped (continuing would cost the last unit),
    or the attacker's decision (AFTER)."""
    if not sum(a) or not sum(d):
        return BattleState(a, d, False, 0, DESTROYED)
    cost = _continuation_cost(ctx)
    if cost and not sum(take_hits(a, cost)):
        return BattleState(a, d, False, 0, STOPPED)
    return BattleState(a, d, False, 0, AFTER)


def _round_best(ctx: _Context, a: tuple, d: tuple, surprise: bool) -> list[tuple[float, Any, tuple]]:
    """One round's steps under best play: to the next decision, an end, or a :class:`Pick`."""
    side_a, side_d = _sides(ctx, a, d, surprise)
    ca, cd = capacity(a), capacity(d)
    picks: tuple = ()
    every = every_option(ctx)
    if has_choice(ctx.leaders[0], every):
        table, picks = pick_round(side_a, side_d, a[2], d[2], ca, cd, every)
    else:
        table = round_table(side_a, side_d, a[2], d[2], ca, cd)
    steps: list[tuple[float, Any, tuple[str, ...]]] = [
        (float(table[ka, kd]), _after_round_best(ctx, take_hits(a, int(ka)), take_hits(d, int(kd))), ROUND)
        for ka, kd in zip(*np.nonzero(table))
    ]
    for p, situation in picks:
        options: dict[BattleState, str] = {}
        for name, ka, kd in situation:
            options.setdefault(_after_round_best(ctx, take_hits(a, ka), take_hits(d, kd)), name)
        if len(options) == 1:
            steps.append((p, next(iter(options)), ROUND))
        else:
            steps.append((p, Pick(tuple((name, nxt) for nxt, name in options.items())), ROUND))
    return steps


def _best_transitions(ctx: _Context, state: Any) -> Any:
    """The chain of best play: the first round is fought; after each round the attacker retreats
    (listed first: a tie keeps the units) or continues (pays, and the defender's policy may
    retreat); a :class:`Pick` offers its leader options."""
    if isinstance(state, Pick):
        return Choice([(name, [(1.0, nxt, ())]) for name, nxt in state.options])
    if state.end == GOING:
        return _round_best(ctx, state.attacker, state.defender, state.surprise)
    if state.end != AFTER:
        return []
    a, d = state.attacker, state.defender
    cost = _continuation_cost(ctx)
    paid = take_hits(a, cost) if cost else a
    if ctx.rules.retreat == "when_outnumbered" and sum(paid) > sum(d):
        going: list = [(1.0, BattleState(paid, d, False, 0, RETREATED), ())]
    else:
        going = _round_best(ctx, paid, d, False)
    return Choice({"retreat": [(1.0, BattleState(a, d, False, 0, STOPPED), ())], "continue": going})


def battle_objective(ctx: _Context) -> Objective:
    """The objective of a battle's context, for the side that decides (the attacker, unless the
    defender plays best): ``win`` = 1{it wins}; ``trade:W`` = W x that + opposing units destroyed
    - own units destroyed (counted from the units at the start)."""
    kind, weight, a0, d0 = ctx.objective
    defender = ctx.rules.retreat == "best"
    if kind == "trade":

        def trade(end: BattleState) -> float:
            outcome = _outcome(end)
            lost_a, lost_d = a0 - outcome["attacker_survivors"], d0 - outcome["defender_survivors"]
            if defender:
                return weight * outcome["defender_win"] + lost_a - lost_d
            return weight * outcome["attacker_win"] + lost_d - lost_a

        return Objective(trade, name="objective", description=OBJECTIVE_TEXT)
    return Objective(_defender_won if defender else _won, name="objective", description=OBJECTIVE_TEXT)


def _won(end: BattleState) -> float:
    return float(_outcome(end)["attacker_win"])


def _defender_won(end: BattleState) -> float:
    return float(_outcome(end)["defender_win"])


def _asks_best(ctx: _Context) -> bool:
    return ctx.rules.attack == "best" or ctx.rules.retreat == "best"


def _outcome(end: BattleState) -> dict[str, Any]:
    ua, ud = sum(end.attacker), sum(end.defender)
    return {
        "attacker_win": ua > 0 and (ud == 0 or end.end == RETREATED),
        "defender_win": ud > 0 and (ua == 0 or end.end == STOPPED),
        "both_destroyed": ua == 0 and ud == 0,
        "defender_retreated": end.end == RETREATED,
        "attacker_survivors": ua,
        "defender_survivors": ud,
    }


def _start(rules: Rules, setup: BattleSetup) -> BattleState:
    a, d = (legion.counts for legion in fighting_legions(rules, setup))
    return BattleState(a, d, setup.surprise, 0, GOING if sum(d) else DESTROYED)


def chain_states(rules: Rules, setup: BattleSetup) -> int:
    """An upper bound on the chain's states, known before walking it.

    A legion is fixed by the hits it has taken (at most ``capacity + 1`` states a side); the
    surprise round doubles the live states, ``max_rounds:N`` multiplies them by N, and each pair
    can also end in three ways.
    """
    a, d = (legion.counts for legion in setup.legions)
    return (capacity(a) + 1) * (capacity(d) + 1) * ((1 + setup.surprise) * (rules.max_rounds or 1) + 3)


def _losses(rules: Rules, setup: BattleSetup, values: dict[str, Any]) -> None:
    """Add each side's losses (units at the start minus survivors) to exact values or samples."""
    for side, legion in zip(SIDES, setup.legions):
        survivors = values.get(f"{side}_survivors")
        if survivors is not None:  # a sample: survivors per trial
            values[f"{side}_losses"] = np.int8(legion.units) - survivors.astype(np.int8)
        else:  # exact values: the survivors' distribution
            values[f"{side}_losses"] = legion.units - sum(
                v * values[f"{side}_survivors={v}"] for v in COUNTS
            )


def clear_caches() -> None:
    """Forget every memoised table and chain (for cold timings)."""
    for cached in (side_table, round_table, pick_round, leader_options, has_choice, take_hits, leader_order):
        cached.cache_clear()
    BATTLE.clear()
    dice.clear_caches()


# --- the direct kernel (no chain) ---------------------------------------------------------------


def _roll(
    rules: Rules, n_dice: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hits, Shields and Specials of one pool per trial (``n_dice[i]`` dice, at most 12)."""
    top = int(n_dice.max(initial=0))
    faces = rng.integers(0, rules.faces, size=(n_dice.size, top), dtype=np.int16)
    live = np.arange(top)[None, :] < n_dice[:, None]
    h_end, s_end = rules.hit_faces, rules.hit_faces + rules.shield_faces
    x_end = s_end + rules.special_faces
    hits = ((faces < h_end) & live).sum(axis=1)
    shields = ((faces >= h_end) & (faces < s_end) & live).sum(axis=1)
    specials = ((faces >= s_end) & (faces < x_end) & live).sum(axis=1)
    return hits, shields, specials


def _take(r: np.ndarray, e: np.ndarray, s: np.ndarray, k: np.ndarray) -> None:
    """Apply ``k`` hits per trial in place (regulars, then plain elites, then special elites)."""
    t = np.minimum(k, r)
    r -= t
    k = k - t
    for elites in (e, s):
        full = np.minimum(k // 2, elites)  # elites demoted and then removed
        elites -= full
        k = k - 2 * full
        half = (k == 1) & (elites > 0)  # one more demoted to a regular
        elites -= half
        r += half
        k = np.where(half, 0, k)


# With the game's die (3 Hit, 2 Shield, 1 Special faces) a round without a loss on either side has
# probability 7/12 with one die a side, less with more dice: 1,000 of them in a row have odds below
# e**-539, so a battle past them is a loop that never ends (a bug) whatever max_rounds:N allows,
# stopped in milliseconds rather than the seconds that 100,000 rounds took.
REFERENCE_ROUND_LIMIT = 1_000


def simulate_direct(
    rules: Rules, setup: BattleSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """``n`` battles played round by round over arrays (any ``max_rounds``; no chain)."""
    (a, d), ctx = setup.legions, _context(rules, setup)
    fighting = fighting_legions(rules, setup)
    side = [[np.full(n, v, dtype=np.int16) for v in legion.counts] for legion in fighting]
    lead = [np.array([[0, 0], *ctx.leaders[i]], dtype=np.int16).cumsum(axis=0) for i in range(2)]
    rounds = np.zeros(n, dtype=np.int32)  # uint16 wrapped at round 65,536 and missed max_rounds:N above it
    end = np.full(n, GOING if d.units else DESTROYED, dtype=np.int8)
    cost, limit = _continuation_cost(ctx), rules.max_rounds
    first, played = setup.surprise, 0
    while True:
        idx = np.flatnonzero(end == GOING)
        if not idx.size:
            break
        if played == REFERENCE_ROUND_LIMIT:  # whatever max_rounds:N says, as in the reference
            raise RuntimeError(f"battles went on past {REFERENCE_ROUND_LIMIT:,} rounds: a bug")
        played += 1
        ar, ae, as_ = (v[idx] for v in side[0])
        dr, de, ds = (v[idx] for v in side[1])
        n_a = np.minimum(
            rules.max_dice, ar + ae + as_ + ctx.cards[0] + int(first and rules.surprise == "die")
        )
        n_d = np.minimum(rules.max_dice, dr + de + ds + ctx.cards[1] + ctx.rank)
        (h_a, s_a, x_a), (h_d, s_d, x_d) = _roll(rules, n_a, rng), _roll(rules, n_d, rng)
        x_a = x_a + int(first and rules.surprise == "special")
        used_a, used_d = np.minimum(x_a, len(lead[0]) - 1), np.minimum(x_d, len(lead[1]) - 1)
        h_a, s_a = h_a + lead[0][used_a, 0], s_a + lead[0][used_a, 1]
        h_d, s_d = h_d + lead[1][used_d, 0], s_d + lead[1][used_d, 1]
        s_a, s_d = np.maximum(s_a - ds, 0), np.maximum(s_d - as_, 0)
        on_d, on_a = np.maximum(h_a - s_d, 0), np.maximum(h_d - s_a, 0)
        _take(ar, ae, as_, on_a)
        _take(dr, de, ds, on_d)
        rounds[idx] += 1
        ua, ud = ar + ae + as_, dr + de + ds
        dead = (ua == 0) | (ud == 0)
        pr, pe, ps = ar.copy(), ae.copy(), as_.copy()
        if cost:
            _take(pr, pe, ps, np.full(idx.size, cost))
        go = ~dead & (pr + pe + ps > 0)
        if rules.attack == "while_ahead":
            go &= ua >= ud
        elif limit is not None:
            go &= rounds[idx] < limit
        ar, ae, as_ = (np.where(go, p, v) for p, v in ((pr, ar), (pe, ae), (ps, as_)))
        retreat = (
            go & (ar + ae + as_ > ud) if rules.retreat == "when_outnumbered" else np.zeros(idx.size, bool)
        )
        end[idx] = np.where(dead, DESTROYED, np.where(~go, STOPPED, np.where(retreat, RETREATED, GOING)))
        for target, values in zip(side[0] + side[1], (ar, ae, as_, dr, de, ds)):
            target[idx] = values
        first = False
    ua, ud = (reg + eli + spe for reg, eli, spe in side)  # regulars + elites + special elites, per trial
    won = (ua > 0) & ((ud == 0) | (end == RETREATED))
    kind, weight = parse_objective(setup.objective)
    losses = (a.units - ua).astype(np.int8), (d.units - ud).astype(np.int8)
    return {
        "attacker_win": won,
        "defender_win": (ud > 0) & ((ua == 0) | (end == STOPPED)),
        "both_destroyed": (ua == 0) & (ud == 0),
        "defender_retreated": end == RETREATED,
        "rounds": rounds,
        "attacker_losses": losses[0],
        "defender_losses": losses[1],
        "attacker_survivors": ua.astype(np.int8),
        "defender_survivors": ud.astype(np.int8),
        "objective": weight * won + losses[1] - losses[0] if kind == "trade" else won.astype(np.float64),
    }


# --- the slow reference -------------------------------------------------------------------------


def reference_battle(rules: Rules, setup: BattleSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One battle in plain Python, every die rolled one by one, the rules read literally (tests).

    Each legion is a list of figures; each hit removes or demotes one figure in the rule's
    order. Written from the rules text, not from the chain's transition function.
    """
    legions = setup.legions
    units = [["regular"] * lg.regular + ["elite"] * lg.elite + ["special"] * lg.special for lg in legions]
    start = [len(u) for u in units]
    discards = [setup.attacker_cards, setup.defender_cards]
    harkonnen = setup.harkonnen_side
    if rules.choam_ban and harkonnen is not None:  # "reduced from 6 to 5 units per area"
        while len(units[harkonnen]) > 5:  # the excess removed at once, the cheapest figure first
            figures = units[harkonnen]
            figures.remove(next(k for k in ("regular", "elite", "special") if k in figures))
    if rules.landsraad_ban and harkonnen is not None:  # "cannot discard Planning cards ... for dice"
        discards[harkonnen] = 0
    leaders = [[_leader_card(rules, k) for k in lg.leaders] for lg in legions]
    for cards in leaders:  # best leader first: largest hits + shields, then most hits
        cards.sort(key=lambda v: (v[0] + v[1], v[0]), reverse=True)
    faces = ["hit"] * rules.hit_faces + ["shield"] * rules.shield_faces + ["special"] * rules.special_faces
    faces += ["blank"] * rules.blank_faces
    costly = setup.settlement > 0 or rules.continue_always_costs
    advisor = BestPlay(rules, setup) if "best" in (rules.attack, rules.retreat) else None

    def hit(figures: list[str]) -> None:
        if "regular" in figures:
            figures.remove("regular")
        elif "elite" in figures:
            figures[figures.index("elite")] = "regular"
        elif "special" in figures:
            figures[figures.index("special")] = "regular"
        # with no units the hit falls on a leader; the leaders go with the last unit anyway

    def roll(count: int) -> list[str]:
        return [faces[int(rng.integers(0, len(faces)))] for _ in range(count)]

    rounds, how = 0, None
    if not units[1]:
        how = "undefended"
    while how is None:
        if rounds == REFERENCE_ROUND_LIMIT:
            raise RuntimeError(f"a reference battle went on past {REFERENCE_ROUND_LIMIT:,} rounds: a bug")
        rounds += 1
        surprise = setup.surprise and rounds == 1
        n_a = len(units[0]) + discards[0] + (1 if surprise and rules.surprise == "die" else 0)
        n_d = len(units[1]) + discards[1] + setup.settlement
        results = [roll(min(n_a, rules.max_dice)), roll(min(n_d, rules.max_dice))]
        if surprise and rules.surprise == "special":
            results[0].append("special")
        def casualties(
            by_leaders: tuple[int, int], results: list[list[str]] = results, units: list[list[str]] = units
        ) -> list[list[str]]:
            """Both legions after the round, the attacker's leaders adding ``by_leaders``."""
            hits = [results[0].count("hit") + by_leaders[0], results[1].count("hit")]
            shields = [results[0].count("shield") + by_leaders[1], results[1].count("shield")]
            for h, s in leaders[1][: results[1].count("special")]:  # one Special per leader, best first
                hits[1] += h
                shields[1] += s
            for side in (0, 1):  # each special elite cancels one opposing Shield
                shields[1 - side] = max(0, shields[1 - side] - units[side].count("special"))
            damage = [max(0, hits[1] - shields[0]), max(0, hits[0] - shields[1])]  # hits each side takes
            after = [list(units[0]), list(units[1])]
            for side in (0, 1):
                for _ in range(damage[side]):
                    hit(after[side])
            return after

        used = leaders[0][: results[0].count("special")]  # best first, unless best play picks others
        chosen = (sum(h for h, _ in used), sum(s for _, s in used))
        if advisor is not None and rules.attack == "best" and used:  # each leader *may* turn one
            subsets = (c for k in range(len(used) + 1) for c in itertools.combinations(leaders[0], k))
            totals = {(sum(h for h, _ in c), sum(s for _, s in c)) for c in subsets}
            after = {total: casualties(total) for total in totals}
            chosen = advisor.pick(
                _figures(units[0]), _figures(units[1]), len(used),
                {total: (_figures(a), _figures(d)) for total, (a, d) in after.items()},
            )
        units = casualties(chosen)
        if not units[0] or not units[1]:
            how = "destroyed"
            break
        # the attacker decides
        if costly and len(units[0]) == 1 and units[0][0] == "regular":
            how = "stopped"  # paying would cost its last unit
            break
        if advisor is not None and rules.attack == "best":
            if not advisor.continues(_figures(units[0]), _figures(units[1])):
                how = "stopped"
                break
        elif rules.attack == "while_ahead" and len(units[0]) < len(units[1]):
            how = "stopped"
            break
        if rules.max_rounds is not None and rounds >= rules.max_rounds:
            how = "stopped"
            break
        if costly:
            hit(units[0])
        if rules.retreat == "when_outnumbered" and len(units[0]) > len(units[1]):
            how = "retreated"
            break
        if advisor is not None and rules.retreat == "best":
            fought = rounds if rules.max_rounds is not None else 0
            if advisor.defender_retreats(_figures(units[0]), _figures(units[1]), fought):
                how = "retreated"
                break
    ua, ud = len(units[0]), len(units[1])
    won = ua > 0 and (ud == 0 or how == "retreated")
    lost = ud > 0 and (ua == 0 or how == "stopped")
    kind, weight = parse_objective(setup.objective)
    if rules.retreat == "best":  # the deciding side's objective: the defender's
        value = weight * lost + (start[0] - ua) - (start[1] - ud) if kind == "trade" else float(lost)
    else:
        value = weight * won + (start[1] - ud) - (start[0] - ua) if kind == "trade" else float(won)
    return {
        "objective": value,
        "attacker_win": won,
        "defender_win": lost,
        "both_destroyed": ua == 0 and ud == 0,
        "defender_retreated": how == "retreated",
        "rounds": rounds if how != "undefended" else 0,
        "attacker_losses": start[0] - ua,
        "defender_losses": start[1] - ud,
        "attacker_survivors": ua,
        "defender_survivors": ud,
    }


def _figures(figures: list[str]) -> tuple[int, int, int]:
    return figures.count("regular"), figures.count("elite"), figures.count("special")


class BestPlay:
    """The solved best play of one battle, asked in the terms of the table (the reference trial
    and ``advise`` use it): continue or retreat with these units, which leaders to use.

    Raises InputError when the rules do not ask for best play (``attack = "best"``) or the battle
    is too large to solve.
    """

    def __init__(self, rules: Rules, setup: BattleSetup) -> None:
        self.ctx = _context(rules, setup)
        self.solution = BATTLE.solution(rules, setup)

    def after_round(self, attacker: tuple[int, int, int], defender: tuple[int, int, int]) -> BattleState:
        """The decision state after a round that left these units (before any payment)."""
        return BattleState(attacker, defender, False, 0, AFTER)

    def continues(self, attacker: tuple[int, int, int], defender: tuple[int, int, int]) -> bool:
        """Whether best play continues after a round that left these units."""
        return self.solution.policy[self.after_round(attacker, defender)] == "continue"

    def defender_retreats(
        self, attacker: tuple[int, int, int], defender: tuple[int, int, int], fought: int
    ) -> bool:
        """The defender's best play (``retreat = "best"``): whether it retreats when the attacker goes
        on with these units (after paying), ``fought`` rounds fought (0 unless max_rounds:N)."""
        return self.solution.policy[BattleState(attacker, defender, False, fought, DEFENDS)] == "retreat"

    def pick(
        self,
        attacker: tuple[int, int, int],
        defender: tuple[int, int, int],
        used: int,
        results: Mapping[tuple[int, int], tuple[tuple[int, int, int], tuple[int, int, int]]],
    ) -> tuple[int, int]:
        """The (Hits, Shields) best play's leaders add, given what each total would leave.

        ``results``: for each total that ``used`` leaders or fewer can add, both legions after
        the round.
        """
        every = every_option(self.ctx)
        choices = leader_options(self.ctx.leaders[0], used, every)
        on_a = [capacity(attacker) - capacity(results[h, s][0]) for _, h, s in choices]
        on_d = [capacity(defender) - capacity(results[h, s][1]) for _, h, s in choices]
        totals = {name: (h, s) for name, h, s in choices}
        options: dict[BattleState, str] = {}
        for name, ka, kd in _undominated(choices, on_a, on_d, every):
            nxt = _after_round_best(self.ctx, take_hits(attacker, ka), take_hits(defender, kd))
            options.setdefault(nxt, name)
        if len(options) == 1:
            return totals[next(iter(options.values()))]
        state: Any = Pick(tuple((name, nxt) for nxt, name in options.items()))
        return totals[self.solution.policy[state]]


class Decision(NamedTuple):
    """One decision of best play: where, what is chosen, and the value of each option."""

    attacker: str  # the attacking units after the round (before any payment to continue), as text;
    defender: str  # for Specials, what the chosen leaders leave
    attacker_units: int
    defender_units: int
    choice: str  # "continue" or "retreat"; for Specials the leaders' names
    values: dict[str, float]  # option -> expected objective of taking it and playing best after
    leaves: dict[str, tuple[str, str]]  # Specials only: option -> (attacker, defender) after the round
    visits: float = 0.0  # how often a battle played best meets it (expected times; 0: only off its path)


class Advice(NamedTuple):
    """Best play for a battle (:func:`advise`)."""

    objective: str
    value: float  # the optimum
    fixed: float  # the objective of the fixed policy until_destroyed (leaders best first)
    continue_or_retreat: tuple[Decision, ...]
    specials: tuple[Decision, ...]


def advise(rules: Rules, setup: BattleSetup) -> Advice:
    """The decisions of best play, with the value of each option, in the terms of the table.

    ``rules.attack`` is set to ``best`` here (the other rules, e.g. the defender's policy, are
    kept); the setup's objective (default win) is what is maximised. Decisions come sorted by
    attacking units (most first), then defending units (fewest first); Specials decisions where
    best play departs from the best leaders first come before the others, each by what its chosen
    leaders leave.
    """
    import dataclasses

    best_rules = dataclasses.replace(rules, attack="best")
    objective = setup.objective or "win"
    setup = dataclasses.replace(setup, objective=objective)
    solution = BATTLE.solution(best_rules, setup)
    met = solution.visits()
    # the fixed policy's chain is never too large: its bound is at most 13 x 13 x 5 = 845 states
    fixed = exact_battle(dataclasses.replace(rules, attack="until_destroyed"), setup)["objective"]
    attacker, defender = setup.legions
    names = _leader_names(rules, attacker)
    plain, picks, departs = [], [], set()
    for state, choice in solution.policy.items():
        options = solution.option_values(state)
        if isinstance(state, Pick):
            if all(as_good(v, options[choice]) for v in options.values()):
                continue  # every choice as good: the choice of leaders does not matter there
            first = state.options[0][0]  # the fixed policy's choice (the best leaders first)
            if choice != first and as_good(options[choice], options[first]):
                choice = first  # as good: the advice keeps the familiar choice, and it departs from nothing
            chosen = dict(state.options)[choice]
            if choice != first:
                departs.add(len(picks))
            picks.append(
                Decision(
                    _units_text(chosen.attacker, attacker), _units_text(chosen.defender, defender),
                    sum(chosen.attacker), sum(chosen.defender), names(choice),
                    {names(k): v for k, v in options.items()},
                    {names(k): (_units_text(n.attacker, attacker), _units_text(n.defender, defender))
                     for k, n in state.options},
                    met.get(state, 0.0),
                )
            )
        else:
            plain.append(
                Decision(
                    _units_text(state.attacker, attacker), _units_text(state.defender, defender),
                    sum(state.attacker), sum(state.defender), choice, options, {}, met.get(state, 0.0),
                )
            )
    order = lambda d: (-d.attacker_units, d.defender_units, d.attacker, d.defender)  # noqa: E731
    plain.sort(key=order)
    picks = [p for _, p in sorted(enumerate(picks), key=lambda ip: (ip[0] not in departs, order(ip[1])))]
    return Advice(objective, solution.value, fixed, tuple(plain), tuple(picks))


def advice_table(rules: Rules, setup: BattleSetup, inputs: Mapping[str, Any]) -> AdviceTable:
    """:func:`advise` as the battle question's advice: the attacker's choices, one row an option
    (the defender keeps its policy: never or when_outnumbered)."""
    if rules.retreat == "best":
        raise InputError("retreat best: advice plays the attacker's best, and both sides playing best is not "
                         "solved; the defender's policy can only be never or when_outnumbered here")
    if rules.attack not in ("until_destroyed", "best"):
        raise InputError(f"attack {rules.attack}: advice plays the attacker's best itself; leave out the "
                         "rules that set the attack policy")
    advice = advise(rules, setup)
    rows = []
    for d in advice.continue_or_retreat:
        where = f"after a round, {d.attacker} against {d.defender}"
        rows += [AdviceRow(where, option, d.values[option], option == d.choice)
                 for option in sorted(d.values, key=lambda o: o != d.choice)]
    for d in advice.specials:
        where = "Specials, both rolls seen: " + "; ".join(
            f"{name} would leave {a} against {b}" for name, (a, b) in d.leaves.items()
        )
        rows += [AdviceRow(where, name, v, name == d.choice)
                 for name, v in sorted(d.values.items(), key=lambda nv: (nv[0] != d.choice, -nv[1]))]
    return AdviceTable(objective_words(advice.objective), advice.value, {"until_destroyed": advice.fixed},
                       tuple(rows))


def objective_words(objective: str) -> str:
    """What the advice's values are: ``"P(attacker wins)"`` or ``"expected trade:2"``."""
    return "P(attacker wins)" if objective == "win" else f"expected {objective}"


def _units_text(counts: tuple[int, int, int], legion: Legion) -> str:
    """Units as text (``"2 regular, 1 sardaukar"``; ``"none"``), in the legion's names."""
    return legion_text(Legion(*counts, (), legion.special_name))


def _leader_names(rules: Rules, legion: Legion) -> Any:
    """An option name of values (``"2H & 2S"``) -> the leaders' names (``"Beast Rabban & Baron
    Harkonnen"``), each leader named once."""

    def name(option: str) -> str:
        if option == NO_LEADER:
            return "no leader"
        free = list(legion.leaders)
        out = []
        for value in option.split(" & "):  # every option is made of the legion's own leaders
            key = next(k for k in free if value_text(*leader_value(rules, k)) == value)
            free.remove(key)
            out.append(f"{LEADERS[key].name} ({value})")
        return " & ".join(out)

    return name


def _leader_card(rules: Rules, key: str) -> tuple[int, int]:
    if key == "gurney halleck" and not rules.gurney_ability:  # "has no leader abilities"
        return 0, 0
    for k, h, s in rules.leader_values:
        if k == key:
            return h, s
    return LEADERS[key].hits, LEADERS[key].shields


# --- the smallest legion that wins ----------------------------------------------------------------


class NeedRow(NamedTuple):
    legion: str
    attacker_win: float


def need(
    rules: Rules,
    defender: str,
    target: float,
    *,
    leaders: str = "",
    elite: str = "elite",
    settlement: int = 0,
    attacker_cards: int = 0,
    defender_cards: int = 0,
    surprise: bool = False,
    harkonnen: str = "",
) -> tuple[NeedRow | None, NeedRow | None, int]:
    """The smallest attacking legion that takes ``defender`` with ``attacker_win >= target``.

    Legions are tried in order of size (units), and within a size with as few elites as
    possible: 1 regular, 1 elite, 2 regular, 1 regular + 1 elite, 2 elites, 3 regular, ...; up
    to 6 units, or 5 for a Harkonnen attacker under the CHOAM Ban (which side is Harkonnen must
    then be told, by a figure or ``harkonnen``).
    ``leaders`` (e.g. ``"bashar"``) go with every legion tried; ``elite`` names the upgraded kind
    (``elite``, ``sardaukar``, ``fedaykin``).

    Returns:
        (the first legion reaching the target or None, the legion tried just before it — or the
        strongest tried when none reaches it — and the number of legions solved).
    """
    if not 0 < target <= 1:
        raise InputError(f"--target must be a probability in (0, 1], got {target}")
    kind = " ".join(str(elite).lower().replace("-", " ").split())
    if kind not in KINDS or KINDS[kind][0] == 0:
        raise InputError(f"elite kind must be elite, sardaukar, fedaykin or special, got {elite!r}")
    if leaders and parse_legion(f"1 regular, {leaders}", "leaders").units > 1:  # units: they'd join each
        raise InputError(f"leaders: leaders only (the units are what is searched), got {leaders!r}")
    side = KINDS[kind][1]  # sardaukar or fedaykin: a faction's own units, told before any legion is tried
    if side is not None:
        led = faction(parse_legion(f"1 regular, {leaders}", "leaders")) if leaders else None
        if led not in (None, side):
            raise InputError(
                f"elite: {elite!r} are {side.title()} units but the leaders {leaders!r} are "
                f"{led.title()}; a legion belongs to one faction"
            )
        if faction(parse_legion(defender, "defender")) == side:
            raise InputError(
                f"elite: {elite!r} are {side.title()} units, like the defender's figures; a battle is "
                "the Atreides against the Harkonnen"
            )
    top = MAX_UNITS
    if rules.choam_ban:  # a Harkonnen attacker holds 5 units at most: the search stops there
        probe = ", ".join(p for p in (f"1 {kind}", leaders) if p)  # what the attacker's figures tell
        told = BattleSetup(probe, defender, settlement, attacker_cards, defender_cards, surprise, harkonnen)
        if _harkonnen_for(told, "CHOAM Ban") == 0:
            top = rules.harkonnen_stacking
    previous, tried = None, 0
    for size in range(1, top + 1):
        for elites in range(size + 1):
            parts = [
                f"{size - elites} regular" if size > elites else "",
                f"{elites} {kind}" if elites else "",
                leaders,
            ]
            setup = BattleSetup(
                ", ".join(p for p in parts if p),
                defender,
                settlement,
                attacker_cards,
                defender_cards,
                surprise,
                harkonnen,
            )
            values = exact_battle(rules, setup)
            if values is None:
                raise InputError("this battle is too large for the exact solver (lower max_rounds)")
            tried += 1
            row = NeedRow(setup.attacker, values["attacker_win"])
            if row.attacker_win >= target - 1e-12:
                return row, previous, tried
            previous = row
    return None, previous, tried


# --- the question -------------------------------------------------------------------------------

COUNTS = tuple(range(MAX_UNITS + 1))
CHAIN_METRICS = (
    Metric("attacker_win", "probability", "the defender is destroyed or retreats and the attacker has units"),
    Metric("defender_win", "probability", "the attacker is destroyed, or stops while the defender has units"),
    Metric("both_destroyed", "probability", "both legions are destroyed (no winner)"),
    Metric("defender_retreated", "probability", "the defender retreated (when_outnumbered or best play)"),
    Metric("rounds", "mean", "rounds of combat fought"),
    Metric("attacker_survivors", "distribution", "attacking units left at the end", COUNTS),
    Metric(
        "defender_survivors", "distribution", "defending units left at the end (a retreat keeps them)", COUNTS
    ),
)
OBJECTIVE_TEXT = "the deciding side's objective (win, or trade:W = W per win + its foes - its own destroyed)"
METRICS = (
    CHAIN_METRICS[:5]
    + (
        Metric(
            "attacker_losses",
            "mean",
            "attacking units lost (continuation costs included; demotions are not losses)",
        ),
        Metric("defender_losses", "mean", "defending units lost"),
    )
    + CHAIN_METRICS[5:]
    + (Metric("objective", "mean", OBJECTIVE_TEXT, unit_field="objective"),)
)


def _size_bound(rules: Rules, setup: BattleSetup) -> int | None:
    """:func:`chain_states`; None under the attacker's best play (its chain is always small: it is
    walked); under the defender's, its decision states are counted beside the rounds'."""
    if rules.attack == "best":
        return None
    bound = chain_states(rules, setup)
    a, d = (legion.counts for legion in setup.legions)
    if rules.retreat == "best":
        bound += (capacity(a) + 1) * (capacity(d) + 1) * (rules.max_rounds or 1)
    return bound


def objective_sides_differ(rules: Rules, other: Rules, setup: BattleSetup) -> tuple[str, ...]:
    """``objective`` where it is the defender's under one rule set (its best play) and the
    attacker's under the other: their difference would read as an effect of the rules (a
    comparison of official against defender_best_play gave -0.946, significant)."""
    return ("objective",) if (rules.retreat == "best") != (other.retreat == "best") else ()


def applicable_battle(setup: BattleSetup) -> tuple[str, ...]:
    """Every metric, but ``objective`` only where the setup asks for one."""
    return tuple(m.name for m in METRICS if m.name != "objective" or setup.objective)

def _never_ends(exc: MonteCarloError, context: _Context) -> Exception:
    """The chain engine's finding about a battle, in a player's words: rules under which no round
    can change anything (a die without Hits, Specials that do nothing here) and no policy stops."""
    return InputError(f"under these rules this battle never ends: no round can cost a unit and nothing "
                      f"stops it (a die without Hit faces? a policy such as max_rounds:N ends it); {exc}")


BATTLE: ChainQuestion[_Context, BattleState] = ChainQuestion(
    _start,
    _transitions,
    lambda ctx, end: _outcome(end),
    CHAIN_METRICS,
    {"rounds": "round"},
    context=_context,
    direct=simulate_direct,
    size_bound=_size_bound,
    finish=_losses,
    objective=battle_objective,
    best_play=_asks_best,
    name="the battle's chain",
    explain=_never_ends,
    cache_size=512,
    home=(__name__, "BATTLE"),
)
exact_battle, simulate_battle = BATTLE.exact, BATTLE.simulate  # the names the CLI and tests use


def battle_readings(rules: Rules, setup: BattleSetup) -> list[str]:
    """The readings in force for this battle (the CLI's ``reading:`` lines, a report's list)."""
    return readings(rules, continuation=True, surprise=setup.surprise)


def check_best_alone(rules: Rules, setup: BattleSetup) -> None:
    """One battle under best play: refused when there is nothing to decide (an undefended
    settlement falls without a roll; every battle ends in its first round or cannot go on, as
    advice says) or too much to solve, before the run (the solve is kept for it)."""
    if "best" not in (rules.attack, rules.retreat):
        return
    if not setup.legions[1].units:
        raise InputError(
            "best play: an undefended settlement falls without a roll, so there is no decision to make"
        )
    if not BATTLE.solution(rules, setup).policy:
        raise InputError(
            "best play: every battle ends in its first round or cannot go on, and which leaders turn the "
            "Specials is never a choice, so there is no decision to make"
        )


QUESTIONS = {
    "battle": Question(
        name="battle",
        description=(
            "whole battle of two legions (units, leaders, cards, settlement, surprise), exact where possible"
        ),
        setup_type=BattleSetup,
        metrics=METRICS,
        simulate=BATTLE.simulate,
        exact=BATTLE.exact,
        why_no_exact=BATTLE.why_no_exact,
        affinity=BATTLE.context_of,
        check_alone=check_best_alone,
        incomparable=objective_sides_differ,
        advise=advice_table,
        notes=battle_readings,
        parse_setup=parse_battle,
        applicable=applicable_battle,
        reference=reference_battle,
        rule_fields=BATTLE_RULES,
        example={
            "attacker": "4 regular, 1 elite, bashar",
            "defender": "3 regular, 1 fedaykin, naib",
            "settlement": 2,
            "attacker_cards": 1,
            "surprise": True,
        },
    ),
}
