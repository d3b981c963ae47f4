"""Rules, variants and characters of Dune (Parker Brothers, 1984).

The rules as modelled, with the rulebook section each comes from: ``docs/rules/dune1984.md``.
Official values are the defaults; every house rule or interpretation is a named variant (a dict
of overrides).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from montecarlo.errors import InputError
from montecarlo.validate import whole

TIE_RULES = ("reroll", "defender")
DESIGNATION_POLICIES = ("weakest_first", "strongest_first", "best", "defender_best")
BEST_DESIGNATIONS = DESIGNATION_POLICIES[2:]  # one side chooses exactly; the other designates weakest_first
GUILE_ROLLS = ("d6", "d8", "2d6")


RULE_BOUNDS = {  # the largest value of each numeric rule field (the least: 1, strength_gain 0)
    "max_dice": 20, "die_faces": 100, "sword_faces": 100, "gom_faces": 100,
    # the Strength track of a card runs 1..6: a higher cap has no place to mark (and the winner's
    # Strength after the gain, a distribution over the track, would lose its values above 6)
    "max_strength": 6,
    "spice_per_guile": 100, "strength_gain": 20,
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter of the Dune 1984 fight, check, movement and investment models."""

    max_dice: int = 6  # never more than 6 dice
    die_faces: int = 6  # the ordinary fight die
    sword_faces: int = 8  # Sword: all of the character's dice are d8
    gom_faces: int = 8  # Gom Jabbar: one extra d8
    gom_counts_toward_cap: bool = False  # variant: the Gom Jabbar die counts toward max_dice
    ties: str = "reroll"  # tied round: "reroll" (official) or won by the "defender" (variant)
    strength_gain: int = 1  # winner's Strength gain after a fight (variant: 0)
    max_strength: int = 6  # the Strength track runs 1..6
    fight_to_last: bool = False  # variant: fight on with the next designated character
    set_aside_die: bool = False  # variant: a lost round sets aside 1 of the dice in play (literal)
    # which character takes the damage: a fixed policy, or "best" (the attacker chooses, solved
    # exactly for its chance to win; the defender weakest_first) or "defender_best" (the reverse)
    designation: str = "weakest_first"
    guile_roll: str = "d6"  # survive if roll <= Guile; variants "d8", "2d6" (<= 2 x Guile)
    spice_per_guile: int = 3  # 3 Spice buy +1 Guile for one attack

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")
        if self.designation not in DESIGNATION_POLICIES:
            raise InputError(
                f"designation must be one of {', '.join(DESIGNATION_POLICIES)}, got {self.designation!r}"
            )
        if self.guile_roll not in GUILE_ROLLS:
            raise InputError(f"guile_roll must be one of {', '.join(GUILE_ROLLS)}, got {self.guile_roll!r}")
        # bounded as a table could play them, and so that a chunk's arrays (trials x dice) fit in
        # memory: max_dice 10**9 asked numpy for 52 GiB
        for name, high in RULE_BOUNDS.items():
            whole(name, getattr(self, name), 0 if name == "strength_gain" else 1, high)


# the rule fields that can change each kind of question (``Question.rule_fields``): a variant that
# sets none of them is no house rule of that question (its help does not list it)
GUILE_RULES = frozenset({"guile_roll", "spice_per_guile"})  # a Guile check: its roll, Spice's price
FIGHT_RULES = frozenset(f.name for f in fields(Rules)) - {"spice_per_guile"}  # Poison rolls, no Spice
# a duel is a fight of one character a side: nobody to designate, and nobody next once one falls
DUEL_RULES = FIGHT_RULES - {"designation", "fight_to_last"}

VARIANTS: dict[str, dict] = {
    "gom_counts_toward_cap": {"gom_counts_toward_cap": True},
    "ties_favour_defender": {"ties": "defender"},
    "no_strength_gain": {"strength_gain": 0},
    "fight_to_last": {"fight_to_last": True},
    "set_aside_die": {"set_aside_die": True},
    "strongest_first": {"designation": "strongest_first"},
    "best_play": {"designation": "best"},
    "defender_best_play": {"designation": "defender_best"},
    "guile_check_d8": {"guile_roll": "d8"},
    "guile_check_2d6": {"guile_roll": "2d6"},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "gom_counts_toward_cap": "the Gom Jabbar die counts toward the 6-dice limit",
    "ties_favour_defender": "a tied round is won by the defender instead of re-rolled",
    "no_strength_gain": "the winner does not gain +1 Strength after a fight",
    "fight_to_last": "multi-character fights go on with the next character until a side has nobody left",
    "set_aside_die": (
        "a side that loses a round sets aside 1 of its dice in play, whatever Strength it has left"
        " (the literal reading; default: dice = min(6, total Strength) every round)"
    ),
    "strongest_first": "a side designates its strongest character to take damage (default: weakest)",
    "best_play": (
        "the attacker chooses which character takes the damage to maximise its chance to win (solved"
        " exactly; the defender designates its weakest)"
    ),
    "defender_best_play": (
        "the defender chooses which character takes the damage to maximise its chance to win (solved"
        " exactly; the attacker designates its weakest)"
    ),
    "guile_check_d8": "Guile checks roll 1d8 (survive if roll <= Guile)",
    "guile_check_2d6": "Guile checks roll 2d6 (survive if roll <= 2 x Guile)",
}


@dataclass(frozen=True, slots=True)
class Character:
    name: str
    colour: str
    strength: int
    guile: int


CHARACTERS: dict[str, Character] = {
    c.name.lower(): c
    for c in (
        Character("Paul Atreides", "Red", 4, 3),
        Character("Duke Leto Atreides", "Red", 3, 4),
        Character("Gurney Halleck", "Red", 5, 3),
        Character("Emperor Shaddam IV", "Yellow", 3, 4),
        Character("Princess Irulan", "Yellow", 4, 3),
        Character("Sardaukar Warrior", "Yellow", 5, 3),
        Character("Dr. Kynes", "Blue", 3, 4),
        Character("Chani", "Blue", 4, 3),
        Character("Stilgar", "Blue", 5, 3),
        Character("Baron Harkonnen", "Green", 3, 4),
        Character("Feyd", "Green", 4, 3),
        Character("Beast Rabban", "Green", 5, 3),
    )
}

DEFAULT_GUILE = 3  # the commonest printed Guile, for a side given only as a Strength


# Common names that are not words of the printed name (the printed name is "Feyd"), as written.
ALIASES: dict[str, str] = {
    "Feyd-Rautha": "Feyd",
    "Feyd-Rautha Harkonnen": "Feyd",
    "Glossu Rabban": "Beast Rabban",
    "Liet Kynes": "Dr. Kynes",
    "Vladimir Harkonnen": "Baron Harkonnen",
}


def _words(name: str) -> tuple[str, ...]:
    """'Feyd-Rautha', ' dr.  kynes ' -> ('feyd', 'rautha'), ('dr', 'kynes')."""
    return tuple(name.lower().replace("-", " ").replace(".", " ").replace("'", " ").split())


def character(name: str) -> Character:
    """A character by name, case-insensitive: the printed name, a common short name, or words of it.

    ``Paul``, ``Kynes``, ``Baron``, ``Shaddam``, ``Rabban`` and ``Feyd-Rautha`` each name one
    character; a name that fits several (``Atreides``) is refused with the candidates listed.

    >>> character("Feyd-Rautha").name, character("paul").name, character("Kynes").name
    ('Feyd', 'Paul Atreides', 'Dr. Kynes')
    """
    words = _words(name)
    key = " ".join(words)
    by_words = {" ".join(_words(c.name)): c for c in CHARACTERS.values()}
    if key in by_words:
        return by_words[key]
    aliases = {" ".join(_words(alias)): printed for alias, printed in ALIASES.items()}
    if key in aliases:
        return CHARACTERS[aliases[key].lower()]
    matches = [c for c in CHARACTERS.values() if words and set(words) <= set(_words(c.name))]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise InputError(f"character {name!r} is ambiguous: {', '.join(c.name for c in matches)}")
    known = ", ".join(c.name for c in CHARACTERS.values())
    raise InputError(f"unknown character {name!r}; known: {known}")


def short_names(printed: str) -> list[str]:
    """The shorter names that find a character: words of its name no other shares, and aliases.

    >>> short_names("Beast Rabban")
    ['Beast', 'Rabban', 'Glossu Rabban']
    """
    others = [set(_words(c.name)) for c in CHARACTERS.values() if c.name != printed]
    words = [w for w in printed.replace(".", " ").split()
             if len(w) > 2 and not any(w.lower() in o for o in others)]
    words = [w for w in words if w.lower() != " ".join(_words(printed))]
    return words + [alias for alias, name in ALIASES.items() if name == printed]
