"""Rules, variants, decks and conflict cards of Dune: Imperium's conflict, as data.

The rules as modelled, with the rulebook section each comes from and every interpretation, are
in ``docs/rules/imperium.md``. Official values are the defaults of :class:`Rules`; every house
rule is a named variant (:data:`VARIANTS`, a dict of field overrides).

>>> Rules().rewarded_places(4), Rules(third_reward=False).rewarded_places(4)
(3, 2)
>>> DECKS["starting"].size, DECKS["starting"].sword_cards()
(10, (1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass

from montecarlo.errors import InputError
from montecarlo.validate import whole

MIN_PLAYERS, MAX_PLAYERS = 2, 4


# ---------------------------------------------------------------------------------------- decks

@dataclass(frozen=True, slots=True)
class Card:
    """A card of a deck: how many copies, and how many swords it reveals."""

    name: str
    copies: int
    swords: int = 0


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck players reveal from; ``source`` says where its contents come from."""

    title: str
    cards: tuple[Card, ...]
    source: str

    @property
    def size(self) -> int:
        return sum(c.copies for c in self.cards)

    def sword_cards(self) -> tuple[int, ...]:
        """The sword value of every card that reveals swords (one entry per copy)."""
        return tuple(c.swords for c in self.cards for _ in range(c.copies) if c.swords)


_STARTING = (
    Card("Convincing Argument", 2), Card("Dagger", 2, swords=1), Card("Diplomacy", 1),
    Card("Dune, the Desert Planet", 2), Card("Reconnaissance", 1), Card("Seek Allies", 1),
    Card("Signet Ring", 1),
)

DECKS: dict[str, Deck] = {
    "starting": Deck("the 10-card starting deck", _STARTING, "ext: rulebook (docs/rules/imperium.md)"),
    "starting+sword1": Deck(
        "starting deck + one acquired card revealing 1 sword",
        _STARTING + (Card("a 1-sword card", 1, 1),), "illustrative: the acquired card is generic"),
    "starting+sword2": Deck(
        "starting deck + one acquired card revealing 2 swords",
        _STARTING + (Card("a 2-sword card", 1, 2),), "illustrative: the acquired card is generic"),
}


# ------------------------------------------------------------------------------ conflict cards

@dataclass(frozen=True, slots=True)
class Reward:
    """One place's reward on a conflict card: victory points and everything else, as text."""

    vp: int
    other: str = ""

    def __str__(self) -> str:
        return " + ".join(p for p in (f"{self.vp} VP" if self.vp else "", self.other) if p) or "nothing"


@dataclass(frozen=True, slots=True)
class ConflictCard:
    """A conflict card's rewards by place; ``source`` marks values that are illustrative."""

    title: str
    level: int  # I, II or III (0: not a real card)
    rewards: tuple[Reward, Reward, Reward]  # first, second, third (the third only in 4-player games)
    source: str

    def vp_by_place(self) -> tuple[int, int, int, int]:
        """Victory points indexed by place number (0 = nothing)."""
        first, second, third = self.rewards
        return (0, first.vp, second.vp, third.vp)


CONFLICTS: dict[str, ConflictCard] = {
    "skirmish": ConflictCard(
        "Skirmish", 1, (Reward(1), Reward(0, "1 intrigue card + 2 Solari"), Reward(0, "2 Solari")),
        "ext: Dire Wolf, Dune: Imperium Designer Diary 3 (2020)"),
    "siege_of_carthag": ConflictCard(
        "Siege of Carthag", 2,
        (Reward(1, "control of Carthag"), Reward(0, "1 intrigue card + 2 Solari"), Reward(0, "2 Solari")),
        "illustrative: the designer diary says only that it is Skirmish-like plus control of Carthag"),
    "battle_for_arrakeen": ConflictCard(
        "Battle for Arrakeen", 3,
        (Reward(2, "control of Arrakeen"), Reward(0, "1 intrigue card + 3 spice"), Reward(0, "3 Solari")),
        "illustrative: reward values are not from the rulebook"),
    "points_3_2_1": ConflictCard(
        "3/2/1 VP yardstick", 0, (Reward(3), Reward(2), Reward(1)),
        "illustrative yardstick, not a real card"),
}


# ---------------------------------------------------------------------------------------- rules

TIE_RULES = ("official", "split_up")
TIEBREAKS = ("none", "troops", "seat", "troops_then_seat")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter of the conflict, official values as defaults.

    See ``docs/rules/imperium.md`` (Strength; Rewards and ties). The four variants
    (:data:`VARIANTS`) each set one field, so those of different fields combine: a tie-breaker
    (``tiebreak_by_troops``, ``tiebreak_by_seat``) first refines the ranking, and the tie rule
    (official, or ``ties_split_up``) then settles only the ties left; after ``tiebreak_by_seat``
    none are left. The two tie-breakers set the same field, so naming both is refused
    (``tiebreak = "troops_then_seat"`` applies both). ``no_third_reward`` only changes how many
    places 4-player games reward, whatever the tie rule.
    """

    troop_strength: int = 2  # strength per troop in the conflict
    sword_strength: int = 1  # strength per revealed sword
    ties: str = "official"  # tied group takes the next place's reward ("official") or its own ("split_up")
    tiebreak: str = "none"  # before the tie rule: "none", more "troops", lower "seat", or "troops_then_seat"
    third_reward: bool = True  # 4-player games award the third reward

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")
        if self.tiebreak not in TIEBREAKS:
            raise InputError(f"tiebreak must be one of {', '.join(TIEBREAKS)}, got {self.tiebreak!r}")
        if not isinstance(self.third_reward, bool):
            raise InputError(f"third_reward must be true or false, got {self.third_reward!r}")
        for name in ("troop_strength", "sword_strength"):
            whole(name, getattr(self, name), 1, 100)

    @property
    def by_troops(self) -> bool:
        """Equal strengths are ranked by troops first."""
        return self.tiebreak in ("troops", "troops_then_seat")

    @property
    def by_seat(self) -> bool:
        """Equal strengths (and troops, if those count) are ranked by seat: no tie is left."""
        return self.tiebreak in ("seat", "troops_then_seat")

    def rewarded_places(self, players: int) -> int:
        """How many places take a reward: 3 in a 4-player game (unless no third reward), else 2."""
        return 3 if players == 4 and self.third_reward else 2


VARIANTS: dict[str, dict] = {
    "ties_split_up": {"ties": "split_up"},
    "tiebreak_by_troops": {"tiebreak": "troops"},
    "tiebreak_by_seat": {"tiebreak": "seat"},
    "no_third_reward": {"third_reward": False},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "ties_split_up": (
        "tied players all take the reward of the place they tied for (tie for third: third "
        "reward each); who competes for what afterwards is as official; with a tie-breaker it "
        "applies only to ties left after it"),
    "tiebreak_by_troops": (
        "equal strength: more troops ranks higher; still tied: the tie rule in force "
        "(official, or ties_split_up if also chosen)"),
    "tiebreak_by_seat": (
        "equal strength: the lower seat number ranks higher, so no tie is left and the tie "
        "rules (and ties_split_up) never apply; it and tiebreak_by_troops set the same field, so "
        "only one of them can be named (override tiebreak = \"troops_then_seat\" for both)"),
    "no_third_reward": (
        "no third reward even with 4 players: a tie for second then gets nothing, and after a "
        "tie for first nobody else gets anything; 2- and 3-player games are unchanged"),
}
