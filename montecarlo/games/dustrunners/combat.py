"""One Dustrunners combat: setup, vectorised kernel, exact solver and a plain reference trial.

Combat as modelled (``docs/rules/dustrunners.md`` lists every interpretation):

1. One resolution card sets the enemy's health (the enemy card's die value, left for a first
   exploration card, right for a second, plus the card's die) and the initiative (its driver);
   it is discarded.
2. Attacks alternate from the side with initiative. You spend 0 to 4 ammo (the ammo policy) and
   reveal one card per ammo: damage = their skulls + your damage bonus. Raiders reveal one card
   per star: damage = their skulls; a spybot moves the raider by their triangles instead; a
   mutant reveals one card per radiation skull and each card with a skull gives a radiation
   card instead of damage. With the ``when_losing`` redraw use, an attack of raiders that
   would bring your health to 0 or below has its card with the most skulls redrawn for
   ``redraw_cost`` VP, as long as the VP last and the attack is still lethal; the other uses
   (``initiative``, ``finish``, ``loot``, ``steps``) redraw the health card, a card of your
   attack and the loot card (:func:`check_redraw`). Under best play (policy ``best``) the
   ``initiative`` and ``finish`` redraws are decisions: made only where they pay.
3. Health at 0 or below ends the combat. The winner (you) gains ``win_vp`` VP and one loot card
   (its triangles move the raider; bonus loot if its moon is the enemy's, always for a
   second-card enemy). After ``turn_limit`` attacks with both alive the combat is a stalemate.

Deck handling: the cards revealed in one attack go to the discard pile when the attack is
resolved; an empty draw pile is rebuilt by shuffling the discard pile (not the cards of the
attack in progress); when both are empty the attack draws no more. A single combat starts from
a freshly shuffled full deck.

The kernel (:func:`simulate_combat`) is vectorised over trials: each trial's draw and discard
piles are counts per kind of card, and a draw picks a kind with probability proportional to its
count in the draw pile, which is drawing without replacement from a uniformly shuffled pile.
:func:`exact_combat` recurses over the same multisets (small decks only);
:func:`reference_combat` shuffles a real list of card objects.

>>> from montecarlo.games.dustrunners.rules import Rules
>>> setup = parse_combat({"deck": "illustrative-12", "enemy_die": 2, "enemy_stars": 1,
...                       "health": 5, "ammo": 4, "damage_bonus": 1})
>>> round(exact_combat(Rules(), setup)["player_win"], 4)
0.8949
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from montecarlo.engine.chain import ChainTooLarge
from montecarlo.engine.decisions import TIE_TOLERANCE
from montecarlo.errors import InputError, MonteCarloError
from montecarlo.games.base import (
    AdviceRow, AdviceTable, Metric, Question, parse_weighted_objective, weighted_objective_text,
)
from montecarlo.games.dustrunners.deck import (
    ENEMY_KINDS, LOOTS, Card, Deck, Enemy, card_key, enemy as named_enemy, load_deck,
    vehicle as named_vehicle,
)
from montecarlo.games.dustrunners.rules import Rules
from montecarlo.validate import check_known, whole

REDRAW_POLICIES = ("never", "when_losing")  # the single-use policies of earlier versions, still valid
# The rulebook's uses of a VP redraw that change a combat's result, in the order they arise:
# the enemy's health and initiative card, your attack's damage, the damage dealt to you, the loot
# card's moon and loot, and the loot card's raider steps.
REDRAW_USES = ("initiative", "finish", "when_losing", "loot", "steps")
_FIXED = re.compile(r"fixed:(\d+)")  # used with fullmatch: no trailing newline slips through
_NEGATIVE = re.compile(r"fixed:-\d+")  # the right name with a negative count
MAX_EXACT_CARDS = 16  # the exact solver tries decks of at most this many cards (within its budget)
MAX_EXACT_STATES = 400_000  # memoised states before the exact solver gives up (returns None)
MAX_EXACT_WORK = 2_000_000  # enumerated draw outcomes before it gives up (a few seconds at most)
MAX_HEALTH = 99


def check_ammo_policy(policy: Any, best: bool = False) -> str:
    """``all_in``, ``just_enough`` or ``fixed:N`` (and ``best`` where ``best`` is allowed: a single
    combat, solved exactly); InputError otherwise.

    >>> check_ammo_policy("fixed:2"), check_ammo_policy("best", best=True)
    ('fixed:2', 'best')
    """
    if policy in ("all_in", "just_enough") or (isinstance(policy, str) and _FIXED.fullmatch(policy)):
        return policy
    if best and policy == "best":
        return policy
    if isinstance(policy, str) and _NEGATIVE.fullmatch(policy):
        raise InputError(f"policy {policy}: fixed:N needs N >= 0 ammo per attack (0: the damage bonus alone)")
    if policy == "best":
        raise InputError("policy best (ammo decided by exact best play) is offered for a single combat only")
    if best:
        raise InputError(
            f"policy must be all_in, just_enough, fixed:N (N = ammo per attack) or best, got {policy!r}"
        )
    raise InputError(f"policy must be all_in, just_enough or fixed:N (N = ammo per attack), got {policy!r}")


def parse_objective(text: Any) -> tuple[str, float]:
    """``"win"`` -> ("win", 0.0); ``"keep:10"`` -> ("keep", 10.0); ``""`` or None -> ("", 0.0).

    ``keep:W`` values a combat as W x 1{you win} + health left + ammo left / 2 (what the
    vehicle carries to the next card; a point of health is worth two of ammo).

    >>> parse_objective("Keep: 12"), parse_objective(None)
    (('keep', 12.0), ('', 0.0))
    >>> parse_objective("keep:-1")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: objective must be win or keep:W (W >= 0, e.g. keep:10), got 'keep:-1'
    """
    return parse_weighted_objective(text, "keep", "keep:10")


def objective_text(objective: tuple[str, float]) -> str:
    """The canonical text of a parsed objective: ``""``, ``"win"`` or ``"keep:10"``."""
    return weighted_objective_text(objective)


def objective_of(objective: str, win: Any, health_left: Any, ammo_left: Any) -> Any:
    """The objective of finished combats (floats or arrays): ``win`` (or none asked) = 1{you win};
    ``keep:W`` = W x 1{you win} + health left + ammo left / 2."""
    kind, weight = parse_objective(objective)
    return objective_value(weight if kind == "keep" else None, win, health_left, ammo_left)


def objective_value(keep: float | None, win: Any, health_left: Any, ammo_left: Any) -> Any:
    """:func:`objective_of` for an objective already read: ``keep`` is keep:W's weight, None for win."""
    if keep is not None:
        return keep * win + health_left + ammo_left / 2
    return win * 1.0


def check_redraw(value: Any) -> str:
    """A VP redraw policy: ``never``, ``all``, or uses among :data:`REDRAW_USES` joined by commas.

    Returns the canonical form (uses in the order they arise, comma-separated).

    >>> check_redraw("loot, when_losing"), check_redraw("all"), check_redraw("never")
    ('when_losing,loot', 'initiative,finish,when_losing,loot,steps', 'never')
    """
    text = value.strip().lower().replace(" ", "") if isinstance(value, str) else None
    if text in ("never", "none", ""):
        return "never"
    if text == "all":
        return ",".join(REDRAW_USES)
    uses = set(text.replace("+", ",").split(",")) - {""} if text is not None else {"?"}
    if not uses or not uses <= set(REDRAW_USES):
        raise InputError(
            f"redraw must be never, all, or uses among {', '.join(REDRAW_USES)} (comma-separated), "
            f"got {value!r}"
        )
    return ",".join(u for u in REDRAW_USES if u in uses)


def redraw_uses(redraw: str) -> frozenset[str]:
    """The uses of a canonical redraw policy (``never``: none)."""
    return frozenset() if redraw == "never" else frozenset(redraw.split(","))


def fixed_ammo(policy: str) -> int | None:
    """N of ``fixed:N``, else None. An N above any cap (ammo and the per-attack limit are at most
    99) is read as 99: it spends the same, and the kernel's int16 arrays can hold it."""
    m = _FIXED.fullmatch(policy)
    return min(int(m.group(1)), MAX_HEALTH) if m else None


# ---------------------------------------------------------------------------------------- setup

@dataclass(frozen=True, slots=True)
class CombatSetup:
    """One combat of a vehicle against an enemy, drawn from ``deck``.

    Attributes:
        deck: the resolution deck (with its file name, and any card count overrides).
        enemy: the enemy card (shipped by name, or built from enemy_die / enemy_stars).
        second_card: the enemy is the second exploration card (right die value, bonus loot always).
        health, ammo, damage_bonus: the vehicle's values at the start of the combat.
        vp: victory points at the start (only VP redraws use them within a combat); a shipped
            vehicle's are its stars ("The starting VP equals the stars on ... your Vehicle Cards").
        policy: ammo per attack, ``all_in``, ``fixed:N``, ``just_enough``, or ``best`` (0 up to
            min(ammo, 4) decided at every attack for ``objective``, knowing the composition of
            the draw pile; solved exactly, small decks only).
        redraw: VP redraw policy: ``never``, or the uses among ``initiative`` (redraw the enemy's
            health card when it gives the raiders the initiative), ``finish`` (redraw a skull-less
            card of your attack while it falls short), ``when_losing`` (redraw the worst card of a
            lethal raiders' attack), ``loot`` (redraw a loot card that brings no bonus loot),
            ``steps`` (redraw a loot card that moves the raider); ``all`` for every one. Under
            policy ``best`` the ``initiative`` and ``finish`` redraws are decided (made where
            their rule would redraw only if that is worth more for ``objective``; a tie keeps
            the VP); the other uses stay rules (``docs/rules/dustrunners.md`` says why).
        vehicle: the shipped vehicle the values came from, if any (for the record).
        objective: what the play is judged by, reported as the metric ``objective``: ``win``
            (P(you win)) or ``keep:W`` (W x 1{you win} + health left + ammo left / 2); ``""``
            (default): none reported (best play then maximises ``win``). Stored canonical.
    """

    deck: Deck
    enemy: Enemy
    health: int
    ammo: int = 0
    damage_bonus: int = 0
    second_card: bool = False
    vp: int = 0
    policy: str = "all_in"
    redraw: str = "never"
    vehicle: str | None = None
    objective: str = ""

    def __post_init__(self) -> None:
        whole("health", self.health, 1, MAX_HEALTH)
        whole("ammo", self.ammo, 0, MAX_HEALTH)
        whole("damage_bonus", self.damage_bonus, 0, MAX_HEALTH)
        whole("vp", self.vp, 0, 999)
        if not isinstance(self.second_card, bool):
            raise InputError(f"second_card must be true or false, got {self.second_card!r}")
        check_ammo_policy(self.policy, best=True)
        object.__setattr__(self, "redraw", check_redraw(self.redraw))
        object.__setattr__(self, "objective", objective_text(parse_objective(self.objective)))

    @property
    def enemy_die(self) -> int:
        return self.enemy.die_second if self.second_card else self.enemy.die_first


# values the parsers read besides a setup's fields (listed by the Python API with the fields)
CARD_COUNTS_INPUT = {
    "card_counts": "the deck's card counts overridden by card name: {'double tap': 0} or "
    "'double tap=0, critical hit=4'",
}
ENEMY_INPUTS = {
    "enemy_die": "the enemy card's die value (instead of enemy)",
    "enemy_stars": "cards the enemy draws per attack (instead of enemy)",
    "enemy_kind": "raiders, spybot or mutant (instead of enemy)",
    "enemy_radiation": "a mutant's radiation skulls, 1 or 2",
    "enemy_moon": "the enemy's moon (bonus loot when the loot card's moon matches)",
}

_COMBAT_KEYS = (
    "deck", "card_counts", "enemy", "second_card", "enemy_die", "enemy_stars", "enemy_kind",
    "enemy_radiation", "enemy_moon", "vehicle", "health", "ammo", "damage_bonus", "vp", "policy", "redraw",
    "objective",
)


def parse_card_counts(value: Any) -> dict[str, int]:
    """``{"double tap": 0}`` or ``"double tap=0, critical hit=4"`` -> {name: count}.

    ``""``, ``"as shipped"`` and ``"none"`` mean no override.
    """
    none = isinstance(value, str) and value.strip() in ("", "as shipped", "none")
    if value is None or value == {} or none:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        out = {}
        for part in value.split(","):
            name, sep, count = part.partition("=")
            if not sep or not name.strip():
                raise InputError(f"card_counts: expected 'card name=count, ...', got {value!r}")
            if name.strip() in out:  # the later count would silently replace the earlier
                raise InputError(f"card_counts: {name.strip()!r} is given twice; give each card's count once")
            try:
                out[name.strip()] = int(count)
            except ValueError:
                got = count.strip()
                raise InputError(f"card_counts: {name.strip()}: expected an integer count, got {got!r}") \
                    from None
        return out
    raise InputError(f"card_counts: expected a table or 'card name=count, ...', got {value!r}")


def resolve_deck(values: Mapping[str, Any]) -> Deck:
    deck = load_deck(values.get("deck"))
    counts = parse_card_counts(values.get("card_counts"))
    return deck.with_counts(counts) if counts else deck


def resolve_enemy(values: Mapping[str, Any]) -> Enemy:
    """The enemy of a setup: a shipped enemy by name, or one built from enemy_* fields."""
    fields = ("enemy_die", "enemy_stars", "enemy_kind", "enemy_radiation", "enemy_moon")
    custom = [k for k in fields if k in values]
    if values.get("enemy") is not None:
        if custom:
            own = ", ".join(f"({k})" for k in custom)  # each in parentheses: the CLI names its flag
            raise InputError(f"give either a shipped enemy (enemy) or an enemy's own values {own}, not both")
        return named_enemy(values["enemy"])
    if "enemy_die" not in values:
        raise InputError("enemy: give a shipped enemy name (enemy) or its die value (enemy_die)")
    die = whole("enemy_die", values["enemy_die"], 0, 6)  # an enemy card's die value, as in enemies.toml
    kind = values.get("enemy_kind", "raiders")
    if kind not in ENEMY_KINDS:
        raise InputError(f"enemy_kind must be one of {', '.join(ENEMY_KINDS)}, got {kind!r}")
    mutant = kind == "mutant"  # 1 or 2 radiation skulls; another kind has none
    stars = whole("enemy_stars", values.get("enemy_stars", 0 if mutant else 1), 0, 20)
    radiation = whole("enemy_radiation", values.get("enemy_radiation", 1 if mutant else 0), int(mutant), 2)
    if radiation and not mutant:  # it would be ignored: only a mutant's skulls irradiate
        raise InputError(
            f"enemy_radiation: only a mutant has radiation skulls (enemy_kind mutant), not {kind}"
        )
    moon = values.get("enemy_moon", "none")
    if not isinstance(moon, str) or not moon.strip():
        raise InputError(f"enemy_moon must be a moon name, got {moon!r}")
    return Enemy("custom enemy", die, die, stars, moon.strip(), "fuel", kind, radiation)


def require_vp(merged: Mapping[str, Any], redraw: Any) -> None:
    """Starting VP come from the vehicle's stars or are given; a redraw policy needs one or the other.

    "The starting VP equals the stars on the bottom of all your Vehicle Cards": a setup without a
    shipped vehicle has no stars to count, so a policy that spends VP needs ``vp`` given (without
    one, nothing spends VP and 0 changes nothing).
    """
    if "vp" not in merged and check_redraw(redraw) != "never":
        raise InputError(
            "vp: the redraw policy spends VP; give your starting VP (vp = the stars on your vehicle "
            "cards) or a shipped vehicle (vehicle), whose stars are its starting VP"
        )


VEHICLE_VALUES = ("health", "ammo", "damage_bonus", "vp")


def vehicle_values(values: Mapping[str, Any], names: tuple[str, ...] = VEHICLE_VALUES
                   ) -> tuple[dict[str, Any], str | None]:
    """The vehicle's values of a setup: a shipped vehicle's (VP = its stars), then those given.

    Returns (values by name, the vehicle's printed name or None); InputError without a health,
    or without VP for a redraw policy (:func:`require_vp`).
    """
    base: dict[str, Any] = {}
    car = None
    if values.get("vehicle") is not None:
        v = named_vehicle(values["vehicle"])
        car = v.name
        shipped = {"health": v.health, "ammo": v.ammo, "damage_bonus": v.damage_bonus, "vp": v.stars,
                   "fuel": v.fuel}
        base = {k: shipped[k] for k in names}
    merged = {**base, **{k: values[k] for k in names if values.get(k) is not None}}
    if "health" not in merged:
        raise InputError("health: give the vehicle's health (health) or a shipped vehicle (vehicle)")
    require_vp(merged, values.get("redraw", "never"))
    return merged, car


def parse_combat(values: Mapping[str, Any]) -> CombatSetup:
    """A validated :class:`CombatSetup` from plain values (CLI options or TOML)."""
    check_known(values, _COMBAT_KEYS, "combat setup")
    deck = resolve_deck(values)
    enemy = resolve_enemy(values)
    merged, car = vehicle_values(values)
    return CombatSetup(
        deck=deck, enemy=enemy, health=merged["health"], ammo=merged.get("ammo", 0),
        damage_bonus=merged.get("damage_bonus", 0), second_card=values.get("second_card", False),
        vp=merged.get("vp", 0), policy=values.get("policy", "all_in"), redraw=values.get("redraw", "never"),
        vehicle=car, objective=values.get("objective", ""),
    )


# ------------------------------------------------------------------------------- shared helpers

def ammo_to_spend(policy: str, cap: int, enemy_health: int, damage_bonus: int, deck: Deck) -> int:
    """Ammo spent on one attack (scalar form; the kernel has the same rule vectorised).

    ``cap`` = the most the player may spend (ammo left, the per-attack limit, the deck size).
    ``just_enough``: the least ammo whose expected damage (damage bonus + ammo x the deck's
    mean skulls per card) reaches the enemy's health, or ``cap`` if none does.
    """
    if policy == "all_in":
        return cap
    n = fixed_ammo(policy)
    if n is not None:
        return min(n, cap)
    need = enemy_health - damage_bonus
    if need <= 0:
        return 0
    skulls = deck.total_skulls
    if skulls == 0:
        return cap
    return min(-(-need * deck.size // skulls), cap)


# ---------------------------------------------------------------------------------- reference

@dataclass(eq=False)
class CardCopy:
    """One physical card of the reference deck (identity matters, value equality does not)."""

    ident: int
    card: Card


@dataclass(eq=False)
class Piles:
    """The reference's draw and discard piles as real lists; ``record`` logs every event.

    Events: ``("draw", ident)``, ``("reshuffle", [idents of the new draw pile])`` and
    ``("discard", [idents])``.
    """

    draw: list
    discard: list
    eager: bool
    rng: np.random.Generator
    record: list | None = None

    @classmethod
    def fresh(cls, deck: Deck, rules: Rules, rng: np.random.Generator, record: list | None = None) -> "Piles":
        cards = [CardCopy(i, c) for i, c in enumerate(deck.card_list())]
        order = rng.permutation(len(cards))
        return cls([cards[i] for i in order], [], rules.reshuffle == "when_empty", rng, record)

    def _reshuffle(self) -> None:
        order = self.rng.permutation(len(self.discard))
        self.draw = [self.discard[i] for i in order]
        self.discard = []
        if self.record is not None:
            self.record.append(("reshuffle", [c.ident for c in self.draw]))

    def draw_card(self, in_play: list) -> CardCopy | None:
        """Draw the top card into ``in_play`` (the attack in progress); None if none is left."""
        if not self.draw:
            if not self.discard:
                return None
            self._reshuffle()
        card = self.draw.pop()
        in_play.append(card)
        if self.record is not None:
            self.record.append(("draw", card.ident))
        if self.eager and not self.draw and self.discard:
            self._reshuffle()
        return card

    def put_away(self, cards: list) -> None:
        """An attack is resolved: its cards go to the discard pile."""
        self.discard.extend(cards)
        if self.record is not None:
            self.record.append(("discard", [c.ident for c in cards]))


@dataclass
class Fighter:
    """The player's running values in the reference (carried across a campaign)."""

    health: int
    ammo: int
    vp: int


def reference_fight(rules: Rules, deck: Deck, enemy: Enemy, second: bool, me: Fighter, damage_bonus: int,
                    policy: str, redraw: str, piles: Piles,
                    best: "SolvedCombat | None" = None) -> dict[str, Any]:
    """One combat played literally with real piles; updates ``me`` and ``piles`` in place.

    Policy ``best`` asks ``best`` (the solved combat) for the ammo of each attack, given what the
    table shows: the draw pile's composition, both healths, your ammo and VP, the attacks made;
    and, where the ``finish`` or ``initiative`` rule would redraw, whether to (:class:`SolvedCombat`).
    """
    start_health = me.health
    uses = redraw_uses(redraw)
    out = {"ammo_spent": 0, "raider_steps": 0, "vp_spent": 0, "radiation": 0, "attacks": 0,
           "bonus_loot": False, "loot": None}

    def pay() -> None:  # "spend 2-4 VPs ... to redraw a Resolution Card"
        me.vp -= rules.redraw_cost
        out["vp_spent"] += rules.redraw_cost

    # 1-2. Enemy health and initiative from one card, which is then discarded.
    hand: list = []
    first = piles.draw_card(hand)
    if ("initiative" in uses and first.card.driver != "you" and me.vp >= rules.redraw_cost
            and deck.size > 1  # "Change the starting health of your enemy and combat initiative"
            and (best is None or best.redraws_health_card(deck.cards.index(first.card)))):
        pay()
        first = piles.draw_card(hand) or first
    enemy_health = (enemy.die_second if second else enemy.die_first) + first.card.die
    my_turn = first.card.driver == "you"
    player_first = my_turn
    piles.put_away(hand)
    # 3. Alternate attacks until someone is at 0 health or the turn limit is reached.
    for _ in range(rules.turn_limit):  # one attack a turn, up to the turn limit (a bounded loop)
        if me.health <= 0 or enemy_health <= 0:
            break
        hand = []
        if my_turn:
            cap = min(rules.max_ammo_per_attack, me.ammo, deck.size)
            if policy == "best":
                if best is None:
                    raise InputError("policy best needs the solved combat")
                state = (_counts(deck, piles.draw), enemy_health, me.health, me.ammo, me.vp, out["attacks"],
                         player_first)
                spend = best.decide(state, cap)
            else:
                spend = ammo_to_spend(policy, cap, enemy_health, damage_bonus, deck)
            me.ammo -= spend
            out["ammo_spent"] += spend
            for _ in range(spend):
                piles.draw_card(hand)
            counted = list(hand)
            # VP redraw ("Change the amount of damage you deal"): a skull-less card while short.
            while ("finish" in uses and damage_bonus + sum(c.card.skulls for c in counted) < enemy_health
                   and any(c.card.skulls == 0 for c in counted) and me.vp >= rules.redraw_cost
                   and len(hand) < deck.size
                   and (best is None or best.decide_finish((  # best play: redraw, or keep the VP
                       _counts(deck, piles.draw), _counts(deck, piles.discard),
                       enemy_health - damage_bonus - sum(c.card.skulls for c in counted),
                       sum(c.card.skulls == 0 for c in counted), me.vp, me.health, me.ammo, out["attacks"],
                       player_first)))):
                counted.remove(next(c for c in counted if c.card.skulls == 0))
                pay()
                counted.append(piles.draw_card(hand))
            enemy_health -= damage_bonus + sum(c.card.skulls for c in counted)
        elif enemy.kind == "mutant":
            for _ in range(enemy.radiation):
                card = piles.draw_card(hand)
                if card is not None and card.card.skulls >= 1:
                    out["radiation"] += 1
        else:
            for _ in range(enemy.stars):
                piles.draw_card(hand)
            if enemy.kind == "spybot":
                out["raider_steps"] += sum(c.card.triangle for c in hand)
            else:
                counted = list(hand)
                damage = sum(c.card.skulls for c in counted)
                # VP redraw: replace the card with the most skulls while the attack would kill.
                while ("when_losing" in uses and damage >= me.health and me.vp >= rules.redraw_cost
                       and len(hand) < deck.size):
                    worst = max(counted, key=lambda c: c.card.skulls)
                    counted.remove(worst)
                    pay()
                    new = piles.draw_card(hand)
                    counted.append(new)
                    damage = sum(c.card.skulls for c in counted)
                me.health -= damage
        piles.put_away(hand)
        out["attacks"] += 1
        my_turn = not my_turn
    won = enemy_health <= 0 and me.health > 0
    stalemate = me.health > 0 and enemy_health > 0
    if won:  # 5. VP, and one more card for loot and the raider's move.
        me.vp += rules.win_vp
        hand = []
        card = piles.draw_card(hand)
        no_bonus = card is not None and not second and card.card.moon != enemy.moon
        moves = card is not None and card.card.triangle > 0
        if ((("loot" in uses and no_bonus) or ("steps" in uses and moves))  # "Change the moon icon and
                and me.vp >= rules.redraw_cost and deck.size > 1):  # loot" / "the number of spaces"
            pay()
            card = piles.draw_card(hand) or card
        if card is not None:
            out["raider_steps"] += card.card.triangle
            out["loot"] = card.card.loot
            out["bonus_loot"] = second or card.card.moon == enemy.moon
        piles.put_away(hand)
    elif stalemate:  # the raiders move "at the end of any combat": one card for their steps
        hand = []
        card = piles.draw_card(hand)
        if card is not None:
            out["raider_steps"] += card.card.triangle
        piles.put_away(hand)
    out.update(
        player_win=won, player_lost=me.health <= 0, stalemate=stalemate,
        health_lost=start_health - max(me.health, 0),
    )
    out["vp_gained"] = rules.win_vp * won - out["vp_spent"]
    return out


def _counts(deck: Deck, cards: list) -> tuple[int, ...]:
    """A real pile of card copies as counts per kind of ``deck.cards``."""
    counts = [0] * len(deck.cards)
    for c in cards:
        counts[deck.cards.index(c.card)] += 1
    return tuple(counts)


def with_rules_policy(rules: Rules, setup: Any, best: bool = True) -> Any:
    """``setup`` with the ammo policy the rules impose (``rules.ammo_policy``), if any; ``best``
    is offered only where ``best`` (a single combat)."""
    if not rules.ammo_policy:
        return setup
    if rules.ammo_policy == "best" and not best:
        raise InputError("the ammo policy best (rule ammo_policy) is offered for a single combat only")
    return dataclasses.replace(setup, policy=rules.ammo_policy)


def reference_combat(rules: Rules, setup: CombatSetup, rng: np.random.Generator,
                     record: list | None = None) -> dict[str, Any]:
    """One combat in plain Python from a freshly shuffled list of card objects.

    ``record``, if given, receives every draw, reshuffle and discard (see :class:`Piles`).
    """
    setup = with_rules_policy(rules, setup)
    piles = Piles.fresh(setup.deck, rules, rng, record)
    me = Fighter(setup.health, setup.ammo, setup.vp)
    best = solved_best(rules, setup) if setup.policy == "best" else None
    out = reference_fight(rules, setup.deck, setup.enemy, setup.second_card, me, setup.damage_bonus,
                          setup.policy, setup.redraw, piles, best)
    out["objective"] = objective_of(setup.objective, out["player_win"], max(me.health, 0),
                                    setup.ammo - out["ammo_spent"])
    return {name: out[name] for name in ALL_METRIC_NAMES}


# -------------------------------------------------------------------------------------- kernel

@dataclass(frozen=True)
class Tables:
    """A deck as per-kind arrays for the kernel."""

    k: int
    size: int
    total_skulls: int
    counts: np.ndarray
    die: np.ndarray
    you: np.ndarray
    triangle: np.ndarray
    skulls: np.ndarray
    has_skull: np.ndarray
    moon: np.ndarray  # moon index into ``moons``
    loot: np.ndarray  # index into LOOTS
    moons: tuple[str, ...]


@functools.lru_cache(maxsize=64)
def tables(deck: Deck) -> Tables:
    moons = tuple(sorted({c.moon for c in deck.cards}))
    arr = lambda f, dt=np.int16: np.array([f(c) for c in deck.cards], dtype=dt)  # noqa: E731
    return Tables(
        len(deck.cards), deck.size, deck.total_skulls, np.array(deck.counts, dtype=np.int16),
        arr(lambda c: c.die), arr(lambda c: c.driver == "you", bool), arr(lambda c: c.triangle),
        arr(lambda c: c.skulls), arr(lambda c: c.skulls > 0, np.int16), arr(lambda c: moons.index(c.moon)),
        arr(lambda c: LOOTS.index(c.loot)), moons,
    )


class Batch:
    """Per-trial state of many combats: piles as counts per kind (k, n), values as (n,) arrays.

    Trials are columns; :meth:`take` and :meth:`put` move a subset in and out (compaction).
    """

    PILE = ("draw", "disc")
    CHANGING = ("draw", "disc", "dtot", "ctot", "eh", "ph", "ammo", "vp", "spent", "steps", "vp_spent", "rad",
                "attacks")  # what a combat changes (the enemy fields stay as set)

    # The fields, all set by __init__ (see fresh_batch): piles are (k, n) counts, the rest (n,) values.
    draw: np.ndarray
    disc: np.ndarray
    dtot: np.ndarray
    ctot: np.ndarray
    eh: np.ndarray
    ph: np.ndarray
    ammo: np.ndarray
    vp: np.ndarray
    spent: np.ndarray
    steps: np.ndarray
    vp_spent: np.ndarray
    rad: np.ndarray
    attacks: np.ndarray
    stars: np.ndarray
    kind: np.ndarray
    radn: np.ndarray
    base: np.ndarray
    moon: np.ndarray
    second: np.ndarray

    def __init__(self, **arrays: np.ndarray) -> None:
        self.__dict__.update(arrays)

    @property
    def n(self) -> int:
        return self.dtot.shape[0]

    def take(self, idx: np.ndarray) -> "Batch":
        # np.take keeps the piles C-contiguous, so the Drawer's flat views write through
        return Batch(**{name: a.take(idx, axis=-1) for name, a in self.__dict__.items()})

    def put(self, idx: np.ndarray, sub: "Batch", rows: np.ndarray | None = None) -> None:
        """Write ``sub`` (or its columns ``rows``) back into columns ``idx``: changing fields only."""
        for name in self.CHANGING:
            a = getattr(sub, name)
            if rows is not None:
                a = a.take(rows, axis=-1)
            if name in self.PILE:
                self.__dict__[name][:, idx] = a
            else:
                self.__dict__[name][idx] = a


def fresh_batch(t: Tables, n: int) -> Batch:
    """``n`` full, freshly shuffled decks (a count pile is shuffled by construction)."""
    z = lambda dt=np.int16: np.zeros(n, dtype=dt)  # noqa: E731
    return Batch(
        draw=np.repeat(t.counts[:, None], n, axis=1), disc=np.zeros((t.k, n), dtype=np.int16),
        dtot=np.full(n, t.size, dtype=np.int16), ctot=z(), eh=z(), ph=z(), ammo=z(), vp=z(), spent=z(),
        steps=z(np.int32), vp_spent=z(), rad=z(np.int32), attacks=z(), stars=z(), kind=z(np.int8),
        radn=z(), base=z(), moon=z(), second=z(bool),
    )


class Drawer:
    """Draws for a batch: reshuffles, the attack in progress, and putting its cards away."""

    def __init__(self, t: Tables, b: Batch, rng: np.random.Generator, eager: bool) -> None:
        self.t, self.b, self.rng, self.eager = t, b, rng, eager
        self.flat = b.draw.reshape(-1)
        assert np.shares_memory(self.flat, b.draw), "piles must be C-contiguous"
        self.offset = np.arange(b.n, dtype=np.intp)
        self.hand: list[tuple[np.ndarray, np.ndarray]] = []

    def _reshuffle(self, mask: np.ndarray) -> None:
        idx = np.flatnonzero(mask)
        b = self.b
        b.draw[:, idx] = b.disc[:, idx]
        b.disc[:, idx] = 0
        b.dtot[idx] = b.ctot[idx]
        b.ctot[idx] = 0

    def draw(self, want: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """One card for every trial in ``want`` (None: all): (kind index, drawn?) per trial."""
        b, t = self.b, self.t
        if want is None:
            want = np.ones(b.n, dtype=bool)
        empty = want & (b.dtot == 0)
        if empty.any():
            self._reshuffle(empty)
        ok = want & (b.dtot > 0)
        r = (self.rng.random(b.n) * b.dtot).astype(np.int16)
        kind = np.zeros(b.n, dtype=np.intp)
        if t.k > 1:
            c = b.draw[0].copy()
            for i in range(1, t.k):
                kind += c <= r
                if i < t.k - 1:
                    c += b.draw[i]
        where = kind * b.n + self.offset
        self.flat[where] -= ok
        b.dtot -= ok
        if self.eager:
            gone = ok & (b.dtot == 0) & (b.ctot > 0)
            if gone.any():
                self._reshuffle(gone)
        self.hand.append((where, ok))
        return kind, ok

    def put_away(self) -> None:
        """The attack is resolved: every card drawn since the last call goes to the discard pile."""
        disc = self.b.disc.reshape(-1)
        for where, ok in self.hand:
            disc[where] += ok
            self.b.ctot += ok
        self.hand = []


KIND_CODE = {k: i for i, k in enumerate(ENEMY_KINDS)}


Chooser = Callable[[Batch], np.ndarray]  # best play: the ammo of every trial's attack, from its state
# best play at a finish decision: (batch, enemy health beyond the damage counted, skull-less cards
# counted, the trials at a decision) -> redraw? per trial
FinishChooser = Callable[[Batch, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class KernelBest:
    """Best play in the kernel (:func:`kernel_best`): the solved decisions, looked up per trial."""

    ammo: Chooser  # the ammo of each of your attacks
    finish: FinishChooser | None = None  # redraw a skull-less card of your attack? (None: the fixed rule)
    initiative: np.ndarray | None = None  # per kind of health card: redraw it? (None: the fixed rule)


def _player_attack(rules: Rules, t: Tables, b: Batch, d: Drawer, policy: str, bonus: int,
                   finish: bool = False, best: KernelBest | None = None) -> None:
    cap = np.minimum(b.ammo, min(rules.max_ammo_per_attack, t.size))
    n = fixed_ammo(policy)
    if best is not None:
        spend = best.ammo(b)
    elif policy == "all_in":
        spend = cap
    elif n is not None:
        spend = np.minimum(cap, n)
    else:  # just_enough: least k with bonus + k * skulls / size >= enemy health
        need = np.maximum(b.eh.astype(np.int32) - bonus, 0)
        if t.total_skulls:
            k = (need * t.size + t.total_skulls - 1) // t.total_skulls
        else:
            k = np.where(need > 0, 1 << 20, 0)
        spend = np.minimum(k, cap).astype(np.int16)
    b.ammo -= spend
    b.spent += spend
    damage = np.full(b.n, bonus, dtype=np.int16)
    blanks = np.zeros(b.n, dtype=np.int16)  # skull-less cards still counted
    for j in range(int(spend.max(initial=0))):
        kind, ok = d.draw(spend > j)
        damage += t.skulls[kind] * ok
        blanks += (t.skulls[kind] == 0) & ok
    drawn = spend.astype(np.int16)
    decide = best.finish if best is not None else None
    # Redraw a skull-less card while the attack falls short. Each redraw costs its trial
    # redraw_cost VP it must have, so no trial redraws more than max VP // cost times: a bound, not
    # a condition (a mutated test of who redraws could otherwise loop for ever).
    for _ in range(int(b.vp.max()) // rules.redraw_cost if finish else 0):
        short = (damage < b.eh) & (blanks > 0) & (b.vp >= rules.redraw_cost) & (drawn < t.size)
        if decide is not None and short.any():  # best play: redraw, or keep the VP
            short &= decide(b, b.eh - damage, blanks, short)
        if not short.any():
            break
        blanks -= short
        b.vp -= rules.redraw_cost * short
        b.vp_spent += rules.redraw_cost * short
        kind, ok = d.draw(short)
        drawn += ok
        damage += t.skulls[kind] * ok
        blanks += (t.skulls[kind] == 0) & ok
    b.eh -= damage
    d.put_away()


def _raiders_attack(rules: Rules, t: Tables, b: Batch, d: Drawer, redraw: bool) -> None:
    mutant = b.kind == KIND_CODE["mutant"]
    spy = b.kind == KIND_CODE["spybot"]
    raiders = b.kind == KIND_CODE["raiders"]
    damage = np.zeros(b.n, dtype=np.int16)
    drawn = np.zeros(b.n, dtype=np.int16)
    skulls = []
    for j in range(int(np.where(mutant, 0, b.stars).max(initial=0))):
        kind, ok = d.draw((b.stars > j) & ~mutant)
        sk = t.skulls[kind]
        damage += sk * ok
        b.steps += t.triangle[kind] * (ok & spy)
        drawn += ok
        skulls.append(np.where(ok, sk, -1))
    for j in range(int(np.where(mutant, b.radn, 0).max(initial=0))):
        kind, ok = d.draw((b.radn > j) & mutant)
        b.rad += t.has_skull[kind] * ok
    if redraw and skulls:
        cols = np.arange(b.n)
        for _ in range(int(b.vp.max()) // rules.redraw_cost):  # each redraw costs a trial that much
            lethal = raiders & (damage >= b.ph) & (b.vp >= rules.redraw_cost) & (drawn < t.size)
            if not lethal.any():
                break
            stack = np.array(skulls)
            worst = stack.argmax(axis=0)
            top = stack[worst, cols]
            damage -= top * lethal
            skulls = [np.where(lethal & (worst == i), -1, s) for i, s in enumerate(skulls)]
            b.vp -= rules.redraw_cost * lethal
            b.vp_spent += rules.redraw_cost * lethal
            kind, ok = d.draw(lethal)
            drawn += ok
            damage += t.skulls[kind] * ok
            skulls.append(np.where(ok, t.skulls[kind], -1))
    b.ph -= damage * raiders
    d.put_away()


def fight(rules: Rules, t: Tables, b: Batch, rng: np.random.Generator, policy: str, redraw: str,
          bonus: int, best: KernelBest | None = None) -> dict[str, np.ndarray]:
    """Play one combat for every trial of ``b`` (updated in place); per-trial outcome arrays.

    ``best``: best play's decisions per trial (:func:`kernel_best`): the ammo in place of
    ``policy``, and the ``finish`` and ``initiative`` redraws where the rules would make them.

    ``b`` must carry the player's health/ammo/vp and the enemy (base die, stars, kind, radiation
    skulls, moon index or -1, second card); piles carry over from whatever ``b`` holds.
    """
    n = b.n
    uses = redraw_uses(redraw)
    cost = rules.redraw_cost
    eager = rules.reshuffle == "when_empty"
    start_health = b.ph.copy()
    for name in ("spent", "steps", "vp_spent", "rad", "attacks"):
        getattr(b, name)[:] = 0
    d = Drawer(t, b, rng, eager)
    kind, _ = d.draw(None)
    if "initiative" in uses and t.size > 1:  # redraw a card that gives the raiders the initiative
        again = ~t.you[kind] & (b.vp >= cost)
        if best is not None and best.initiative is not None:  # best play: redraw, or keep the VP
            again &= best.initiative[kind]
        b.vp -= cost * again
        b.vp_spent += cost * again
        new, ok = d.draw(again)
        kind = np.where(ok, new, kind)
    b.eh[:] = b.base + t.die[kind]
    player_first = t.you[kind]
    d.put_away()
    for first in (True, False):
        idx = np.flatnonzero(player_first == first)
        if idx.size == 0:
            continue
        live = idx  # positions in ``b`` of the trials of ``cur``, still fighting
        cur = b.take(idx)
        for turn in range(rules.turn_limit):
            dd = Drawer(t, cur, rng, eager)
            if (turn % 2 == 0) == first:
                _player_attack(rules, t, cur, dd, policy, bonus, "finish" in uses, best)
            else:
                _raiders_attack(rules, t, cur, dd, "when_losing" in uses)
            cur.attacks += 1
            done = (cur.eh <= 0) | (cur.ph <= 0)
            if done.any():
                if done.all():
                    break
                # Finished trials go back to ``b`` once; the others fight on, compacted.
                over = np.flatnonzero(done)
                b.put(live[over], cur, over)
                keep = np.flatnonzero(~done)
                live = live[keep]
                cur = cur.take(keep)
        b.put(live, cur)
    win = (b.eh <= 0) & (b.ph > 0)
    lost = b.ph <= 0
    bonus_loot = np.zeros(n, dtype=bool)
    loot = np.full(n, -1, dtype=np.int8)
    b.vp += rules.win_vp * win  # "If you win, you gain: 2 VPs; Loot ..."
    stalemate = ~win & ~lost
    if win.any():
        d = Drawer(t, b, rng, eager)
        kind, ok = d.draw(win)
        if uses & {"loot", "steps"} and t.size > 1:  # redraw a loot card without bonus / that moves
            no_bonus = ("loot" in uses) & ~b.second & (t.moon[kind] != b.moon)
            moves = ("steps" in uses) & (t.triangle[kind] > 0)
            again = ok & (no_bonus | moves) & (b.vp >= cost)
            b.vp -= cost * again
            b.vp_spent += cost * again
            new, ok2 = d.draw(again)
            kind = np.where(ok2, new, kind)
        b.steps += t.triangle[kind] * ok
        bonus_loot = ok & (b.second | (t.moon[kind] == b.moon))
        loot = np.where(ok, t.loot[kind], -1).astype(np.int8)
        d.put_away()
    if stalemate.any():  # the raiders move at the end of any combat: one card for their steps
        d = Drawer(t, b, rng, eager)
        kind, ok = d.draw(stalemate)
        b.steps += t.triangle[kind] * ok
        d.put_away()
    return {
        "player_win": win, "player_lost": lost, "stalemate": stalemate,
        "health_lost": (start_health - np.maximum(b.ph, 0)).astype(np.float64),
        "ammo_spent": b.spent.astype(np.float64), "raider_steps": b.steps.astype(np.float64),
        "vp_gained": (rules.win_vp * win - b.vp_spent).astype(np.float64),
        "radiation": b.rad.astype(np.float64), "attacks": b.attacks.astype(np.float64),
        "bonus_loot": bonus_loot, "loot": loot,
    }


def enemy_moon_index(t: Tables, enemy: Enemy) -> int:
    return t.moons.index(enemy.moon) if enemy.moon in t.moons else -1


def set_enemy(t: Tables, b: Batch, enemy: Enemy, second: bool | np.ndarray, idx: Any = slice(None)) -> None:
    """Put ``enemy`` (fought as the first or second exploration card) into trials ``idx`` of ``b``."""
    b.base[idx] = np.where(second, enemy.die_second, enemy.die_first)
    b.stars[idx] = enemy.stars
    b.kind[idx] = KIND_CODE[enemy.kind]
    b.radn[idx] = enemy.radiation
    b.moon[idx] = enemy_moon_index(t, enemy)
    b.second[idx] = second


def simulate_combat(rules: Rules, setup: CombatSetup, n: int,
                    rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` combats, each from a freshly shuffled full deck."""
    setup = with_rules_policy(rules, setup)
    t = tables(setup.deck)
    b = fresh_batch(t, n)
    b.ph[:] = setup.health
    b.ammo[:] = setup.ammo
    b.vp[:] = setup.vp
    set_enemy(t, b, setup.enemy, setup.second_card)
    best = kernel_best(solved_best(rules, setup)) if setup.policy == "best" else None
    out = fight(rules, t, b, rng, setup.policy, setup.redraw, setup.damage_bonus, best)
    out["objective"] = objective_of(  # float64: win x 1.0, or keep:W's sum with ammo / 2
        setup.objective, out["player_win"], setup.health - out["health_lost"], setup.ammo - out["ammo_spent"]
    )
    return {name: out[name] for name in ALL_METRIC_NAMES}


DENSE_POLICY = 1 << 24  # a solved policy's states up to this many codes are looked up in a table


class StateTable:
    """A solved policy's states and choices, looked up for many trials at once (vectorised).

    A state is a row of small non-negative integers: first ``piles`` piles as counts per class
    of the merged deck (``merge``: classes x kinds of the whole deck, 0/1), then the other
    values. Every state is one integer (mixed radix from the largest value each column holds),
    read in a table of every code or, past ``DENSE_POLICY`` codes, found by a binary search.
    """

    def __init__(self, keys: np.ndarray, choices: np.ndarray, merge: np.ndarray, piles: int) -> None:
        self.merge = merge
        classes = merge.shape[0]
        radix = keys.max(axis=0, initial=0) + 1
        size = math.prod(int(r) for r in radix)
        if size >= 2**62:  # far beyond any exact deck (tests reach it with made-up keys)
            raise InputError("best play: the solved policy has too many states to look up")
        weights = np.cumprod(np.concatenate(([1], radix[:-1]))).astype(np.int64)
        codes = keys @ weights
        self.table: np.ndarray | None = None
        if size <= DENSE_POLICY:
            self.table = np.full(size, -1, dtype=np.int8)
            self.table[codes] = choices
        else:
            order = np.argsort(codes)
            codes, choices = codes[order], choices[order]
        self.codes, self.choices = codes, choices
        span = classes * piles
        # a whole pile's counts -> its part of the code; the limits of each pile's classes
        self.pile_weights = [weights[j * classes:(j + 1) * classes] @ merge for j in range(piles)]
        self.pile_radix = [radix[j * classes:(j + 1) * classes, None] for j in range(piles)]
        self.rest_weights, self.rest_radix = weights[span:], radix[span:]

    def find(self, piles: list[np.ndarray], rest: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The choice of each trial's state (whole piles (kinds, n), the other values (n,) each), and
        whether the table holds that state."""
        fits = np.ones(rest[0].shape, dtype=bool)
        found = np.zeros(rest[0].shape, dtype=np.int64)
        for pile, w, r in zip(piles, self.pile_weights, self.pile_radix):
            fits &= (self.merge @ pile < r).all(axis=0)
            found = found + w @ pile
        for column, w, r in zip(rest, self.rest_weights, self.rest_radix):
            fits &= column < r
            found = found + column.astype(np.int64) * w
        if self.table is not None:
            got = self.table[np.where(fits, found, 0)]
            return got, fits & (got >= 0)
        codes = self.codes  # never empty here: no keys make a table of one code
        at = np.minimum(np.searchsorted(codes, found), codes.size - 1)
        return self.choices[at], fits & (codes[at] == found)


def _merge_matrix(solved: "SolvedCombat") -> np.ndarray:
    """Classes x kinds (0/1): a whole deck's pile counts -> the merged deck's."""
    merge = np.zeros((len(solved.decisions.cards), len(solved.classes)), dtype=np.int64)
    merge[list(solved.classes), range(len(solved.classes))] = 1
    return merge


def chooser(solved: "SolvedCombat") -> Chooser:
    """Best play's ammo in the kernel: each trial's state (draw pile by skulls, healths, ammo, VP,
    attacks made, who attacked first) looked up in the solved policy (:class:`StateTable`). A
    hopeless state spends nothing (the solver values it so, without a policy entry)."""
    policy = solved.decisions.policy
    classes = len(solved.decisions.cards)
    keys = np.array([[*pile, *rest[:5], int(rest[5])] for pile, *rest in policy], dtype=np.int64)
    spends = np.fromiter(policy.values(), dtype=np.int8, count=len(policy))
    table = StateTable(keys.reshape(len(policy), classes + 6), spends, _merge_matrix(solved), 1)

    def choose(b: Batch) -> np.ndarray:
        spend = np.zeros(b.eh.shape, dtype=np.int16)
        held = ~solved.hopeless(b.eh, b.ammo, b.attacks, 1) if solved.passive else np.ones(b.eh.shape, bool)
        if not held.any():
            return spend
        first = b.attacks % 2 == 0  # at your attack: you attacked first iff an even number were made
        got, ok = table.find([b.draw], [b.eh, b.ph, b.ammo, b.vp, b.attacks, first])
        if not ok[held].all():
            raise MonteCarloError("best play met a state the solved policy does not hold")
        spend[held] = got[held]
        return spend

    return choose


def finish_chooser(solved: "SolvedCombat") -> FinishChooser:
    """Best play's ``finish`` redraws in the kernel: each trial's decision node (draw and discard
    piles by skulls, enemy health beyond the damage counted, skull-less cards counted, VP, your
    health, ammo left, attacks made, who attacked first) looked up in the solved decisions."""
    redraws = solved.decisions.redraws
    classes = len(solved.decisions.cards)
    keys = np.array([[*pile, *disc, *rest[:6], int(rest[6])] for pile, disc, *rest in redraws],
                    dtype=np.int64)
    choices = np.fromiter(redraws.values(), dtype=np.int8, count=len(redraws))
    table = StateTable(keys.reshape(len(redraws), 2 * classes + 7), choices, _merge_matrix(solved), 2)

    def redraw(b: Batch, need: np.ndarray, blanks: np.ndarray, at: np.ndarray) -> np.ndarray:
        idx = np.flatnonzero(at)
        attacks = b.attacks[idx]
        rest = [need[idx], blanks[idx], b.vp[idx], b.ph[idx], b.ammo[idx], attacks, attacks % 2 == 0]
        got, ok = table.find([b.draw[:, idx], b.disc[:, idx]], rest)
        if not ok.all():
            raise MonteCarloError("best play met a redraw decision the solved policy does not hold")
        out = np.zeros(b.n, dtype=bool)
        out[idx] = got > 0
        return out

    return redraw


def kernel_best(solved: "SolvedCombat") -> KernelBest:
    """Best play's decisions for the kernel: the ammo, and the redraws best play decides."""
    decided = solved.decisions.decided
    initiative = None
    if "initiative" in decided:
        initiative = np.array([solved.initiative.get(kind, False) for kind in range(len(solved.classes))])
    return KernelBest(chooser(solved), finish_chooser(solved) if "finish" in decided else None, initiative)


# ---------------------------------------------------------------------------------------- exact

_FIELDS = ("player_win", "player_lost", "stalemate", "health_left", "ammo_spent", "raider_steps",
           "vp_spent", "radiation", "attacks", "bonus_loot")
_W = len(_FIELDS)
# positions in a value tuple (the order of _FIELDS)
(_WIN, _LOST, _STALEMATE, _HEALTH_LEFT, _AMMO_SPENT, _RAIDER_STEPS, _VP_SPENT, _RADIATION, _ATTACKS,
 _BONUS_LOOT) = range(_W)


class ExactCombat:
    """Exact expectations of one combat by recursion over the multiset of the draw pile.

    Between attacks every card is in the draw pile or the discard pile, so a state is (draw
    pile counts, enemy health, player health, ammo, VP, attacks made, who attacks first); an
    attack is enumerated draw by draw over (draw pile, discard pile, cards revealed), with the
    same reshuffle rules as the reference. Independent of the kernel's arrays.

    Why not :class:`montecarlo.engine.chain.Chain` (so far): a chain's counters add 1 per tagged
    step, while one attack here adds amounts (raider steps by the cards' triangles, radiation
    cards per skull) that would have to join the state, and a combat's solve is bounded by the
    draws it enumerates (``MAX_EXACT_WORK``) as well as by its states. The sampler would not be
    used either (the kernel draws from pile counts for decks of any size). Measured on the
    12-card illustrative deck: the module's example setup solves 3,157 states through 8,620
    attack outcomes (25,894 enumerated draws) in 0.19 s; road raiders against the interceptor
    with VP redraws 2,683 states, 14,015 outcomes, 0.36 s. Ammo and VP spent and the attacks
    made are read off the state, so a port needs only those two amounts as counters.
    Too large: :class:`montecarlo.engine.chain.ChainTooLarge`, as for a chain.

    Best play (policy ``best``): at each of your attacks every ammo 0..min(ammo, 4, deck size)
    is valued (each option's attack enumerated as above, then the best play that follows) and
    the state takes the option with the largest expected objective; ties go to the least ammo
    (an option must beat it by more than ``TIE_TOLERANCE`` x max(1, |value|)). The state holds
    the draw pile's composition, so the player counts cards. The recursion is a backward
    induction over an acyclic process (attacks only add up), so the value is exact: the
    expected objective of the policy recorded in ``policy`` (state -> ammo), whose options'
    values are in ``option_values``. A state stops valuing its options once one reaches the
    most the objective can give there (a sure win with nothing lost: a later option could only
    tie), and a hopeless state spends nothing unvalued (``passive``); ``prune=False`` values them
    all. ``choose(state, cap) -> ammo`` plays any other policy instead (the tests value every
    deterministic policy of a tiny deck with it). :class:`SolvedCombat` solves the decisions on
    the deck merged by skulls and values the whole deck under them.

    Best play also decides the ``finish`` and ``initiative`` redraws the setup's ``redraw`` names
    (``decided``), where their fixed rule would redraw: redraw, or keep the VP, whichever has the
    larger expected objective (a tie keeps the VP). ``finish`` is decided after each card of
    your attack (:meth:`_finish`): its decision node (``redraws``, worths of stopping and of
    redrawing in ``redraw_values``) is (draw pile, discard pile, enemy health less the damage
    counted, skull-less cards counted, VP, your health, ammo left, attacks made, who first); the
    cards revealed are the deck less both piles, and the damage counted matters only through
    what the enemy has left. ``initiative`` is decided on the health card (``initiative``: its
    kind -> redraw, worths in ``initiative_values``). ``choose_finish(node) -> bool`` and
    ``choose_initiative(kind, keep, redraw) -> bool`` (each option a list of (p, pile, health
    card, VP) starts) play other redraw policies; without them the fixed rule redraws.
    ``decide_redraws=False`` keeps every redraw's fixed rule under best play (the ammo alone
    decided: what deciding the redraws is worth is the difference).
    """

    def __init__(self, rules: Rules, setup: CombatSetup, max_states: int = MAX_EXACT_STATES,
                 choose: Callable[[tuple, int], int] | None = None, max_work: int | None = None,
                 prune: bool = True, choose_finish: Callable[[tuple], bool] | None = None,
                 choose_initiative: Callable[[int, list, list], bool] | None = None,
                 decide_redraws: bool = True) -> None:
        self.rules, self.setup = rules, setup
        deck = setup.deck
        self.cards = deck.cards
        self.full = tuple(deck.counts)
        self.size = deck.size
        self.k = len(self.cards)
        self.eager = rules.reshuffle == "when_empty"
        self.uses = redraw_uses(setup.redraw)
        self.memo: dict[tuple, tuple[float, ...]] = {}
        self.aliases = 0  # memo entries that repeat a hopeless state's value (see ``passive``)
        self.max_states = max_states
        self.max_work = MAX_EXACT_WORK if max_work is None else max_work
        self.work = 0
        self.choose = choose
        # best play skips the ammo left to value at a state once an option reaches the most the
        # objective can give there (a sure win, nothing lost): the later ones could only tie, and
        # a tie goes to the least ammo. ``valued_in_full``: a state whose every option is valued.
        self.prune = prune
        self.valued_in_full: tuple | None = None
        self.best = setup.policy == "best" and choose is None
        # best play in a hopeless state (no way left to bring the enemy to 0) spends nothing when
        # the objective then rewards nothing but ammo kept (win; keep:W against an enemy that
        # deals no damage): every option ties at 0 or loses ammo, and a tie goes to the least
        # ammo. Such states are valued once per (pile, health, VP, attacks, who first), whatever
        # the enemy's health and your ammo (:meth:`_passive`); ``prune=False`` values them in full
        kind, weight = parse_objective(setup.objective)
        self._keep = weight if kind == "keep" else None  # keep:W's weight (None: win)
        harmless = setup.enemy.kind in ("spybot", "mutant")  # an enemy that deals no damage
        self.passive = self.best and prune and (self._keep is None or harmless)
        self.top_skulls = max((c.skulls for c in self.cards), default=0)
        self.policy: dict[tuple, int] = {}  # best play: state -> ammo (state as in _value's memo)
        self.option_values: dict[tuple, tuple[float, ...]] = {}  # best play: state -> value per ammo
        # the redraws decided rather than made by their fixed rule (under policy best only)
        self.decided = (frozenset(self.uses & {"finish", "initiative"})
                        if setup.policy == "best" and decide_redraws else frozenset())
        self.choose_finish, self.choose_initiative = choose_finish, choose_initiative
        self.redraws: dict[tuple, bool] = {}  # best play: finish decision node -> redraw?
        self.redraw_values: dict[tuple, tuple[float, float]] = {}  # node -> worths (stop, redraw)
        self.initiative: dict[int, bool] = {}  # best play: the health card's kind -> redraw it?
        self.initiative_values: dict[int, tuple[float, float]] = {}  # kind -> worths (keep, redraw)
        # memoised pieces: one draw, an attack's outcomes, what a win's loot card adds
        self._draw_memo: dict[tuple, list] = {}
        self._attack_memo: dict[tuple, dict] = {}
        self._loot_memo: dict[tuple, tuple[float, float, float]] = {}

    # piles ----------------------------------------------------------------------------------
    def _draws(self, pile: tuple, disc: tuple):
        """[(prob, pile', disc', kind or None)] for one draw (kind None: nothing left to draw); memoised."""
        key = (pile, disc)
        got = self._draw_memo.get(key)
        if got is None:
            got = self._draw_memo[key] = self._draws_of(pile, disc)
        return got

    def _draws_of(self, pile: tuple, disc: tuple):
        if sum(pile) == 0:
            if sum(disc) == 0:
                return [(1.0, pile, disc, None)]
            pile, disc = disc, (0,) * self.k
        total = sum(pile)
        out = []
        for i, c in enumerate(pile):
            if c:
                left = pile[:i] + (c - 1,) + pile[i + 1:]
                d2 = disc
                if self.eager and sum(left) == 0 and sum(disc) > 0:
                    left, d2 = disc, (0,) * self.k
                out.append((c / total, left, d2, i))
        return out

    def _sequence(self, states: dict, count: int) -> dict:
        """Draw ``count`` more cards in every state {(pile, disc, hand): p}; hand = kinds drawn."""
        for _ in range(count):
            nxt: dict = {}
            self.work += len(states) * self.k
            if self.work > self.max_work:
                raise ChainTooLarge(f"more than {self.max_work:,} enumerated draws")
            for (pile, disc, hand), p in states.items():
                for q, p2, d2, i in self._draws(pile, disc):
                    key = (p2, d2, hand if i is None else tuple(sorted(hand + (i,))))  # a multiset
                    nxt[key] = nxt.get(key, 0.0) + p * q
            states = nxt
        return states

    # combat ---------------------------------------------------------------------------------
    def solve(self) -> dict[str, float]:
        s, cost = self.setup, self.rules.redraw_cost
        acc = [0.0] * _W
        for (pile, disc, hand), p in self._sequence({(self.full, (0,) * self.k, ()): 1.0}, 1).items():
            card = self.cards[hand[0]]
            starts = [(1.0, pile, card, s.vp)]
            if "initiative" in self.uses and card.driver != "you" and s.vp >= cost and self.size > 1:
                again = [(q, p2, self.cards[i], s.vp - cost) for q, p2, _d2, i in self._draws(pile, disc)]
                if self._redraw_first(hand[0], starts, again):
                    acc[_VP_SPENT] += p * cost  # the health card redrawn: it gave the raiders the initiative
                    starts = again
            for q, p2, c, vp in starts:
                v = self._start(p2, c, vp)
                for j in range(_W):
                    acc[j] += p * q * v[j]
        out = dict(zip(_FIELDS, acc))
        win = out.pop("player_win")
        health_left = out.pop("health_left")
        vp_spent = out.pop("vp_spent")
        out.update(player_win=win, health_lost=s.health - health_left,
                   vp_gained=self.rules.win_vp * win - vp_spent)
        out["objective"] = objective_of(s.objective, win, health_left, s.ammo - out["ammo_spent"])
        return {name: out[name] for name in ALL_METRIC_NAMES}

    def _start(self, pile, card, vp) -> tuple[float, ...]:
        """The combat's value once ``card`` (any deck's) has set the enemy's health and the initiative."""
        s = self.setup
        return self._value(pile, s.enemy_die + card.die, s.health, s.ammo, vp, 0, card.driver == "you")

    def start_worths(self, options: tuple[list, ...], start: Callable[[tuple, Card, int], tuple]
                     ) -> tuple[float, ...]:
        """The expected objective of each option at the start, a list of (p, pile, health card, VP)
        valued by ``start`` (:meth:`_start`, or the merged deck's for the whole deck's cards)."""
        ammo = self.setup.ammo
        return tuple(sum(q * self.worth(start(pile, card, vp), ammo) for q, pile, card, vp in starts)
                     for starts in options)

    def _redraw_first(self, kind: int, keep: list, again: list) -> bool:
        """Whether the health card (of kind ``kind``) is redrawn where the ``initiative`` rule would."""
        if "initiative" not in self.decided:
            return True  # the fixed rule
        if not self.best:
            return self.choose_initiative(kind, keep, again) if self.choose_initiative is not None else True
        worths = self.start_worths((keep, again), self._start)
        take = self.initiative[kind] = _beats(worths[1], worths[0])
        self.initiative_values[kind] = (worths[0], worths[1])
        return take

    def worth(self, value: tuple[float, ...], ammo: int) -> float:
        """The objective of a value tuple from a state with ``ammo`` left (what best play maximises)."""
        return float(objective_value(self._keep, value[_WIN], value[_HEALTH_LEFT], ammo - value[_AMMO_SPENT]))

    def _disc_of(self, pile: tuple) -> tuple:
        return tuple(f - c for f, c in zip(self.full, pile))

    def hopeless(self, eh, ammo, attacks, mine_now):
        """Whether the enemy's health ``eh`` is beyond all the damage still possible: the damage
        bonus on each of your attacks left before the turn limit plus the most skulls of a card
        for each ammo (a card redrawn replaces a card: a ``finish`` redraw, one without skulls,
        so no attack deals more). Works on ints and on numpy arrays."""
        mine_left = (self.rules.turn_limit - attacks + mine_now) // 2
        return eh > self.setup.damage_bonus * mine_left + self.top_skulls * ammo

    def _passive(self, pile, ph, vp, attacks, player_first) -> tuple[float, ...]:
        """The value of a hopeless state under best play (see ``passive``): you spend nothing on
        every attack left, so neither the enemy's health nor your ammo changes what follows."""
        key = ("passive", pile, ph, vp, attacks, player_first)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if self.work > self.max_work:  # the draw budget, as in _value: a hopeless state's turns draw too
            raise ChainTooLarge(f"more than {self.max_work:,} enumerated draws")
        if attacks >= self.rules.turn_limit:
            value = self._stalemate(pile, ph)
        elif (attacks % 2 == 0) == player_first:  # your attack, no ammo: no card, no win
            value = self._passive(pile, ph, vp, attacks + 1, player_first)
            value = value[:_ATTACKS] + (value[_ATTACKS] + 1.0,) + value[_ATTACKS + 1:]
        else:
            value = tuple(self._enemy_turn(pile, 1, ph, 0, vp, attacks, player_first, hopeless=True))
        self.memo[key] = value
        return value

    def _stalemate(self, pile, ph) -> tuple[float, ...]:
        """The turn limit reached: a stalemate, and one card for the raiders' steps."""
        steps = sum(q * self.cards[i].triangle for q, _, _, i in self._draws(pile, self._disc_of(pile))
                    if i is not None)
        stalemate = [0.0] * _W
        stalemate[_STALEMATE], stalemate[_HEALTH_LEFT], stalemate[_RAIDER_STEPS] = 1.0, float(ph), steps
        return tuple(stalemate)

    def _value(self, pile, eh, ph, ammo, vp, attacks, player_first) -> tuple[float, ...]:
        key = (pile, eh, ph, ammo, vp, attacks, player_first)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if (self.passive and key != self.valued_in_full
                and self.hopeless(eh, ammo, attacks, (attacks % 2 == 0) == player_first)):
            value = self.memo[key] = self._passive(pile, ph, vp, attacks, player_first)
            self.aliases += 1  # the same value under the hopeless state's own key: not a state
            return value
        if len(self.memo) - self.aliases >= self.max_states or self.work > self.max_work:
            raise ChainTooLarge(f"more than {self.max_states:,} states or {self.max_work:,} draws")
        rules, s = self.rules, self.setup
        if attacks >= rules.turn_limit:  # a stalemate: one card for the raiders' steps
            value = self._stalemate(pile, ph)
            self.memo[key] = value
            return value
        acc = [0.0] * _W
        mine = (attacks % 2 == 0) == player_first
        if mine:
            cap = min(rules.max_ammo_per_attack, ammo, self.size)
            if self.best:
                acc = self._best(key, pile, cap, eh, ph, ammo, vp, attacks, player_first)
            else:
                spend = (self.choose(key, cap) if self.choose is not None
                         else ammo_to_spend(s.policy, cap, eh, s.damage_bonus, s.deck))
                self._attack(acc, spend, pile, eh, ph, ammo, vp, attacks, player_first)
        else:
            acc = self._enemy_turn(pile, eh, ph, ammo, vp, attacks, player_first)
        value = tuple(acc)
        self.memo[key] = value
        return value

    def _attack(self, acc, spend, pile, eh, ph, ammo, vp, attacks, player_first) -> None:
        """Add your attack with ``spend`` ammo, and what follows, to ``acc``."""
        outcomes = self._mine(pile, spend, eh, vp)
        self.work += len(outcomes)
        left, following = ammo - spend, attacks + 1
        value, loot, known = self._value, self._loot, self.memo.get
        weights: list[float] = []
        values: list[tuple[float, ...]] = []
        for outcome, p in outcomes.items():  # your health is unchanged
            acc[_AMMO_SPENT] += p * spend
            acc[_ATTACKS] += p
            if len(outcome) == 4:  # best play decides a finish redraw: what follows from that decision
                p2, damage, d2, blanks = outcome
                weights.append(p)
                values.append(self._finish(p2, d2, eh - damage, blanks, vp, ph, left, attacks, player_first))
                continue
            p2, damage, vp_spent = outcome
            acc[_VP_SPENT] += p * vp_spent
            if eh - damage <= 0:
                acc[_WIN] += p
                acc[_HEALTH_LEFT] += p * ph
                spent, steps, bonus = loot(p2, vp - vp_spent)
                acc[_VP_SPENT] += p * spent
                acc[_RAIDER_STEPS] += p * steps
                acc[_BONUS_LOOT] += p * bonus
                continue
            weights.append(p)
            then = (p2, eh - damage, ph, left, vp - vp_spent, following, player_first)
            values.append(known(then) or value(*then))
        acc[:] = _add_weighted(acc, weights, values)

    def _best(self, key, pile, cap, eh, ph, ammo, vp, attacks, player_first) -> list[float]:
        """Best play at your attack: every ammo 0..cap valued, the best kept (ties: the least ammo)."""
        options, worths = [], []
        chosen = 0
        most = [0.0] * _W  # a sure win with all your health and ammo kept: no option does better
        most[_WIN], most[_HEALTH_LEFT] = 1.0, float(ph)
        top = self.worth(tuple(most), ammo)
        for spend in range(cap + 1):
            acc = [0.0] * _W
            self._attack(acc, spend, pile, eh, ph, ammo, vp, attacks, player_first)
            options.append(acc)
            worths.append(self.worth(tuple(acc), ammo))
            if _beats(worths[spend], worths[chosen]):
                chosen = spend
            if self.prune and key != self.valued_in_full and top <= worths[chosen] + TIE_TOLERANCE * max(
                    1.0, abs(worths[chosen])):
                break  # no later option can beat it by more than the tie tolerance: it is chosen
        self.policy[key] = chosen
        self.option_values[key] = tuple(worths)
        return options[chosen]

    def _mine(self, pile, spend, eh, vp) -> dict:
        """Outcomes of your attack: {(pile', damage, VP spent): p}, with ``finish`` redraws (memoised:
        without them the outcomes depend on the draw pile and the ammo only)."""
        key = ("mine", pile, spend) + ((eh, vp) if "finish" in self.uses else ())
        got = self._attack_memo.get(key)
        if got is None:
            got = self._attack_memo[key] = self._mine_of(pile, self._disc_of(pile), spend, eh, vp)
        else:
            self.work += 1
        return got

    def _mine_of(self, pile, disc, spend, eh, vp) -> dict:
        s, cost = self.setup, self.rules.redraw_cost
        out: dict = {}
        states = self._sequence({(pile, disc, ()): 1.0}, spend)
        if "finish" in self.decided:  # where the fixed rule would redraw, a decision (:meth:`_finish`)
            for (p2, d2, hand), p in states.items():
                damage = s.damage_bonus + sum(self.cards[i].skulls for i in hand)
                blanks = sum(1 for i in hand if self.cards[i].skulls == 0)
                if damage < eh and blanks and vp >= cost and len(hand) < self.size:
                    key: tuple = (p2, damage, d2, blanks)
                else:
                    key = (p2, damage, 0)
                out[key] = out.get(key, 0.0) + p
            return out
        frontier = {(p2, d2, hand, hand, 0): p for (p2, d2, hand), p in states.items()}
        while frontier:
            nxt: dict = {}
            for (p2, d2, hand, counted, spent), p in frontier.items():
                damage = s.damage_bonus + sum(self.cards[i].skulls for i in counted)
                blank = next((j for j, i in enumerate(counted) if self.cards[i].skulls == 0), None)
                if ("finish" in self.uses and damage < eh and blank is not None and vp - spent >= cost
                        and len(hand) < self.size):
                    kept = counted[:blank] + counted[blank + 1:]
                    self.work += self.k
                    for q, p3, d3, i in self._draws(p2, d2):
                        k2 = (p3, d3, tuple(sorted(hand + (i,))), tuple(sorted(kept + (i,))), spent + cost)
                        nxt[k2] = nxt.get(k2, 0.0) + p * q
                    continue
                key = (p2, damage, spent)
                out[key] = out.get(key, 0.0) + p
            frontier = nxt
        return out

    def _finish(self, pile, disc, need, blanks, vp, ph, ammo, attacks, player_first) -> tuple[float, ...]:
        """Your attack at a ``finish`` decision (best play): the enemy has ``need`` health beyond the
        damage counted, ``blanks`` skull-less cards are counted, and ``vp`` pay for a redraw.
        Stop (the attack is resolved) or redraw the first skull-less card counted (then decide
        again where the rule would redraw again); the value is what follows, VP spent included
        (neither this attack's ammo nor the attack itself: :meth:`_attack` counts them)."""
        node = (pile, disc, need, blanks, vp, ph, ammo, attacks, player_first)
        key = ("finish",) + node
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if len(self.memo) - self.aliases >= self.max_states or self.work > self.max_work:
            raise ChainTooLarge(f"more than {self.max_states:,} states or {self.max_work:,} draws")
        if self.best:
            stop = self._after_attack(pile, need, ph, ammo, vp, attacks, player_first)
            again = self._redrawn(*node)
            worths = (self.worth(stop, ammo), self.worth(again, ammo))
            take = self.redraws[node] = _beats(worths[1], worths[0])  # a tie keeps the VP
            self.redraw_values[node] = worths
            value = again if take else stop
        elif self.choose_finish is None or self.choose_finish(node):
            value = self._redrawn(*node)
        else:
            value = self._after_attack(pile, need, ph, ammo, vp, attacks, player_first)
        self.memo[key] = value
        return value

    def _redrawn(self, pile, disc, need, blanks, vp, ph, ammo, attacks, player_first) -> tuple[float, ...]:
        """A ``finish`` redraw made: its cost, one more card, then a decision or the attack's end."""
        cost = self.rules.redraw_cost
        acc = [0.0] * _W
        acc[_VP_SPENT] = float(cost)
        weights: list[float] = []
        values: list[tuple[float, ...]] = []
        self.work += self.k
        for q, p2, d2, i in self._draws(pile, disc):  # a card is left: the rule asks for one
            skulls = self.cards[i].skulls
            need2, blanks2, vp2 = need - skulls, blanks - 1 + (skulls == 0), vp - cost
            weights.append(q)
            if need2 > 0 and blanks2 and vp2 >= cost and sum(p2) + sum(d2) > 0:  # a card left to draw
                values.append(self._finish(p2, d2, need2, blanks2, vp2, ph, ammo, attacks, player_first))
            else:
                values.append(self._after_attack(p2, need2, ph, ammo, vp2, attacks, player_first))
        return tuple(_add_weighted(acc, weights, values))

    def _after_attack(self, pile, eh, ph, ammo, vp, attacks, player_first) -> tuple[float, ...]:
        """Your attack resolved with the enemy at ``eh``: a win (and its loot card), or what follows."""
        if eh > 0:
            return self._value(pile, eh, ph, ammo, vp, attacks + 1, player_first)
        value = [0.0] * _W
        value[_WIN], value[_HEALTH_LEFT] = 1.0, float(ph)
        value[_VP_SPENT], value[_RAIDER_STEPS], value[_BONUS_LOOT] = self._loot(pile, vp)
        return tuple(value)

    def _raiders(self, pile, ph, vp) -> dict:
        """Outcomes of one enemy attack: {(pile', damage, raider steps, radiation, VP spent): p}
        (memoised: without ``when_losing`` redraws they depend on the draw pile only)."""
        key = ("raiders", pile) + ((ph, vp) if "when_losing" in self.uses else ())
        got = self._attack_memo.get(key)
        if got is None:
            got = self._attack_memo[key] = self._raiders_of(pile, self._disc_of(pile), ph, vp)
        else:
            self.work += 1
        return got

    def _raiders_of(self, pile, disc, ph, vp) -> dict:
        e, rules = self.setup.enemy, self.rules
        out: dict = {}
        if e.kind == "mutant":
            for (p2, _d2, hand), p in self._sequence({(pile, disc, ()): 1.0}, e.radiation).items():
                rad = sum(1 for i in hand if self.cards[i].skulls >= 1)
                key = (p2, 0, 0, rad, 0)
                out[key] = out.get(key, 0.0) + p
            return out
        states = self._sequence({(pile, disc, ()): 1.0}, e.stars)
        # (pile, disc, cards revealed, cards still counted, VP spent) -> p
        frontier = {(p2, d2, hand, hand, 0): p for (p2, d2, hand), p in states.items()}
        while frontier:
            nxt: dict = {}
            for (p2, d2, hand, counted, spent), p in frontier.items():
                damage = sum(self.cards[i].skulls for i in counted)
                if e.kind == "spybot":
                    key = (p2, 0, sum(self.cards[i].triangle for i in hand), 0, 0)
                    out[key] = out.get(key, 0.0) + p
                    continue
                if ("when_losing" in self.uses and damage >= ph and vp - spent >= rules.redraw_cost
                        and len(hand) < self.size):
                    worst = max(range(len(counted)), key=lambda j: self.cards[counted[j]].skulls)
                    kept = counted[:worst] + counted[worst + 1:]
                    self.work += self.k
                    for q, p3, d3, i in self._draws(p2, d2):
                        k2 = (p3, d3, tuple(sorted(hand + (i,))), tuple(sorted(kept + (i,))),
                              spent + rules.redraw_cost)
                        nxt[k2] = nxt.get(k2, 0.0) + p * q
                    continue
                key = (p2, damage, 0, 0, spent)
                out[key] = out.get(key, 0.0) + p
            frontier = nxt
        return out

    def _loot(self, pile, vp) -> tuple[float, float, float]:
        """A win's loot card (and its redraw): expected (VP spent, raider steps, bonus loot); memoised."""
        key = (pile, vp)
        got = self._loot_memo.get(key)
        if got is not None:
            return got
        s, cost = self.setup, self.rules.redraw_cost
        vp_spent = steps = bonus = 0.0
        for q, p2, d2, i in self._draws(pile, self._disc_of(pile)):
            if i is None:
                continue
            card = self.cards[i]
            loot = [(1.0, card)]
            no_bonus = "loot" in self.uses and not s.second_card and card.moon != s.enemy.moon
            moves = "steps" in self.uses and card.triangle > 0
            if (no_bonus or moves) and vp + self.rules.win_vp >= cost and self.size > 1:
                vp_spent += q * cost  # the loot card redrawn: no bonus loot, or raider steps
                loot = [(r, self.cards[j]) for r, _, _, j in self._draws(p2, d2) if j is not None]
            for r, c in loot:
                steps += q * r * c.triangle
                bonus += q * r * (s.second_card or c.moon == s.enemy.moon)
        got = self._loot_memo[key] = (vp_spent, steps, bonus)
        return got

    def _enemy_turn(self, pile, eh, ph, ammo, vp, attacks, player_first, hopeless=False) -> list[float]:
        """The enemy's attack and what follows (its own amounts included); ``hopeless``: what
        follows is :meth:`_passive`'s. Your attacks leave the enemy alive here."""
        acc = [0.0] * _W
        outcomes = self._raiders(pile, ph, vp)
        self.work += len(outcomes)
        following = attacks + 1
        follow = self._passive if hopeless else None
        value, known = self._value, self.memo.get
        weights: list[float] = []
        values: list[tuple[float, ...]] = []
        for (p2, damage, steps, rad, vp_spent), p in outcomes.items():
            acc[_RAIDER_STEPS] += p * steps
            acc[_VP_SPENT] += p * vp_spent
            acc[_RADIATION] += p * rad
            acc[_ATTACKS] += p
            if ph - damage <= 0:
                acc[_LOST] += p
                continue
            weights.append(p)
            if follow is not None:
                values.append(follow(p2, ph - damage, vp - vp_spent, following, player_first))
            else:
                then = (p2, eh, ph - damage, ammo, vp - vp_spent, following, player_first)
                values.append(known(then) or value(*then))
        return _add_weighted(acc, weights, values)


def _beats(value: float, than: float) -> bool:
    """Whether an option worth ``value`` is chosen over one worth ``than`` listed before it: by more
    than ``TIE_TOLERANCE`` x max(1, |than|) (a tie keeps the first: the least ammo, no redraw)."""
    return value > than + TIE_TOLERANCE * max(1.0, abs(than))


def _add_weighted(acc: list[float], weights: list[float], values: list[tuple[float, ...]]) -> list[float]:
    """``acc`` plus the sum of weight x value over what may follow, as a list: one matrix product
    once there are several (cheaper than a Python loop over the fields)."""
    if len(values) > 3:
        return (np.asarray(acc) + np.asarray(weights) @ np.asarray(values)).tolist()
    for p, v in zip(weights, values):
        acc = [a + p * b for a, b in zip(acc, v)]
    return acc


def exact_combat(rules: Rules, setup: CombatSetup,
                 max_cards: int = MAX_EXACT_CARDS) -> dict[str, float] | None:
    """Every metric exactly, for decks of at most ``max_cards`` cards.

    None if the deck is larger, or if the recursion needs more than ``MAX_EXACT_STATES`` states
    or ``MAX_EXACT_WORK`` enumerated draws (long combats: a turn limit far away, little damage).
    """
    setup = with_rules_policy(rules, setup)
    if setup.deck.size > max_cards:
        return None
    if setup.policy == "best":
        solved = _solved_best(rules, setup)
        return None if solved is None else dict(solved.values)
    try:
        return ExactCombat(rules, setup).solve()
    except ChainTooLarge:
        if len(_GAVE_UP) >= 64:
            _GAVE_UP.pop(next(iter(_GAVE_UP)))
        _GAVE_UP[rules, setup] = MAX_EXACT_WORK
        return None


_GAVE_UP: dict[tuple[Rules, CombatSetup], int] = {}  # setups the solver gave up on -> its work budget
MAX_BEST_WORK = 2 * MAX_EXACT_WORK  # best play's budget of draws: it values every ammo of every attack


def by_skulls(deck: Deck) -> tuple[Deck, tuple[int, ...]]:
    """The deck with its kinds of card merged by skulls, and each kind's class (its index there).

    Best play's objective (win; health and ammo kept) depends on the cards only through their
    skulls once the first card has set the enemy's health and the initiative: your damage, the
    raiders' damage, the ``when_losing`` and ``finish`` redraws (and best play's ``finish``
    decisions) all read skulls, while triangles and moons only move metrics (raider steps, bonus
    loot); the ``initiative`` decision, on the first card, is made with the whole deck's cards
    (:meth:`SolvedCombat.decide_initiative`). A draw pile's counts per class evolve
    as a Markov chain of their own (a draw takes a class with probability count / total), so the
    decisions solved on the merged deck are exact for the whole deck, on far fewer piles (the
    12-card deck: 125 piles instead of 729)."""
    levels = sorted({c.skulls for c in deck.cards})
    classes = tuple(levels.index(c.skulls) for c in deck.cards)
    counts = [0] * len(levels)
    for kind, copies in zip(classes, deck.counts):
        counts[kind] += copies
    cards = tuple(Card(f"{skulls} skulls", 0, "you", 0, skulls, "", "") for skulls in levels)
    return Deck(f"{deck.name}, by skulls", deck.file, cards, tuple(counts)), classes


class SolvedCombat:
    """A combat solved under best play.

    The decisions are solved on the deck merged by skulls (:func:`by_skulls`; ``decisions`` is
    that solve, with its ``policy`` and ``option_values``); :meth:`decide` plays them on the
    whole deck's states, and ``values`` (every metric and the objective, exactly) is the exact
    value of the whole combat under that policy. ``passive`` and :meth:`hopeless` are the
    decisions' (a hopeless state spends nothing and has no policy entry). The ``finish``
    redraws are decided on the merged deck too (:meth:`decide_finish`); the ``initiative``
    redraw, decided on the health card, whose die and driver are not its skulls, is decided
    for each kind of the whole deck's card from the merged solve's values of the start states
    (:meth:`decide_initiative`; ``initiative``: kind -> redraw, once solved).
    """

    def __init__(self, rules: Rules, setup: CombatSetup, decide_redraws: bool = True) -> None:
        self.rules, self.setup, self.decide_redraws = rules, setup, decide_redraws
        merged, self.classes = by_skulls(setup.deck)
        self.decisions = ExactCombat(rules, dataclasses.replace(setup, deck=merged), max_work=MAX_BEST_WORK,
                                     decide_redraws=decide_redraws)
        self.passive = self.decisions.passive
        self.hopeless = self.decisions.hopeless
        self.values: dict[str, float] = {}
        self.initiative: dict[int, bool] = {}
        self.initiative_values: dict[int, tuple[float, float]] = {}

    def merge(self, pile: tuple) -> tuple:
        """A whole deck's pile as counts per class."""
        counts = [0] * len(self.decisions.cards)
        for kind, copies in zip(self.classes, pile):
            counts[kind] += copies
        return tuple(counts)

    def decide(self, state: tuple, cap: int = 0) -> int:
        """Best play's ammo at your attack in ``state`` (a whole deck's state, as ExactCombat's
        keys); the decision is solved on demand."""
        key = (self.merge(state[0]),) + tuple(state[1:])
        got = self.decisions.policy.get(key)
        if got is None:
            self.decisions._value(*key)
            got = self.decisions.policy.get(key, 0)  # a hopeless state spends nothing
        return got

    def decide_finish(self, node: tuple) -> bool:
        """Best play at a ``finish`` decision of your attack (a whole deck's node, as
        :meth:`ExactCombat._finish`'s): redraw? Solved on demand."""
        key = (self.merge(node[0]), self.merge(node[1])) + tuple(node[2:])
        got = self.decisions.redraws.get(key)
        if got is None:
            self.decisions._finish(*key)
            got = self.decisions.redraws[key]
        return got

    def decide_initiative(self, kind: int, keep: list, again: list) -> bool:
        """Best play on a health card of the whole deck's kind ``kind`` that gives the raiders the
        initiative: redraw it? ``keep`` and ``again`` are the whole deck's starts (p, pile, health
        card, VP), valued by the merged solve (the objective reads skulls only after this card)."""
        got = self.initiative.get(kind)
        if got is None:
            d = self.decisions
            worths = d.start_worths((keep, again),
                                    lambda pile, card, vp: d._start(self.merge(pile), card, vp))
            got = self.initiative[kind] = _beats(worths[1], worths[0])
            self.initiative_values[kind] = (worths[0], worths[1])
        return got

    def redraws_health_card(self, kind: int) -> bool:
        """Best play on a fresh deck's health card of kind ``kind`` where the ``initiative`` rule would
        redraw it (as solved; the fixed rule where best play does not decide it)."""
        return self.initiative[kind] if "initiative" in self.decisions.decided else True

    def solve(self) -> dict[str, float]:
        self.values = ExactCombat(self.rules, self.setup, choose=self.decide,
                                  choose_finish=self.decide_finish,
                                  choose_initiative=self.decide_initiative,
                                  decide_redraws=self.decide_redraws).solve()
        return self.values


@functools.lru_cache(maxsize=256)
def _solved_best(rules: Rules, setup: CombatSetup) -> SolvedCombat | None:
    """Best play of a combat solved exactly (memoised), or None when it is too large."""
    if setup.deck.size > MAX_EXACT_CARDS:
        return None
    solver = SolvedCombat(rules, setup)
    try:
        solver.solve()
    except ChainTooLarge:
        return None
    return solver


def check_something_to_choose(rules: Rules, setup: CombatSetup) -> None:
    """InputError under best play when the combat leaves nothing to decide: no ammo to spend and
    no redraw for initiative that its VP can pay (no VP comes in before the combat's first card)
    and its deck can offer (a raiders' card first, and another to draw): its odds would be a fixed
    policy's."""
    setup = with_rules_policy(rules, setup)
    if setup.policy != "best" or setup.ammo > 0:
        return
    if "initiative" not in redraw_uses(setup.redraw):
        raise InputError("best play: with no ammo there is no choice of ammo to make")
    if setup.vp < rules.redraw_cost:
        raise InputError(
            f"best play: with no ammo and {setup.vp} VP, short of the {rules.redraw_cost} VP an initiative "
            "redraw costs, there is no choice to make"
        )
    if setup.deck.size < 2 or all(card.driver == "you" for card in setup.deck.cards):
        raise InputError(
            "best play: with no ammo, and no first card of this deck that gives the raiders the initiative "
            "with another card left to draw, an initiative redraw is never a choice"
        )


def check_best_alone(rules: Rules, setup: CombatSetup) -> None:
    """One combat asked alone under best play (the CLI's and ``montecarlo.odds``): refused in one
    line when there is nothing to decide or it is too large to solve exactly, before any trial."""
    check_something_to_choose(rules, setup)
    if with_rules_policy(rules, setup).policy == "best":
        solved_best(rules, setup)


def solved_best(rules: Rules, setup: CombatSetup) -> SolvedCombat:
    """Best play of a combat (policy ``best``), solved exactly; InputError in one line when the
    combat has no exact solve (best play needs it)."""
    setup = with_rules_policy(rules, setup)
    solved = _solved_best(rules, setup)
    if solved is None:
        why = (why_no_exact(rules, setup) or "").replace("exact value", "best play", 1)
        raise InputError(why + ", and best play needs the exact solve of every decision")
    return solved


def why_no_exact(rules: Rules, setup: CombatSetup) -> str | None:
    """Why :func:`exact_combat` gives no value for this setup; None when it gives one."""
    setup = with_rules_policy(rules, setup)
    if setup.deck.size > MAX_EXACT_CARDS:
        return (f"exact value unavailable because the deck has {setup.deck.size} cards; "
                f"the exact solver handles decks of up to {MAX_EXACT_CARDS}")
    budget = MAX_EXACT_WORK
    if setup.policy == "best":
        if _solved_best(rules, setup) is not None:
            return None
        budget = MAX_BEST_WORK
    elif _GAVE_UP.get((rules, setup)) != MAX_EXACT_WORK and exact_combat(rules, setup) is not None:
        return None
    return (f"exact value unavailable because the solve needs more than {MAX_EXACT_STATES:,} states "
            f"or {budget:,} enumerated draws (a long combat)")


def parse_seen(deck: Deck, seen: Any) -> tuple[int, ...]:
    """Cards seen since the last shuffle -> count per kind of ``deck.cards``: names separated by
    commas ("double tap, empty road, double tap"), a list of names, or a mapping name -> copies
    ({"double tap": 2}); InputError for an unknown name, another type, or more copies than the
    deck holds.

    >>> deck = load_deck("illustrative-12")
    >>> parse_seen(deck, "double tap, double tap") == parse_seen(deck, {"Double Tap": 2})
    True
    """
    names = {card_key(c.name): i for i, c in enumerate(deck.cards)}
    counts = [0] * len(deck.cards)
    if isinstance(seen, str):
        items = [(item, 1) for item in seen.split(",")]
    elif isinstance(seen, Mapping):
        items = list(seen.items())
    elif isinstance(seen, (list, tuple)):
        items = [(item, 1) for item in seen]
    elif seen is None:
        items = []
    else:
        raise InputError(f"seen: give card names separated by commas, a list of names, or a mapping of "
                         f"names to copies, got {seen!r}")
    for item, copies in items:
        if not isinstance(item, str):
            raise InputError(f"seen: a card is named by text, got {item!r}")
        whole("seen copies", copies, 0, MAX_SEEN_COPIES)
        name = card_key(item)
        if not name:
            continue
        if name not in names:
            raise InputError(f"seen: no card named {item.strip()!r} in the deck; known: "
                             f"{', '.join(c.name for c in deck.cards)}")
        counts[names[name]] += copies
        if counts[names[name]] > deck.counts[names[name]]:
            raise InputError(f"seen: {deck.cards[names[name]].name} is seen more often than the deck's "
                             f"{deck.counts[names[name]]} copies")
    return tuple(counts)


MAX_SEEN_COPIES = 1000  # a mapping's copies of one card: bounded before the deck's own count says more


@dataclass(frozen=True)
class AmmoAdvice:
    """The value of each ammo choice at your attack now (:func:`advise`), best first."""

    objective: str  # "win" or "keep:W"
    options: tuple[tuple[int, float], ...]  # (ammo, expected objective of spending it, then playing best)
    best: int  # best play's choice (ties go to the least ammo)
    pile: tuple[tuple[str, int], ...]  # the draw pile: (card, copies left)


def advise(rules: Rules, setup: CombatSetup, enemy_health: int, seen: Any = ()) -> AmmoAdvice:
    """Best play at your attack now: the value of spending each ammo 0..min(ammo, 4), exactly.

    The draw pile is the deck less the cards ``seen`` since the last shuffle (the others are in
    the discard pile); ``setup`` gives your health, ammo, damage bonus and VP, the enemy and the
    objective (``win`` by default); no attack has been made yet (the turn limit counts from now).
    """
    whole("enemy_health", enemy_health, 1, MAX_HEALTH)
    if setup.ammo == 0:
        raise InputError("advise: with no ammo there is no choice of ammo to make")
    setup = dataclasses.replace(setup, policy="best", objective=setup.objective or "win")
    if setup.deck.size > MAX_EXACT_CARDS:
        raise InputError(f"advise needs the exact solve: the deck has {setup.deck.size} cards, the exact "
                         f"solver handles decks of up to {MAX_EXACT_CARDS}")
    out = parse_seen(setup.deck, seen)
    pile = tuple(c - o for c, o in zip(setup.deck.counts, out))
    solved = SolvedCombat(rules, setup)  # the decisions, solved on the deck merged by skulls
    solver = solved.decisions
    key = (solved.merge(pile), enemy_health, setup.health, setup.ammo, setup.vp, 0, True)
    solver.valued_in_full = key
    try:
        solver._value(*key)
    except ChainTooLarge:
        raise InputError("advise: this combat is too long for the exact solver (more than "
                         f"{MAX_BEST_WORK:,} enumerated draws)") from None
    values = solver.option_values[key]
    order = sorted(range(len(values)), key=lambda k: (-round(values[k], 12), k))
    # exact values, shown to 12 places: sums in another order differ in the 16th
    return AmmoAdvice(setup.objective, tuple((k, round(values[k], 12)) for k in order), solver.policy[key],
                      tuple((c.name, n) for c, n in zip(setup.deck.cards, pile)))


def advice_table(rules: Rules, setup: CombatSetup, inputs: Mapping[str, Any]) -> AdviceTable:
    """:func:`advise` as the combat question's advice (``inputs``: ``enemy_health``, required, and
    ``seen``): your attack now, one row per ammo choice, best first."""
    if "enemy_health" not in inputs:
        raise InputError("advice needs enemy_health: the enemy's health now")
    if setup.policy != "best" or rules.ammo_policy not in ("", "best"):
        fixed = rules.ammo_policy if rules.ammo_policy not in ("", "best") else setup.policy
        raise InputError(f"ammo policy {fixed}: advice plays best play's ammo itself; leave out the policy")
    advice = advise(rules, setup, inputs["enemy_health"], inputs.get("seen", ()))
    left = ", ".join(f"{n} x{c}" for n, c in advice.pile if c) or "empty (the discard pile is shuffled)"
    where = f"your attack now, enemy health {inputs['enemy_health']}, draw pile: {left}"
    rows = tuple(AdviceRow(where, f"{k} ammo", v, k == advice.best) for k, v in advice.options)
    what = "P(you win)" if advice.objective == "win" else f"expected {advice.objective}"
    return AdviceTable(what, advice.options[0][1], {}, rows)


# ---------------------------------------------------------------------------------------- game

METRICS = (
    Metric("player_win", "probability", "you defeat the enemy"),
    Metric("player_lost", "probability", "your health falls to 0 or below"),
    Metric("stalemate", "probability",
           "both are still alive after the turn limit (as when you have no ammo left against a spybot "
           "or mutant)"),
    Metric("health_lost", "mean", "health you lose (down to 0)"),
    Metric("ammo_spent", "mean", "ammo you spend"),
    Metric("raider_steps", "mean",
           "raider steps: spybot attacks, and the loot card's triangles (a win) or one card's (a stalemate)"),
    Metric("vp_gained", "mean", "VP gained: win_vp for a win, less VP spent on redraws"),
    Metric("radiation", "mean", "radiation cards from mutant attacks (in a stalemate, until the turn limit)"),
    Metric("attacks", "mean", "attacks made, both sides"),
    Metric("bonus_loot", "probability", "you win and take the enemy's bonus loot"),
)
METRIC_NAMES = tuple(m.name for m in METRICS)  # what a combat reports (campaigns and the road too)
OBJECTIVE = Metric("objective", "mean",
                   "your objective (win, or keep:W = W per win + health left + ammo left / 2)",
                   unit_field="objective")
ALL_METRIC_NAMES = METRIC_NAMES + ("objective",)


def applicable_combat(setup: CombatSetup) -> tuple[str, ...]:
    """Every metric, but ``objective`` only where the setup asks for one."""
    return ALL_METRIC_NAMES if setup.objective else METRIC_NAMES

QUESTIONS = {
    "combat": Question(
        name="combat",
        description="one combat against an enemy: win odds, health lost, ammo, raider steps, VP",
        setup_type=CombatSetup,
        metrics=METRICS + (OBJECTIVE,),
        applicable=applicable_combat,
        simulate=simulate_combat,
        exact=exact_combat,
        why_no_exact=why_no_exact,
        check_alone=check_best_alone,
        parse_setup=parse_combat,
        reference=reference_combat,
        example={"enemy": "road raiders", "vehicle": "interceptor", "policy": "all_in"},
        inputs={**CARD_COUNTS_INPUT, **ENEMY_INPUTS},
        advise=advice_table,
        # as the CLI's advise: the exact solve needs a small deck; the policy is best play's
        advise_defaults={"deck": "illustrative-12", "policy": "best"},
        advise_inputs={
            "enemy_health": "the enemy's health now (required)",
            "seen": "cards seen since the last shuffle, comma-separated names (out of the draw pile)",
        },
    ),
}
