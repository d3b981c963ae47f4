"""Rules and variants of the Dustrunners combat model (``docs/rules/dustrunners.md``).

Every rule parameter is a field of :class:`Rules` with the rulebook's value (or, where the
rulebook is silent, the interpretation a player would expect) as its default; a variant is a
named set of field overrides.

>>> Rules().redraw_cost, Rules(redraw_cost=4).redraw_cost
(2, 4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from montecarlo.errors import InputError
from montecarlo.validate import whole

RESHUFFLES = ("when_empty", "when_drawing")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter of a Dustrunners combat.

    Attributes:
        max_ammo_per_attack: ammo you may spend on one attack (one card revealed per ammo).
        win_vp: victory points for defeating an enemy.
        redraw_cost: VP spent to redraw one resolution card (2 to 4 by difficulty; 2 = the
            easiest Tracker Card).
        turn_limit: attacks (both sides counted) after which a combat nobody has won ends as a
            stalemate; only combats in which no side can deal damage any more get near it.
        reshuffle: ``when_empty`` (the rulebook: "whenever the resolution deck is exhausted",
            the discard pile is shuffled at once, without the cards of the attack in progress)
            or ``when_drawing`` (only when a card must be drawn from an empty draw pile).
        ammo_policy: ``""`` (default): each setup's own ammo policy; else the policy every
            setup plays (``all_in``, ``just_enough``, ``fixed:N``, or ``best`` for a single
            combat), so that a scenario compares policies as variants, paired on the same
            random numbers.
    """

    max_ammo_per_attack: int = 4
    win_vp: int = 2
    redraw_cost: int = 2
    turn_limit: int = 60
    reshuffle: str = "when_empty"
    ammo_policy: str = ""

    def __post_init__(self) -> None:
        whole("max_ammo_per_attack", self.max_ammo_per_attack, 0, 20)
        whole("win_vp", self.win_vp, 0, 100)
        whole("redraw_cost", self.redraw_cost, 1, 100)
        whole("turn_limit", self.turn_limit, 1, 10_000)
        if self.reshuffle not in RESHUFFLES:
            raise InputError(f"reshuffle must be one of {', '.join(RESHUFFLES)}, got {self.reshuffle!r}")
        if self.ammo_policy not in ("", "all_in", "just_enough", "best") and not (
            isinstance(self.ammo_policy, str) and re.fullmatch(r"fixed:\d+", self.ammo_policy)
        ):
            raise InputError(
                "ammo_policy must be empty (the setup's), all_in, just_enough, fixed:N or best, "
                f"got {self.ammo_policy!r}"
            )


VARIANTS: dict[str, dict] = {
    "redraw_cost_3": {"redraw_cost": 3},
    "redraw_cost_4": {"redraw_cost": 4},
    "reshuffle_when_drawing": {"reshuffle": "when_drawing"},
    "short_turn_limit": {"turn_limit": 20},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "redraw_cost_3": "a VP redraw costs 3 VP (a harder Tracker Card)",
    "redraw_cost_4": "a VP redraw costs 4 VP (the hardest Tracker Card)",
    "reshuffle_when_drawing": (
        "the discard pile is shuffled into a new draw pile only when a card must be drawn "
        "(default: as soon as the draw pile runs out)"),
    "short_turn_limit": "a combat nobody has won after 20 attacks is a stalemate (default 60)",
}
