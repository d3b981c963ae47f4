"""Coriolis storms, sandworm attacks and the Desert Hazards step of Dune: War for Arrakis.

The rules as modelled are in ``docs/rules/war-for-arrakis.md`` ("Storms", "Sandworms",
"Desert Hazards"). A storm or a worm rolls combat dice at a Harkonnen legion; Shields do
nothing, a Hit is 1 hit and a Special a number of hits that depends on the terrain; casualties
are taken as in a battle. The Desert Hazards step draws one wormsign token per desert area that
holds a Harkonnen legion or harvester, without replacement, from a pool whose split is an
ASSUMPTION (8 Sand / 4 Sandworm / 4 Burrowing by default: no source publishes it); then the
storms strike; then the harvesters left collect spice.

>>> from montecarlo.games.war_for_arrakis.rules import Rules
>>> e = exact_storm(Rules(), StormSetup("2 regular", "deep desert"))
>>> round(e["destroyed"], 6), round(e["units_lost"], 6)  # P(2+ hits) = 1 - 1/9 - 1/3 = 5/9
(0.555556, 1.444444)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question, build_dataclass
from montecarlo.games.war_for_arrakis import dice
from montecarlo.games.war_for_arrakis.battle import (
    Legion,
    _one_person,
    capacity,
    faction,
    legion_text,
    parse_legion,
    take_hits,
)
from montecarlo.games.war_for_arrakis.rules import (
    DESERTS, EXPOSED, HAZARD_RULES, LEADERS, STORM_RULES, TERRAINS, WORM_RULES, Rules, readings,
)

MAX_AREAS = 10
POOL_NOTE = (
    "wormsign pool {sand} Sand / {worm} Sandworm / {burrow} Burrowing: an ASSUMPTION "
    "(the split is not published)"
)
FLAGS = ("harvester", "carryall", "settlement")
ONE_EACH = {  # why an area's flag is given at most once (docs/rules/war-for-arrakis.md, "Desert Hazards")
    "harvester": "an area holds at most one harvester",
    "carryall": "one carryall saves the area's one harvester; give it once",
    "settlement": "an area holds at most one settlement",
}


def terrain(value: Any, what: str = "terrain") -> str:
    """'Deep Desert' / 'deep-desert' / 'deep_desert' -> 'deep_desert'; InputError if unknown."""
    key = "_".join(str(value).strip().lower().replace("-", " ").replace("_", " ").split())
    if key not in TERRAINS:
        raise InputError(f"{what}: unknown terrain {value!r}; known: {', '.join(TERRAINS)}")
    return key


def _harkonnen(legion: Legion, what: str) -> Legion:
    from montecarlo.games.war_for_arrakis.rules import LEADERS

    if any(LEADERS[k].faction == "atreides" for k in legion.leaders):
        raise InputError(
            f"{what}: storms and sandworms strike Harkonnen legions; this one has Atreides leaders"
        )
    if faction(legion) == "atreides":  # its special elites are Fedaykin
        raise InputError(
            f"{what}: storms and sandworms strike Harkonnen legions; this one has Fedaykin (Atreides)"
        )
    return legion


def pool_note(rules: Rules) -> str:
    """The line every output that uses the wormsign pool carries."""
    sand, worm, burrow = rules.pool
    note = POOL_NOTE.format(sand=sand, worm=worm, burrow=burrow)
    return (
        note
        if rules.pool_is_assumed
        else note.replace("an ASSUMPTION", "as given").replace(" (the split is not published)", "")
    )


# --- one storm, one worm ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StormSetup:
    """A Coriolis storm on one Harkonnen legion.

    Attributes:
        legion: the legion (``"3 regular, 1 elite, bashar"``).
        terrain: deep_desert, desert, minor_erg, plateau or mountain (never struck).
        settlement: the area holds a Harkonnen settlement (never struck).
    """

    legion: str
    terrain: str
    settlement: bool = False

    def __post_init__(self) -> None:
        found = _harkonnen(parse_legion(self.legion, "legion"), "legion")
        if not found.units:
            raise InputError("legion: a storm strikes a legion; give at least one unit")
        object.__setattr__(self, "legion", legion_text(found))
        object.__setattr__(self, "terrain", terrain(self.terrain))
        if not isinstance(self.settlement, bool):
            raise InputError(f"settlement must be true or false, got {self.settlement!r}")


@dataclass(frozen=True, slots=True)
class WormSetup:
    """A sandworm attack on one area.

    Attributes:
        legion: the Harkonnen legion there, or ``"none"`` for a harvester alone.
        terrain: deep_desert, desert, minor_erg or plateau (worms never reach a Mountain area).
        wild_maker: the attacker is the Wild Maker (more dice).
        harvester: a harvester stands in the area; it is lost if the worm destroys every unit
            there (or if it stands alone), unless a carryall saves it.
        carryall: a carryall in a connected Air zone saves the harvester.
    """

    legion: str
    terrain: str
    wild_maker: bool = False
    harvester: bool = False
    carryall: bool = False

    def __post_init__(self) -> None:
        found = _harkonnen(parse_legion(self.legion, "legion"), "legion")
        place = terrain(self.terrain)
        for name in ("wild_maker", "harvester", "carryall"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if place == "mountain":
            raise InputError(
                "terrain: sandworms never attack a Mountain area; choose deep_desert, desert, "
                "minor_erg or plateau"
            )
        if not found.units and not self.harvester:
            raise InputError("legion: the worm needs a target; give units or harvester = true")
        if self.carryall and not self.harvester:  # as hazards refuses it in an area
            raise InputError("carryall: a carryall only saves a harvester; this area has none")
        if self.harvester and place not in DESERTS:
            raise InputError(
                f"harvester: harvesters stand only in desert areas (deep_desert, desert), not {place}"
            )
        object.__setattr__(self, "legion", legion_text(found))
        object.__setattr__(self, "terrain", place)


def parse_storm(values: Mapping[str, Any]) -> StormSetup:
    required = {"legion": "a Harkonnen legion like '3 regular, bashar'", "terrain": "e.g. desert"}
    return build_dataclass(StormSetup, values, "storm setup", required)


def parse_worm(values: Mapping[str, Any]) -> WormSetup:
    required = {"legion": "a Harkonnen legion like '3 regular, bashar'", "terrain": "e.g. desert"}
    return build_dataclass(WormSetup, values, "worm setup", required)


def storm_dice(rules: Rules, place: str, settlement: bool = False) -> tuple[int, int]:
    """(dice, hits per Special) of a storm in this terrain; (0, 0) where storms never strike.

    A Harkonnen settlement shelters its area (Korean page) unless ``storms_strike_settlements``.
    """
    if place not in EXPOSED or (settlement and not rules.storms_strike_settlements):
        return 0, 0
    i = EXPOSED.index(place)
    return rules.storm_dice[i], rules.storm_special_hits[i]


def worm_dice(rules: Rules, place: str, wild_maker: bool = False) -> tuple[int, int]:
    """(dice, hits per Special) of a sandworm attack in this terrain."""
    i = EXPOSED.index(place)
    return rules.worm_dice[i] + (rules.wild_maker_extra_dice if wild_maker else 0), rules.worm_special_hits[i]


def _strike(rules: Rules, counts: tuple[int, int, int], n: int, special: int) -> dict[str, float]:
    """Exact metrics of ``n`` dice striking a legion (hits, units lost, destroyed, survivors)."""
    dist = dice.damage(n, rules.die, special) if n else (1.0,)
    cap, units = capacity(counts), sum(counts)
    out = {f"hits={k}": 0.0 for k in HITS}
    out.update({f"survivors={k}": 0.0 for k in SURVIVORS}, units_lost=0.0, destroyed=0.0)
    for k, p in enumerate(dist):
        left = sum(take_hits(counts, min(k, cap)))
        if k in HITS:
            out[f"hits={k}"] += p
        out[f"survivors={left}"] += p
        out["units_lost"] += p * (units - left)
        out["destroyed"] += p * (left == 0)
    return out


def exact_storm(rules: Rules, setup: StormSetup) -> dict[str, float]:
    """The storm's metrics exactly: the dice's hit distribution (multinomial) through the casualties."""
    return _strike(
        rules, parse_legion(setup.legion).counts, *storm_dice(rules, setup.terrain, setup.settlement)
    )


def exact_worm(rules: Rules, setup: WormSetup) -> dict[str, float]:
    """The worm's metrics exactly."""
    counts = parse_legion(setup.legion).counts
    out = _strike(rules, counts, *worm_dice(rules, setup.terrain, setup.wild_maker))
    alone = not sum(counts)
    if alone:
        out["destroyed"] = 0.0  # no legion to destroy
    lost = 1.0 if alone else out["destroyed"]
    out["harvester_lost"] = lost if setup.harvester and not setup.carryall else 0.0
    return out


def _roll_hits(
    rules: Rules, n_dice: np.ndarray | int, special: int, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Hits of ``n_dice`` dice per trial (Hit = 1, Special = ``special``, Shield and blank 0)."""
    dice = np.broadcast_to(np.asarray(n_dice, dtype=np.int64), (size,))
    top = int(dice.max(initial=0))
    if top == 0:
        return np.zeros(size, dtype=np.int16)
    faces = rng.integers(0, rules.faces, size=(size, top), dtype=np.int16)
    live = np.arange(top)[None, :] < dice[:, None]
    value = np.zeros(rules.faces, dtype=np.int16)
    value[: rules.hit_faces] = 1
    value[
        rules.hit_faces + rules.shield_faces : rules.hit_faces + rules.shield_faces + rules.special_faces
    ] = special
    return (value[faces] * live).sum(axis=1, dtype=np.int16)


@functools.lru_cache(maxsize=1024)
def _left_table(counts: tuple[int, int, int]) -> np.ndarray:
    """Units left after k hits, k = 0..capacity."""
    return np.array([sum(take_hits(counts, k)) for k in range(capacity(counts) + 1)], dtype=np.int8)


def _strike_arrays(counts: tuple[int, int, int], hits: np.ndarray) -> dict[str, np.ndarray]:
    left = _left_table(counts)[np.minimum(hits, capacity(counts))]
    return {
        "hits": hits.astype(np.int16),
        "units_lost": (sum(counts) - left).astype(np.int8),
        "destroyed": left == 0,
        "survivors": left.astype(np.int8),
    }


def simulate_storm(
    rules: Rules, setup: StormSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """``n`` storms: the dice rolled over arrays, casualties by table."""
    dice_n, special = storm_dice(rules, setup.terrain, setup.settlement)
    return _strike_arrays(parse_legion(setup.legion).counts, _roll_hits(rules, dice_n, special, n, rng))


def simulate_worm(rules: Rules, setup: WormSetup, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` sandworm attacks."""
    counts = parse_legion(setup.legion).counts
    out = _strike_arrays(
        counts, _roll_hits(rules, *worm_dice(rules, setup.terrain, setup.wild_maker), n, rng)
    )
    if not sum(counts):
        out["destroyed"] = np.zeros(n, dtype=bool)
        lost = np.ones(n, dtype=bool)
    else:
        lost = out["destroyed"]
    out["harvester_lost"] = lost & (setup.harvester and not setup.carryall)
    return out


# --- plain-Python references --------------------------------------------------------------------


def _figures(legion: Legion) -> list[str]:
    return ["regular"] * legion.regular + ["elite"] * legion.elite + ["special"] * legion.special


def _hit(figures: list[str]) -> None:
    """One hit: a regular falls; else an elite (plain first) becomes a regular."""
    if "regular" in figures:
        figures.remove("regular")
    elif "elite" in figures:
        figures[figures.index("elite")] = "regular"
    elif "special" in figures:
        figures[figures.index("special")] = "regular"


def _dice_hits(rules: Rules, count: int, special: int, rng: np.random.Generator) -> int:
    faces = ["hit"] * rules.hit_faces + ["shield"] * rules.shield_faces + ["special"] * rules.special_faces
    faces += ["blank"] * rules.blank_faces
    hits = 0
    for _ in range(count):
        face = faces[int(rng.integers(0, len(faces)))]
        hits += 1 if face == "hit" else special if face == "special" else 0
    return hits


def reference_storm(rules: Rules, setup: StormSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One storm, dice rolled one by one, figures removed one hit at a time."""
    figures = _figures(parse_legion(setup.legion))
    start = len(figures)
    struck = setup.terrain != "mountain" and (rules.storms_strike_settlements or not setup.settlement)
    i = EXPOSED.index(setup.terrain) if struck else 0
    hits = _dice_hits(rules, rules.storm_dice[i], rules.storm_special_hits[i], rng) if struck else 0
    for _ in range(hits):
        _hit(figures)
    return {
        "hits": hits,
        "units_lost": start - len(figures),
        "destroyed": not figures,
        "survivors": len(figures),
    }


def reference_worm(rules: Rules, setup: WormSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One sandworm attack, dice rolled one by one."""
    figures = _figures(parse_legion(setup.legion))
    start = len(figures)
    i = EXPOSED.index(setup.terrain)
    count = rules.worm_dice[i] + (rules.wild_maker_extra_dice if setup.wild_maker else 0)
    hits = _dice_hits(rules, count, rules.worm_special_hits[i], rng)
    for _ in range(hits):
        _hit(figures)
    destroyed = start > 0 and not figures
    harvester_lost = setup.harvester and not setup.carryall and (start == 0 or destroyed)
    return {
        "hits": hits,
        "units_lost": start - len(figures),
        "destroyed": destroyed,
        "survivors": len(figures),
        "harvester_lost": harvester_lost,
    }


# --- Desert Hazards -----------------------------------------------------------------------------


class Area(NamedTuple):
    """One area of a Harkonnen deployment."""

    terrain: str
    legion: Legion
    harvester: bool
    carryall: bool
    settlement: bool

    @property
    def token(self) -> bool:
        """A wormsign token is placed here: a desert area with a Harkonnen legion or harvester."""
        return self.terrain in DESERTS and (self.legion.units > 0 or self.harvester)


def parse_area(text: Any, what: str = "area") -> Area:
    """``"deep desert: 3 regular, harvester, carryall"`` -> Area.

    >>> parse_area("Deep Desert: 2 regular, bashar, harvester")
    Area(terrain='deep_desert', legion=Legion(regular=2, elite=0, special=0, leaders=('bashar',), \
special_name='sardaukar'), harvester=True, carryall=False, settlement=False)
    """
    if not isinstance(text, str) or ":" not in text:
        raise InputError(f"{what} must look like 'deep desert: 3 regular, harvester', got {text!r}")
    place, _, rest = text.partition(":")
    place = terrain(place, what)
    items = [p.strip() for p in rest.replace("+", ",").split(",") if p.strip()]
    flags = {f: False for f in FLAGS}
    units = []
    for item in items:
        key = item.lower()
        if key in FLAGS or key.rstrip("s") in FLAGS:
            flag = key.rstrip("s") if key not in FLAGS else key
            if flags[flag]:  # a flag given twice would silently count once
                raise InputError(f"{what}: {item!r} is given twice; {ONE_EACH[flag]}")
            flags[flag] = True
        else:
            units.append(item)
    legion = _harkonnen(parse_legion(", ".join(units) or "none", what), what)
    if flags["harvester"] and place not in DESERTS:
        raise InputError(f"{what}: harvesters stand only in desert areas (deep desert, desert), not {place}")
    if flags["carryall"] and not flags["harvester"]:
        raise InputError(f"{what}: a carryall only saves a harvester; this area has none")
    if not legion.units and not flags["harvester"]:
        raise InputError(f"{what}: an area of the deployment needs a legion or a harvester")
    return Area(place, legion, flags["harvester"], flags["carryall"], flags["settlement"])


def _one_figure_each(areas: Sequence[Area]) -> None:
    """A named leader is one figure, in one area; and of Feyd-Rautha and Beast Rabban (Thufir
    Hawat and Gaius Helen Mohiam) one leaves the game as the other enters it, whatever their
    areas. An InputError naming the areas otherwise."""
    where: dict[str, int] = {}  # a named leader -> the area (from 1) that holds it
    typed: dict[str, str] = {}
    for number, area in enumerate(areas, 1):
        for key in dict.fromkeys(area.legion.leaders):
            if LEADERS[key].generic:
                continue
            if key in where:
                raise InputError(f"areas {where[key]} and {number} both hold {LEADERS[key].name}: a named "
                                 "leader is one figure, in one area")
            where[key] = number
            _one_person(typed, LEADERS[key].name, key, "areas")


def area_text(area: Area) -> str:
    """The canonical text of an area."""
    parts = [legion_text(area.legion)] if area.legion.units else []
    parts += [f for f in FLAGS if getattr(area, f)]
    return f"{area.terrain}: {', '.join(parts)}"


@dataclass(frozen=True, slots=True)
class HazardsSetup:
    """A Harkonnen deployment facing one Desert Hazards step.

    Attributes:
        areas: one text per area, ``"terrain: legion items, harvester, carryall, settlement"``
            (a list, or one string with areas separated by ``;``), resolved in this order.
        wild_maker: the Wild Maker is in play: the first worm, in the order the tokens resolve
            (``rules.wormsign_order``: by type, Sandworm before Burrowing, by default), that
            appears where a legion stands is the Wild Maker (more dice).
    """

    areas: tuple[str, ...]
    wild_maker: bool = False

    def __post_init__(self) -> None:
        items = self.areas.split(";") if isinstance(self.areas, str) else list(self.areas)
        items = [i for i in items if str(i).strip()]
        if not 1 <= len(items) <= MAX_AREAS:
            raise InputError(f"areas: give 1..{MAX_AREAS} areas, got {len(items)}")
        parsed = [parse_area(str(i).strip(), f"area {n + 1}") for n, i in enumerate(items)]
        _one_figure_each(parsed)
        object.__setattr__(self, "areas", tuple(area_text(a) for a in parsed))
        if not isinstance(self.wild_maker, bool):
            raise InputError(f"wild_maker must be true or false, got {self.wild_maker!r}")

    @property
    def parsed(self) -> tuple[Area, ...]:
        return _areas(self.areas)


@functools.lru_cache(maxsize=1024)
def _areas(texts: tuple[str, ...]) -> tuple[Area, ...]:
    return tuple(parse_area(t) for t in texts)


def parse_hazards(values: Mapping[str, Any]) -> HazardsSetup:
    if "areas" not in values:
        raise InputError("hazards setup: areas is required (e.g. ['deep desert: 3 regular, harvester'])")
    return build_dataclass(HazardsSetup, values, "hazards setup")


def _check_pool(rules: Rules, setup: HazardsSetup) -> int:
    tokens = sum(a.token for a in setup.parsed)
    if tokens > rules.pool_size:
        raise InputError(f"areas: {tokens} areas need a wormsign token but the pool holds {rules.pool_size}")
    return tokens


SAND, WORM, BURROW = 0, 1, 2


def _spice(rules: Rules, area: Area) -> int:
    return rules.deep_desert_spice if area.terrain == "deep_desert" else rules.desert_spice


@functools.lru_cache(maxsize=4096)
def _area_outcomes(
    rules: Rules, area: Area, worm: bool, wild: bool
) -> tuple[tuple[float, int, int, int, int], ...]:
    """((p, units lost, legion destroyed, harvester lost, spice), ...) of one area, given the worm."""
    counts, units = area.legion.counts, area.legion.units
    cap = capacity(counts)
    n_storm, s_storm = storm_dice(rules, area.terrain, area.settlement)
    storm = dice.damage(n_storm, rules.die, s_storm) if n_storm and units else (1.0,)
    worm_hits: tuple[float, ...] = (1.0,)
    if worm and units:
        n_worm, s_worm = worm_dice(rules, area.terrain, wild)
        worm_hits = dice.damage(n_worm, rules.die, s_worm)
    out: dict[tuple[int, int, int, int], float] = {}
    for k1, p1 in enumerate(worm_hits):
        eaten = units > 0 and k1 >= cap
        lost_harvester = area.harvester and not area.carryall and worm and (units == 0 or eaten)
        spice = _spice(rules, area) if area.harvester and not lost_harvester else 0
        for k2, p2 in enumerate(storm if not eaten else (1.0,)):
            left = sum(take_hits(counts, min(k1 + k2, cap)))
            key = (units - left, int(units > 0 and left == 0), int(lost_harvester), spice)
            out[key] = out.get(key, 0.0) + p1 * p2
    return tuple((p, *k) for k, p in out.items() if p > 0)


def _worm_appears(area: Area, kind: int) -> bool:
    return kind == WORM or (kind == BURROW and area.terrain == "deep_desert")


FREE, USED, PENDING = 0, 1, 2  # the Wild Maker: not placed, placed, maybe placed on a Burrowing worm


def _wild_steps(
    rules: Rules, setup: HazardsSetup, area: Area, kind: int | None, phase: int, version: int
) -> tuple[tuple[bool, int, int], ...]:
    """(this area's worm is the Wild Maker, next phase, next version) for one token drawn here.

    The Wild Maker is the first worm that finds a legion, in the order the tokens resolve. By
    area (``wormsign_order = "area"``) that is known on reaching the area. By type (Sandworm
    tokens, then Burrowing ones) a Burrowing worm in Deep Desert is the Wild Maker only if no
    later area's Sandworm token finds a legion: the phase PENDING then carries two accounts of
    the same chances, version 1 (this worm was the Wild Maker) and version 0 (it was not), and
    a later Sandworm worm that finds a legion keeps version 0 alone.
    """
    worm = kind is not None and _worm_appears(area, kind)
    if not (setup.wild_maker and worm and area.legion.units > 0) or phase == USED:
        return ((False, phase, version),)
    if rules.wormsign_order == "area" or kind == WORM:
        if phase == PENDING:  # a Sandworm token resolves before the pending Burrowing one
            return ((True, USED, 0),) if version == 0 else ()
        return ((True, USED, 0),)
    if phase == PENDING:  # a later Burrowing worm: the pending one resolves before it
        return ((False, phase, version),)
    return ((False, PENDING, 0), (True, PENDING, 1))


def exact_hazards(rules: Rules, setup: HazardsSetup) -> dict[str, float]:
    """Every metric exactly: tokens drawn without replacement, area by area, by dynamic programming.

    The state after each area is (tokens of each kind drawn so far, the Wild Maker's phase and
    version: :func:`_wild_steps`) with the joint distribution of the running totals (worms,
    units lost, legions destroyed, harvesters lost, spice).
    """
    _check_pool(rules, setup)
    pool = rules.pool
    states: dict[tuple, dict[tuple, float]] = {((0, 0, 0), FREE, 0): {(0, 0, 0, 0, 0): 1.0}}
    for area in setup.parsed:
        nxt: dict[tuple, dict[tuple, float]] = {}
        for (drawn, phase, version), totals in states.items():
            if area.token:
                left = [pool[k] - drawn[k] for k in range(3)]
                kinds: list[tuple[int | None, float]] = [
                    (k, left[k] / sum(left)) for k in range(3) if left[k]
                ]
            else:
                kinds = [(None, 1.0)]
            for kind, pk in kinds:
                worm = kind is not None and _worm_appears(area, kind)
                after = tuple(d + (k == kind) for k, d in enumerate(drawn))
                for wild, next_phase, next_version in _wild_steps(rules, setup, area, kind, phase, version):
                    bucket = nxt.setdefault((after, next_phase, next_version), {})
                    for p, lost, dead, harvester, spice in _area_outcomes(rules, area, worm, wild):
                        for (w, u, ld, h, sp), pt in totals.items():
                            t = (w + worm, u + lost, ld + dead, h + harvester, sp + spice)
                            bucket[t] = bucket.get(t, 0.0) + pt * pk * p
        states = nxt
    out = {name: 0.0 for m in HAZARD_METRICS for name in m.reported_names()}
    for (_, phase, version), totals in states.items():
        if phase == PENDING and version == 0:
            continue  # no Sandworm worm found a legion: the pending Burrowing worm was the Wild Maker

        for (w, u, ld, h, sp), p in totals.items():
            for name, v in (("worms", w), ("units_lost", u), ("harvesters_lost", h), ("spice", sp)):
                if f"{name}={v}" in out:
                    out[f"{name}={v}"] += p
            out["expected_units_lost"] += p * u
            out["legions_destroyed"] += p * ld
            out["expected_spice"] += p * sp
    return out


def _wild_maker_area(rules: Rules, setup: HazardsSetup, drawn: np.ndarray | None, n: int) -> np.ndarray:
    """Per trial, the index of the area whose worm is the Wild Maker, or -1.

    The first worm that finds a legion in resolution order: by type, every Sandworm token (in
    area order) before any Burrowing one; by area, area order.
    """
    found = np.full(n, -1, dtype=np.int64)
    if not setup.wild_maker or drawn is None:
        return found
    passes = (WORM, BURROW) if rules.wormsign_order == "type" else (None,)
    for wanted in passes:
        t = 0
        for i, area in enumerate(setup.parsed):
            if not area.token:
                continue
            kind = drawn[:, t]
            t += 1
            if not area.legion.units:
                continue
            worm = (kind == WORM) | ((kind == BURROW) & (area.terrain == "deep_desert"))
            if wanted is not None:
                worm &= kind == wanted
            found = np.where((found < 0) & worm, i, found)
    return found


def simulate_hazards(
    rules: Rules, setup: HazardsSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """``n`` Desert Hazards steps over arrays: a shuffled pool per trial, dice rolled per area."""
    tokens = _check_pool(rules, setup)
    pool = np.repeat(np.array([SAND, WORM, BURROW], dtype=np.int8), rules.pool)
    drawn = pool[np.argsort(rng.random((n, pool.size)), axis=1)[:, :tokens]] if tokens else None
    worms = np.zeros(n, dtype=np.int16)
    lost, dead, harvesters, spice = (np.zeros(n, dtype=np.int16) for _ in range(4))
    wild_area = _wild_maker_area(rules, setup, drawn, n)
    t = 0
    for i, area in enumerate(setup.parsed):
        counts, units = area.legion.counts, area.legion.units
        if area.token:
            kind = drawn[:, t]
            t += 1
            worm = (kind == WORM) | ((kind == BURROW) & (area.terrain == "deep_desert"))
        else:
            worm = np.zeros(n, dtype=bool)
        worms += worm
        hits = np.zeros(n, dtype=np.int16)
        eaten = np.zeros(n, dtype=bool)
        if units:
            wild = wild_area == i
            base, special = worm_dice(rules, area.terrain) if area.terrain in EXPOSED else (0, 0)
            n_dice = np.where(worm, base + wild * rules.wild_maker_extra_dice, 0)
            hits = _roll_hits(rules, n_dice, special, n, rng)
            eaten = hits >= capacity(counts)
            n_storm, s_storm = storm_dice(rules, area.terrain, area.settlement)
            hits = hits + np.where(eaten, 0, _roll_hits(rules, n_storm, s_storm, n, rng))
            left = _left_table(counts)[np.minimum(hits, capacity(counts))]
            lost += units - left
            dead += left == 0
        if area.harvester:
            gone = worm & (eaten if units else True) & (not area.carryall)
            harvesters += gone
            spice += np.where(gone, 0, _spice(rules, area)).astype(np.int16)
    return {
        "worms": worms,
        "units_lost": lost,
        "expected_units_lost": lost,
        "legions_destroyed": dead,
        "harvesters_lost": harvesters,
        "spice": spice,
        "expected_spice": spice,
    }


def reference_hazards(rules: Rules, setup: HazardsSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One Desert Hazards step in plain Python: a real pool of tokens shuffled, dice one by one.

    As the English overview orders it: tokens placed face down, then flipped and resolved Sand,
    then Sandworm, then Burrowing Sandworm (under ``wormsign_order = "area"``: area by area);
    then the storms; then the spice.
    """
    pool = ["sand"] * rules.wormsign_sand + ["sandworm"] * rules.wormsign_sandworm
    pool += ["burrowing"] * rules.wormsign_burrowing
    pool = [pool[i] for i in rng.permutation(len(pool))]
    areas = setup.parsed
    figures = [_figures(area.legion) for area in areas]
    start = [len(f) for f in figures]
    harvester = [area.harvester for area in areas]
    tokens: dict[int, str] = {}
    for i, area in enumerate(areas):  # 1. one token face down per desert area with a legion or harvester
        if area.terrain in ("deep_desert", "desert") and (figures[i] or area.harvester):
            tokens[i] = pool.pop(0)
    if rules.wormsign_order == "type":  # 2. flip and resolve: Sand, then Sandworm, then Burrowing
        order = [i for kind in ("sand", "sandworm", "burrowing") for i in tokens if tokens[i] == kind]
    else:
        order = list(tokens)
    worms = 0
    wild_maker_free = setup.wild_maker
    for i in order:
        area = areas[i]
        if not (tokens[i] == "sandworm" or (tokens[i] == "burrowing" and area.terrain == "deep_desert")):
            continue  # a false alarm, or a Burrowing Sandworm outside the Deep Desert
        worms += 1
        if figures[i]:
            e = EXPOSED.index(area.terrain)
            count = rules.worm_dice[e]
            if wild_maker_free:  # the Atreides place the Wild Maker at the first worm to find a legion
                count += rules.wild_maker_extra_dice
                wild_maker_free = False
            for _ in range(_dice_hits(rules, count, rules.worm_special_hits[e], rng)):
                _hit(figures[i])
            if not figures[i] and not area.carryall:
                harvester[i] = False
        elif not area.carryall:
            harvester[i] = False
    for i, area in enumerate(areas):  # 3. Coriolis storms
        sheltered = area.settlement and not rules.storms_strike_settlements
        if figures[i] and area.terrain != "mountain" and not sheltered:
            e = EXPOSED.index(area.terrain)
            for _ in range(_dice_hits(rules, rules.storm_dice[e], rules.storm_special_hits[e], rng)):
                _hit(figures[i])
    lost = sum(s - len(f) for s, f in zip(start, figures))
    dead = sum(s > 0 and not f for s, f in zip(start, figures))
    harvesters = sum(area.harvester and not kept for area, kept in zip(areas, harvester))
    spice = sum(  # 4. the harvesters left collect
        (rules.deep_desert_spice if area.terrain == "deep_desert" else rules.desert_spice)
        for area, kept in zip(areas, harvester)
        if kept
    )
    return {
        "worms": worms,
        "units_lost": lost,
        "expected_units_lost": lost,
        "legions_destroyed": dead,
        "harvesters_lost": harvesters,
        "spice": spice,
        "expected_spice": spice,
    }


# --- questions ----------------------------------------------------------------------------------

HITS = tuple(range(13))
SURVIVORS = tuple(range(7))
def applicable_worm(setup: WormSetup) -> tuple[str, ...]:
    """Every metric, but against a harvester alone only ``harvester_lost``: the worm rolls no dice
    at a lone harvester, and there is no legion to lose units or be destroyed."""
    if parse_legion(setup.legion).units:
        return tuple(m.name for m in QUESTIONS["worm"].metrics)
    return ("harvester_lost",)


_STRIKE = (
    Metric("hits", "distribution", "hits the dice inflict (Shields count for nothing)", HITS),
    Metric("units_lost", "mean", "units lost (an elite turned regular is not lost)"),
    Metric("destroyed", "probability", "every unit of the legion is lost (its leaders too)"),
    Metric("survivors", "distribution", "units left", SURVIVORS),
)
HAZARD_METRICS = (
    Metric(
        "worms",
        "distribution",
        "sandworms that appear (wormsign pool split assumed)",
        tuple(range(MAX_AREAS + 1)),
    ),
    Metric("expected_units_lost", "mean", "units lost to worms and storms (wormsign pool split assumed)"),
    Metric(
        "units_lost",
        "distribution",
        "units lost to worms and storms (wormsign pool split assumed)",
        tuple(range(31)),
    ),
    Metric("legions_destroyed", "mean", "legions wiped out (wormsign pool split assumed)"),
    Metric(
        "harvesters_lost",
        "distribution",
        "harvesters lost to worms (wormsign pool split assumed)",
        tuple(range(MAX_AREAS + 1)),
    ),
    Metric("expected_spice", "mean", "spice the harvesters left collect (wormsign pool split assumed)"),
    Metric(
        "spice",
        "distribution",
        "spice the harvesters left collect (wormsign pool split assumed)",
        tuple(range(2 * MAX_AREAS + 1)),
    ),
)

def storm_readings(rules: Rules, setup: StormSetup) -> list[str]:
    """The storm reading, where it matters: a settlement outside the mountains."""
    return readings(rules, storms=bool(setup.settlement) and setup.terrain != "mountain")


def hazards_readings(rules: Rules, setup: HazardsSetup) -> list[str]:
    """The storm reading where a legion shelters in a settlement; the wormsign order with the Wild Maker."""
    exposed = any(a.settlement and a.legion.units and a.terrain != "mountain" for a in setup.parsed)
    return readings(rules, storms=exposed, wormsigns=setup.wild_maker)


def check_stacking(rules: Rules, setup: StormSetup | WormSetup | HazardsSetup) -> None:
    """A Harkonnen legion of more units than an area holds under these rules (6 under the CHOAM
    Ban, which holds 5: the excess is removed at once) is no legion a storm or worm can meet."""
    top = rules.harkonnen_stacking
    if isinstance(setup, HazardsSetup):
        legions = [(f"area {i}", a.legion) for i, a in enumerate(setup.parsed, start=1)]
    else:
        legions = [("legion", parse_legion(setup.legion))]
    for where, legion in legions:
        if legion.units > top:
            raise InputError(
                f"{where}: {legion.units} units, but under the CHOAM Ban a Harkonnen legion holds at most "
                f"{top} (the excess is removed at once); give at most {top} units"
            )


QUESTIONS = {
    "storm": Question(
        name="storm",
        description="a Coriolis storm on one Harkonnen legion, by terrain",
        setup_type=StormSetup,
        metrics=_STRIKE,
        simulate=simulate_storm,
        exact=exact_storm,
        notes=storm_readings,
        parse_setup=parse_storm,
        reference=reference_storm,
        example={"legion": "3 regular, 1 elite, bashar", "terrain": "deep_desert"},
        rule_fields=STORM_RULES,
        check=check_stacking,  # the CHOAM Ban changes no number here, it only makes 6 units impossible
    ),
    "worm": Question(
        name="worm",
        description="a sandworm (or Wild Maker) attack on one area, by terrain, with its harvester",
        setup_type=WormSetup,
        metrics=_STRIKE + (Metric("harvester_lost", "probability", "the area's harvester is lost"),),
        simulate=simulate_worm,
        exact=exact_worm,
        parse_setup=parse_worm,
        reference=reference_worm,
        applicable=applicable_worm,
        example={"legion": "3 regular, 1 sardaukar", "terrain": "desert", "harvester": True},
        rule_fields=WORM_RULES,
        check=check_stacking,  # the CHOAM Ban changes no number here, it only makes 6 units impossible
    ),
    "hazards": Question(
        name="hazards",
        description=(
            "one Desert Hazards step for a Harkonnen deployment: wormsigns drawn without replacement "
            "(pool split 8/4/4 is an ASSUMPTION), worms, storms, spice"
        ),
        setup_type=HazardsSetup,
        metrics=HAZARD_METRICS,
        simulate=simulate_hazards,
        exact=exact_hazards,
        notes=hazards_readings,
        parse_setup=parse_hazards,
        reference=reference_hazards,
        rule_fields=HAZARD_RULES,
        check=check_stacking,  # the CHOAM Ban changes no number here, it only makes 6 units impossible
        example={
            "areas": [
                "deep_desert: 3 regular, 1 elite, bashar, harvester",
                "deep_desert: harvester",
                "desert: 2 regular, harvester, carryall",
                "plateau: 2 regular",
            ]
        },
    ),
}
