"""A Dustrunners campaign: combats in a row, with health, ammo, VP and the deck carried over.

Each fight draws two exploration cards, each an enemy of the setup's pool chosen uniformly at
random (independently: the exploration deck is reshuffled between rounds). The exploration
policy decides which to fight: ``first`` always fights the first card (left die value);
``safer`` fights the first card unless its win chance is below the average win chance against
an enemy of the pool fought as a second card (right die value, bonus loot always), in which
case it takes the second card unseen. Those win chances are judged once, for the vehicle's
starting values and a fresh deck, as a player's knowledge of the enemies: exactly, under best
play, where the deck is small enough for the exact solver (up to 16 cards); else from 20,000
simulated combats with a fixed seed, under the setup's ammo policy.

A win gives ``win_vp`` VP and the loot card's loot (health or ammo +1, up to the vehicle's
maximum; fuel and modifications are counted only), and the enemy's bonus loot when the loot
card's moon matches (always for a second card). A stalemate ends the fight without loot and
the campaign goes on; a loss ends the campaign. The resolution deck is never reshuffled between
fights: its draw and discard piles carry over.

>>> setup = parse_campaign({"vehicle": "interceptor", "fights": 3})
>>> setup.fights, setup.max_health, [e.name for e in setup.enemies][:2]
(3, 6, ['Scavenger Buggy', 'Road Raiders'])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question
from montecarlo.games.dustrunners import combat as cb
from montecarlo.games.dustrunners.deck import LOOTS, Deck, Enemy
from montecarlo.games.dustrunners.deck import enemies as shipped_enemies, enemy as named_enemy
from montecarlo.games.dustrunners.rules import Rules
from montecarlo.validate import check_known, whole

EXPLORATION_POLICIES = ("first", "safer")
MAX_FIGHTS = 12
SAFER_TRIALS = 20_000
SAFER_SEED = 0


@dataclass(frozen=True, slots=True)
class CampaignSetup:
    """A vehicle driving through ``fights`` combats against enemies drawn from ``enemies``.

    Attributes:
        deck: the resolution deck, carried over between fights.
        enemies: the exploration pool (each card an enemy, drawn uniformly at random).
        fights: combats in the campaign, 1..12.
        health, ammo, damage_bonus, vp: starting values.
        max_health, max_ammo: the caps of loot (by default the starting health and ammo).
        policy, redraw: as in a single combat.
        exploration: which exploration card to fight, ``first`` or ``safer``.
        vehicle: the shipped vehicle whose values these are, if any (its name in the results).
    """

    deck: Deck
    enemies: tuple[Enemy, ...]
    health: int
    ammo: int = 0
    damage_bonus: int = 0
    vp: int = 0
    max_health: int = 0
    max_ammo: int = 0
    fights: int = 5
    policy: str = "all_in"
    redraw: str = "never"
    exploration: str = "first"
    vehicle: str | None = None

    def __post_init__(self) -> None:
        check_vehicle(self, ("ammo",))
        whole("fights", self.fights, 1, MAX_FIGHTS)
        if not self.enemies:
            raise InputError("enemies: give at least one enemy")
        check_policies(self)


def check_vehicle(setup: Any, pools: tuple[str, ...]) -> None:
    """What a vehicle carries from card to card, checked in one order for a campaign and a road:
    health, the ``pools`` (ammo, fuel), the damage bonus, VP, then each maximum (at least the
    start, at most the game's cap)."""
    whole("health", setup.health, 1, cb.MAX_HEALTH)
    for name in (*pools, "damage_bonus"):
        whole(name, getattr(setup, name), 0, cb.MAX_HEALTH)
    whole("vp", setup.vp, 0, 999)
    for name in ("health", *pools):
        whole(f"max_{name}", getattr(setup, f"max_{name}"), getattr(setup, name), cb.MAX_HEALTH)


def check_policies(setup: Any) -> None:
    """The ammo policy, the redraw uses (stored canonical) and the exploration policy."""
    cb.check_ammo_policy(setup.policy)
    object.__setattr__(setup, "redraw", cb.check_redraw(setup.redraw))
    if setup.exploration not in EXPLORATION_POLICIES:
        known = ", ".join(EXPLORATION_POLICIES)
        raise InputError(f"exploration must be one of {known}, got {setup.exploration!r}")


_KEYS = ("deck", "card_counts", "enemies", "vehicle", "health", "ammo", "damage_bonus", "vp", "max_health",
         "max_ammo", "fights", "policy", "redraw", "exploration")


def parse_campaign(values: Mapping[str, Any]) -> CampaignSetup:
    """A validated :class:`CampaignSetup` from plain values; ``enemies`` defaults to every shipped one."""
    check_known(values, _KEYS, "campaign setup")
    deck = cb.resolve_deck(values)
    pool = values.get("enemies")
    if pool is None:
        chosen = tuple(shipped_enemies().values())
    else:
        names = [p.strip() for p in pool.split(",") if p.strip()] if isinstance(pool, str) else pool
        if not isinstance(names, (list, tuple)):
            raise InputError(f"enemies: expected a list of enemy names, got {pool!r}")
        if isinstance(pool, str) and names and len(names) < len(pool.split(",")):  # 'a,,b', 'a,'
            raise InputError(f"enemies: an empty item in {pool!r}; separate the names by single commas")
        if not names:  # given, but empty: a slip (an unset shell variable), not "every enemy"
            raise InputError(
                f"enemies: no enemy named; give shipped enemy names ({', '.join(shipped_enemies())}), "
                "or leave it out for all of them"
            )
        try:
            chosen = tuple(named_enemy(n) for n in names)
        except InputError as exc:  # name the field (the CLI: the flag) the unknown name came from
            raise InputError(f"enemies: {exc}") from None
    merged, car = cb.vehicle_values(values)
    health, ammo = merged["health"], merged.get("ammo", 0)
    return CampaignSetup(
        deck=deck, enemies=chosen, health=health, ammo=ammo, damage_bonus=merged.get("damage_bonus", 0),
        vp=merged.get("vp", 0), max_health=values.get("max_health", health),
        max_ammo=values.get("max_ammo", ammo), fights=values.get("fights", 5),
        policy=values.get("policy", "all_in"), redraw=values.get("redraw", "never"),
        exploration=values.get("exploration", "first"), vehicle=car,
    )


# --------------------------------------------------------------------------------- exploration

@functools.lru_cache(maxsize=256)
def win_chance(rules: Rules, deck: Deck, enemy: Enemy, second: bool, health: int, ammo: int, bonus: int,
               vp: int, policy: str, redraw: str) -> float:
    """A single combat's win chance from a fresh deck, as a player judges how dangerous a card is.

    Where the deck is small enough for the exact solver (and the combat solves within its
    budget): the win chance under best play (the ammo of every attack, and the ``finish`` and
    ``initiative`` redraws ``redraw`` names, chosen exactly for the win, counting cards; the other
    redraws as ``redraw``), exactly. Otherwise the win chance under the
    setup's ammo ``policy``, from 20,000 trials with a fixed seed (a rough, reproducible
    judgement).
    """
    setup = cb.CombatSetup(deck, enemy, health, ammo, bonus, second, vp, policy, redraw)
    if deck.size <= cb.MAX_EXACT_CARDS:
        best = cb._solved_best(rules, cb.CombatSetup(deck, enemy, health, ammo, bonus, second, vp, "best",
                                                     redraw, objective="win"))
        if best is not None:
            return float(best.values["player_win"])
    out = cb.simulate_combat(rules, setup, SAFER_TRIALS, np.random.default_rng(SAFER_SEED))
    return float(out["player_win"].mean())


def take_first(rules: Rules, setup: CampaignSetup) -> tuple[bool, ...]:
    """For each enemy of the pool as the first card: does the exploration policy fight it?"""
    if setup.exploration == "first":
        return (True,) * len(setup.enemies)
    args = (setup.health, setup.ammo, setup.damage_bonus, setup.vp, setup.policy, setup.redraw)
    second = [win_chance(rules, setup.deck, e, True, *args) for e in setup.enemies]
    bar = sum(second) / len(second)
    return tuple(win_chance(rules, setup.deck, e, False, *args) >= bar for e in setup.enemies)


# ----------------------------------------------------------------------------------- reference

def reference_campaign(rules: Rules, setup: CampaignSetup, rng: np.random.Generator,
                       record: list | None = None) -> dict[str, Any]:
    """One campaign in plain Python: real piles of card objects carried from fight to fight."""
    setup = cb.with_rules_policy(rules, setup, best=False)
    piles = cb.Piles.fresh(setup.deck, rules, rng, record)
    me = cb.Fighter(setup.health, setup.ammo, setup.vp)
    fight_first = take_first(rules, setup)
    out = {"survived": 0, "fights_won": 0, "stalemates": 0, "raider_steps": 0, "radiation": 0,
           "fuel": 0, "modifications": 0}
    for _ in range(setup.fights):
        first = int(rng.integers(len(setup.enemies)))
        second = int(rng.integers(len(setup.enemies)))
        if fight_first[first]:
            enemy, is_second = setup.enemies[first], False
        else:
            enemy, is_second = setup.enemies[second], True
        result = cb.reference_fight(rules, setup.deck, enemy, is_second, me, setup.damage_bonus,
                                    setup.policy, setup.redraw, piles)
        out["raider_steps"] += result["raider_steps"]
        out["radiation"] += result["radiation"]
        if result["player_lost"]:
            break
        out["survived"] += 1
        out["stalemates"] += result["stalemate"]
        if result["player_win"]:
            out["fights_won"] += 1
            gains = [result["loot"]] + ([enemy.bonus_loot] if result["bonus_loot"] else [])
            for loot in gains:
                if loot == "health":
                    me.health = min(me.health + 1, setup.max_health)
                elif loot == "ammo":
                    me.ammo = min(me.ammo + 1, setup.max_ammo)
                elif loot == "fuel":
                    out["fuel"] += 1
                elif loot == "modification":
                    out["modifications"] += 1
    out.update(survive_all=out["survived"] == setup.fights, health_left=max(me.health, 0),
               ammo_left=me.ammo, vp=me.vp, fights_survived=out["survived"])
    return {name: out[name] for name in METRIC_NAMES}


# -------------------------------------------------------------------------------------- kernel

def simulate_campaign(rules: Rules, setup: CampaignSetup, n: int,
                      rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` campaigns; trials still alive fight on, the deck state of each carried over."""
    setup = cb.with_rules_policy(rules, setup, best=False)
    t = cb.tables(setup.deck)
    b = cb.fresh_batch(t, n)
    b.ph[:] = setup.health
    b.ammo[:] = setup.ammo
    b.vp[:] = setup.vp
    fight_first = np.array(take_first(rules, setup))
    pool = setup.enemies
    survived = np.zeros(n, dtype=np.int16)
    won = np.zeros(n, dtype=np.int16)
    stalemates = np.zeros(n, dtype=np.int16)
    steps = np.zeros(n, dtype=np.int32)
    rad = np.zeros(n, dtype=np.int32)
    fuel = np.zeros(n, dtype=np.int16)
    mods = np.zeros(n, dtype=np.int16)
    alive = np.arange(n)
    bonus_code = np.array([LOOTS.index(e.bonus_loot) for e in pool], dtype=np.int8)
    for _ in range(setup.fights):
        if alive.size == 0:
            break
        sub = b.take(alive)
        m = alive.size
        first = rng.integers(len(pool), size=m)
        other = rng.integers(len(pool), size=m)
        take = fight_first[first]
        which = np.where(take, first, other)
        for i, enemy in enumerate(pool):
            sel = np.flatnonzero(which == i)
            if sel.size:
                cb.set_enemy(t, sub, enemy, ~take[sel], sel)
        out = cb.fight(rules, t, sub, rng, setup.policy, setup.redraw, setup.damage_bonus)
        steps[alive] += sub.steps
        rad[alive] += sub.rad
        ok = ~out["player_lost"]
        win = out["player_win"]
        survived[alive] += ok
        won[alive] += win
        stalemates[alive] += out["stalemate"]
        for loot in (out["loot"], np.where(out["bonus_loot"], bonus_code[which], -1)):
            sub.ph += (loot == LOOTS.index("health")) & (sub.ph < setup.max_health)
            sub.ammo += (loot == LOOTS.index("ammo")) & (sub.ammo < setup.max_ammo)
            fuel[alive] += loot == LOOTS.index("fuel")
            mods[alive] += loot == LOOTS.index("modification")
        b.put(alive, sub)
        alive = alive[ok]
    f = lambda a: a.astype(np.float64)  # noqa: E731
    return {
        "survived": survived.astype(np.int64), "survive_all": survived == setup.fights,
        "fights_survived": f(survived), "fights_won": f(won), "stalemates": f(stalemates),
        "health_left": f(np.maximum(b.ph, 0)), "ammo_left": f(b.ammo), "vp": f(b.vp),
        "raider_steps": f(steps), "radiation": f(rad), "fuel": f(fuel), "modifications": f(mods),
    }


METRICS = (
    Metric("survived", "distribution", "fights survived (the campaign ends at the first loss)",
           tuple(range(MAX_FIGHTS + 1))),
    Metric("survive_all", "probability", "the vehicle survives every fight of the campaign"),
    Metric("fights_survived", "mean", "fights survived (won or stalemate)"),
    Metric("fights_won", "mean", "fights won"),
    Metric("stalemates", "mean", "fights ended as stalemates"),
    Metric("health_left", "mean", "health at the end (0 if destroyed)"),
    Metric("ammo_left", "mean", "ammo at the end"),
    Metric("vp", "mean", "victory points at the end (start + wins - redraws)"),
    Metric("raider_steps", "mean", "raider steps over the campaign"),
    Metric("radiation", "mean", "radiation cards from mutants"),
    Metric("fuel", "mean", "fuel looted"),
    Metric("modifications", "mean", "modification cards looted"),
)
METRIC_NAMES = tuple(m.name for m in METRICS)


def applicable_campaign(setup: CampaignSetup) -> tuple[str, ...]:
    """Every metric, but ``survived`` only up to the campaign's number of fights (the rest cannot
    happen: reports leave them empty rather than 0).

    >>> setup = parse_campaign({"vehicle": "interceptor", "fights": 2, "enemies": ["spybot"]})
    >>> names = applicable_campaign(setup)
    >>> [n for n in names if n.startswith("survived")]
    ['survived', 'survived=0', 'survived=1', 'survived=2']
    """
    return (*METRIC_NAMES, *(f"survived={k}" for k in range(setup.fights + 1)))


QUESTIONS = {
    "campaign": Question(
        name="campaign",
        description="a run of combats with health, ammo, VP and deck carried over: how many fights survived",
        setup_type=CampaignSetup,
        metrics=METRICS,
        simulate=simulate_campaign,
        parse_setup=parse_campaign,
        reference=reference_campaign,
        applicable=applicable_campaign,
        example={
            "vehicle": "interceptor", "fights": 5, "enemies": ["scavenger buggy", "road raiders", "spybot"],
        },
        inputs=cb.CARD_COUNTS_INPUT,
    ),
}
