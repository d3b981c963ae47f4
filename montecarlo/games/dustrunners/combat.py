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
   attack and the loot card (:func:`check_redraw`).
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

import functools
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from montecarlo.engine.chain import ChainTooLarge
from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question
from montecarlo.games.dustrunners.deck import (
    ENEMY_KINDS, LOOTS, Card, Deck, Enemy, enemy as named_enemy, load_deck, vehicle as named_vehicle,
)
from montecarlo.games.dustrunners.rules import Rules
from montecarlo.validate import check_known, whole

REDRAW_POLICIES = ("never", "when_losing")  # the single-use policies of earlier versions, still valid
# The rulebook's uses of a VP redraw that change a combat's result, in the order they arise:
# the enemy's health and initiative card, your attack's damage, the damage dealt to you, the loot
# card's moon and loot, and the loot card's raider steps.
REDRAW_USES = ("initiative", "finish", "when_losing", "loot", "steps")
_FIXED = re.compile(r"fixed:(\d+)")  # used with fullmatch: no trailing newline slips through
MAX_EXACT_CARDS = 16  # the exact solver tries decks of at most this many cards (within its budget)
MAX_EXACT_STATES = 400_000  # memoised states before the exact solver gives up (returns None)
MAX_EXACT_WORK = 2_000_000  # enumerated draw outcomes before it gives up (a few seconds at most)
MAX_HEALTH = 99


def check_ammo_policy(policy: Any) -> str:
    """``all_in``, ``just_enough`` or ``fixed:N``; InputError otherwise.

    >>> check_ammo_policy("fixed:2")
    'fixed:2'
    """
    if policy in ("all_in", "just_enough") or (isinstance(policy, str) and _FIXED.fullmatch(policy)):
        return policy
    raise InputError(f"policy must be all_in, just_enough or fixed:N (N = ammo per attack), got {policy!r}")


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
    m = _FIXED.fullmatch(policy)
    return int(m.group(1)) if m else None


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
        policy: ammo per attack, ``all_in``, ``fixed:N`` or ``just_enough``.
        redraw: VP redraw policy: ``never``, or the uses among ``initiative`` (redraw the enemy's
            health card when it gives the raiders the initiative), ``finish`` (redraw a skull-less
            card of your attack while it falls short), ``when_losing`` (redraw the worst card of a
            lethal raiders' attack), ``loot`` (redraw a loot card that brings no bonus loot),
            ``steps`` (redraw a loot card that moves the raider); ``all`` for every one.
        vehicle: the shipped vehicle the values came from, if any (for the record).
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

    def __post_init__(self) -> None:
        whole("health", self.health, 1, MAX_HEALTH)
        whole("ammo", self.ammo, 0, MAX_HEALTH)
        whole("damage_bonus", self.damage_bonus, 0, MAX_HEALTH)
        whole("vp", self.vp, 0, 999)
        if not isinstance(self.second_card, bool):
            raise InputError(f"second_card must be true or false, got {self.second_card!r}")
        check_ammo_policy(self.policy)
        object.__setattr__(self, "redraw", check_redraw(self.redraw))

    @property
    def enemy_die(self) -> int:
        return self.enemy.die_second if self.second_card else self.enemy.die_first


_COMBAT_KEYS = (
    "deck", "card_counts", "enemy", "second_card", "enemy_die", "enemy_stars", "enemy_kind",
    "enemy_radiation", "enemy_moon", "vehicle", "health", "ammo", "damage_bonus", "vp", "policy", "redraw",
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
            raise InputError(f"give either enemy (a shipped enemy) or {', '.join(custom)}, not both")
        return named_enemy(values["enemy"])
    if "enemy_die" not in values:
        raise InputError("enemy: give a shipped enemy name (enemy) or its die value (enemy_die)")
    die = whole("enemy_die", values["enemy_die"], 0, 6)  # an enemy card's die value, as in enemies.toml
    kind = values.get("enemy_kind", "raiders")
    if kind not in ENEMY_KINDS:
        raise InputError(f"enemy_kind must be one of {', '.join(ENEMY_KINDS)}, got {kind!r}")
    stars = whole("enemy_stars", values.get("enemy_stars", 0 if kind == "mutant" else 1), 0, 20)
    radiation = whole("enemy_radiation", values.get("enemy_radiation", 1 if kind == "mutant" else 0), 0, 2)
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
        vehicle=car,
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
                    policy: str, redraw: str, piles: Piles) -> dict[str, Any]:
    """One combat played literally with real piles; updates ``me`` and ``piles`` in place."""
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
            and deck.size > 1):  # "Change the starting health of your enemy and combat initiative"
        pay()
        first = piles.draw_card(hand) or first
    enemy_health = (enemy.die_second if second else enemy.die_first) + first.card.die
    my_turn = first.card.driver == "you"
    piles.put_away(hand)
    # 3. Alternate attacks until someone is at 0 health or the turn limit is reached.
    while me.health > 0 and enemy_health > 0 and out["attacks"] < rules.turn_limit:
        hand = []
        if my_turn:
            cap = min(rules.max_ammo_per_attack, me.ammo, deck.size)
            spend = ammo_to_spend(policy, cap, enemy_health, damage_bonus, deck)
            me.ammo -= spend
            out["ammo_spent"] += spend
            for _ in range(spend):
                piles.draw_card(hand)
            counted = list(hand)
            # VP redraw ("Change the amount of damage you deal"): a skull-less card while short.
            while ("finish" in uses and damage_bonus + sum(c.card.skulls for c in counted) < enemy_health
                   and any(c.card.skulls == 0 for c in counted) and me.vp >= rules.redraw_cost
                   and len(hand) < deck.size):
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


def reference_combat(rules: Rules, setup: CombatSetup, rng: np.random.Generator,
                     record: list | None = None) -> dict[str, Any]:
    """One combat in plain Python from a freshly shuffled list of card objects.

    ``record``, if given, receives every draw, reshuffle and discard (see :class:`Piles`).
    """
    piles = Piles.fresh(setup.deck, rules, rng, record)
    me = Fighter(setup.health, setup.ammo, setup.vp)
    out = reference_fight(rules, setup.deck, setup.enemy, setup.second_card, me, setup.damage_bonus,
                          setup.policy, setup.redraw, piles)
    return {name: out[name] for name in METRIC_NAMES}


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


def _player_attack(rules: Rules, t: Tables, b: Batch, d: Drawer, policy: str, bonus: int,
                   finish: bool = False) -> None:
    cap = np.minimum(b.ammo, min(rules.max_ammo_per_attack, t.size))
    n = fixed_ammo(policy)
    if policy == "all_in":
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
    while finish:  # redraw a skull-less card while the attack falls short
        short = (damage < b.eh) & (blanks > 0) & (b.vp >= rules.redraw_cost) & (drawn < t.size)
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
        while True:
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
          bonus: int) -> dict[str, np.ndarray]:
    """Play one combat for every trial of ``b`` (updated in place); per-trial outcome arrays.

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
                _player_attack(rules, t, cur, dd, policy, bonus, "finish" in uses)
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
    t = tables(setup.deck)
    b = fresh_batch(t, n)
    b.ph[:] = setup.health
    b.ammo[:] = setup.ammo
    b.vp[:] = setup.vp
    set_enemy(t, b, setup.enemy, setup.second_card)
    out = fight(rules, t, b, rng, setup.policy, setup.redraw, setup.damage_bonus)
    return {name: out[name] for name in METRIC_NAMES}


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
    """

    def __init__(self, rules: Rules, setup: CombatSetup, max_states: int = MAX_EXACT_STATES) -> None:
        self.rules, self.setup = rules, setup
        deck = setup.deck
        self.cards = deck.cards
        self.full = tuple(deck.counts)
        self.size = deck.size
        self.k = len(self.cards)
        self.eager = rules.reshuffle == "when_empty"
        self.uses = redraw_uses(setup.redraw)
        self.memo: dict[tuple, tuple[float, ...]] = {}
        self.max_states = max_states
        self.work = 0

    # piles ----------------------------------------------------------------------------------
    def _draws(self, pile: tuple, disc: tuple):
        """[(prob, pile', disc', kind or None)] for one draw (kind None: nothing left to draw)."""
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
            if self.work > MAX_EXACT_WORK:
                raise ChainTooLarge(f"more than {MAX_EXACT_WORK:,} enumerated draws")
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
                acc[_VP_SPENT] += p * cost  # the health card redrawn: it gave the raiders the initiative
                starts = [(q, p2, self.cards[i], s.vp - cost) for q, p2, _d2, i in self._draws(pile, disc)]
            for q, p2, c, vp in starts:
                v = self._value(p2, s.enemy_die + c.die, s.health, s.ammo, vp, 0, c.driver == "you")
                for j in range(_W):
                    acc[j] += p * q * v[j]
        out = dict(zip(_FIELDS, acc))
        win = out.pop("player_win")
        health_left = out.pop("health_left")
        vp_spent = out.pop("vp_spent")
        out.update(player_win=win, health_lost=s.health - health_left,
                   vp_gained=self.rules.win_vp * win - vp_spent)
        return {name: out[name] for name in METRIC_NAMES}

    def _disc_of(self, pile: tuple) -> tuple:
        return tuple(f - c for f, c in zip(self.full, pile))

    def _value(self, pile, eh, ph, ammo, vp, attacks, player_first) -> tuple[float, ...]:
        key = (pile, eh, ph, ammo, vp, attacks, player_first)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if len(self.memo) >= self.max_states or self.work > MAX_EXACT_WORK:
            raise ChainTooLarge(f"more than {self.max_states:,} states or {MAX_EXACT_WORK:,} draws")
        rules, s = self.rules, self.setup
        disc = self._disc_of(pile)
        if attacks >= rules.turn_limit:  # a stalemate: one card for the raiders' steps
            steps = sum(q * self.cards[i].triangle for q, _, _, i in self._draws(pile, disc) if i is not None)
            stalemate = [0.0] * _W
            stalemate[_STALEMATE], stalemate[_HEALTH_LEFT], stalemate[_RAIDER_STEPS] = 1.0, float(ph), steps
            value = tuple(stalemate)
            self.memo[key] = value
            return value
        acc = [0.0] * _W
        mine = (attacks % 2 == 0) == player_first
        if mine:
            cap = min(rules.max_ammo_per_attack, ammo, self.size)
            spend = ammo_to_spend(s.policy, cap, eh, s.damage_bonus, s.deck)
            outcomes = self._mine(pile, disc, spend, eh, vp)
            for (p2, damage, vp_spent), p in outcomes.items():
                self._after(acc, p, p2, eh - damage, ph, ammo - spend, vp - vp_spent, attacks, player_first,
                            spent=spend, vp_spent=vp_spent)
        else:
            for (p2, damage, steps, rad, vp_spent), p in self._raiders(pile, disc, ph, vp).items():
                self._after(acc, p, p2, eh, ph - damage, ammo, vp - vp_spent, attacks, player_first,
                            steps=steps, rad=rad, vp_spent=vp_spent)
        value = tuple(acc)
        self.memo[key] = value
        return value

    def _mine(self, pile, disc, spend, eh, vp) -> dict:
        """Outcomes of your attack: {(pile', damage, VP spent): p}, with ``finish`` redraws."""
        s, cost = self.setup, self.rules.redraw_cost
        out: dict = {}
        states = self._sequence({(pile, disc, ()): 1.0}, spend)
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

    def _raiders(self, pile, disc, ph, vp) -> dict:
        """Outcomes of one enemy attack: {(pile', damage, raider steps, radiation, VP spent): p}."""
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

    def _after(self, acc, p, pile, eh, ph, ammo, vp, attacks, player_first, spent=0, steps=0, rad=0,
               vp_spent=0) -> None:
        """Add p x (this attack's own amounts + what follows) to ``acc``."""
        self.work += 1
        acc[_AMMO_SPENT] += p * spent
        acc[_RAIDER_STEPS] += p * steps
        acc[_VP_SPENT] += p * vp_spent
        acc[_RADIATION] += p * rad
        acc[_ATTACKS] += p * 1
        if ph <= 0:
            acc[_LOST] += p
            return
        if eh <= 0:
            acc[_WIN] += p
            acc[_HEALTH_LEFT] += p * ph
            s, cost = self.setup, self.rules.redraw_cost
            disc = self._disc_of(pile)
            for q, p2, d2, i in self._draws(pile, disc):
                if i is None:
                    continue
                card = self.cards[i]
                loot = [(1.0, card)]
                no_bonus = "loot" in self.uses and not s.second_card and card.moon != s.enemy.moon
                moves = "steps" in self.uses and card.triangle > 0
                if (no_bonus or moves) and vp + self.rules.win_vp >= cost and self.size > 1:
                    acc[_VP_SPENT] += p * q * cost  # the loot card redrawn: no bonus loot, or raider steps
                    loot = [(r, self.cards[j]) for r, _, _, j in self._draws(p2, d2) if j is not None]
                for r, c in loot:
                    acc[_RAIDER_STEPS] += p * q * r * c.triangle
                    acc[_BONUS_LOOT] += p * q * r * (s.second_card or c.moon == s.enemy.moon)
            return
        v = self._value(pile, eh, ph, ammo, vp, attacks + 1, player_first)
        for j in range(_W):
            acc[j] += p * v[j]


def exact_combat(rules: Rules, setup: CombatSetup,
                 max_cards: int = MAX_EXACT_CARDS) -> dict[str, float] | None:
    """Every metric exactly, for decks of at most ``max_cards`` cards.

    None if the deck is larger, or if the recursion needs more than ``MAX_EXACT_STATES`` states
    or ``MAX_EXACT_WORK`` enumerated draws (long combats: a turn limit far away, little damage).
    """
    if setup.deck.size > max_cards:
        return None
    try:
        return ExactCombat(rules, setup).solve()
    except ChainTooLarge:
        if len(_GAVE_UP) >= 64:
            _GAVE_UP.pop(next(iter(_GAVE_UP)))
        _GAVE_UP[rules, setup] = MAX_EXACT_WORK
        return None


_GAVE_UP: dict[tuple[Rules, CombatSetup], int] = {}  # setups the solver gave up on -> its work budget


def why_no_exact(rules: Rules, setup: CombatSetup) -> str | None:
    """Why :func:`exact_combat` gives no value for this setup; None when it gives one."""
    if setup.deck.size > MAX_EXACT_CARDS:
        return (f"exact value unavailable because the deck has {setup.deck.size} cards; "
                f"the exact solver handles decks of up to {MAX_EXACT_CARDS}")
    if _GAVE_UP.get((rules, setup)) != MAX_EXACT_WORK and exact_combat(rules, setup) is not None:
        return None
    return (f"exact value unavailable because the solve needs more than {MAX_EXACT_STATES:,} states "
            f"or {MAX_EXACT_WORK:,} enumerated draws (a long combat)")


# ---------------------------------------------------------------------------------------- game

METRICS = (
    Metric("player_win", "probability", "you defeat the enemy"),
    Metric("player_lost", "probability", "your health falls to 0 or below"),
    Metric("stalemate", "probability", "both still alive after the turn limit (nobody can deal damage)"),
    Metric("health_lost", "mean", "health you lose (down to 0)"),
    Metric("ammo_spent", "mean", "ammo you spend"),
    Metric("raider_steps", "mean", "raider steps: spybot attacks and the loot card's triangles"),
    Metric("vp_gained", "mean", "VP gained: win_vp for a win, less VP spent on redraws"),
    Metric("radiation", "mean", "radiation cards from mutant attacks"),
    Metric("attacks", "mean", "attacks made, both sides"),
    Metric("bonus_loot", "probability", "you win and take the enemy's bonus loot"),
)
METRIC_NAMES = tuple(m.name for m in METRICS)

QUESTIONS = {
    "combat": Question(
        name="combat",
        description="one combat against an enemy: win odds, health lost, ammo, raider steps, VP",
        setup_type=CombatSetup,
        metrics=METRICS,
        simulate=simulate_combat,
        exact=exact_combat,
        why_no_exact=why_no_exact,
        parse_setup=parse_combat,
        reference=reference_combat,
        example={"enemy": "road raiders", "vehicle": "interceptor", "policy": "all_in"},
    ),
}
