"""Movement reach and investments on the 2d6 movement roll of Dune (1984).

Rules as modelled: ``docs/rules/dune1984.md`` (Movement reach, Investments).

Reach: "If you decide to move one character ... use the number on either die, or the total of the
two dice"; a split roll moves two characters "only the number of spaces indicated on a single
die" each. A target is *reached* when the roll allows landing exactly that many spaces away.

Investments: a space shows two target sums of 2d6 and a payout ratio x:1. "When any player
(including yourself) rolls the dice to begin his turn" and the sum is one of the two, the stake
pays; "take the appropriate number of Spice directly from the Spice Bank and take back all Spice
invested". A stake that has not paid is lost after its owner's next movement roll.

Interpretations:
- A win gives back the stake and x from the Bank per Spice staked: (x + 1) * stake in all. Spice
  comes in whole pieces, so the Bank's part, x * stake, is rounded down (exact for whole ratios).
- A stake is placed at the end of its owner's turn, so with P players it sees P rolls (the other
  players' and then the owner's) and pays at most once. ``players`` is the number of turns in one
  round of play (2..4); in the 2-player game each player runs two colours, and if stakes belong to
  a colour rather than a player, use ``players = 4`` there.
- The two target sums of a space are distinct ("two chances to earn a return").

>>> round(reach_exact(4) * 36), round(investment_return((3, 11), 1) * 36)   # of 36 rolls
(14, 4)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from montecarlo.errors import InputError
from montecarlo.games.base import Metric, Question, build_dataclass
from montecarlo.games.dune1984.rules import Rules
from montecarlo.validate import whole

MAX_PLAYERS = 4  # four Sietches: the game is for 2 to 4 players
MAX_BANK_SPICE = 2**53  # payout x stake: above it a float no longer counts whole Spice (or overflows)


def sum_ways(total: int) -> int:
    """Ways (of 36) for 2d6 to total ``total``: the triangle 1, 2, ..., 6, ..., 1 over 2..12."""
    return max(0, 6 - abs(total - 7))


# --- reach ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReachSetup:
    """Targets of one movement roll.

    Attributes:
        distance: spaces to the first character's target, 1..12 (1..6 with ``second_distance``:
            in a split roll each character moves by a single die).
        second_distance: spaces to the second character's target for a split roll, 1..6 (a
            single die), or None when only the first character has a target.
    """

    distance: int
    second_distance: int | None = None

    def __post_init__(self) -> None:
        whole("distance", self.distance, 1, 12)
        if self.second_distance is not None:
            whole("second_distance", self.second_distance, 1, 6)
            if self.distance > 6:  # a split roll would answer 0 for every roll
                raise InputError(
                    f"distance must be 1..6 in a split roll (second_distance), where each character "
                    f"moves by one die; got {self.distance} (up to 12 is one character's move, without "
                    "a second target)"
                )

    def targets(self) -> tuple[int, ...]:
        return (self.distance,) if self.second_distance is None else (self.distance, self.second_distance)


def parse_reach(values: Mapping[str, Any]) -> ReachSetup:
    """Plain values (CLI, TOML) -> ReachSetup; unknown keys are named in the error."""
    return build_dataclass(ReachSetup, values, "reach setup")


def simulate_reach(
    rules: Rules, setup: ReachSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Roll 2d6 ``n`` times and check each target (see the metrics of the ``reach`` question)."""
    dice = rng.integers(1, 7, size=(n, 2), dtype=np.int8)
    a, b = dice[:, 0], dice[:, 1]
    d = setup.distance
    on_die = (a == d) | (b == d)
    if setup.second_distance is None:
        split = either = on_die
    else:
        e = setup.second_distance
        split = ((a == d) & (b == e)) | ((a == e) & (b == d))
        either = on_die | (a == e) | (b == e)
    return {"reach": on_die | (a + b == d), "split_reach": split, "split_either": either}


def reference_reach(rules: Rules, setup: ReachSetup, rng: np.random.Generator) -> dict[str, bool]:
    """One roll in plain Python: list every move the rulebook allows and look for the targets."""
    a, b = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    splits = [(a, b), (b, a)]  # (first character's die, second character's die)
    targets = setup.targets()
    if len(targets) == 1:
        hits = [first == targets[0] for first, _ in splits]
        return {"reach": setup.distance in (a, b, a + b), "split_reach": any(hits), "split_either": any(hits)}
    d, e = targets
    return {
        "reach": d in (a, b, a + b),
        "split_reach": any(first == d and second == e for first, second in splits),
        "split_either": any(first == d or second == e for first, second in splits),
    }


def reach_exact(distance: int) -> float:
    """P(one character can move exactly ``distance``): a die shows it (11/36) or the total does.

    Both at once is impossible (the other die would be 0), so for 1..6 the chances add:
    (11 + distance - 1)/36; above 6 only the total can.
    """
    return (10 + distance if distance <= 6 else sum_ways(distance)) / 36


def split_exact(first: int, second: int | None) -> tuple[float, float]:
    """(P(every target reached by a split roll), P(at least one reached)), one die each.

    One target: a die must show it, 11/36 (a target above 6 cannot be reached by one die). Two
    targets (both 1..6: :class:`ReachSetup` refuses a split roll to a target above 6): the dice
    must be exactly {d, e} (2/36, or 1/36 for a double), and at least one shows d or e with P
    1 - (4/6)^2 (1 - (5/6)^2 when d = e).
    """
    if second is None:
        p = 11 / 36 if first <= 6 else 0.0
        return p, p
    if first == second:
        return 1 / 36, 11 / 36
    return 2 / 36, 20 / 36


def exact_reach(rules: Rules, setup: ReachSetup) -> dict[str, float]:
    both, either = split_exact(setup.distance, setup.second_distance)
    return {"reach": reach_exact(setup.distance), "split_reach": both, "split_either": either}


# --- investments ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InvestSetup:
    """One stake on one investment space.

    Attributes:
        sums: the space's two distinct target sums, each 2..12 (stored in increasing order).
        payout: the payout ratio x of ``x:1`` (Spice from the Bank per Spice staked), > 0.
        players: turns in a round of play, 2..4: the rolls a stake sees before it is lost.
        stake: Spice staked, >= 1.
    """

    sums: tuple[int, int]
    payout: float
    players: int = 4
    stake: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.sums, tuple):
            raise InputError(f"sums must be a pair of target sums, got {self.sums!r}")
        for s in self.sums:
            whole("sums", s, 2, 12)
        check_sums(list(self.sums), "sums " + ",".join(map(str, self.sums)))
        if (
            isinstance(self.payout, bool)
            or not isinstance(self.payout, (int, float))
            or not 0 < self.payout < math.inf
        ):
            raise InputError(f"payout must be a positive number (the x of x:1), got {self.payout!r}")
        whole("players", self.players, 2, MAX_PLAYERS)
        whole("stake", self.stake, 1)
        try:  # the Bank's part must be a whole Spice count a float holds exactly (and no overflow)
            bank = self.payout * self.stake
        except OverflowError:
            bank = math.inf
        if not bank < MAX_BANK_SPICE:
            raise InputError(
                f"payout must keep payout x stake below {MAX_BANK_SPICE:,} Spice, "
                f"got {self.payout!r} x {self.stake}"
            )

    def received(self) -> int:
        """Spice back when the stake pays: the Bank's whole Spice plus the stake itself."""
        return math.floor(self.payout * self.stake + 1e-9) + self.stake


def parse_payout(value: Any) -> float:
    """A payout ratio from a number, ``"4"``, or ``"4:1"`` / ``"3:2"`` as printed on a space."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    top, _, bottom = text.partition(":")
    try:
        x, y = float(top), float(bottom or 1)
    except ValueError:
        raise InputError(f"payout must be a number or a ratio like 4:1, got {value!r}") from None
    if y == 0:
        raise InputError(f"payout {text}: divides by zero; give a ratio x:y with y above 0, e.g. 4:1")
    if not (x > 0 and y > 0):  # a NaN is neither
        raise InputError(
            f"payout {text}: must be positive (x Spice from the Bank per Spice staked, x or x:1)"
        )
    if not math.isfinite(x / y):  # 1e400 reads as infinity: said as typed, not as "inf"
        raise InputError(f"payout {text}: too large a ratio to pay out; give a finite x:y, e.g. 4:1")
    return x / y


def check_sums(sums: list[int], given: str) -> None:
    """Refuse a space's target sums other than two different ones; ``given`` names them as typed
    (``sums 3,3``, ``--sums 3,3``).

    >>> check_sums([3, 3], "sums 3,3")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: sums 3,3: the two target sums must differ (two chances to earn a return)
    """
    if len(sums) != 2:
        raise InputError(f"{given}: a space has two target sums (e.g. 3,11), got {len(sums)}")
    if sums[0] == sums[1]:
        raise InputError(f"{given}: the two target sums must differ (two chances to earn a return)")


def parse_invest(values: Mapping[str, Any]) -> InvestSetup:
    """``{"sums": [3, 11], "payout": 4 | "4:1", "players": 4, "stake": 1}`` -> InvestSetup."""
    values = dict(values)
    if isinstance(values.get("sums"), str):  # as typed on the command line: "3,11"
        text = values["sums"]
        items = [item.strip() for item in text.split(",")]
        if not all(re.fullmatch(r"[+-]?\d+", item) for item in items):
            raise InputError(f"sums must be two target sums separated by a comma (e.g. 3,11), got {text!r}")
        values["sums"] = [int(item) for item in items]
    if isinstance(values.get("sums"), (list, tuple)):
        given = [whole("sums", s, 2, 12) for s in values["sums"]]
        check_sums(given, "sums " + ",".join(map(str, given)))
        values["sums"] = tuple(sorted(given))
    if "payout" in values:
        values["payout"] = parse_payout(values["payout"])
    return build_dataclass(InvestSetup, values, what="invest setup")


def simulate_invest(
    rules: Rules, setup: InvestSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Roll every player's movement roll for ``n`` stakes and pay the ones that hit a target sum.

    Each roll is drawn as one of the 36 equally likely (first die, second die) pairs, 6(a-1) + (b-1),
    and looked up in a table of which pairs total a target sum (2.5x faster than two dice).
    """
    pairs = np.array([(a + b) in setup.sums for a in range(1, 7) for b in range(1, 7)])
    pays = pairs[rng.integers(0, 36, size=(n, setup.players), dtype=np.int8)].any(axis=1)
    back = pays * (setup.received() / setup.stake)
    return {"returns": pays, "spice_back": back, "net": back - 1.0}


def reference_invest(rules: Rules, setup: InvestSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One stake in plain Python: roll for each player in turn until it pays or is lost."""
    for _ in range(setup.players):
        if int(rng.integers(1, 7)) + int(rng.integers(1, 7)) in setup.sums:
            back = setup.received() / setup.stake
            return {"returns": True, "spice_back": back, "net": back - 1}
    return {"returns": False, "spice_back": 0.0, "net": -1.0}


def investment_return(sums: tuple[int, int], players: int) -> float:
    """P(a stake pays) = 1 - (1 - q)^P, with q = P(one roll's total is a target sum)."""
    q = sum(sum_ways(s) for s in set(sums)) / 36
    return 1 - (1 - q) ** players


def break_even_payout(sums: tuple[int, int], players: int) -> float:
    """The ratio x at which a stake's expected net is 0: (x + 1) r = 1, so x = 1/r - 1.

    Rounding of fractional payouts is ignored (it only matters for ratios that are not whole).
    """
    return 1 / investment_return(sums, players) - 1


def exact_invest(rules: Rules, setup: InvestSetup) -> dict[str, float]:
    r = investment_return(setup.sums, setup.players)
    back = r * setup.received() / setup.stake
    return {"returns": r, "spice_back": back, "net": back - 1}


QUESTIONS = {
    "reach": Question(
        name="reach",
        description="Movement reach: can a 2d6 roll land a character exactly d spaces away",
        setup_type=ReachSetup,
        metrics=(
            Metric(
                "reach", "probability", "one character can move exactly distance (either die or the total)"
            ),
            Metric(
                "split_reach",
                "probability",
                "a split roll (one die per character) reaches every target: distance, "
                "and second_distance if given",
            ),
            Metric(
                "split_either",
                "probability",
                "a split roll reaches at least one target (equals split_reach without second_distance)",
            ),
        ),
        simulate=simulate_reach,
        exact=exact_reach,
        parse_setup=parse_reach,
        reference=reference_reach,
        example={"distance": 5, "second_distance": 3},
        rule_fields=frozenset(),  # 2d6 and the board: no rule field moves it
    ),
    "invest": Question(
        name="invest",
        description="Investment returns: does a stake on two target sums of 2d6 pay before it is lost",
        setup_type=InvestSetup,
        metrics=(
            Metric("returns", "probability",
                   "the stake pays out by its owner's next roll (one roll of each player)"),
            Metric("spice_back", "mean", "Spice received per Spice staked (payout plus the stake returned)"),
            Metric("net", "mean", "net Spice per Spice staked (spice_back - 1)"),
        ),
        simulate=simulate_invest,
        exact=exact_invest,
        reference=reference_invest,
        parse_setup=parse_invest,
        example={"sums": [3, 11], "payout": 4, "players": 4},
        rule_fields=frozenset(),  # 2d6 and the stake: no rule field moves it
    ),
}
