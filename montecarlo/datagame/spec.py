"""Reading and checking a dice-battle definition file (format: ``docs/rules-as-data.md``).

:func:`parse_definition` checks every key of the file before anything is computed and returns a
:class:`Definition` whose expressions are already parsed (:class:`~montecarlo.datagame.expr.Expr`).
Every mistake raises :class:`DefinitionError` with one line: the file, the key, what is wrong
and how to fix it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NoReturn

from montecarlo.validate import is_whole
from montecarlo.datagame.expr import RESERVED, Expr, ExprError
from montecarlo.engine.metrics import MetricKind
from montecarlo.errors import InputError

FORMAT = "dice-battle/1"
COMPARE_KINDS = ("highest", "pairs", "count")
REROLL = "reroll"
COUNTS = {"rounds": "round", "decisive_rounds": "decisive", "tied_rounds": "tie"}  # counts = -> tag
METRIC_KINDS: tuple[MetricKind, ...] = ("probability", "mean", "distribution")
MAX_SUPPORT = 1000
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

    def quantities(self) -> tuple[str, ...]:
        """The names a round defines for ``update`` (and ``lost``/``pairs``)."""
        a, d = self.sides
        names = [f"{a}_dice", f"{d}_dice", f"{a}_lost", f"{d}_lost"]
        if self.compare != "count":
            names.append("tied")
        for side, symbols in zip(self.sides, self.symbols):
            names += [f"{side}_{s}" for s in symbols]
        return tuple(names)

    def error(self, key: str, message: str) -> DefinitionError:
        return DefinitionError(f"{self.source}: {key}: {message}")


def read_definition(path: str | Path) -> Definition:
    """Read and check a definition file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DefinitionError(f"{path}: no such game definition file (check the path)") from None
    except IsADirectoryError:
        raise DefinitionError(f"{path}: is a directory; give the path of a .toml game definition") from None
    except UnicodeDecodeError as exc:
        raise DefinitionError(f"{path}: not UTF-8 text ({exc.reason}); save the file as UTF-8") from None
    return parse_definition(text, str(path), default_name=path.stem)


def parse_definition(text: str, source: str = "<definition>", default_name: str = "game") -> Definition:
    """Check a definition given as TOML text; DefinitionError (one line) if anything is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DefinitionError(
            f"{source}: invalid TOML: {' '.join(str(exc).split())}; fix the syntax there"
        ) from None
    return _Reader(source).definition(data, text, default_name)


class _Reader:
    """Typed look-ups that fail with ``<file>: <key>: <what is wrong>; <fix>``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> NoReturn:
        raise DefinitionError(f"{self.source}: {key}: {message}")

    def keys(self, table: Any, allowed: tuple[str, ...], key: str) -> Mapping:
        if not isinstance(table, Mapping):
            self.fail(key or "file", f"expected a table, got {_show(table)}")
        for k in table:
            if k not in allowed:
                where = f"{key}.{k}" if key else k
                self.fail(where, f"unknown key; use one of: {', '.join(allowed)}")
        return table

    def table(self, data: Mapping, key: str, where: str, required: bool = False) -> Mapping:
        if key not in data:
            if required:
                self.fail(where, "missing; add this table (see docs/rules-as-data.md)")
            return {}
        value = data[key]
        if not isinstance(value, Mapping):
            self.fail(where, f"expected a table, got {_show(value)}")
        return value

    def string(self, data: Mapping, key: str, where: str, default: str | None = None) -> str:
        if key not in data:
            if default is None:
                self.fail(where, "missing; add it as a string")
            return default
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"expected a non-empty string, got {_show(value)}")
        return value

    def whole(self, value: Any, where: str, low: int | None = None) -> int:
        if not is_whole(value) or (low is not None and value < low):
            span = "a whole number" if low is None else f"a whole number >= {low}"
            self.fail(where, f"expected {span}, got {_show(value)}")
        return value

    def ident(self, name: str, where: str, taken: Mapping[str, str]) -> None:
        if not _IDENT.match(name):
            self.fail(
                where, f"{name!r} is not a usable name; use letters, digits and _ (starting with a letter)"
            )
        if name in RESERVED:
            self.fail(where, f"{name!r} is a reserved word of the expression language; choose another name")
        if name in taken:
            self.fail(where, f"{name!r} is already the name of {taken[name]}; names must be distinct")

    def expr(self, text: Any, allowed, where: str) -> Expr:
        try:
            return Expr(text, allowed)
        except ExprError as exc:
            self.fail(where, f"{exc}; fix the expression")

    # ------------------------------------------------------------------------------------------

    def definition(self, data: Mapping, text: str, default_name: str) -> Definition:
        self.keys(data, TOP_KEYS, "")
        fmt = data.get("format")
        if fmt != FORMAT:
            self.fail(
                "format",
                f"expected format = {FORMAT!r} (it marks the file as a game definition), "
                f"got {_show(fmt) if 'format' in data else 'nothing'}",
            )
        name = self.string(data, "name", "name", default_name)
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", name):
            self.fail("name", f"{name!r}: use letters, digits, '.', '_' or '-'")
        taken: dict[str, str] = {}

        # setup fields
        setup_raw = self.table(data, "setup", "setup", required=True)
        if not setup_raw:
            self.fail("setup", "no setup fields; add at least one [setup.NAME] with min and max")
        setup = []
        for fname, spec in setup_raw.items():
            key = f"setup.{fname}"
            self.ident(fname, key, taken)
            self.keys(spec, SETUP_KEYS, key)
            for bound in ("min", "max"):
                if bound not in spec:
                    self.fail(f"{key}.{bound}", "missing; give the smallest and largest allowed value")
            low, high = self.whole(spec["min"], f"{key}.min"), self.whole(spec["max"], f"{key}.max")
            if low > high:
                self.fail(key, f"min {low} is above max {high}; swap them")
            example = self.whole(spec.get("example", low), f"{key}.example")
            if not low <= example <= high:
                self.fail(f"{key}.example", f"{example} is outside {low}..{high}; pick a value in the range")
            setup.append(
                SetupField(
                    fname, low, high, example, self.string(spec, "description", f"{key}.description", fname)
                )
            )
            taken[fname] = "a setup field"
        setup_names = [f.name for f in setup]

        # rules
        rules_raw = self.table(data, "rules", "rules")
        rules: dict[str, Any] = {}
        for rname, value in rules_raw.items():
            key = f"rules.{rname}"
            self.ident(rname, key, {k: v for k, v in taken.items()})
            if isinstance(value, float) or not isinstance(value, (bool, int, str)):
                self.fail(key, f"expected a whole number, true/false or a string, got {_show(value)}")
            rules[rname] = value
            taken[rname] = "a rule"
        rule_names = list(rules)

        # state
        state_raw = self.table(data, "state", "state")
        state: list[tuple[str, Expr]] = []
        if not state_raw:
            state = [(n, Expr(n, setup_names)) for n in setup_names]
        else:
            for sname, start in state_raw.items():
                key = f"state.{sname}"
                if sname not in setup_names:
                    self.ident(sname, key, taken)
                    taken[sname] = "a state field"
                state.append((sname, self.expr(start, setup_names + rule_names, key)))
        state_names = [n for n, _ in state]
        base = state_names + rule_names  # what most expressions may use

        # variants
        variants_raw = self.table(data, "variants", "variants")
        variants, descriptions = {}, {}
        for vname, spec in variants_raw.items():
            key = f"variants.{vname}"
            if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]*$", vname):
                self.fail(key, f"{vname!r}: use letters, digits, '_' or '-'")
            self.keys(spec, VARIANT_KEYS, key)
            overrides = self.table(spec, "overrides", f"{key}.overrides")
            for rname, value in overrides.items():
                if rname not in rules:
                    self.fail(
                        f"{key}.overrides.{rname}",
                        f"not a rule of this file; known rules: {', '.join(rules) or 'none'}",
                    )
                if type(value) is not type(rules[rname]):
                    self.fail(
                        f"{key}.overrides.{rname}",
                        f"expected a {_kind(rules[rname])} like the rule's "
                        f"value {_show(rules[rname])}, got {_show(value)}",
                    )
            variants[vname] = dict(overrides)
            descriptions[vname] = self.string(
                spec,
                "description",
                f"{key}.description",
                ", ".join(f"{k} = {_show(v)}" for k, v in overrides.items()) or vname,
            )

        # dice
        dice_raw = self.table(data, "dice", "dice", required=True)
        dice: dict[str, Die] = {}
        for dname, spec in dice_raw.items():
            key = f"dice.{dname}"
            self.ident(dname, key, {})
            self.keys(spec, DIE_KEYS, key)
            if "faces" not in spec:
                self.fail(
                    f"{key}.faces", "missing; give a number of faces (6), a rule's name, or a list of faces"
                )
            dice[dname] = self.die(dname, spec["faces"], f"{key}.faces", rule_names)

        # the round
        rnd = self.keys(self.table(data, "round", "round", required=True), ROUND_KEYS, "round")
        compare = self.string(rnd, "compare", "round.compare")
        if compare not in COMPARE_KINDS:
            self.fail(
                "round.compare", f"{compare!r} is not a comparison; use one of: {', '.join(COMPARE_KINDS)}"
            )
        roll_raw = self.table(rnd, "roll", "round.roll", required=True)
        if len(roll_raw) != 2:
            self.fail(
                "round.roll", f"expected exactly two sides (e.g. attacker and defender), got {len(roll_raw)}"
            )
        sides = tuple(roll_raw)
        roll: list[tuple[tuple[str, Expr], ...]] = []
        symbols: list[tuple[str, ...]] = []
        for side in sides:
            key = f"round.roll.{side}"
            self.ident(side, key, {})  # a side's name is not itself an expression name
            pool = roll_raw[side]
            if not isinstance(pool, Mapping) or not pool:
                self.fail(
                    key, f'expected a table of dice and counts like {{ d6 = "min(3, x)" }}, got {_show(pool)}'
                )
            groups: list[tuple[str, Expr]] = []
            seen: list[str] = []
            for dname, count in pool.items():
                if dname not in dice:
                    self.fail(
                        f"{key}.{dname}",
                        f"no die named {dname!r}; define it under [dice.{dname}] "
                        f"(known: {', '.join(dice)})",
                    )
                die = dice[dname]
                if compare == "count" and die.numeric:
                    self.fail(
                        f"{key}.{dname}",
                        "compare = 'count' needs dice with named faces, e.g. "
                        'faces = ["hit", "hit", "shield", "blank", "blank", "blank"]',
                    )
                if compare != "count" and not die.numeric:
                    self.fail(
                        f"{key}.{dname}",
                        f"compare = {compare!r} needs dice with numbers on their faces; "
                        "use compare = 'count' for named faces",
                    )
                groups.append((dname, self.expr(count, base, f"{key}.{dname}")))
                for s in die.symbols or ():
                    if s not in seen:
                        seen.append(s)
            roll.append(tuple(groups))
            symbols.append(tuple(seen))
        definition_quantities = [f"{s}_dice" for s in sides]
        for side, syms in zip(sides, symbols):
            definition_quantities += [f"{side}_{s}" for s in syms]
        for q in definition_quantities + [f"{s}_lost" for s in sides] + ["tied"]:
            if q in taken:
                self.fail(
                    "round.roll", f"the round defines the name {q!r}, which is already {taken[q]}; rename one"
                )

        ties, keyword_rules = None, frozenset()
        if compare == "count":
            if "ties" in rnd:
                self.fail("round.ties", "compare = 'count' has no tied comparisons; remove ties")
            if "pairs" in rnd:
                self.fail("round.pairs", "only compare = 'pairs' has pairs; remove it")
        else:
            ties = self.string(rnd, "ties", "round.ties", REROLL)
            allowed = (*sides, REROLL)
            if ties in rules:
                for where, value in [(f"rules.{ties}", rules[ties])] + [
                    (f"variants.{v}.overrides.{ties}", o[ties]) for v, o in variants.items() if ties in o
                ]:
                    if value not in allowed:
                        self.fail(
                            where, f"{_show(value)} is used as round.ties; use one of: {', '.join(allowed)}"
                        )
                keyword_rules = frozenset([ties])
            elif ties not in allowed:
                self.fail(
                    "round.ties",
                    f"{ties!r}: use one of {', '.join(allowed)}, or the name of a rule holding one",
                )
        pairs = None
        if "pairs" in rnd:
            if compare != "pairs":
                self.fail("round.pairs", "only compare = 'pairs' has pairs; remove it")
            pairs = self.expr(rnd["pairs"], base + [f"{s}_dice" for s in sides], "round.pairs")

        lost = None
        if compare == "count":
            lost_raw = self.keys(self.table(rnd, "lost", "round.lost", required=True), sides, "round.lost")
            names = base + definition_quantities
            lost_list = []
            for side in sides:
                if side not in lost_raw:
                    self.fail(
                        f"round.lost.{side}",
                        "missing; say what this side loses, e.g. " '"max(0, other_hit - this_shield)"',
                    )
                lost_list.append(self.expr(lost_raw[side], names, f"round.lost.{side}"))
            lost = (lost_list[0], lost_list[1])  # one per side; there are exactly two
        elif "lost" in rnd:
            self.fail(
                "round.lost",
                f"compare = {compare!r} decides the losses itself; remove lost "
                "(it is for compare = 'count')",
            )

        update_raw = self.table(rnd, "update", "round.update", required=True)
        names = (
            base
            + definition_quantities
            + [f"{s}_lost" for s in sides]
            + ([] if compare == "count" else ["tied"])
        )
        update = []
        for sname, text_ in update_raw.items():
            if sname not in state_names:
                self.fail(
                    f"round.update.{sname}", f"not a state field; state fields: {', '.join(state_names)}"
                )
            update.append((sname, self.expr(text_, names, f"round.update.{sname}")))
        if not update:
            self.fail(
                "round.update",
                'empty; say how the state changes, e.g. defenders = "defenders - defender_lost"',
            )

        if "end" not in data:
            self.fail(
                "end", 'missing; give the condition that ends the battle, e.g. end = "a == 0 or b == 0"'
            )
        end = self.expr(data["end"], base, "end")

        # metrics
        metrics_raw = self.table(data, "metrics", "metrics", required=True)
        if not metrics_raw:
            self.fail("metrics", "no metrics; add at least one [metrics.NAME]")
        metrics = []
        for mname, spec in metrics_raw.items():
            key = f"metrics.{mname}"
            self.ident(mname, key, {})
            self.keys(spec, METRIC_KEYS, key)
            kind = self.string(spec, "kind", f"{key}.kind")
            if kind not in METRIC_KINDS:
                self.fail(f"{key}.kind", f"{kind!r}: use one of {', '.join(METRIC_KINDS)}")
            value, counts, support = None, None, ()
            if "counts" in spec:
                counts = spec["counts"]
                if kind != "mean" or "value" in spec:
                    self.fail(f"{key}.counts", "a counted metric has kind = 'mean' and no value")
                if counts not in COUNTS:
                    self.fail(f"{key}.counts", f"{_show(counts)}: use one of {', '.join(COUNTS)}")
            else:
                if "value" not in spec:
                    self.fail(
                        f"{key}.value", "missing; give an expression of the final state (or counts = ...)"
                    )
                value = self.expr(spec["value"], base, f"{key}.value")
            if kind == "distribution":
                support = self.support(spec.get("support"), f"{key}.support")
            elif "support" in spec:
                self.fail(f"{key}.support", "only a distribution has a support; remove it")
            metrics.append(
                MetricSpec(
                    mname,
                    kind,
                    value,
                    counts,
                    support,
                    self.string(spec, "description", f"{key}.description", mname),
                )
            )

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
            compare=compare,
            ties=ties,
            pairs=pairs,
            sides=sides,
            roll=(roll[0], roll[1]),  # exactly two sides (checked above)
            symbols=(symbols[0], symbols[1]),
            lost=lost,
            update=tuple(update),
            end=end,
            metrics=tuple(metrics),
            exact_max_states=self.whole(data.get("exact_max_states", 250_000), "exact_max_states", 1),
            max_rounds=self.whole(data.get("max_rounds", DEFAULT_MAX_ROUNDS), "max_rounds", 1),
            keyword_rules=keyword_rules,
        )

    def die(self, name: str, faces: Any, where: str, rule_names: list[str]) -> Die:
        if isinstance(faces, str):
            return Die(name, faces=self.expr(faces, rule_names, where))
        if isinstance(faces, int) and not isinstance(faces, bool):
            return Die(name, values=tuple(range(1, self.whole(faces, where, 1) + 1)))
        if isinstance(faces, list) and faces:
            if all(isinstance(f, int) and not isinstance(f, bool) for f in faces):
                return Die(name, values=tuple(faces))
            if all(isinstance(f, str) for f in faces):
                for f in faces:
                    if not _IDENT.match(f):
                        self.fail(where, f'face {f!r}: name faces with letters, digits and _ (e.g. "hit")')
                return Die(name, symbols=tuple(faces))
        self.fail(
            where,
            f"expected a number of faces, a rule's name, or a non-empty list of numbers or of "
            f"names, got {_show(faces)}",
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
        self.fail(
            where,
            f'expected "LOW..HIGH" (at most {MAX_SUPPORT} values) or a list of distinct whole '
            f"numbers, got {_show(value)}",
        )


def _kind(value: Any) -> str:
    return "true/false" if isinstance(value, bool) else "whole number" if isinstance(value, int) else "string"


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
