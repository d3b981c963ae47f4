"""Dune: War for Arrakis storms, sandworms and Desert Hazards (docs/rules/war-for-arrakis.md).

Storm and worm damage against closed forms; wormsign draws against the hypergeometric
distribution (tokens drawn without replacement); kernels and the plain-Python references
against the exact solvers within 4.5 standard errors; setup errors.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import hypergeom

from montecarlo.errors import InputError
from montecarlo.games.war_for_arrakis import GAME
from montecarlo.games.war_for_arrakis.battle import Legion
from montecarlo.games.war_for_arrakis.dice import damage
from montecarlo.games.war_for_arrakis.hazards import (
    Area,
    HazardsSetup,
    StormSetup,
    WormSetup,
    exact_hazards,
    exact_storm,
    exact_worm,
    hazards_readings,
    parse_area,
    pool_note,
    reference_hazards,
    reference_storm,
    reference_worm,
    simulate_hazards,
    simulate_storm,
    simulate_worm,
    storm_dice,
    storm_readings,
)
from montecarlo.games.war_for_arrakis.rules import READINGS, Rules

RULES = Rules()
Z = 4.5


def closed_form(n: int, special: int) -> list[float]:
    """P(k hits) of n dice: x Specials ~ Binomial(n, 1/6); of the other n - x dice, h Hits ~
    Binomial(n - x, (1/2) / (5/6) = 3/5); k = h + special * x."""
    out = [0.0] * (n * max(special, 1) + 1)
    for x in range(n + 1):
        px = math.comb(n, x) * (1 / 6) ** x * (5 / 6) ** (n - x)
        for h in range(n - x + 1):
            out[h + special * x] += px * math.comb(n - x, h) * 0.6**h * 0.4 ** (n - x - h)
    return out


def test_storm_in_deep_desert_by_hand():
    """2 dice, Hit 1/2 = 1 hit, Special 1/6 = 2 hits, Shield 1/3 = 0: P(0) = 1/9, P(1) = 2(1/2)(1/3)
    = 1/3, P(2) = 1/4 + 2(1/6)(1/3) = 13/36, P(3) = 2(1/2)(1/6) = 1/6, P(4) = 1/36."""
    want = [Fraction(1, 9), Fraction(1, 3), Fraction(13, 36), Fraction(1, 6), Fraction(1, 36)]
    assert damage(2, RULES.die, 2) == pytest.approx([float(w) for w in want])
    e = exact_storm(RULES, StormSetup("2 regular", "deep_desert"))
    assert e["destroyed"] == pytest.approx(float(1 - want[0] - want[1]))
    assert e["units_lost"] == pytest.approx(float(want[1] + 2 * (1 - want[0] - want[1])))


@pytest.mark.parametrize(
    "place,special", [("deep_desert", 2), ("desert", 1), ("minor_erg", 0), ("plateau", 0)]
)
def test_storm_damage_matches_closed_form(place, special):
    e = exact_storm(RULES, StormSetup("6 regular", place))
    want = closed_form(2, special)
    for k, p in enumerate(want):
        assert e[f"hits={k}"] == pytest.approx(p)
    assert e["units_lost"] == pytest.approx(sum(k * p for k, p in enumerate(want)))  # 6 regulars absorb all


@pytest.mark.parametrize("place,special", [("deep_desert", 2), ("desert", 1), ("plateau", 0)])
@pytest.mark.parametrize("wild", [False, True])
def test_worm_damage_matches_closed_form(place, special, wild):
    n = 6 if wild else 4
    e = exact_worm(RULES, WormSetup("3 regular, 1 elite", place, wild_maker=wild))
    want = closed_form(n, special)
    for k, p in enumerate(want):
        assert e[f"hits={k}"] == pytest.approx(p)
    # 3 regulars then an elite (2 hits): units lost = min(k, 3) + (k >= 5)
    assert e["units_lost"] == pytest.approx(sum(p * (min(k, 3) + (k >= 5)) for k, p in enumerate(want)))
    assert e["destroyed"] == pytest.approx(sum(p for k, p in enumerate(want) if k >= 5))


def test_rulebook_dice_variants():
    storm = GAME.rules(["rulebook_storm_dice"])
    e = exact_storm(storm, StormSetup("6 regular", "deep_desert"))  # 3 dice, Hit or Special = 1 hit (2/3)
    for k in range(4):
        assert e[f"hits={k}"] == pytest.approx(math.comb(3, k) * (2 / 3) ** k * (1 / 3) ** (3 - k))
    worm = GAME.rules(["rulebook_worm_dice"])
    e = exact_worm(worm, WormSetup("6 regular", "plateau"))  # 3 dice on other terrain
    assert e["units_lost"] == pytest.approx(3 * 2 / 3)
    assert exact_storm(RULES, StormSetup("2 regular", "mountain"))["units_lost"] == 0
    assert exact_storm(RULES, StormSetup("2 regular", "desert", settlement=True))["units_lost"] == 0


def test_worm_on_a_harvester_alone_and_carryall():
    assert exact_worm(RULES, WormSetup("none", "desert", harvester=True))["harvester_lost"] == 1.0
    assert (
        exact_worm(RULES, WormSetup("none", "desert", harvester=True, carryall=True))["harvester_lost"] == 0.0
    )
    e = exact_worm(RULES, WormSetup("1 regular", "deep_desert", harvester=True))
    assert e["harvester_lost"] == pytest.approx(e["destroyed"]) and e["destroyed"] == pytest.approx(
        1 - (1 / 3) ** 4
    )
    # a worm rolls no dice at a harvester alone: only the harvester's loss applies (the dice's
    # hits, units lost and survivors were shown as if it had)
    worm = GAME.question("worm")
    assert worm.applicable_names(WormSetup("none", "desert", harvester=True)) == ("harvester_lost",)
    assert "hits=3" in worm.applicable_names(WormSetup("1 regular", "desert", harvester=True))


STRIKES = [
    ("storm", {"legion": "2 regular, 1 elite, 1 sardaukar", "terrain": "deep_desert"}, ()),
    ("storm", {"legion": "1 regular, 1 elite", "terrain": "desert"}, ("rulebook_storm_dice",)),
    (
        "worm",
        {"legion": "2 regular, 2 elite", "terrain": "deep_desert", "wild_maker": True, "harvester": True},
        (),
    ),
    (
        "worm",
        {"legion": "3 regular", "terrain": "desert", "harvester": True, "carryall": True},
        ("rulebook_worm_dice",),
    ),
]


def _z(values, expected, n):
    se = (
        max(math.sqrt(max(expected * (1 - expected), 0) / n), 1 / n)
        if set(np.unique(values)) <= {0, 1}
        else max(np.std(values, ddof=1) / math.sqrt(n), 1 / n)
    )
    return abs(np.mean(values) - expected) / se


@pytest.mark.parametrize("question,values,variants", STRIKES)
def test_strike_kernel_and_reference_match_exact(question, values, variants):
    rules = GAME.rules(variants)
    q = GAME.question(question)
    setup = q.setup(values)
    exact = q.exact(rules, setup)
    kernel = q.simulate(rules, setup, 50_000, np.random.default_rng(4))
    rng = np.random.default_rng(5)
    ref = [q.reference(rules, setup, rng) for _ in range(3_000)]
    for name in ("units_lost", "destroyed") + (("harvester_lost",) if question == "worm" else ()):
        for sample in (np.asarray(kernel[name], float), np.array([r[name] for r in ref], float)):
            assert _z(sample, exact[name], sample.size) <= Z, (name, sample.mean(), exact[name])
    for k in range(8):
        sample = np.asarray(kernel["hits"]) == k
        assert _z(sample, exact[f"hits={k}"], sample.size) <= Z, k


# --- wormsigns ----------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3, 6, 9])
def test_worms_in_deep_desert_are_hypergeometric(k):
    """In Deep Desert both Sandworm and Burrowing tokens make worms: 8 of the 16 tokens."""
    setup = HazardsSetup(tuple(["deep_desert: harvester"] * k))
    e = exact_hazards(RULES, setup)
    for w in range(k + 1):
        assert e[f"worms={w}"] == pytest.approx(hypergeom(16, 8, k).pmf(w))
        assert e[f"harvesters_lost={w}"] == pytest.approx(hypergeom(16, 8, k).pmf(w))  # no carryalls
    assert e["expected_spice"] == pytest.approx(2 * k * (1 - 8 / 16))


def test_worms_in_desert_are_hypergeometric_and_draws_are_shared():
    """In Desert only Sandworm tokens make worms (4 of 16); a mixed deployment draws from one pool."""
    e = exact_hazards(RULES, HazardsSetup(tuple(["desert: harvester"] * 5)))
    for w in range(6):
        assert e[f"worms={w}"] == pytest.approx(hypergeom(16, 4, 5).pmf(w))
    mixed = HazardsSetup(
        ("deep_desert: harvester", "desert: harvester", "plateau: 3 regular", "deep_desert: harvester")
    )
    sample = simulate_hazards(RULES, mixed, 60_000, np.random.default_rng(6))["worms"]
    # total worms: Sandworm tokens anywhere among the 3 draws, plus Burrowing ones in the 2 Deep Desert
    # draws; by symmetry of the draw order: P = sum over (sandworms s, burrowing b in Deep Desert)
    want = {}
    for s_deep in range(3):
        for s_des in range(2):
            for b_deep in range(3 - s_deep):
                # multivariate hypergeometric over the ordered slots: 2 deep slots, 1 desert slot
                p = _slots(s_deep, b_deep, s_des)
                want[s_deep + s_des + b_deep] = want.get(s_deep + s_des + b_deep, 0) + p
    e = exact_hazards(RULES, mixed)
    for w, p in want.items():
        assert e[f"worms={w}"] == pytest.approx(p)
        assert _z(sample == w, p, sample.size) <= Z


def _slots(s_deep: int, b_deep: int, s_des: int) -> float:
    """P(the 2 Deep Desert tokens hold s_deep Sandworm + b_deep Burrowing tokens, and the Desert
    token s_des Sandworm tokens), counted over every ordered draw of 3 tokens."""
    from itertools import permutations

    pool = ["S"] * 8 + ["W"] * 4 + ["B"] * 4
    total = 0.0
    for i, j, m in permutations(range(16), 3):
        deep = [pool[i], pool[j]]
        if deep.count("W") == s_deep and deep.count("B") == b_deep and (pool[m] == "W") == bool(s_des):
            total += 1
    return total / (16 * 15 * 14)


HAZARDS = [
    (
        {
            "areas": [
                "deep_desert: 3 regular, 1 elite, bashar, harvester",
                "desert: harvester, carryall",
                "desert: 2 regular",
                "minor_erg: 2 regular, 1 sardaukar",
                "mountain: 3 regular",
            ]
        },
        (),
    ),
    (
        {
            "areas": [
                "deep_desert: 2 regular, harvester",
                "deep_desert: 4 regular",
                "plateau: 1 elite, settlement",
            ],
            "wild_maker": True,
        },
        ("rulebook_worm_dice",),
    ),
    ({"areas": ["desert: 1 regular, harvester", "deep_desert: harvester"]}, ("rulebook_storm_dice",)),
    (  # Burrowing worms in Deep Desert before and after Sandworm ones: who is the Wild Maker
        {
            "areas": [
                "deep_desert: 1 regular, harvester",
                "desert: 2 regular, settlement",
                "deep_desert: 2 regular, 1 elite",
                "desert: 3 regular",
            ],
            "wild_maker": True,
        },
        (),
    ),
    (
        {
            "areas": ["deep_desert: 1 regular", "desert: 2 regular, settlement", "deep_desert: 2 regular"],
            "wild_maker": True,
        },
        ("wormsigns_in_area_order", "storms_strike_settlements"),
    ),
]


@pytest.mark.parametrize("values,variants", HAZARDS)
def test_hazards_kernel_and_reference_match_exact(values, variants):
    rules = GAME.rules(variants)
    setup = GAME.question("hazards").setup(values)
    exact = exact_hazards(rules, setup)
    assert sum(exact[f"worms={w}"] for w in range(11)) == pytest.approx(1.0)
    assert sum(exact[f"spice={s}"] for s in range(21)) == pytest.approx(1.0)
    kernel = simulate_hazards(rules, setup, 40_000, np.random.default_rng(12))
    rng = np.random.default_rng(13)
    ref = [reference_hazards(rules, setup, rng) for _ in range(2_000)]
    for name in ("expected_units_lost", "legions_destroyed", "expected_spice"):
        for sample in (np.asarray(kernel[name], float), np.array([r[name] for r in ref], float)):
            assert _z(sample, exact[name], sample.size) <= Z, (name, sample.mean(), exact[name])
    for name, top in (("worms", 11), ("harvesters_lost", 11), ("units_lost", 31)):
        for v in range(top):
            sample = np.asarray(kernel[name]) == v
            assert _z(sample, exact[f"{name}={v}"], sample.size) <= Z, (name, v)


def test_pool_note_names_the_assumption():
    assert "ASSUMPTION" in pool_note(RULES)
    assert "ASSUMPTION" not in pool_note(GAME.rules(overrides={"wormsign_sand": 10}))


@pytest.mark.parametrize(
    "question,values,message",
    [
        ("storm", {"legion": "3 regular", "terrain": "swamp"}, "unknown terrain 'swamp'"),
        ("storm", {"legion": "2 regular, naib", "terrain": "desert"}, "Atreides"),
        ("worm", {"legion": "3 regular", "terrain": "mountain"}, "Mountain"),
        ("worm", {"legion": "3 regular", "terrain": "plateau", "harvester": True}, "desert areas"),
        ("worm", {"legion": "none", "terrain": "desert"}, "needs a target"),
        ("hazards", {"areas": ["plateau: harvester"]}, "desert areas"),
        ("hazards", {"areas": ["desert: 2 regular, carryall"]}, "carryall only saves"),
        ("hazards", {"areas": ["desert 2 regular"]}, "must look like"),
        ("hazards", {"areas": ["desert: harvester"] * 11}, "1..10 areas"),
    ],
)
def test_bad_hazard_setups(question, values, message):
    with pytest.raises(InputError, match=message):
        GAME.question(question).setup(values)


def test_pool_smaller_than_the_deployment():
    rules = GAME.rules(overrides={"wormsign_sand": 1, "wormsign_sandworm": 1, "wormsign_burrowing": 0})
    with pytest.raises(InputError, match="pool holds 2"):
        exact_hazards(rules, HazardsSetup(("desert: harvester",) * 3))
    with pytest.raises(InputError, match="pool holds 2"):
        simulate_hazards(rules, HazardsSetup(("desert: harvester",) * 3), 10, np.random.default_rng(1))


def test_references_run_on_the_examples():
    for q, values, _ in STRIKES:
        setup = GAME.question(q).setup(values)
        one = (reference_storm if q == "storm" else reference_worm)(RULES, setup, np.random.default_rng(1))
        assert one["units_lost"] >= 0
    out = simulate_storm(RULES, StormSetup("1 regular", "mountain"), 100, np.random.default_rng(1))
    assert not out["destroyed"].any()
    out = simulate_worm(RULES, WormSetup("none", "desert", harvester=True), 100, np.random.default_rng(1))
    assert out["harvester_lost"].all() and not out["destroyed"].any()


# --- whole messages and area texts ---------------------------------------------------------------

LEADER_NAMES = (
    "Bashar, Naib, Feyd-Rautha, Beast Rabban, Baron Harkonnen, Thufir Hawat, Gaius Helen Mohiam, "
    "Captain Aramsham, Shaddam IV, Paul Atreides, Paul-Muad'Dib, Lady Jessica, Reverend Mother Jessica, "
    "Gurney Halleck, Stilgar, Chani, Alia"
)
UNITS = "regular, elite, special elite (sardaukar or fedaykin)"
ATREIDES = "storms and sandworms strike Harkonnen legions; this one has Atreides leaders"
ONE_FEYD = "there is only one Feyd-Rautha; write the name once"


def test_pool_note_whole_text():
    """The default 8/4/4 split is flagged as an assumption; a split the user gives is not."""
    assert pool_note(RULES) == (
        "wormsign pool 8 Sand / 4 Sandworm / 4 Burrowing: an ASSUMPTION (the split is not published)"
    )
    given = GAME.rules(overrides={"wormsign_sand": 10, "wormsign_sandworm": 3, "wormsign_burrowing": 2})
    assert pool_note(given) == "wormsign pool 10 Sand / 3 Sandworm / 2 Burrowing: as given"


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: StormSetup("2 feyd", "desert"), f"legion: {ONE_FEYD}"),
        (lambda: StormSetup("2 regular, naib", "desert"), f"legion: {ATREIDES}"),
        (lambda: StormSetup("none", "desert"), "legion: a storm strikes a legion; give at least one unit"),
        (lambda: StormSetup("1 regular", "desert", settlement=1), "settlement must be true or false, got 1"),
        (lambda: WormSetup("2 feyd", "desert"), f"legion: {ONE_FEYD}"),
        (lambda: WormSetup("2 regular, naib", "desert"), f"legion: {ATREIDES}"),
        (lambda: WormSetup("1 regular", "desert", carryall=1), "carryall must be true or false, got 1"),
        (
            lambda: WormSetup("1 regular", "mountain"),
            "terrain: sandworms never attack a Mountain area; choose deep_desert, desert, "
            "minor_erg or plateau",
        ),
        (
            lambda: WormSetup("none", "desert"),
            "legion: the worm needs a target; give units or harvester = true",
        ),
        (  # as hazards refuses it in an area (worm took it and said nothing)
            lambda: WormSetup("3 regular", "desert", carryall=True),
            "carryall: a carryall only saves a harvester; this area has none",
        ),
        (
            lambda: GAME.question("storm").setup({"terrain": "desert"}),
            "storm setup: legion is required (a Harkonnen legion like '3 regular, bashar')",
        ),
        (
            lambda: GAME.question("worm").setup({"legion": "1 regular"}),
            "worm setup: terrain is required (e.g. desert)",
        ),
        (
            lambda: GAME.question("storm").setup({"legion": "1 regular"}),
            "storm setup: terrain is required (e.g. desert)",
        ),
        (
            lambda: GAME.question("worm").setup({"terrain": "desert"}),
            "worm setup: legion is required (a Harkonnen legion like '3 regular, bashar')",
        ),
        # a misspelt field is named as such, not reported as the missing one
        (
            lambda: GAME.question("worm").setup({"legion": "1 regular", "terain": "desert"}),
            "worm setup: unknown field(s) terain; known: carryall, harvester, legion, terrain, wild_maker",
        ),
        (
            lambda: GAME.question("storm").setup({"legion": "1 regular", "terrain": "desert", "color": 1}),
            "storm setup: unknown field(s) color; known: legion, settlement, terrain",
        ),
        (
            lambda: GAME.question("worm").setup({"legion": "1 regular", "terrain": "desert", "color": 1}),
            "worm setup: unknown field(s) color; known: carryall, harvester, legion, terrain, wild_maker",
        ),
        (
            lambda: GAME.question("hazards").setup({}),
            "hazards setup: areas is required (e.g. ['deep desert: 3 regular, harvester'])",
        ),
        (
            lambda: GAME.question("hazards").setup({"areas": ["desert: harvester"], "color": 1}),
            "hazards setup: unknown field(s) color; known: areas, wild_maker",
        ),
        (
            lambda: parse_area("desert 2 regular"),
            "area must look like 'deep desert: 3 regular, harvester', got 'desert 2 regular'",
        ),
        (
            lambda: HazardsSetup(("desert: harvester", "plateau: harvester")),
            "area 2: harvesters stand only in desert areas (deep desert, desert), not plateau",
        ),
        (
            lambda: HazardsSetup(("swamp: 2 regular",)),
            "area 1: unknown terrain 'swamp'; known: deep_desert, desert, minor_erg, plateau, mountain",
        ),
        (
            # only the first colon ends the terrain
            lambda: HazardsSetup(("desert: 1 regular: 2 regular",)),
            f"area 1: unknown unit kind or leader 'regular: 2 regular'; units: {UNITS}; "
            f"leaders: {LEADER_NAMES}",
        ),
        (lambda: HazardsSetup(("desert: 2 regular, naib",)), f"area 1: {ATREIDES}"),
        (lambda: HazardsSetup(("desert: 2 feyd",)), f"area 1: {ONE_FEYD}"),
        (
            lambda: HazardsSetup(("desert: settlement",)),
            "area 1: an area of the deployment needs a legion or a harvester",
        ),
        (lambda: HazardsSetup(("desert: harvester",) * 11), "areas: give 1..10 areas, got 11"),
        (  # one figure, one area; generic leaders (Bashars) may stand anywhere
            lambda: HazardsSetup(("desert: 2 regular, feyd, bashar", "plateau: 1 regular, bashar",
                                  "deep desert: 1 regular, Feyd-Rautha")),
            "areas 1 and 3 both hold Feyd-Rautha: a named leader is one figure, in one area",
        ),
        (  # Beast Rabban leaves the game as Feyd-Rautha enters it, whatever their areas
            lambda: HazardsSetup(("desert: 2 regular, rabban", "desert: 2 regular, feyd")),
            "areas: 'Beast Rabban' and 'Feyd-Rautha' are never in play together: Beast Rabban leaves the "
            "game as Feyd-Rautha enters it; give one of them",
        ),
        (  # counted once before: an area holds one harvester
            lambda: HazardsSetup(("desert: 1 regular", "desert: 3 regular, harvester, harvester")),
            "area 2: 'harvester' is given twice; an area holds at most one harvester",
        ),
        (
            lambda: parse_area("deep desert: harvester, Carryall, carryalls"),
            "area: 'carryalls' is given twice; one carryall saves the area's one harvester; give it once",
        ),
        (
            lambda: parse_area("desert: settlement, 2 regular, Settlement"),
            "area: 'Settlement' is given twice; an area holds at most one settlement",
        ),
        (
            lambda: HazardsSetup(("desert: harvester",), wild_maker=1),
            "wild_maker must be true or false, got 1",
        ),
    ],
)
def test_setup_messages_whole(make, message):
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message


def test_area_texts_flags_and_separators():
    """Plural flags, '+' between items, ';' between areas and blank areas all read as written."""
    assert parse_area("desert: 2 regular, harvesters, carryalls, settlements") == Area(
        "desert", Legion(2, 0, 0, ()), True, True, True
    )
    plain = Area("deep_desert", Legion(1, 0, 0, ()), False, False, False)
    assert parse_area("deep desert: 1 regular") == plain
    assert HazardsSetup(("desert: 2 regular + harvester",)).areas == ("desert: 2 regular, harvester",)
    assert HazardsSetup("desert: harvester; deep desert: 1 regular").areas == (
        "desert: harvester",
        "deep_desert: 1 regular",
    )
    assert HazardsSetup(("desert: harvester", " ")).areas == ("desert: harvester",)
    assert len(HazardsSetup(("desert: harvester",) * 10).areas) == 10  # 10 areas is the limit, allowed


def test_pool_exactly_as_large_as_the_deployment():
    """Two desert harvesters draw both tokens of a 1 Sand / 1 Sandworm pool: exactly one worm
    appears (a Sandworm token anywhere), in every trial."""
    rules = GAME.rules(overrides={"wormsign_sand": 1, "wormsign_sandworm": 1, "wormsign_burrowing": 0})
    setup = HazardsSetup(("desert: harvester",) * 2)
    assert exact_hazards(rules, setup)["worms=1"] == pytest.approx(1.0)
    assert (simulate_hazards(rules, setup, 50, np.random.default_rng(4))["worms"] == 1).all()
    rng = np.random.default_rng(5)
    assert all(reference_hazards(rules, setup, rng)["worms"] == 1 for _ in range(20))


def test_storms_spare_mountains_and_settlements():
    """No storm strikes a Mountain area or a settlement: no hit, nobody lost, in every solver."""
    rng = np.random.default_rng(7)
    for setup in (StormSetup("2 regular", "mountain"), StormSetup("2 regular", "desert", settlement=True)):
        for _ in range(10):
            assert reference_storm(RULES, setup, rng) == {
                "hits": 0,
                "units_lost": 0,
                "destroyed": False,
                "survivors": 2,
            }
        out = simulate_storm(RULES, setup, 100, rng)
        assert not out["hits"].any() and (out["survivors"] == 2).all()
        e = exact_storm(RULES, setup)
        assert (e["hits=0"], e["hits=1"], e["survivors=2"], e["units_lost"]) == (1, 0, 1, 0)


def test_reference_worm_destroys_a_single_unit():
    """A worm's 4 dice destroy 1 regular unless every die is a Shield: 1 - (1/3)^4; each trial
    that leaves no unit counts as destroyed."""
    rng = np.random.default_rng(8)
    trials = [reference_worm(RULES, WormSetup("1 regular", "deep_desert"), rng) for _ in range(400)]
    assert all(t["destroyed"] == (t["survivors"] == 0) for t in trials)
    p = 1 - (1 / 3) ** 4
    assert _z(np.array([t["destroyed"] for t in trials], float), p, len(trials)) <= Z


def test_wild_maker_goes_to_the_first_worm_on_a_legion():
    """The Wild Maker is the first worm that appears where a legion stands: not a worm on a
    harvester alone, and a 1-unit legion is a legion. With 1 worm die and 6 extra Wild Maker dice
    the difference is large. Three legions after it, so that a Wild Maker used two areas back still
    counts as used. The exact solver, the kernel and the reference must agree. In the third area
    some trials roll the Wild Maker's 7 dice and others 1 die, so the kernel masks dice off."""
    rules = GAME.rules(overrides={"worm_dice": (1, 1, 1, 1), "wild_maker_extra_dice": 6})
    areas = ("deep_desert: harvester", "deep_desert: 1 regular") + ("deep_desert: 3 regular",) * 2
    setup = HazardsSetup(areas, wild_maker=True)
    exact = exact_hazards(rules, setup)
    with np.errstate(all="raise"):  # no 0/0 or x/0 hidden by a cast: every trial's dice are counted
        kernel = simulate_hazards(rules, setup, 20_000, np.random.default_rng(14))
    rng = np.random.default_rng(15)
    ref = [reference_hazards(rules, setup, rng) for _ in range(2_000)]
    for name in ("expected_units_lost", "legions_destroyed"):
        for sample in (np.asarray(kernel[name], float), np.array([r[name] for r in ref], float)):
            assert _z(sample, exact[name], sample.size) <= Z, (name, sample.mean(), exact[name])
    for v in range(8):
        sample = np.asarray(kernel["units_lost"]) == v
        assert _z(sample, exact[f"units_lost={v}"], sample.size) <= Z, v


def test_storm_dice_table():
    """(dice, hits per Special) by terrain (rules page, "Storms"): 2 dice everywhere exposed,
    Specials 2 / 1 / 0 / 0 hits; (0, 0) on a Mountain or a settlement, which storms never strike."""
    assert [storm_dice(RULES, t) for t in ("deep_desert", "desert", "minor_erg", "plateau")] == [
        (2, 2),
        (2, 1),
        (2, 0),
        (2, 0),
    ]
    assert storm_dice(RULES, "mountain") == (0, 0)
    assert storm_dice(RULES, "desert", settlement=True) == (0, 0)


def test_terrain_names_and_the_whole_unknown_terrain_message():
    """Dashes, underscores and spaces are one separator, any number of them; an unknown terrain
    names the field (``terrain`` by default) and lists the five terrains."""
    assert StormSetup("1 regular", "Deep-Desert").terrain == "deep_desert"
    assert StormSetup("1 regular", " Minor__Erg ").terrain == "minor_erg"
    assert WormSetup("1 regular", "plateau").terrain == "plateau"
    with pytest.raises(InputError) as err:
        StormSetup("1 regular", "swamp")
    assert str(err.value) == (
        "terrain: unknown terrain 'swamp'; known: deep_desert, desert, minor_erg, plateau, mountain"
    )


def test_reference_special_elites_take_two_hits_each():
    """In the plain-Python references a special elite (sardaukar) is worth two hits, like an
    elite: the first hit turns it into a regular, the second removes it. One sardaukar under a
    deep-desert storm (2 dice, Special = 2 hits) is lost exactly when the dice make 2+ hits; two
    sardaukar under a worm (4 dice) keep 2 units for 0-1 hits, 1 for 2-3 hits, none for 4+."""
    rng = np.random.default_rng(11)
    storms = [reference_storm(RULES, StormSetup("1 sardaukar", "deep_desert"), rng) for _ in range(200)]
    assert {t["hits"] for t in storms} >= {0, 1, 2, 3}
    for t in storms:
        assert (t["units_lost"], t["destroyed"], t["survivors"]) == (
            (1, True, 0) if t["hits"] >= 2 else (0, False, 1)
        )
    worms = [reference_worm(RULES, WormSetup("2 sardaukar", "desert"), rng) for _ in range(200)]
    assert {t["hits"] for t in worms} >= {0, 1, 2, 3, 4}
    for t in worms:
        assert t["survivors"] == (2, 2, 1, 1, 0)[min(t["hits"], 4)]
        assert t["units_lost"] == 2 - t["survivors"] and t["destroyed"] == (t["survivors"] == 0)


# --- the English overview's readings (issue 20) --------------------------------------------------


def test_storms_strike_settlements_by_hand():
    """English overview: "For each Harkonnen legion in such an area, the Atreides player rolls 2
    combat dice" (no exception for settlements; the Korean page spares "하코넨 거주지가 없고" areas
    without a Harkonnen settlement only).

    Under ``storms_strike_settlements``, 2 regulars in a Deep Desert settlement face 2 dice
    (Hit 1/2 = 1 hit, Special 1/6 = 2 hits, Shield 1/3 = 0): P(0 hits) = 1/9, P(1) = 2 x 1/2 x
    1/3 = 1/3, so destroyed = 5/9 and units lost = 1/3 + 2 x 5/9 = 13/9. By default: nothing.
    A Mountain area stays safe either way.
    """
    rules = GAME.rules(["storms_strike_settlements"])
    setup = StormSetup("2 regular", "deep_desert", settlement=True)
    e = exact_storm(rules, setup)
    assert (e["destroyed"], e["units_lost"]) == pytest.approx((5 / 9, 13 / 9), abs=1e-12)
    assert exact_storm(RULES, setup)["units_lost"] == 0
    assert exact_storm(rules, StormSetup("2 regular", "mountain", settlement=True))["units_lost"] == 0
    rng = np.random.default_rng(21)
    ref = np.array([reference_storm(rules, setup, rng)["destroyed"] for _ in range(3_000)], float)
    assert _z(ref, 5 / 9, ref.size) <= Z
    # in a Desert Hazards step the settlement's legion is struck too: 2 dice, 5/9 destroyed
    hazards = HazardsSetup(("deep_desert: 2 regular, settlement",))
    worm_free = GAME.rules(["storms_strike_settlements"], {"wormsign_sandworm": 0, "wormsign_burrowing": 0})
    assert exact_hazards(worm_free, hazards)["legions_destroyed"] == pytest.approx(5 / 9, abs=1e-12)


def test_wormsigns_resolve_by_type_by_hand():
    """English overview: "Flip all wormsign tokens on the board face-up and resolve their effects
    in this order: Sand ..., Sandworm ..., Burrowing Sandworm"; the Wild Maker is placed "instead
    of a normal sandworm" (the model: at the first worm that finds a legion).

    A pool of one Sandworm and one Burrowing token; Deep Desert: 1 regular, Desert: 2 regulars;
    the Wild Maker in play (6 dice, a worm 4, a storm 2). In Deep Desert a die misses 1 regular
    only on a Shield (1/3), so n dice leave it alive with 3^-n. In Desert every die but a Shield
    is 1 hit (2/3), and 2 regulars die with 2 hits or more.

    - Half the time the Deep Desert draws the Sandworm: the Wild Maker strikes there (6 + 2 storm
      dice: destroyed 1 - 3^-8), the Desert's Burrowing token is a false alarm (storm alone: 4/9).
    - Otherwise the Deep Desert's Burrowing worm and the Desert's Sandworm both appear. By area
      the first, in Deep Desert, is the Wild Maker: 1 - 3^-8, and the Desert's 4 + 2 dice destroy
      with 1 - 13/729. By type the Sandworm token resolves first, so the Wild Maker goes to the
      Desert: 4 + 2 dice in Deep Desert, 1 - 3^-6, and 8 dice in Desert, 1 - 17/6561.
    """
    third = Fraction(1, 3)
    case_a = (1 - third**8) + Fraction(4, 9)
    by_area = (case_a + (1 - third**8) + (1 - Fraction(13, 729))) / 2
    by_type = (case_a + (1 - third**6) + (1 - Fraction(17, 6561))) / 2
    pool = {"wormsign_sand": 0, "wormsign_sandworm": 1, "wormsign_burrowing": 1}
    setup = HazardsSetup(("deep_desert: 1 regular", "desert: 2 regular"), wild_maker=True)
    type_rules, area_rules = GAME.rules([], pool), GAME.rules(["wormsigns_in_area_order"], pool)
    assert exact_hazards(type_rules, setup)["legions_destroyed"] == pytest.approx(float(by_type), abs=1e-12)
    assert exact_hazards(area_rules, setup)["legions_destroyed"] == pytest.approx(float(by_area), abs=1e-12)
    # a Burrowing worm stays the Wild Maker when no Sandworm token finds a legion after it
    lone = HazardsSetup(("deep_desert: 1 regular", "desert: harvester"), wild_maker=True)
    assert exact_hazards(GAME.rules([], pool), lone)["legions_destroyed"] == pytest.approx(
        float(1 - third**8), abs=1e-12
    )
    rng = np.random.default_rng(22)
    for rules, want in ((type_rules, by_type), (area_rules, by_area)):
        ref = np.array([reference_hazards(rules, setup, rng)["legions_destroyed"] for _ in range(3_000)])
        kernel = np.asarray(simulate_hazards(rules, setup, 40_000, rng)["legions_destroyed"], float)
        for sample in (ref.astype(float), kernel):
            assert _z(sample, float(want), sample.size) <= Z


@pytest.mark.parametrize(
    ("areas", "wild_maker", "said"),
    [
        (("desert: 2 regular, settlement",), False, ["storms"]),
        (("desert: 2 regular, settlement",), True, ["storms", "wormsigns"]),
        (("desert: 2 regular", "deep desert: 1 regular, settlement"), False, ["storms"]),  # any area
        (("mountain: 2 regular, settlement",), True, ["wormsigns"]),  # no storm on mountains
        (("desert: settlement, harvester",), False, []),  # no legion in the settlement to spare
        (("desert: 2 regular",), False, []),  # no settlement
    ],
)
def test_hazards_name_the_storm_reading_only_where_a_settlement_shelters_a_legion(areas, wild_maker, said):
    """The storm reading is printed where it changes the answer: a legion in a settlement off the
    mountains; the wormsign reading with the Wild Maker."""
    setup = HazardsSetup(areas, wild_maker=wild_maker)
    for rules in (Rules(), Rules(storms_strike_settlements=True)):
        want = [READINGS["storms"][rules.storms_strike_settlements]] * ("storms" in said)
        want += [READINGS["wormsigns"][rules.wormsign_order]] * ("wormsigns" in said)
        assert hazards_readings(rules, setup) == want


@pytest.mark.parametrize(
    ("terrain", "settlement", "said"),
    [("desert", True, True), ("deep desert", True, True), ("mountain", True, False),
     ("desert", False, False)],
)
def test_a_storm_names_the_storm_reading_only_for_a_settlement_off_the_mountains(terrain, settlement, said):
    setup = StormSetup("2 regular", terrain, settlement)
    for rules in (Rules(), Rules(storms_strike_settlements=True)):
        assert storm_readings(rules, setup) == [READINGS["storms"][rules.storms_strike_settlements]] * said


def test_the_wild_maker_is_the_first_worm_that_finds_a_legion_in_resolution_order():
    """Tokens drawn per trial (one column per area with a token): a Burrowing token is a worm only
    in the deep desert; by type every Sandworm resolves before any Burrowing token, by area in
    area order; -1 where no worm finds a legion."""
    from montecarlo.games.war_for_arrakis.hazards import BURROW, SAND, WORM, _wild_maker_area

    mixed = HazardsSetup(("desert: 1 regular", "deep desert: 1 regular"), wild_maker=True)
    drawn = np.array([[SAND, SAND], [BURROW, SAND], [SAND, BURROW], [BURROW, WORM], [WORM, BURROW]])
    for rules in (Rules(), Rules(wormsign_order="area")):
        assert _wild_maker_area(rules, mixed, drawn, 5).tolist() == [-1, -1, 1, 1, 0]
    deep = HazardsSetup(("deep desert: 1 regular", "deep desert: 1 regular"), wild_maker=True)
    drawn = np.array([[BURROW, WORM]])
    assert _wild_maker_area(Rules(), deep, drawn, 1).tolist() == [1]  # the Sandworm first
    assert _wild_maker_area(Rules(wormsign_order="area"), deep, drawn, 1).tolist() == [0]
    assert _wild_maker_area(Rules(), HazardsSetup(mixed.areas), drawn, 1).tolist() == [-1]  # no Wild Maker


def test_the_choam_ban_refuses_a_six_unit_legion_a_storm_or_worm_could_not_meet():
    """Under the CHOAM Ban a Harkonnen area holds 5 units (the excess removed at once): a storm,
    worm or hazards step on 6 is refused in one line; on 5 the Ban changes nothing."""
    from montecarlo.registry import get_game

    game = get_game("war-for-arrakis")
    ban, official = game.rules(["choam_ban"]), game.rules()
    cases = {
        "storm": ({"legion": "5 regular, 1 elite", "terrain": "desert"}, "legion: 6 units"),
        "worm": ({"legion": "6 regular", "terrain": "desert"}, "legion: 6 units"),
        "hazards": ({"areas": ["desert: 2 regular", "desert: 4 regular, 2 elite"]}, "area 2: 6 units"),
    }
    for name, (values, said) in cases.items():
        question = game.question(name)
        setup = question.setup(values)
        question.check(official, setup)
        with pytest.raises(InputError, match=f"^{said}, but under the CHOAM Ban a Harkonnen legion holds at "
                                             "most 5 .*give at most 5 units$"):
            question.check(ban, setup)
    five = game.question("storm").setup({"legion": "5 regular", "terrain": "desert"})
    game.question("storm").check(ban, five)
