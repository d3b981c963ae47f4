"""One Dustrunners combat: setup, vectorised kernel, exact solver and a plain reference trial.

Combat as modelled (``docs/rules/dustrunners.md`` lists every interpretation):

1. One resolution card sets the enemy's health (the enemy card's die value, left for a first
   exploration card, right for a second, plus the card's die) and the initiative (its driver);
   it is discarded.
2. Attacks alternate from the side with initiative. You spend 0 to 4 ammo (the ammo policy) and
   reveal one card per ammo: damage = their skulls + your damage bonus. Raiders reveal one card
   per star: damage = their skulls; a spybot moves the raider by their triangles instead; a
   mutant reveals one card per radiation skull and each card with a skull gives a radiation
   card instead of damage. With the ``when_losing`` redraw policy, an attack of raiders that
   would bring your health to 0 or below has its card with the most skulls redrawn for
   ``redraw_cost`` VP, as long as the VP last and the attack is still lethal.
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

REDRAW_POLICIES = ("never", "when_losing")
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
        vp: victory points at the start (only VP redraws use them within a combat).
        policy: ammo per attack, ``all_in``, ``fixed:N`` or ``just_enough``.
        redraw: VP redraw policy, ``never`` or ``when_losing``.
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
        if self.redraw not in REDRAW_POLICIES:
            raise InputError(f"redraw must be one of {', '.join(REDRAW_POLICIES)}, got {self.redraw!r}")

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


def parse_combat(values: Mapping[str, Any]) -> CombatSetup:
    """A validated :class:`CombatSetup` from plain values (CLI options or TOML)."""
    check_known(values, _COMBAT_KEYS, "combat setup")
    deck = resolve_deck(values)
    enemy = resolve_enemy(values)
    car = None
    base: dict[str, Any] = {}
    if values.get("vehicle") is not None:
        v = named_vehicle(values["vehicle"])
        car = v.name
        base = {"health": v.health, "ammo": v.ammo, "damage_bonus": v.damage_bonus, "vp": v.stars}
    picked = {k: values[k] for k in ("health", "ammo", "damage_bonus", "vp") if values.get(k) is not None}
    merged = {**base, **picked}
    if "health" not in merged:
        raise InputError("health: give the vehicle's health (health) or a shipped vehicle (vehicle)")
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
    out = {"ammo_spent": 0, "raider_steps": 0, "vp_spent": 0, "radiation": 0, "attacks": 0,
           "bonus_loot": False, "loot": None}
    # 1-2. Enemy health and initiative from one card, which is then discarded.
    hand: list = []
    first = piles.draw_card(hand)
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
            enemy_health -= damage_bonus + sum(c.card.skulls for c in hand)
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
                while (redraw == "when_losing" and damage >= me.health and me.vp >= rules.redraw_cost
                       and len(hand) < deck.size):
                    worst = max(counted, key=lambda c: c.card.skulls)
                    counted.remove(worst)
                    me.vp -= rules.redraw_cost
                    out["vp_spent"] += rules.redraw_cost
                    new = piles.draw_card(hand)
                    counted.append(new)
                    damage = sum(c.card.skulls for c in counted)
                me.health -= damage
        piles.put_away(hand)
        out["attacks"] += 1
        my_turn = not my_turn
    won = enemy_health <= 0 and me.health > 0
    if won:  # 5. VP, and one more card for loot and the raider's move.
        me.vp += rules.win_vp
        hand = []
        card = piles.draw_card(hand)
        if card is not None:
            out["raider_steps"] += card.card.triangle
            out["loot"] = card.card.loot
            out["bonus_loot"] = second or card.card.moon == enemy.moon
        piles.put_away(hand)
    out.update(
        player_win=won, player_lost=me.health <= 0, stalemate=me.health > 0 and enemy_health > 0,
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


def _player_attack(rules: Rules, t: Tables, b: Batch, d: Drawer, policy: str, bonus: int) -> None:
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
    for j in range(int(spend.max(initial=0))):
        kind, ok = d.draw(spend > j)
        damage += t.skulls[kind] * ok
    b.eh -= damage
    d.put_away()


def _raiders_attack(rules: Rules, t: Tables, b: Batch, d: Drawer, redraw: str) -> None:
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
    if redraw == "when_losing" and skulls:
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
    eager = rules.reshuffle == "when_empty"
    start_health = b.ph.copy()
    for name in ("spent", "steps", "vp_spent", "rad", "attacks"):
        getattr(b, name)[:] = 0
    d = Drawer(t, b, rng, eager)
    kind, _ = d.draw(None)
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
                _player_attack(rules, t, cur, dd, policy, bonus)
            else:
                _raiders_attack(rules, t, cur, dd, redraw)
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
    if win.any():
        d = Drawer(t, b, rng, eager)
        kind, ok = d.draw(win)
        b.steps += t.triangle[kind] * ok
        bonus_loot = ok & (b.second | (t.moon[kind] == b.moon))
        loot = np.where(ok, t.loot[kind], -1).astype(np.int8)
        d.put_away()
        b.vp += rules.win_vp * win
    return {
        "player_win": win, "player_lost": lost, "stalemate": ~win & ~lost,
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
        s = self.setup
        acc = [0.0] * _W
        for (pile, _disc, hand), p in self._sequence({(self.full, (0,) * self.k, ()): 1.0}, 1).items():
            card = self.cards[hand[0]]
            v = self._value(pile, s.enemy_die + card.die, s.health, s.ammo, s.vp, 0, card.driver == "you")
            for j in range(_W):
                acc[j] += p * v[j]
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
        if attacks >= rules.turn_limit:
            stalemate = [0.0] * _W
            stalemate[_STALEMATE], stalemate[_HEALTH_LEFT] = 1.0, float(ph)
            value = tuple(stalemate)
            self.memo[key] = value
            return value
        disc = self._disc_of(pile)
        acc = [0.0] * _W
        mine = (attacks % 2 == 0) == player_first
        if mine:
            cap = min(rules.max_ammo_per_attack, ammo, self.size)
            spend = ammo_to_spend(s.policy, cap, eh, s.damage_bonus, s.deck)
            outcomes: dict = {}
            for (p2, _d2, hand), p in self._sequence({(pile, disc, ()): 1.0}, spend).items():
                damage = s.damage_bonus + sum(self.cards[i].skulls for i in hand)
                key2 = (p2, damage)
                outcomes[key2] = outcomes.get(key2, 0.0) + p
            for (p2, damage), p in outcomes.items():
                self._after(acc, p, p2, eh - damage, ph, ammo - spend, vp, attacks, player_first,
                            spent=spend)
        else:
            for (p2, damage, steps, rad, vp_spent), p in self._raiders(pile, disc, ph, vp).items():
                self._after(acc, p, p2, eh, ph - damage, ammo, vp - vp_spent, attacks, player_first,
                            steps=steps, rad=rad, vp_spent=vp_spent)
        value = tuple(acc)
        self.memo[key] = value
        return value

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
                if (self.setup.redraw == "when_losing" and damage >= ph and vp - spent >= rules.redraw_cost
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
            disc = self._disc_of(pile)
            for q, _, _, i in self._draws(pile, disc):
                if i is None:
                    continue
                card = self.cards[i]
                acc[_RAIDER_STEPS] += p * q * card.triangle
                acc[_BONUS_LOOT] += p * q * (self.setup.second_card or card.moon == self.setup.enemy.moon)
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
