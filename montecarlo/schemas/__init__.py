"""JSON Schemas of scenario files and battle files, for editors (taplo, Even Better TOML) and tools.

They are generated from what the loaders check, not written twice: the keys of each table are the
loaders' own lists (:data:`montecarlo.scenarios.TOP_KEYS`, :data:`montecarlo.datagame.spec.TOP_KEYS`
and their neighbours), the enumerations theirs (plot kinds, comparisons, metric kinds, the
format tag), and a scenario's game, question, setup fields, metrics, rule fields and built-in
variants come from the registered games (a setup field's help from its setup class's
``Attributes:`` docstring). This module only says which JSON type each key holds and what it is
for; generation fails if a loader gains a key this module does not describe.

The generated files ship beside this module (``scenario.schema.json``, ``battle.schema.json``);
a test checks that they are up to date (``python -m montecarlo.schemas`` rewrites them). A TOML
file points an editor at one with a first line such as
``#:schema ../../montecarlo/schemas/scenario.schema.json``. The schemas catch structure early
(unknown keys, wrong types, unknown names); the loaders remain the judges of everything else
(expressions, value ranges of a setup, consistency between keys).

>>> s = schema("scenario")
>>> s["required"], s["properties"]["seed"]["type"]
(['game', 'seed'], 'integer')
>>> schema("battle")["properties"]["format"]["const"]
'dice-battle/1'
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from montecarlo.errors import InputError
from montecarlo.validate import NAME

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KINDS = ("scenario", "battle")
HERE = Path(__file__).resolve().parent


def path_of(kind: str) -> Path:
    """The shipped file of schema ``kind``."""
    return HERE / f"{_kind(kind)}.schema.json"


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise InputError(f"unknown schema {kind!r}; known: {', '.join(KINDS)}")
    return kind


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of ``kind`` (``"scenario"`` or ``"battle"``), generated now."""
    return scenario_schema() if _kind(kind) == "scenario" else battle_schema()


def text(kind: str) -> str:
    """The schema as the shipped file holds it (sorted keys would scramble the editor's order)."""
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"


def _described(keys: Sequence[str], described: Mapping[str, dict[str, Any]], where: str) -> dict:
    """``described`` in the loader's key order; InputError if the two disagree on the keys."""
    missing, extra = sorted(set(keys) - set(described)), sorted(set(described) - set(keys))
    if missing or extra:
        raise InputError(f"{where}: the schema does not describe {missing} / describes unknown {extra}")
    return {key: described[key] for key in keys}


def _table(
    keys: Sequence[str], described: Mapping[str, dict[str, Any]], where: str, required: Sequence[str] = ()
) -> dict[str, Any]:
    """A TOML table whose keys are exactly the loader's ``keys`` (``required`` among them)."""
    out: dict[str, Any] = {"type": "object", "additionalProperties": False}
    if required:
        out["required"] = list(required)
    out["properties"] = _described(keys, described, where)
    return out


def _string(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": description, **more}


def _integer(description: str, minimum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "description": description}


def _names(description: str, enum: Sequence[str] | None = None) -> dict[str, Any]:
    """A string or a list of strings (as the loaders accept), optionally from ``enum``."""
    item: dict[str, Any] = {"type": "string"} if enum is None else {"enum": list(enum)}
    return {"description": description, "anyOf": [item, {"type": "array", "items": item}]}


# ---------------------------------------------------------------- scenario files


def scenario_schema() -> dict[str, Any]:
    """Scenario files (docs/scenarios.md), with per-game names for every registered game."""
    from montecarlo.registry import get_game, list_games
    from montecarlo.scenarios import PLOT_KEYS, PLOT_KINDS, TOP_KEYS, VARIANT_KEYS

    variant = _table(VARIANT_KEYS, {
        "builtin": _names("built-in variant names of the game (`montecarlo games` lists them)"),
        "overrides": {"type": "object", "description": "rule field overrides, applied after builtin"},
        "description": _string("one line shown in the report"),
    }, "variants")
    plot = _table(PLOT_KEYS, {
        "kind": {"enum": list(PLOT_KINDS), "description": "the kind of plot"},
        "metric": _string("one of the scenario's metrics (default: the first)"),
        "x": _string("a [grid] field along the x axis"),
        "y": _string("a [grid] field along the y axis (heatmap)"),
        "facet": _string("a [grid] field: one panel per value"),
        "hue": _string("a [grid] field: one curve or bar group per value"),
        "variant": _string("the variant to plot (default: all)"),
        "where": {"type": "object", "description": "grid fields held at one value"},
        "title": _string("the plot's title"),
    }, "plots", required=["kind"])
    top = _described(TOP_KEYS, {
        "name": _string("names the report folder (reports/<name>/); default: the file name, made to fit",
                        pattern=NAME.pattern),
        "title": _string("the report's title"),
        "description": _string("what the report is for"),
        "game": {
            "description": "a game (`montecarlo games`) or a battle file (.toml) relative to this file",
            "anyOf": [{"enum": list_games()}, {"type": "string", "pattern": r"\.toml$"}],
        },
        "question": _string("the game's question (default: its main one)"),
        "seed": _integer("seed of every grid point: required, so that every report is reproducible", 0),
        "trials": _integer("trials per setup and variant (with precision: the first batch)", 1),
        "precision": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5,
                      "description": "add trials until every probability among metrics has a 95% half-width "
                                     "at most this"},
        "max_trials": _integer("cap on trials with precision", 1),
        "chunk_size": _integer("trials per chunk (each chunk has its own seed)", 1),
        "metrics": _names("metrics to report (default: all that apply to some setup)"),
        "baseline": _string("the variant the others are compared with (default: the first)"),
        "focus": _names("grid fields the title asks about: the findings lead with what they change"),
        "ordered": _names("grid fields whose values go up in the order listed: the findings read them step "
                          "by step"),
        "labels": {"type": "object",
                   "description": "words for grid values: [labels.FIELD] \"value\" = \"label\"",
                   "additionalProperties": {"type": "object",
                                            "additionalProperties": {"type": "string", "minLength": 1}}},
        "setup": {"type": "object", "description": "setup fields held fixed at every grid point"},
        "grid": {"type": "object", "description": "swept setup fields: the cartesian product",
                 "additionalProperties": {"type": "array", "minItems": 1}},
        "rules": {"type": "object", "description": "rule overrides applied to every variant"},
        "variants": {"type": "object", "minProperties": 1, "additionalProperties": variant,
                     "description": "named rule variants ([variants.NAME]); default: official only"},
        "plots": {
            "type": "array", "items": plot, "description": "plots ([[plots]]); default: chosen; [] for none",
        },
    }, "scenario")
    return {
        "$schema": DRAFT,
        "title": "montecarlo scenario file",
        "description": "A question of one game over a grid of setups under named rule variants "
        "(docs/scenarios.md).",
        "type": "object",
        "additionalProperties": False,
        "required": ["game", "seed"],
        "properties": top,
        "allOf": [_game_names(get_game(name)) for name in list_games()],
    }


def _game_names(game: Any) -> dict[str, Any]:
    """For a scenario of ``game``: its questions, rule fields, variants, setup fields and metrics."""
    from montecarlo.games.base import field_help

    questions = []
    for q in game.questions.values():
        helps = field_help(q.setup_type)
        # setup fields are offered with their help but not enforced: the values a parser reads
        # besides them (a player count, card count overrides) are the question's inputs; a field
        # the parser fills in itself (input: False) is not a value to give
        fields = {
            f.name: {"description": helps.get(f.name, f.name)}
            for f in dataclasses.fields(q.setup_type) if f.metadata.get("input", True)
        }
        fields.update({name: {"description": text} for name, text in q.inputs.items()})
        chosen: dict[str, Any] = {"properties": {"question": {"const": q.name}}}
        if q.name != game.default_question:
            chosen["required"] = ["question"]
        swept = {name: {**spec, "type": "array"} for name, spec in fields.items()}
        metrics = [m.name for m in q.metrics]
        questions.append({"if": chosen, "then": {"properties": {
            "setup": {"properties": fields}, "grid": {"properties": swept},
            "metrics": _names("metrics to report", metrics),
        }}})
    rules = [f.name for f in dataclasses.fields(game.rules_type)]
    builtin = _names("built-in variant names", list(game.variants)) if game.variants else {"maxItems": 0}
    return {
        "if": {"properties": {"game": {"const": game.name}}, "required": ["game"]},
        "then": {
            "properties": {
                "question": {"enum": list(game.questions)},
                "rules": {"propertyNames": {"enum": rules}},
                "variants": {"additionalProperties": {"properties": {
                    "builtin": builtin, "overrides": {"propertyNames": {"enum": rules}},
                }}},
            },
            "allOf": questions,
        },
    }


# ---------------------------------------------------------------- battle files


def battle_schema() -> dict[str, Any]:
    """Battle (game definition) files (docs/rules-as-data.md)."""
    from montecarlo.datagame import spec
    from montecarlo.datagame.expr import LIMIT

    ident = {"type": "string", "pattern": spec._IDENT.pattern}
    # the loader's bound on every number of the file (a whole number written 6.0 is a TOML float
    # the loader refuses, but JSON Schema's "integer" takes it: no schema can tell them apart)
    whole = {"type": "integer", "exclusiveMinimum": -LIMIT, "exclusiveMaximum": LIMIT}
    rule_value = {"anyOf": [whole, {"type": ["boolean", "string"]}]}  # a rule's value, as [rules] holds it
    expr = {"description": "an expression (docs/rules-as-data.md)",
            "anyOf": [{"type": "string", "minLength": 1}, whole]}
    expr_table = {"type": "object", "propertyNames": ident, "additionalProperties": expr}
    setup_field = _table(spec.SETUP_KEYS, {
        "min": {**whole, "description": "smallest allowed value"},
        "max": {**whole, "description": "largest allowed value"},
        "example": {**whole, "description": "the example setup's value (default: min)"},
        "description": _string("what the field means"),
    }, "setup.NAME", required=["min", "max"])
    variant = _table(spec.VARIANT_KEYS, {
        "description": _string("one line describing the variant"),
        "overrides": {"type": "object", "description": "rules of this file and their new values",
                      "additionalProperties": rule_value},
    }, "variants.NAME")
    die = _table(spec.DIE_KEYS, {
        "faces": {
            "description": "a number of faces, a rule's name, or the list of faces (numbers or names)",
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": spec.MAX_FACES},
                {"type": "string", "minLength": 1},
                {"type": "array", "minItems": 1, "maxItems": spec.MAX_FACES, "items": whole},
                {"type": "array", "minItems": 1, "maxItems": spec.MAX_FACES, "items": ident},
            ],
        },
    }, "dice.NAME", required=["faces"])
    side_pool = {"type": "object", "minProperties": 1, "additionalProperties": expr}
    round_ = _table(spec.ROUND_KEYS, {
        "compare": {"enum": list(spec.COMPARE_KINDS), "description": "how the rolls are compared"},
        "ties": _string(f"who wins a tie: a side, {spec.REROLL!r}, or a rule holding one"),
        "pairs": {**expr, "description": "how many dice are paired (compare = 'pairs')"},
        "roll": {"type": "object", "minProperties": 2, "maxProperties": 2, "propertyNames": ident,
                 "additionalProperties": side_pool, "description": "each side's dice: die = count"},
        "lost": {**expr_table, "description": "what each side loses (compare = 'count')"},
        "update": {**expr_table, "minProperties": 1, "description": "the state after the round"},
    }, "round", required=["compare", "roll", "update"])
    metric = _table(spec.METRIC_KEYS, {
        "kind": {"enum": list(spec.METRIC_KINDS), "description": "what the metric reports"},
        "value": {**expr, "description": "an expression of the final state"},
        "counts": {"enum": list(spec.COUNTS), "description": "a count of rounds (kind = 'mean')"},
        "support": {
            "description": "the values of a distribution: 'LOW..HIGH' or a list",
            "anyOf": [
                {"type": "string", "pattern": r"^\s*-?\d+\s*\.\.\s*-?\d+\s*$"},
                {"type": "array", "minItems": 1, "maxItems": spec.MAX_SUPPORT, "uniqueItems": True,
                 "items": {"type": "integer"}},
            ],
        },
        "description": _string("what the metric means"),
    }, "metrics.NAME", required=["kind"])
    top = _described(spec.TOP_KEYS, {
        "format": {"const": spec.FORMAT, "description": "marks the file as a game definition"},
        "name": _string("the game's name (default: the file name)", pattern=NAME.pattern),
        "title": _string("the game's title"),
        "description": _string("what the battle is"),
        "question": _string("the question's name (default 'battle')"),
        "question_description": _string("what the question asks"),
        "end": {**expr, "description": "the battle is over in a state where this is true"},
        "exact_max_states": _integer("the exact solver's limit on the number of states", 1),
        "max_rounds": _integer("a battle simulated round by round (too large for the chain) and still going "
                               "after this many rounds is an error; no limit on the chain's battles", 1),
        "setup": {"type": "object", "minProperties": 1, "propertyNames": ident,
                  "additionalProperties": setup_field, "description": "setup fields: whole numbers"},
        "state": {**expr_table, "description": "state fields and their start (default: the setup)"},
        "rules": {"type": "object", "propertyNames": ident,
                  "additionalProperties": rule_value,
                  "description": "named rules and their official values"},
        "variants": {"type": "object", "propertyNames": {"pattern": r"^[A-Za-z0-9][A-Za-z0-9_-]*$"},
                     "additionalProperties": variant, "description": "named house rules"},
        "dice": {"type": "object", "minProperties": 1, "propertyNames": ident,
                 "additionalProperties": die, "description": "the dice ([dice.NAME])"},
        "round": round_,
        "metrics": {"type": "object", "minProperties": 1, "propertyNames": ident,
                    "additionalProperties": metric, "description": "what to measure ([metrics.NAME])"},
    }, "battle")
    return {
        "$schema": DRAFT,
        "title": "montecarlo battle file (rules as data)",
        "description": "A dice battle described in TOML, compiled into a game (docs/rules-as-data.md).",
        "type": "object",
        "additionalProperties": False,
        "required": ["format", "setup", "dice", "round", "end", "metrics"],
        "properties": top,
    }


def write() -> list[Path]:
    """Rewrite the shipped schema files from the loaders' definitions."""
    written = []
    for kind in KINDS:
        path_of(kind).write_text(text(kind), encoding="utf-8")
        written.append(path_of(kind))
    return written
