"""Reading and checking a dice-battle definition file (format: ``docs/rules-as-data.md``).

:func:`parse_definition` checks every key of the file before anything is computed and returns a
:class:`Definition` whose expressions are already parsed (:class:`~montecarlo.datagame.expr.Expr`).
Every mistake raises :class:`DefinitionError` with one line: the file, the key, what is wrong
and how to fix it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from montecarlo.datagame.expr import LIMIT, RESERVED, Expr, ExprError
from montecarlo.engine.metrics import MetricKind
from montecarlo.errors import InputError
from montecarlo.tomlread import TomlReader, parse_text, printable, read_text, show
from montecarlo.validate import NAME, fit_name

FORMAT = "dice-battle/1"
COMPARE_KINDS = ("highest", "pairs", "count")
REROLL = "reroll"
COUNTS = {"rounds": "round", "decisive_rounds": "decisive", "tied_rounds": "tie"}  # counts = -> tag
METRIC_KINDS: tuple[MetricKind, ...] = ("probability", "mean", "distribution")
MAX_SUPPORT = 1000
MAX_FACES = 10_000  # faces of one die: beyond it the exact tables take minutes, and no game needs it
DEFAULT_MAX_ROUNDS = 100_000

TOP_KEYS = (
    "format",
    "name",
    "title",
    "description",
    "question",
    "question_description",
    "end",
    "exact_max_states",
    "max_rounds",
    "setup",
    "state",
    "rules",
    "variants",
    "dice",
    "round",
    "metrics",
)
SETUP_KEYS = ("min", "max", "example", "description")
VARIANT_KEYS = ("description", "overrides")
DIE_KEYS = ("faces",)
ROUND_KEYS = ("compare", "ties", "pairs", "roll", "lost", "update")
METRIC_KEYS = ("kind", "value", "counts", "support", "description")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class DefinitionError(InputError):
    """A game definition file that cannot be read or does not check out (one line)."""


@dataclass(frozen=True)
class SetupField:
    name: str
    low: int
    high: int
    example: int
    description: str


@dataclass(frozen=True)
class Die:
    """A die: numeric faces (``values``), symbolic faces (``symbols``) or a face count set by a rule."""

    name: str
    values: tuple[int, ...] | None = None  # numeric faces, one entry per face
    symbols: tuple[str, ...] | None = None  # symbolic faces, one entry per face
    faces: Expr | None = None  # "d N" with N from an expression of the rules

    @property
    def numeric(self) -> bool:
        return self.symbols is None


@dataclass(frozen=True)
class MetricSpec:
    name: str
    kind: MetricKind
    value: Expr | None
    counts: str | None  # a COUNTS key for a counter metric
    support: tuple[int, ...]
    description: str


@dataclass(frozen=True)
class Definition:
    """A checked dice-battle definition (see the module docstring and docs/rules-as-data.md)."""

    source: str  # the file's path as given (for messages)
    text: str  # the file's text (a worker rebuilds the game from it)
    name: str
    title: str
    description: str
    question: str
    question_description: str
    setup: tuple[SetupField, ...]
    state: tuple[tuple[str, Expr], ...]  # (field, start expression over setup and rules)
    rules: Mapping[str, Any]  # name -> official value (int, bool or str)
    variants: Mapping[str, Mapping[str, Any]]
    variant_descriptions: Mapping[str, str]
    dice: Mapping[str, Die]
    compare: str
    ties: str | None  # a keyword (a side or "reroll") or the name of a rule holding one
    pairs: Expr | None
    sides: tuple[str, str]
    roll: tuple[tuple[tuple[str, Expr], ...], tuple[tuple[str, Expr], ...]]  # per side (die, count)
    symbols: tuple[tuple[str, ...], tuple[str, ...]]  # per side, the symbols its dice can show
    lost: tuple[Expr, Expr] | None  # count mode: what each side loses
    update: tuple[tuple[str, Expr], ...]
    end: Expr
    metrics: tuple[MetricSpec, ...]
    exact_max_states: int
    max_rounds: int
    keyword_rules: frozenset = field(default_factory=frozenset)  # rules used as the ties keyword

    @property
    def state_fields(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.state)

    def error(self, key: str, message: str) -> DefinitionError:
        return DefinitionError(f"{self.source}: {key}: {message}")


def read_definition(path: str | Path) -> Definition:
    """Read and check a definition file."""
    path = Path(path)
    text = read_text(path, "game definition", DefinitionError)
    return parse_definition(text, str(path), default_name=path.stem)


def parse_definition(text: str, source: str = "<definition>", default_name: str = "game") -> Definition:
    """Check a definition given as TOML text; DefinitionError (one line) if anything is wrong."""
    data = parse_text(text, source, DefinitionError)
    return _Reader(source).definition(data, text, default_name)


@dataclass
class _Round:
    """What the ``[round]`` table says, section by section (see :meth:`_Reader.round`)."""

    compare: str
    sides: tuple[str, ...]
    roll: list[tuple[tuple[str, Expr], ...]]
    symbols: list[tuple[str, ...]]
    quantities: list[str]  # the names the round defines: <side>_dice, <side>_<symbol>
    ties: str | None = None
    keyword_rules: frozenset = frozenset()
    pairs: Expr | None = None
    lost: tuple[Expr, Expr] | None = None
    update: tuple[tuple[str, Expr], ...] = ()


class _Reader(TomlReader):
    """The look-ups of a definition file (:class:`~montecarlo.tomlread.TomlReader`), one method
    per section of the file; each mistake is a one-line :class:`DefinitionError`."""

    def __init__(self, source: str) -> None:
        super().__init__(source, DefinitionError, docs="docs/rules-as-data.md")
        self.taken: dict[str, str] = {}  # every name given so far -> what it names
        self.text_rules: dict[str, str] = {}  # the rules holding text (for round.ties) -> their value

    def ident(self, name: str, where: str, taken: Mapping[str, str]) -> None:
        if not _IDENT.match(name):
            self.fail(
                where, f"{name!r} is not a usable name", "use letters, digits and _ (starting with a letter)"
            )
        if name in RESERVED:
            self.fail(where, f"{name!r} is a reserved word of the expression language", "choose another name")
        if name in taken:
            self.fail(where, f"{name!r} is already the name of {taken[name]}", "names must be distinct")

    def expr(self, text: Any, allowed, where: str) -> Expr:
        """An expression of ``allowed`` names; evaluating it to a value too large names the key."""

        def too_large(message: str) -> DefinitionError:
            return DefinitionError(f"{self.source}: {where}: {message}")

        try:
            got = Expr(text, allowed, error=too_large)
        except ExprError as exc:
            self.fail(where, exc, "fix the expression")
        for name in sorted(got.names & set(self.text_rules)):
            self.fail(
                where,
                f"{name!r} is a text rule ({show(self.text_rules[name])}); expressions compute with whole "
                "numbers and true/false only",
                "name a text rule only as round.ties, or make the rule a number",
            )
        return got

    def bounded(self, value: int, where: str) -> int:
        """A whole number of the file below the expressions' limit in size (2**62)."""
        if not -LIMIT < value < LIMIT:
            self.fail(where, f"{value} is too large", "numbers must be below 2**62 in size")
        return value

    # ------------------------------------------------------------------ the file, section by section

    def definition(self, data: Mapping, text: str, default_name: str) -> Definition:
        if "game" in data and "format" not in data:  # a scenario: say so, not "game: unknown key"
            raise self.error(
                printable(
                    f"{self.source}: a scenario file (it names a game), not a battle file: run it with "
                    "montecarlo report or montecarlo compare (a battle file has format = "
                    f"{FORMAT!r}, docs/rules-as-data.md)"
                )
            )
        name = self.header(data, default_name)
        setup = self.setup(data)
        setup_names = [f.name for f in setup]
        rules = self.rules(data)
        state = self.state(data, setup_names, list(rules))
        base = [n for n, _ in state] + list(rules)  # what most expressions may use
        variants, descriptions = self.variants(data, rules)
        dice = self.dice(data, list(rules))
        rnd = self.round(data, rules, variants, dice, [n for n, _ in state], base)
        if "end" not in data:
            self.fail(
                "end", "missing", 'give the condition that ends the battle, e.g. end = "a == 0 or b == 0"'
            )
        end = self.expr(data["end"], base, "end")
        return Definition(
            source=self.source,
            text=text,
            name=name,
            title=self.string(data, "title", "title", name),
            description=self.string(data, "description", "description", ""),
            question=self.string(data, "question", "question", "battle"),
            question_description=self.string(
                data, "question_description", "question_description", "one battle fought to the end"
            ),
            setup=tuple(setup),
            state=tuple(state),
            rules=rules,
            variants=variants,
            variant_descriptions=descriptions,
            dice=dice,
            compare=rnd.compare,
            ties=rnd.ties,
            pairs=rnd.pairs,
            sides=(rnd.sides[0], rnd.sides[1]),  # exactly two sides (checked by round)
            roll=(rnd.roll[0], rnd.roll[1]),
            symbols=(rnd.symbols[0], rnd.symbols[1]),
            lost=rnd.lost,
            update=rnd.update,
            end=end,
            metrics=self.metrics(data, base),
            exact_max_states=self.whole(data.get("exact_max_states", 250_000), "exact_max_states", 1),
            max_rounds=self.whole(data.get("max_rounds", DEFAULT_MAX_ROUNDS), "max_rounds", 1),
            keyword_rules=rnd.keyword_rules,
        )

    def header(self, data: Mapping, default_name: str) -> str:
        """The top-level keys, ``format`` and ``name``."""
        self.keys(data, TOP_KEYS, "")
        fmt = data.get("format")
        if fmt != FORMAT:
            got = show(fmt) if "format" in data else "nothing"
            self.fail(
                "format", f"expected format = {FORMAT!r} (it marks the file as a game definition), got {got}"
            )
        name = self.string(data, "name", "name", default_name)
        if not NAME.match(name):
            if "name" in data:
                self.fail("name", f"{name!r} is not a usable name", "use letters, digits, '.', '_' or '-'")
            usable = fit_name(name) or "game"
            raise self.error(
                printable(
                    f"{self.source}: the file has no name key, and its file name {name!r} is not a usable "
                    f'game name; add name = "{usable}" (letters, digits, \'.\', \'_\' or \'-\')'
                )
            )
        return name

    def setup(self, data: Mapping) -> list[SetupField]:
        """``[setup.NAME]``: the fields a user gives, each with its range."""
        setup_raw = self.table(data, "setup", "setup", required=True)
        if not setup_raw:
            self.fail("setup", "no setup fields", "add at least one [setup.NAME] with min and max")
        setup = []
        for fname, spec in setup_raw.items():
            key = f"setup.{fname}"
            self.ident(fname, key, self.taken)
            self.keys(spec, SETUP_KEYS, key)
            for bound in ("min", "max"):
                if bound not in spec:
                    self.fail(f"{key}.{bound}", "missing", "give the smallest and largest allowed value")
            low = self.bounded(self.whole(spec["min"], f"{key}.min"), f"{key}.min")
            high = self.bounded(self.whole(spec["max"], f"{key}.max"), f"{key}.max")
            if low > high:
                self.fail(key, f"min {low} is above max {high}", "swap them")
            example = self.whole(spec.get("example", low), f"{key}.example")
            if not low <= example <= high:
                self.fail(
                    f"{key}.example", f"{example} is outside {low}..{high}", "pick a value in the range"
                )
            description = self.string(spec, "description", f"{key}.description", fname)
            setup.append(SetupField(fname, low, high, example, description))
            self.taken[fname] = "a setup field"
        return setup

    def rules(self, data: Mapping) -> dict[str, Any]:
        """``[rules]``: name -> official value (whole number, true/false or string)."""
        rules: dict[str, Any] = {}
        for rname, value in self.table(data, "rules", "rules").items():
            key = f"rules.{rname}"
            self.ident(rname, key, self.taken)
            if isinstance(value, float) or not isinstance(value, (bool, int, str)):
                self.expected(key, "a whole number, true/false or a string", value)
            if type(value) is int:
                self.bounded(value, key)
            if isinstance(value, str):
                self.text_rules[rname] = value
            rules[rname] = value
            self.taken[rname] = "a rule"
        return rules

    def state(self, data: Mapping, setup_names: list[str], rule_names: list[str]) -> list[tuple[str, Expr]]:
        """``[state]``: each field's start expression (default: the setup fields themselves)."""
        state_raw = self.table(data, "state", "state")
        if not state_raw:
            return [(n, Expr(n, setup_names)) for n in setup_names]
        state = []
        for sname, start in state_raw.items():
            key = f"state.{sname}"
            if sname not in setup_names:
                self.ident(sname, key, self.taken)
                self.taken[sname] = "a state field"
            state.append((sname, self.expr(start, setup_names + rule_names, key)))
        return state

    def variants(self, data: Mapping, rules: Mapping[str, Any]) -> tuple[dict, dict]:
        """``[variants.NAME]``: overrides of the rules (same types), and a description each."""
        variants, descriptions = {}, {}
        for vname, spec in self.table(data, "variants", "variants").items():
            key = f"variants.{vname}"
            if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]*$", vname):
                self.fail(key, f"{vname!r} is not a usable name", "use letters, digits, '_' or '-'")
            self.keys(spec, VARIANT_KEYS, key)
            overrides = self.table(spec, "overrides", f"{key}.overrides")
            for rname, value in overrides.items():
                where = f"{key}.overrides.{rname}"
                if rname not in rules:
                    self.fail(where, "not a rule of this file", f"known rules: {', '.join(rules) or 'none'}")
                if type(value) is not type(rules[rname]):
                    self.expected(
                        where, f"a {_kind(rules[rname])} like the rule's value {show(rules[rname])}", value
                    )
                if type(value) is int:
                    self.bounded(value, where)
            variants[vname] = dict(overrides)
            default = ", ".join(f"{k} = {show(v)}" for k, v in overrides.items()) or vname
            descriptions[vname] = self.string(spec, "description", f"{key}.description", default)
        return variants, descriptions

    def dice(self, data: Mapping, rule_names: list[str]) -> dict[str, Die]:
        """``[dice.NAME]``: each die's faces."""
        dice: dict[str, Die] = {}
        for dname, spec in self.table(data, "dice", "dice", required=True).items():
            key = f"dice.{dname}"
            self.ident(dname, key, {})
            self.keys(spec, DIE_KEYS, key)
            if "faces" not in spec:
                self.fail(
                    f"{key}.faces", "missing", "give a number of faces (6), a rule's name, or a list of faces"
                )
            dice[dname] = self.die(dname, spec["faces"], f"{key}.faces", rule_names)
        return dice

    def round(
        self,
        data: Mapping,
        rules: Mapping[str, Any],
        variants: Mapping[str, Mapping],
        dice: Mapping[str, Die],
        state_names: list[str],
        base: list[str],
    ) -> _Round:
        """``[round]``: how dice compare, what each side rolls, ties, pairs, losses, the update."""
        raw = self.keys(self.table(data, "round", "round", required=True), ROUND_KEYS, "round")
        compare = self.string(raw, "compare", "round.compare")
        if compare not in COMPARE_KINDS:
            self.fail(
                "round.compare", f"{compare!r} is not a comparison", f"use one of: {', '.join(COMPARE_KINDS)}"
            )
        rnd = self.roll(raw, compare, dice, base)
        if compare == "count":
            if "ties" in raw:
                self.fail("round.ties", "compare = 'count' has no tied comparisons", "remove ties")
        else:
            self.ties(raw, rnd, rules, variants)
        if "pairs" in raw:
            if compare != "pairs":
                self.fail("round.pairs", "only compare = 'pairs' has pairs", "remove it")
            rnd.pairs = self.expr(raw["pairs"], base + [f"{s}_dice" for s in rnd.sides], "round.pairs")
        self.lost(raw, rnd, base)
        rnd.update = self.update(raw, rnd, state_names, base)
        return rnd

    def roll(self, raw: Mapping, compare: str, dice: Mapping[str, Die], base: list[str]) -> _Round:
        """``[round.roll.SIDE]``: exactly two sides, each a pool of dice and counts."""
        roll_raw = self.table(raw, "roll", "round.roll", required=True)
        if len(roll_raw) != 2:
            self.expected("round.roll", "exactly two sides (e.g. attacker and defender)", len(roll_raw))
        sides = tuple(roll_raw)
        roll: list[tuple[tuple[str, Expr], ...]] = []
        symbols: list[tuple[str, ...]] = []
        faces_of: list[dict[str, str]] = []
        for side in sides:
            key = f"round.roll.{side}"
            self.ident(side, key, {})  # a side's name is not itself an expression name
            pool = roll_raw[side]
            if not isinstance(pool, Mapping) or not pool:
                self.expected(key, 'a table of dice and counts like { d6 = "min(3, x)" }', pool)
            groups: list[tuple[str, Expr]] = []
            seen: dict[str, str] = {}  # each face name the side can show -> the first die showing it
            for dname, count in pool.items():
                self.pool_die(f"{key}.{dname}", dname, compare, dice)
                groups.append((dname, self.expr(count, base, f"{key}.{dname}")))
                seen.update((s, dname) for s in dice[dname].symbols or () if s not in seen)
            roll.append(tuple(groups))
            symbols.append(tuple(seen))
            faces_of.append(seen)
        quantities = [f"{s}_dice" for s in sides]
        for side, syms in zip(sides, symbols):
            quantities += [f"{side}_{s}" for s in syms]
        self.round_names(sides, faces_of)
        for q in quantities + [f"{s}_lost" for s in sides] + ["tied"]:
            if q in self.taken:
                self.fail(
                    "round.roll",
                    f"the round defines the name {q!r}, which is already {self.taken[q]}",
                    "rename one",
                )
        return _Round(compare, sides, roll, symbols, quantities)

    def round_names(self, sides: tuple[str, ...], faces_of: list[dict[str, str]]) -> None:
        """The names the round defines are distinct: a face named ``dice`` or ``lost`` (or a side and
        face name that spell another side's) would make one name mean two numbers."""
        defined = {f"{s}_dice": f"the number of dice {s} rolls" for s in sides}
        defined.update({f"{s}_lost": f"what {s} loses" for s in sides})
        for side, faces in zip(sides, faces_of):
            for face, dname in faces.items():
                q = f"{side}_{face}"
                if q in defined:
                    self.fail(
                        f"dice.{dname}.faces",
                        f"face {face!r} makes {q!r} name both {defined[q]} and the {face!r} faces "
                        f"{side} rolls",
                        "rename the face",
                    )
                defined[q] = f"the {face!r} faces {side} rolls"

    def pool_die(self, where: str, dname: str, compare: str, dice: Mapping[str, Die]) -> None:
        """A die named in a pool exists and suits the comparison."""
        if dname not in dice:
            self.fail(
                where, f"no die named {dname!r}", f"define it under [dice.{dname}] (known: {', '.join(dice)})"
            )
        if compare == "count" and dice[dname].numeric:
            self.fail(
                where,
                "compare = 'count' needs dice with named faces",
                'e.g. faces = ["hit", "hit", "shield", "blank", "blank", "blank"]',
            )
        if compare != "count" and not dice[dname].numeric:
            self.fail(
                where,
                f"compare = {compare!r} needs dice with numbers on their faces",
                "use compare = 'count' for named faces",
            )

    def ties(
        self, raw: Mapping, rnd: _Round, rules: Mapping[str, Any], variants: Mapping[str, Mapping]
    ) -> None:
        """``round.ties``: a side, ``reroll``, or the name of a rule holding one of them."""
        ties = self.string(raw, "ties", "round.ties", REROLL)
        allowed = (*rnd.sides, REROLL)
        if ties in rules and ties in allowed:
            self.fail(
                "round.ties",
                f"{ties!r} is both a rule and " + ("a side" if ties in rnd.sides else "the keyword reroll"),
                "rename the rule",
            )
        if ties in rules:
            held = [(f"rules.{ties}", rules[ties])]
            held += [(f"variants.{v}.overrides.{ties}", o[ties]) for v, o in variants.items() if ties in o]
            for where, value in held:
                if value not in allowed:
                    self.fail(
                        where, f"{show(value)} is used as round.ties", f"use one of: {', '.join(allowed)}"
                    )
            rnd.keyword_rules = frozenset([ties])
        elif ties not in allowed:
            self.fail(
                "round.ties",
                f"{ties!r} is not a tie rule",
                f"use one of {', '.join(allowed)}, or the name of a rule holding one",
            )
        rnd.ties = ties

    def lost(self, raw: Mapping, rnd: _Round, base: list[str]) -> None:
        """``[round.lost]``: what each side loses, for compare = 'count' only."""
        if rnd.compare != "count":
            if "lost" in raw:
                self.fail(
                    "round.lost",
                    f"compare = {rnd.compare!r} decides the losses itself",
                    "remove lost (it is for compare = 'count')",
                )
            return
        lost_raw = self.keys(self.table(raw, "lost", "round.lost", required=True), rnd.sides, "round.lost")
        lost = []
        for side in rnd.sides:
            if side not in lost_raw:
                self.fail(
                    f"round.lost.{side}",
                    "missing",
                    'say what this side loses, e.g. "max(0, other_hit - this_shield)"',
                )
            lost.append(self.expr(lost_raw[side], base + rnd.quantities, f"round.lost.{side}"))
        rnd.lost = (lost[0], lost[1])  # one per side; there are exactly two

    def update(self, raw: Mapping, rnd: _Round, state_names: list[str], base: list[str]) -> tuple:
        """``[round.update]``: each changed state field's new value."""
        names = (
            base
            + rnd.quantities
            + [f"{s}_lost" for s in rnd.sides]
            + ([] if rnd.compare == "count" else ["tied"])
        )
        update = []
        for sname, text in self.table(raw, "update", "round.update", required=True).items():
            if sname not in state_names:
                self.fail(
                    f"round.update.{sname}", "not a state field", f"state fields: {', '.join(state_names)}"
                )
            update.append((sname, self.expr(text, names, f"round.update.{sname}")))
        if not update:
            self.fail(
                "round.update",
                "empty",
                'say how the state changes, e.g. defenders = "defenders - defender_lost"',
            )
        return tuple(update)

    def metrics(self, data: Mapping, base: list[str]) -> tuple[MetricSpec, ...]:
        """``[metrics.NAME]``: what a finished battle reports."""
        metrics_raw = self.table(data, "metrics", "metrics", required=True)
        if not metrics_raw:
            self.fail("metrics", "no metrics", "add at least one [metrics.NAME]")
        return tuple(self.metric(mname, spec, base) for mname, spec in metrics_raw.items())

    def metric(self, mname: str, spec: Any, base: list[str]) -> MetricSpec:
        key = f"metrics.{mname}"
        self.ident(mname, key, {})
        self.keys(spec, METRIC_KEYS, key)
        kind = self.string(spec, "kind", f"{key}.kind")
        if kind not in METRIC_KINDS:
            self.fail(
                f"{key}.kind", f"{kind!r} is not a metric kind", f"use one of {', '.join(METRIC_KINDS)}"
            )
        value, counts, support = None, None, ()
        if "counts" in spec:
            counts = spec["counts"]
            if kind != "mean" or "value" in spec:
                self.fail(
                    f"{key}.counts",
                    "a counted metric has kind = 'mean' and no value",
                    "fix kind or remove value",
                )
            if counts not in COUNTS:
                self.fail(
                    f"{key}.counts", f"{show(counts)} is not a count", f"use one of {', '.join(COUNTS)}"
                )
        else:
            if "value" not in spec:
                self.fail(
                    f"{key}.value", "missing", "give an expression of the final state (or counts = ...)"
                )
            value = self.expr(spec["value"], base, f"{key}.value")
        if kind == "distribution":
            support = self.support(spec.get("support"), f"{key}.support")
        elif "support" in spec:
            self.fail(f"{key}.support", "only a distribution has a support", "remove it")
        description = self.string(spec, "description", f"{key}.description", mname)
        return MetricSpec(mname, kind, value, counts, support, description)

    def die(self, name: str, faces: Any, where: str, rule_names: list[str]) -> Die:
        if isinstance(faces, str):
            return Die(name, faces=self.expr(faces, rule_names, where))
        if isinstance(faces, int) and not isinstance(faces, bool):
            return Die(name, values=tuple(range(1, self.whole(faces, where, 1, MAX_FACES) + 1)))
        if isinstance(faces, list) and len(faces) > MAX_FACES:
            self.fail(where, f"{len(faces):,} faces; a die has at most {MAX_FACES:,}", "use fewer faces")
        if isinstance(faces, list) and faces:
            if all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
                return Die(name, values=tuple(self.bounded(f, where) for f in faces))
            if all(isinstance(f, str) for f in faces):
                for f in faces:
                    if not _IDENT.match(f):
                        self.fail(
                            where,
                            f"face {f!r} is not a usable name",
                            'use letters, digits and _ (e.g. "hit")',
                        )
                return Die(name, symbols=tuple(faces))
        self.expected(
            where, "a number of faces, a rule's name, or a non-empty list of numbers or of names", faces
        )

    def support(self, value: Any, where: str) -> tuple[int, ...]:
        if isinstance(value, str):
            m = re.match(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$", value)
            if m and int(m.group(1)) <= int(m.group(2)) and int(m.group(2)) - int(m.group(1)) < MAX_SUPPORT:
                return tuple(range(int(m.group(1)), int(m.group(2)) + 1))
        elif (
            isinstance(value, list)
            and value
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            if len(set(value)) == len(value) and len(value) <= MAX_SUPPORT:
                return tuple(value)
        self.expected(
            where, f'"LOW..HIGH" (at most {MAX_SUPPORT} values) or a list of distinct whole numbers', value
        )


def _kind(value: Any) -> str:
    return "true/false" if isinstance(value, bool) else "whole number" if isinstance(value, int) else "string"
