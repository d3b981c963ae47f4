"""Rules, variants, policies, the combat die and the leaders of Dune: War for Arrakis.

The rules as modelled are written out in ``docs/rules/war-for-arrakis.md``. Official values are
the defaults of :class:`Rules`; every other reading is a named variant (a dict of overrides).
The combat die, the wormsign pool and the leaders' table are data files of this package
(``data/components.toml``, ``data/leaders.toml``), read once at import.

>>> r = Rules()
>>> (r.hit_faces, r.shield_faces, r.special_faces), r.attack, r.retreat
((3, 2, 1), 'until_destroyed', 'never')
>>> leader("stilgar").name, leader_value(r, "stilgar")
('Stilgar', (2, 0))
>>> Rules(attack="max_rounds:3").max_rounds
3
"""

from __future__ import annotations

import functools
import pathlib
import re
import tomllib
from dataclasses import dataclass, fields
from typing import Any, Mapping, NamedTuple

from montecarlo.errors import InputError
from montecarlo.validate import is_whole, whole

DATA = pathlib.Path(__file__).resolve().parent / "data"

TERRAINS = ("deep_desert", "desert", "minor_erg", "plateau", "mountain")
EXPOSED = TERRAINS[:4]  # storms sweep these; a Mountain area is safe from storms and worms
DESERTS = ("deep_desert", "desert")  # wormsigns, harvesters and spice
ATTACK_POLICIES = ("until_destroyed", "while_ahead", "best", "max_rounds:N")
FIXED_ATTACKS = ATTACK_POLICIES[:2]  # the fixed attack policies by name (with max_rounds:N)
RETREAT_POLICIES = ("never", "when_outnumbered", "best")
SURPRISE_KINDS = ("special", "die")
WORMSIGN_ORDERS = ("type", "area")
HARKONNEN_STACKING = 6  # units a Harkonnen area holds; 5 while the CHOAM Ban is active


def _load(name: str) -> dict[str, Any]:
    with open(DATA / name, "rb") as handle:
        return tomllib.load(handle)


_COMPONENTS = _load("components.toml")
_DIE, _POOL = _COMPONENTS["die"], _COMPONENTS["wormsigns"]


class Leader(NamedTuple):
    """One leader of table 2.6: what one Special becomes when it applies its ability."""

    name: str
    faction: str  # "harkonnen" or "atreides"
    hits: int
    shields: int
    generic: bool
    person: str = ""  # table key of the person: one key for the two forms of Paul, of Jessica
    replaces: str = ""  # table key of the leader who leaves the game as this one enters it


def _key(text: str) -> str:
    """'Paul-Muad'Dib' -> "paul muad'dib": lower case, dashes and underscores as spaces."""
    return " ".join(str(text).strip().lower().replace("-", " ").replace("_", " ").split())


def _leaders() -> tuple[dict[str, Leader], dict[str, str]]:
    data = _load("leaders.toml")
    table: dict[str, Leader] = {}
    names: dict[str, str] = {}
    for row in data["leader"]:
        found = Leader(
            row["name"],
            row["faction"],
            int(row["hits"]),
            int(row["shields"]),
            bool(row.get("generic")),
            _key(row.get("same_person", row["name"])),
            _key(row.get("replaces", "")),
        )
        table[_key(found.name)] = found
        for alias in (found.name, *row.get("aliases", ())):
            names[_key(alias)] = _key(found.name)
    for found in table.values():  # the other form is a leader of the table, of the same faction
        if found.person not in table or table[found.person].faction != found.faction:
            raise ValueError(f"leaders.toml: {found.name}'s same_person is not a leader of its faction")
        if found.replaces and (found.replaces not in table or table[found.replaces].faction != found.faction):
            raise ValueError(f"leaders.toml: {found.name}'s replaces is not a leader of its faction")
    return table, names


LEADERS, _LEADER_NAMES = _leaders()
GURNEY = "gurney halleck"
GENERIC = tuple(k for k, v in LEADERS.items() if v.generic)


def find_leader(text: str) -> str | None:
    """The table key of a leader name or alias (case-insensitive), or None."""
    return _LEADER_NAMES.get(_key(text))


def forms(key: str) -> tuple[str, ...]:
    """The names of the person's forms in the table, first form first.

    >>> forms(find_leader("muad'dib")), forms("stilgar")
    (('Paul Atreides', "Paul-Muad'Dib"), ('Stilgar',))
    """
    person = LEADERS[key].person
    return tuple(v.name for v in LEADERS.values() if v.person == person)


def leader(text: str) -> Leader:
    """A leader by name or alias, or InputError listing the known names."""
    key = find_leader(text)
    if key is None:
        known = ", ".join(v.name for v in LEADERS.values())
        raise InputError(f"unknown leader {text!r}; known: {known}")
    return LEADERS[key]


_VALUE = re.compile(r"^\s*(?:(\d+)\s*h)?\s*\+?\s*(?:(\d+)\s*s)?\s*$", re.IGNORECASE)


def parse_value(text: Any, what: str) -> tuple[int, int]:
    """'2H+1S' / '3S' / [2, 1] -> (hits, shields).

    >>> parse_value("2H+1S", "x"), parse_value("3s", "x"), parse_value([1, 0], "x")
    ((2, 1), (0, 3), (1, 0))
    """
    if isinstance(text, (list, tuple)) and len(text) == 2 and all(is_whole(v) and v >= 0 for v in text):
        return int(text[0]), int(text[1])
    match = _VALUE.match(str(text)) if isinstance(text, str) else None
    if not match or not (match.group(1) or match.group(2)):
        raise InputError(f"{what}: expected a value like '2H+1S', '3S' or [hits, shields], got {text!r}")
    return int(match.group(1) or 0), int(match.group(2) or 0)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter of the battle, storm, worm and Desert Hazards models.

    Attributes:
        hit_faces, shield_faces, special_faces, blank_faces: faces of the combat die (data).
        max_dice: dice a side rolls at most in one round.
        continue_always_costs: every continuation costs the attacker 1 Hit (English overview);
            default: only against a defender in a settlement (Korean seed, FAQ).
        surprise: what a surprise attack adds to the attacker's first round: one "special"
            result (default) or one "die" (variant ``surprise_adds_die``).
        attack: the attacker's policy after each round: until_destroyed, while_ahead,
            max_rounds:N, or best (continue or retreat, and which leaders turn its Specials,
            solved exactly for the setup's objective; docs/best-play.md).
        retreat: the defender's policy: never, when_outnumbered, or best (retreat or fight on
            after the attacker continues, solved exactly; CLI ``--policy defender:best``).
        leader_values: overrides of table 2.6, ``{leader name: '2H+1S'}``; stored as a sorted
            tuple of (key, hits, shields).
        storm_dice, storm_special_hits, worm_dice, worm_special_hits: per exposed terrain
            (deep desert, desert, minor erg, plateau): dice rolled and hits per Special result
            (a Hit result is 1 hit). Mountain areas are never struck.
        wild_maker_extra_dice: dice the Wild Maker rolls beyond an ordinary sandworm.
        wormsign_sand, wormsign_sandworm, wormsign_burrowing: the wormsign pool (16 tokens;
            the split is an assumption).
        storms_strike_settlements: a Harkonnen legion in an area with a Harkonnen settlement is
            struck like any other (English overview); default: never struck (Korean page).
        wormsign_order: revealed tokens resolve by "type" (Sand, then Sandworm, then Burrowing,
            each in area order: the English overview, default) or by "area" (variant).
        gurney_ability: Gurney Halleck's Special converts to his card's value; False: "no leader
            abilities" (English overview), his Special converts to nothing.
        choam_ban: the CHOAM Ban is active: a Harkonnen legion holds at most 5 units, the
            excess removed before anything else (regulars first).
        landsraad_ban: the Landsraad Ban is active: the Harkonnen side discards no Planning
            cards for dice.
        desert_spice, deep_desert_spice: spice a harvester collects.
    """

    hit_faces: int = int(_DIE["hit"])
    shield_faces: int = int(_DIE["shield"])
    special_faces: int = int(_DIE["special"])
    blank_faces: int = int(_DIE.get("blank", 0))
    max_dice: int = 6
    continue_always_costs: bool = False
    surprise: str = "special"
    attack: str = "until_destroyed"
    retreat: str = "never"
    leader_values: Any = ()
    storm_dice: tuple[int, ...] = (2, 2, 2, 2)
    storm_special_hits: tuple[int, ...] = (2, 1, 0, 0)
    worm_dice: tuple[int, ...] = (4, 4, 4, 4)
    worm_special_hits: tuple[int, ...] = (2, 1, 0, 0)
    wild_maker_extra_dice: int = 2
    wormsign_sand: int = int(_POOL["sand"])
    wormsign_sandworm: int = int(_POOL["sandworm"])
    wormsign_burrowing: int = int(_POOL["burrowing"])
    desert_spice: int = 1
    deep_desert_spice: int = 2
    storms_strike_settlements: bool = False
    wormsign_order: str = "type"
    gurney_ability: bool = True
    choam_ban: bool = False
    landsraad_ban: bool = False

    def __post_init__(self) -> None:
        for name in ("hit_faces", "shield_faces", "special_faces", "blank_faces"):
            whole(name, getattr(self, name), 0, 60)
        if self.faces == 0:
            raise InputError("the combat die needs at least one face")
        whole("max_dice", self.max_dice, 1, 12)
        whole("wild_maker_extra_dice", self.wild_maker_extra_dice, 0, 6)
        for name in (
            "wormsign_sand",
            "wormsign_sandworm",
            "wormsign_burrowing",
            "desert_spice",
            "deep_desert_spice",
        ):
            whole(name, getattr(self, name), 0, 100)
        if self.pool_size == 0:
            raise InputError("the wormsign pool needs at least one token")
        for name in (
            "continue_always_costs",
            "storms_strike_settlements",
            "gurney_ability",
            "choam_ban",
            "landsraad_ban",
        ):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.wormsign_order not in WORMSIGN_ORDERS:
            raise InputError(
                f"wormsign_order must be one of {', '.join(WORMSIGN_ORDERS)}, got {self.wormsign_order!r}"
            )
        if self.surprise not in SURPRISE_KINDS:
            raise InputError(f"surprise must be one of {', '.join(SURPRISE_KINDS)}, got {self.surprise!r}")
        attack = str(self.attack).strip().lower()
        if attack not in ATTACK_POLICIES[:3]:
            match = re.fullmatch(r"max_rounds:(\d+)", attack)
            if not match or int(match.group(1)) < 1:
                raise InputError(
                    f"attack policy must be one of {', '.join(ATTACK_POLICIES)} (N >= 1), got {self.attack!r}"
                )
        object.__setattr__(self, "attack", attack)
        if self.retreat not in RETREAT_POLICIES:
            raise InputError(
                f"retreat policy must be one of {', '.join(RETREAT_POLICIES)}, got {self.retreat!r}"
            )
        if self.retreat == "best" and attack == "best":
            raise InputError(
                "only one side plays best: the attacker (attack policy best) or the defender "
                "(retreat policy best, --policy defender:best), not both"
            )
        for name, top in (
            ("storm_dice", 12),
            ("storm_special_hits", 6),
            ("worm_dice", 12),
            ("worm_special_hits", 6),
        ):
            value = getattr(self, name)
            if not isinstance(value, (list, tuple)) or len(value) != len(EXPOSED):
                raise InputError(
                    f"{name} needs one value per exposed terrain ({', '.join(EXPOSED)}), got {value!r}"
                )
            object.__setattr__(self, name, tuple(whole(name, v, 0, top) for v in value))
        object.__setattr__(self, "leader_values", _leader_values(self.leader_values))

    @property
    def faces(self) -> int:
        return self.hit_faces + self.shield_faces + self.special_faces + self.blank_faces

    @property
    def die(self) -> tuple[int, int, int, int]:
        """(hit, shield, special, blank) face counts."""
        return self.hit_faces, self.shield_faces, self.special_faces, self.blank_faces

    @property
    def max_rounds(self) -> int | None:
        """N of the ``max_rounds:N`` policy, else None."""
        return int(self.attack.split(":")[1]) if self.attack.startswith("max_rounds:") else None

    @property
    def harkonnen_stacking(self) -> int:
        """Units a Harkonnen legion holds at most: 6, or 5 under the CHOAM Ban."""
        return HARKONNEN_STACKING - self.choam_ban

    @property
    def pool(self) -> tuple[int, int, int]:
        """(sand, sandworm, burrowing) tokens of the wormsign pool."""
        return self.wormsign_sand, self.wormsign_sandworm, self.wormsign_burrowing

    @property
    def pool_size(self) -> int:
        return sum(self.pool)

    @property
    def pool_is_assumed(self) -> bool:
        """True when the wormsign pool is the default split, which no source publishes."""
        return self.pool == (int(_POOL["sand"]), int(_POOL["sandworm"]), int(_POOL["burrowing"]))


def _leader_values(value: Any) -> tuple[tuple[str, int, int], ...]:
    """Leader overrides -> sorted ((key, hits, shields), ...); InputError on unknown names."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        if all(isinstance(v, (list, tuple)) and len(v) == 3 for v in value):
            items = [(v[0], (v[1], v[2])) for v in value]
        else:
            raise InputError(f"leader_values must be a table {{leader: '2H+1S'}}, got {value!r}")
    else:
        raise InputError(f"leader_values must be a table {{leader: '2H+1S'}}, got {value!r}")
    out = {}
    for name, v in items:
        leader(name)  # InputError for an unknown name
        out[find_leader(name)] = parse_value(v, f"leader_values.{name}")
    return tuple(sorted((k, h, s) for k, (h, s) in out.items()))


def leader_value(rules: Rules, name: str) -> tuple[int, int]:
    """(hits, shields) one Special becomes through this leader, after the rules' overrides.

    >>> leader_value(Rules(), "gurney"), leader_value(Rules(gurney_ability=False), "gurney")
    ((2, 1), (0, 0))
    """
    key = find_leader(name) or name
    if key == GURNEY and not rules.gurney_ability:
        return 0, 0  # "no leader abilities" (English overview)
    for k, h, s in rules.leader_values:
        if k == key:
            return h, s
    found = LEADERS[key]
    return found.hits, found.shields


@functools.lru_cache(maxsize=4096)
def leader_order(rules: Rules, names: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """The leaders' (hits, shields), best first: most Hits + Shields, then most Hits (2.5 policy)."""
    values = [leader_value(rules, n) for n in names]
    return tuple(sorted(values, key=lambda v: (-(v[0] + v[1]), -v[0])))


# the rule fields that can change each kind of question (``Question.rule_fields``): a variant that
# sets none of them is no house rule of that question (its help does not list it)
DIE_RULES = frozenset({"hit_faces", "shield_faces", "special_faces", "blank_faces"})  # the combat die
STORM_RULES = DIE_RULES | {"storm_dice", "storm_special_hits", "storms_strike_settlements"}
WORM_RULES = DIE_RULES | {"worm_dice", "worm_special_hits", "wild_maker_extra_dice"}
HAZARD_RULES = STORM_RULES | WORM_RULES | {
    "wormsign_sand", "wormsign_sandworm", "wormsign_burrowing", "wormsign_order", "desert_spice",
    "deep_desert_spice",
}
BATTLE_RULES = frozenset(f.name for f in fields(Rules)) - (HAZARD_RULES - DIE_RULES)

VARIANTS: dict[str, dict[str, Any]] = {
    "continue_always_costs": {"continue_always_costs": True},
    "surprise_adds_die": {"surprise": "die"},
    "rulebook_storm_dice": {"storm_dice": (3, 2, 1, 1), "storm_special_hits": (1, 1, 1, 1)},
    "rulebook_worm_dice": {"worm_dice": (5, 4, 3, 3), "worm_special_hits": (1, 1, 1, 1)},
    "while_ahead": {"attack": "while_ahead"},
    "one_round": {"attack": "max_rounds:1"},
    "retreat_when_outnumbered": {"retreat": "when_outnumbered"},
    "storms_strike_settlements": {"storms_strike_settlements": True},
    "wormsigns_in_area_order": {"wormsign_order": "area"},
    "gurney_no_ability": {"gurney_ability": False},
    "choam_ban": {"choam_ban": True},
    "landsraad_ban": {"landsraad_ban": True},
    "best_play": {"attack": "best"},
    "defender_best_play": {"retreat": "best"},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "continue_always_costs": "every continuation costs the attacker 1 Hit, settlement or not (English text)",
    "surprise_adds_die": "a surprise attack adds 1 die to round 1 instead of 1 Special (English text)",
    "rulebook_storm_dice": "storms roll 3/2/1 dice in Deep Desert/Desert/elsewhere; Hit or Special = 1 hit",
    "rulebook_worm_dice": "sandworms roll 5/4/3 dice in Deep Desert/Desert/elsewhere; Hit or Special = 1 hit",
    "while_ahead": "the attacker continues only while it has at least as many units as the defender",
    "one_round": "the attacker fights one round and stops (policy max_rounds:1)",
    "retreat_when_outnumbered": "the defender retreats when the attacker goes on with more units than it has",
    "storms_strike_settlements": (
        "storms strike a Harkonnen legion in an area with a Harkonnen settlement too (English text)"
    ),
    "wormsigns_in_area_order": (
        "revealed wormsign tokens resolve area by area, not by type (so another worm may be the Wild Maker)"
    ),
    "gurney_no_ability": "Gurney Halleck has no leader ability: his Special converts to nothing (English)",
    "choam_ban": "CHOAM Ban: a Harkonnen legion holds at most 5 units; the excess is removed, regulars first",
    "landsraad_ban": "Landsraad Ban: the Harkonnen side discards no Planning cards for dice",
    "best_play": "the attacker plays best (continue or retreat, which leaders use its Specials; policy best)",
    "defender_best_play": "the defender plays best: retreats or fights on after the attacker continues",
}

# Where the sources disagree: per place, the rule field's value in force -> the reading in words.
READINGS: dict[str, dict[Any, str]] = {
    "continuation": {
        False: "continuing costs 1 hit only against a settlement (Korean page, rulebook FAQ; "
        "the English overview's every-continuation cost is variant continue_always_costs)",
        True: "every continuation costs 1 hit (English overview: continue_always_costs)",
    },
    "surprise": {
        "special": "a surprise attack adds 1 Special to round 1 (Korean page; the English "
        "overview's +1 die is variant surprise_adds_die)",
        "die": "a surprise attack adds 1 die to round 1 (English overview: surprise_adds_die)",
    },
    "storms": {
        False: "storms spare a legion in an area with a Harkonnen settlement (Korean page; the "
        "English overview strikes it: variant storms_strike_settlements)",
        True: "storms strike a legion in an area with a Harkonnen settlement too (English overview: "
        "storms_strike_settlements)",
    },
    "wormsigns": {
        "type": "wormsigns resolve by type, Sandworm before Burrowing (English overview), so the Wild "
        "Maker goes to the first Sandworm token on a legion",
        "area": "wormsigns resolve area by area (wormsigns_in_area_order)",
    },
}


def readings(
    rules: Rules, *, continuation: bool = False, surprise: bool = False, storms: bool = False,
    wormsigns: bool = False,
) -> list[str]:
    """The readings in force at the places where the sources disagree, for the ones asked about.

    Every output that depends on one of them prints it (the CLI's ``readings:`` line).

    >>> readings(Rules(surprise="die"), surprise=True)
    ['a surprise attack adds 1 die to round 1 (English overview: surprise_adds_die)']
    """
    out = []
    if continuation:
        out.append(READINGS["continuation"][rules.continue_always_costs])
    if surprise:
        out.append(READINGS["surprise"][rules.surprise])
    if storms:
        out.append(READINGS["storms"][rules.storms_strike_settlements])
    if wormsigns:
        out.append(READINGS["wormsigns"][rules.wormsign_order])
    return out


POLICY_HELP = (
    "attack policies: until_destroyed (default), while_ahead, max_rounds:N, best; "
    "retreat policies: never (default), when_outnumbered, defender:best"
)


def policy_overrides(names: Any) -> dict[str, str]:
    """Policy names (a list or comma-separated string) -> rule overrides ``attack``/``retreat``.

    >>> policy_overrides("while_ahead, when_outnumbered")
    {'attack': 'while_ahead', 'retreat': 'when_outnumbered'}
    """
    items = names.split(",") if isinstance(names, str) else list(names or ())
    out: dict[str, str] = {}
    given: dict[str, str] = {}  # field -> the policy as written (defender:best, not best)
    for item in items:
        name = str(item).strip().lower().replace("-", "_")
        if not name:
            continue
        if name.replace(" ", "") == "attacker:best":
            name = "best"
        if name.replace(" ", "") == "defender:best":
            field, name = "retreat", "best"
        else:
            field = "retreat" if name in RETREAT_POLICIES[:2] else "attack"
        if (
            field == "attack"
            and name not in ATTACK_POLICIES[:3]
            and not re.fullmatch(r"max_rounds:[1-9]\d*", name)
        ):
            # the right name with a count of 0, none or a negative one (its "-" was read as "_")
            if re.fullmatch(r"max_rounds:[+_-]?\d*", name):
                raise InputError(f"policy {item!r}: max_rounds:N needs a number of rounds N >= 1 (the "
                                 "first round is always fought)")
            raise InputError(f"unknown policy {item!r}; {POLICY_HELP}")
        if field in out and out[field] != name:
            raise InputError(f"two {field} policies given ({given[field]}, {str(item).strip()}); choose one")
        out[field] = name
        given.setdefault(field, str(item).strip())
    return out
