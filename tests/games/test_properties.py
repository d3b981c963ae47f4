"""Properties every answer must have, over random setups (hypothesis), from the exact solvers.

For each game: probabilities of exhaustive outcomes sum to 1; swapping the sides of a symmetric
setup swaps the odds; one more Strength point (Dune 1984) or troop (Dune: Imperium) never lowers
that side's odds where the rules make that true; the exact solver agrees with a brute-force
enumeration written here, apart from it, on small setups.

Where the rules do not give a property, the test says so:

- Dune 1984 under ``ties_favour_defender`` is not symmetric: swapping sides moves the ties.
- Dune: Imperium: one more troop never lowers a seat's chance of *first* place (under every tie
  rule and tie-breaker), but it can lower its chance of *second* or of *third* (it may climb
  past them), so only first place and "no reward at all" are checked; seats are symmetric only
  without ``tiebreak_by_seat`` (which favours the lower seat).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from montecarlo.registry import get_game

DUNE = get_game("dune1984")
DUEL, FIGHT = DUNE.question("duel"), DUNE.question("fight")
IMPERIUM = get_game("imperium")
CONFLICT = IMPERIUM.question("conflict")

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
TOL = 1e-9

def compatible(game):
    """Whether named variants can go together: none sets a rule that another sets otherwise
    (``Game.rules`` refuses such a set, e.g. best_play with strongest_first)."""

    def ok(names: list[str]) -> bool:
        settings: dict = {}
        return all(settings.setdefault(k, v) == v for n in names for k, v in game.variants[n].items())

    return ok


strength = st.integers(1, 6)
kit = st.lists(st.sampled_from(["sword", "gom_jabbar", "poison"]), unique=True, max_size=3).map(tuple)
guile = st.integers(0, 6)
dune_variants = st.lists(
    st.sampled_from(sorted(DUNE.variants)), unique=True, max_size=3
).filter(compatible(DUNE))
# variants under which the sides are treated alike (a tie is re-rolled)
symmetric_variants = st.lists(
    # one side playing best is not symmetric either (the other side designates its weakest)
    st.sampled_from(sorted(set(DUNE.variants) - {"ties_favour_defender", "best_play", "defender_best_play"})),
    unique=True, max_size=3,
).filter(compatible(DUNE))


def duel(a, d, ka=(), kd=(), ga=3, gd=3):
    return DUEL.setup(
        {
            "attacker": a,
            "defender": d,
            "attacker_equipment": list(ka),
            "defender_equipment": list(kd),
            "attacker_guile": ga,
            "defender_guile": gd,
        }
    )


def fight(a, d, ka=(), kd=(), ga=3, gd=3):
    return FIGHT.setup(
        {
            "attacker": list(a),
            "defender": list(d),
            "attacker_equipment": list(ka),
            "defender_equipment": list(kd),
            "attacker_guile": ga,
            "defender_guile": gd,
        }
    )


def total(values: dict, prefix: str) -> float:
    return sum(v for k, v in values.items() if k.startswith(prefix + "="))


# --- Dune 1984: exhaustive outcomes -------------------------------------------------------------


@SETTINGS
@given(strength, strength, kit, kit, guile, guile, dune_variants)
def test_duel_outcomes_are_exhaustive(a, d, ka, kd, ga, gd, variants):
    e = DUEL.exact(DUNE.rules(variants), duel(a, d, ka, kd, ga, gd))
    # the winner has a Strength of 1..6 whoever wins, before and after the gain
    assert total(e, "winner_strength") == pytest.approx(1.0, abs=TOL)
    assert total(e, "winner_strength_after") == pytest.approx(1.0, abs=TOL)
    assert 0 <= e["attacker_win"] <= 1 and 0 <= e["poisoned"] <= 1
    assert e["rounds"] == pytest.approx(e["decisive_rounds"] + e["tied_rounds"], rel=1e-9)
    if "poison" not in ka + kd:
        assert e["poisoned"] == 0


sides = st.lists(strength, min_size=1, max_size=3)


@SETTINGS
@given(sides, sides, kit, kit, dune_variants)
def test_fight_outcomes_are_exhaustive(a, d, ka, kd, variants):
    rules = DUNE.rules(variants)
    e = FIGHT.exact(rules, fight(a, d, ka, kd))
    assert total(e, "attacker_survivors") == pytest.approx(1.0, abs=TOL)
    assert total(e, "defender_survivors") == pytest.approx(1.0, abs=TOL)
    if rules.fight_to_last:  # a side wins exactly when the other has nobody left
        assert e["attacker_survivors=0"] == pytest.approx(1 - e["attacker_win"], abs=TOL)
        assert e["defender_survivors=0"] == pytest.approx(e["attacker_win"], abs=TOL)
    for n in range(len(a) + 1, 4):
        assert e[f"attacker_survivors={n}"] == 0
    assert e["attacker_strength_after"] <= sum(min(v + rules.strength_gain, 6) for v in a) + TOL


# --- Dune 1984: swapping sides --------------------------------------------------------------------


@SETTINGS
@given(strength, strength, kit, kit, guile, guile, symmetric_variants)
def test_swapping_duel_sides_swaps_the_odds(a, d, ka, kd, ga, gd, variants):
    rules = DUNE.rules(variants)
    e, swapped = DUEL.exact(rules, duel(a, d, ka, kd, ga, gd)), DUEL.exact(rules, duel(d, a, kd, ka, gd, ga))
    assert e["attacker_win"] == pytest.approx(1 - swapped["attacker_win"], abs=TOL)
    for name in ("rounds", "tied_rounds", "poisoned", *(f"winner_strength={v}" for v in range(1, 7))):
        assert e[name] == pytest.approx(swapped[name], abs=TOL)


@SETTINGS
@given(sides, sides, kit, kit, symmetric_variants)
def test_swapping_fight_sides_swaps_the_odds(a, d, ka, kd, variants):
    rules = DUNE.rules(variants)
    e, swapped = FIGHT.exact(rules, fight(a, d, ka, kd)), FIGHT.exact(rules, fight(d, a, kd, ka))
    assert e["attacker_win"] == pytest.approx(1 - swapped["attacker_win"], abs=TOL)
    for v in range(4):
        assert e[f"attacker_survivors={v}"] == pytest.approx(swapped[f"defender_survivors={v}"], abs=TOL)
    assert e["attacker_strength_after"] == pytest.approx(swapped["defender_strength_after"], abs=TOL)


def test_ties_favour_defender_is_not_symmetric():
    rules = DUNE.rules(["ties_favour_defender"])
    assert DUEL.exact(rules, duel(3, 3))["attacker_win"] < 0.5 - 0.05


# --- Dune 1984: one more Strength point ---------------------------------------------------------


@SETTINGS
@given(st.integers(1, 5), strength, kit, kit, guile, guile, dune_variants, st.booleans())
def test_one_more_strength_never_lowers_the_duel_odds(a, d, ka, kd, ga, gd, variants, attacker):
    rules = DUNE.rules(variants)
    if attacker:
        before, after = duel(a, d, ka, kd, ga, gd), duel(a + 1, d, ka, kd, ga, gd)
        sign = 1
    else:
        before, after = duel(d, a, kd, ka, gd, ga), duel(d, a + 1, kd, ka, gd, ga)
        sign = -1
    gain = DUEL.exact(rules, after)["attacker_win"] - DUEL.exact(rules, before)["attacker_win"]
    assert sign * gain >= -TOL


@SETTINGS
@given(sides, sides, st.integers(0, 2), kit, kit, dune_variants)
def test_one_more_strength_never_lowers_the_fight_odds(a, d, who, ka, kd, variants):
    who = who % len(a)
    if a[who] == 6:
        return
    stronger = list(a)
    stronger[who] += 1
    rules = DUNE.rules(variants)
    base = FIGHT.exact(rules, fight(a, d, ka, kd))["attacker_win"]
    assert FIGHT.exact(rules, fight(stronger, d, ka, kd))["attacker_win"] >= base - TOL


# --- Dune 1984: the solver against a brute-force enumeration --------------------------------------


def _pool(n: int, items: tuple[str, ...], rules) -> list[int]:
    """Faces of every die a side rolls, read from the rules: Strength dice (d8 with a Sword) up to
    the cap, plus the Gom Jabbar's d8, which takes a place under the cap only in that variant."""
    gom = "gom_jabbar" in items
    cap = rules.max_dice - (1 if gom and rules.gom_counts_toward_cap else 0)
    return [8 if "sword" in items else 6] * min(n, cap) + ([8] if gom else [])


@functools.lru_cache(maxsize=None)
def _highest(pool: tuple[int, ...]) -> dict[int, float]:
    """Distribution of the highest face, adding the dice one at a time, each face of each die."""
    dist = {0: 1.0}
    for faces in pool:
        nxt: dict[int, float] = {}
        for top, p in dist.items():
            for face in range(1, faces + 1):
                nxt[max(top, face)] = nxt.get(max(top, face), 0.0) + p / faces
        dist = nxt
    return dist


def _brute_round(pool_a: tuple[int, ...], pool_d: tuple[int, ...]) -> tuple[float, float, float]:
    """(attacker wins, defender wins, tie): every pair of highest faces."""
    ha, hd = _highest(pool_a), _highest(pool_d)
    win = sum(x * y for va, x in ha.items() for vd, y in hd.items() if va > vd)
    lose = sum(x * y for va, x in ha.items() for vd, y in hd.items() if va < vd)
    return win, lose, 1 - win - lose


def _brute_duel(rules, a, d, ka, kd):
    """P(attacker wins) by recursion over (Strength, Strength), no Poison."""

    @functools.lru_cache(maxsize=None)
    def p(sa, sd):
        if sd == 0:
            return 1.0
        if sa == 0:
            return 0.0
        win, lose, tie = _brute_round(tuple(_pool(sa, ka, rules)), tuple(_pool(sd, kd, rules)))
        if rules.ties == "defender":
            return win * p(sa, sd - 1) + (lose + tie) * p(sa - 1, sd)
        return (win * p(sa, sd - 1) + lose * p(sa - 1, sd)) / (1 - tie)

    return p(a, d)


small_kit = st.lists(st.sampled_from(["sword", "gom_jabbar"]), unique=True, max_size=2).map(tuple)


@SETTINGS
@given(strength, strength, small_kit, small_kit, dune_variants)
def test_duel_solver_matches_brute_force(a, d, ka, kd, variants):
    rules = DUNE.rules(variants)
    want = _brute_duel(rules, a, d, ka, kd)
    assert DUEL.exact(rules, duel(a, d, ka, kd))["attacker_win"] == pytest.approx(want, abs=1e-10)


def test_duel_solver_matches_brute_force_where_the_gom_cap_binds():
    for variants in ([], ["gom_counts_toward_cap"]):
        rules = DUNE.rules(variants)
        for a, d, ka, kd in [
            (6, 6, ("gom_jabbar",), ()),
            (6, 5, ("gom_jabbar", "sword"), ("sword",)),
            (4, 6, (), ("gom_jabbar",)),
        ]:
            want = _brute_duel(rules, a, d, ka, kd)
            assert DUEL.exact(rules, duel(a, d, ka, kd))["attacker_win"] == pytest.approx(want, abs=1e-10)


# --- Dune: Imperium ---------------------------------------------------------------------------------

imperium_variants = st.lists(
    st.sampled_from(sorted(IMPERIUM.variants)), unique=True, max_size=3
).filter(compatible(IMPERIUM))
troop_count = st.integers(0, 4)
PLACES = ("first", "second", "third", "nothing")


def conflict(troops, revealed, intrigue, deck="starting"):
    return CONFLICT.setup(
        {
            "troops": [str(t) if isinstance(t, int) else t for t in troops],
            "revealed": list(revealed),
            "intrigue": list(intrigue),
            "deck": deck,
        }
    )


@st.composite
def conflicts(draw, max_players=4, max_revealed=4):
    players = draw(st.integers(2, max_players))
    troops = draw(st.lists(troop_count, min_size=players, max_size=players))
    revealed = draw(st.lists(st.integers(0, max_revealed), min_size=players, max_size=players))
    intrigue = draw(st.lists(st.integers(0, 3), min_size=players, max_size=players))
    deck = draw(st.sampled_from(["starting", "starting+sword2"]))
    return troops, revealed, intrigue, deck


@SETTINGS
@given(conflicts(), imperium_variants)
def test_each_seat_takes_exactly_one_place(c, variants):
    e = CONFLICT.exact(IMPERIUM.rules(variants), conflict(*c))
    for seat in range(1, len(c[0]) + 1):
        assert sum(e[f"seat{seat}_{p}"] for p in PLACES) == pytest.approx(1.0, abs=TOL)
    if (
        "ties_split_up" not in variants
    ):  # one player at most is first: a tied group takes the next place (4.2)
        assert sum(e[f"seat{s}_first"] for s in range(1, 5)) <= 1 + TOL
    for seat in range(len(c[0]) + 1, 5):
        assert e[f"seat{seat}_nothing"] == 0 and e[f"seat{seat}_first"] == 0


@SETTINGS
@given(conflicts(), imperium_variants, st.randoms(use_true_random=False))
def test_reordering_seats_reorders_the_odds(c, variants, random):
    rules = IMPERIUM.rules([v for v in variants if v != "tiebreak_by_seat"])
    players = len(c[0])
    order = list(range(players))
    random.shuffle(order)
    troops, revealed, intrigue, deck = c
    moved = ([troops[i] for i in order], [revealed[i] for i in order], [intrigue[i] for i in order], deck)
    e, m = CONFLICT.exact(rules, conflict(*c)), CONFLICT.exact(rules, conflict(*moved))
    for new, old in enumerate(order, 1):
        for p in PLACES:
            assert m[f"seat{new}_{p}"] == pytest.approx(e[f"seat{old + 1}_{p}"], abs=TOL)
    assert m["tie_first"] == pytest.approx(e["tie_first"], abs=TOL)


def test_tiebreak_by_seat_favours_the_lower_seat():
    e = CONFLICT.exact(IMPERIUM.rules(["tiebreak_by_seat"]), conflict([2, 2], [0, 0], [0, 0]))
    assert e["seat1_first"] == 1 and e["seat2_second"] == 1


@SETTINGS
@given(conflicts(), imperium_variants, st.integers(0, 3))
def test_one_more_troop_never_lowers_the_chance_of_first(c, variants, seat):
    troops, revealed, intrigue, deck = c
    seat %= len(troops)
    more = list(troops)
    more[seat] += 1
    rules = IMPERIUM.rules(variants)
    e, m = (
        CONFLICT.exact(rules, conflict(*c)),
        CONFLICT.exact(rules, conflict(more, revealed, intrigue, deck)),
    )
    s = seat + 1
    assert m[f"seat{s}_first"] >= e[f"seat{s}_first"] - TOL
    assert m[f"seat{s}_nothing"] <= e[f"seat{s}_nothing"] + TOL
    for other in set(range(1, len(troops) + 1)) - {s}:
        assert m[f"seat{other}_first"] <= e[f"seat{other}_first"] + TOL


def test_one_more_troop_can_lower_the_chance_of_second():
    # seat 1 alone second behind seat 2; with one more troop it ties seat 2 for first and takes
    # the second reward (4.2), or with two more it is first: its chance of second falls to 0
    rules = IMPERIUM.rules()
    before = CONFLICT.exact(rules, conflict([2, 3], [0, 0], [0, 0]))
    after = CONFLICT.exact(rules, conflict([4, 3], [0, 0], [0, 0]))
    assert before["seat1_second"] == 1 and after["seat1_second"] == 0


def _brute_conflict(rules, troops, revealed, intrigue, deck_name):
    """Place probabilities by dealing every hand of every seat from the deck's real cards, then
    allocating with the kernel's vectorised allocator (the solver uses the scalar reference)."""
    from montecarlo.games.imperium import DECKS, allocate

    deck = DECKS[deck_name]
    cards = [c.swords for c in deck.cards for _ in range(c.copies)]
    hands = [[sum(h) for h in itertools.combinations(cards, r)] for r in revealed]  # equally likely hands
    rows = np.array(list(itertools.product(*hands)), dtype=np.int64).reshape(-1, len(troops))
    t = np.array(troops)
    strengths = np.where(
        t > 0, rules.troop_strength * t + rules.sword_strength * rows + np.array(intrigue), 0
    )
    alloc = allocate(strengths, rules, np.broadcast_to(t, strengths.shape).copy())
    out = {}
    for seat in range(len(troops)):
        for number, name in enumerate(("nothing", "first", "second", "third")):
            out[f"seat{seat + 1}_{name}"] = float(np.mean(alloc.places[:, seat] == number))
    out["tie_first"], out["tie_second"] = float(alloc.tie_first.mean()), float(alloc.tie_second.mean())
    return out


@settings(max_examples=30, deadline=None, derandomize=True)
@given(conflicts(max_players=3, max_revealed=2), imperium_variants)
def test_conflict_solver_matches_brute_force(c, variants):
    rules = IMPERIUM.rules(variants)
    want = _brute_conflict(rules, *c)
    got = CONFLICT.exact(rules, conflict(*c))
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


# --- every variant changes an answer -------------------------------------------------------------

EXTRA_SETUPS = {("dune1984", "duel"): [{"attacker": 6, "defender": 6, "attacker_equipment": ["gom_jabbar"]}]}


@pytest.mark.parametrize("game", [DUNE, IMPERIUM], ids=lambda g: g.name)
def test_every_variant_changes_some_exact_answer(game):
    """A variant is checked by its effect on results, not by its Rules object differing."""
    official = game.rules()
    for variant in game.variants:
        rules = game.rules([variant])
        changed = [
            (question.name, values)
            for question in game.questions.values()
            if question.exact is not None
            for values in [question.example, *EXTRA_SETUPS.get((game.name, question.name), [])]
            if values
            if question.exact(rules, question.setup(values))
            != question.exact(official, question.setup(values))
        ]
        assert changed, f"variant {variant} changes no exact answer of any example setup"
