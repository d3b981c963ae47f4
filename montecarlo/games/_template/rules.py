"""The game's rules: one frozen dataclass, official values as defaults; variants are overrides.

Document every rule and interpretation in ``docs/rules/<game>.md``, in your own words.
"""

from __future__ import annotations

from dataclasses import dataclass

from montecarlo.errors import InputError


@dataclass(frozen=True, slots=True)
class Rules:
    """Every number a house rule might change, with the official value as default."""

    die_faces: int = 6
    ties: str = "reroll"  # "reroll" or "defender"

    def __post_init__(self) -> None:
        if self.die_faces < 2:
            raise InputError(f"die_faces must be at least 2, got {self.die_faces}")
        if self.ties not in ("reroll", "defender"):
            raise InputError(f"ties must be 'reroll' or 'defender', got {self.ties!r}")


VARIANTS: dict[str, dict] = {
    "d8": {"die_faces": 8},
    "ties_favour_defender": {"ties": "defender"},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "d8": "every die is a d8",
    "ties_favour_defender": "a tied roll is lost by the attacker instead of re-rolled",
}
