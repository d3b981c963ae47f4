"""Commands generated from a game's setup fields, for a game with no ``cli/<module>.py`` of its own.

A new game gets ``montecarlo odds GAME``, ``montecarlo table GAME`` and ``montecarlo GAME QUESTION``
without writing any CLI: each field of a question's frozen ``Setup`` dataclass becomes an option
(``die_faces`` -> ``--die-faces``), typed from its annotation, with the field's default (a field
without one is a required option) and, as help, the field's line of the ``Attributes:`` section
of the Setup's docstring (Google style)::

    @dataclass(frozen=True, slots=True)
    class DuelSetup:
        \"\"\"Two sides' Strengths.

        Attributes:
            attacker: the attacker's Strength, 1..6.
            defender: the defender's Strength, 1..6.
        \"\"\"

An ``int``, ``float`` or ``str`` field takes one value; a ``bool`` field is a ``--x/--no-x``
flag; a tuple or list field takes comma-separated values (``--sums 3,11``); any other type is
passed as written to the question's setup parser, which checks it. A game writes its own
``cli/<module>.py`` only when it wants more (aliases, extra notes, other commands).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Optional

import typer

from montecarlo.cli.common import (
    RunOptions, console, emit, field_value, fmt_chance, fmt_prob, interval_note, run_command, unknown_metric,
    whole_range,
)
from montecarlo.errors import InputError

# short flags keep one meaning across games (tests/cli/test_cli_help.py)
SHORT_FLAGS = {"attacker": "-a", "defender": "-d"}
TABLE_TRIALS = 20_000


def field_docs(cls: type) -> dict[str, str]:
    """Field name -> its line of the ``Attributes:`` section of ``cls``'s docstring.

    >>> class Setup:
    ...     '''A duel.
    ...
    ...     Attributes:
    ...         attacker: the attacker's Strength,
    ...             1..6.
    ...         ties (str): who wins a tie.
    ...     '''
    >>> field_docs(Setup)
    {'attacker': "the attacker's Strength, 1..6.", 'ties': 'who wins a tie.'}
    """
    lines = inspect.cleandoc(cls.__doc__ or "").splitlines()
    found: dict[str, str] = {}
    inside, current, entry_indent = False, None, None
    for line in lines:
        if not inside:
            inside = line.strip() == "Attributes:" and not line.startswith(" ")
            continue
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:  # the next section (or text) ends the list
            break
        entry = re.match(r"^(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line.strip())
        if entry and (entry_indent is None or indent <= entry_indent):
            entry_indent = indent
            current = entry.group(1)
            found[current] = entry.group(2).strip()
        elif current is not None:
            found[current] = f"{found[current]} {line.strip()}".strip()
    return found


@dataclass(frozen=True)
class SetupOption:
    """One setup field as a command-line option."""

    name: str  # the field
    flag: str  # --die-faces
    kind: str  # "int", "float", "str", "bool", "list" or "text" (passed as written)
    default: Any  # dataclasses.MISSING: a required option
    help: str

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    def annotation(self):
        python = {"int": int, "float": float, "bool": bool}.get(self.kind, str)
        typed = python if self.required else Optional[python]
        flags = [self.flag, f"--no-{self.flag[2:]}"] if self.kind == "bool" else [self.flag]
        decls = [f"{flags[0]}/{flags[1]}"] if self.kind == "bool" else flags
        if self.name in SHORT_FLAGS and self.kind != "bool":
            decls.append(SHORT_FLAGS[self.name])
        option = typer.Option(*decls, help=self.help, rich_help_panel="Setup", show_default=True)
        return Annotated[typed, option]

    def shown_default(self) -> Any:
        """The default as the option takes it (a tuple as "1,2")."""
        if self.required or self.default is None:
            return ... if self.required else None
        if isinstance(self.default, (tuple, list)):
            return ",".join(str(v) for v in self.default)
        if self.kind == "text":
            return str(self.default)
        return self.default

    def value(self, given: Any) -> Any:
        """The plain value handed to the question's setup parser."""
        if given is None or self.kind != "list" or not isinstance(given, str):
            return given
        return tuple(_plain(part.strip()) for part in given.split(",") if part.strip())


def _plain(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text


def _kind(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _kind(args[0]) if len(args) == 1 else "text"
    if origin in (tuple, list) or annotation in (tuple, list):
        return "list"
    for python, kind in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
        if annotation is python:
            return kind
    return "text"


def setup_options(setup_type: type) -> list[SetupOption]:
    """One option per field of a Setup dataclass, in field order."""
    hints = typing.get_type_hints(setup_type)
    docs = field_docs(setup_type)
    options = []
    for f in dataclasses.fields(setup_type):
        if not f.init:
            continue
        kind = _kind(hints.get(f.name, str))
        default = f.default
        if default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        help_text = docs.get(f.name) or f"{f.name.replace('_', ' ')} ({kind})"
        if kind == "list":
            help_text += " Comma-separated."
        options.append(SetupOption(f.name, "--" + f.name.replace("_", "-"), kind, default, help_text))
    return options


def _example_line(prefix: str, question, options: list[SetupOption]) -> str:
    """``montecarlo odds GAME --attacker 3 --defender 2`` from the question's example setup."""
    words = [prefix]
    by_name = {o.name: o for o in options}
    for name, value in (question.example or {}).items():
        option = by_name.get(name)
        if option is None:
            continue
        if option.kind == "bool":
            words.append(option.flag if value else f"--no-{option.flag[2:]}")
        elif isinstance(value, (list, tuple)):
            words += [option.flag, ",".join(map(str, value))]
        else:
            words += [option.flag, str(value)]
    return " ".join(words)


def _with_setup_options(func: Callable, options: list[SetupOption], leading: list[inspect.Parameter]) -> None:
    """Give ``func(run, **values)`` a signature typer reads: ``leading`` parameters, then one
    keyword option per setup field."""
    params = [inspect.Parameter("run", inspect.Parameter.POSITIONAL_OR_KEYWORD), *leading]
    for o in options:
        params.append(
            inspect.Parameter(
                o.name, inspect.Parameter.KEYWORD_ONLY, default=o.shown_default(), annotation=o.annotation()
            )
        )
    func.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    func.__annotations__ = {
        p.name: p.annotation for p in params if p.annotation is not inspect.Parameter.empty
    }


def _setup_values(options: list[SetupOption], given: dict[str, Any]) -> dict[str, Any]:
    return {o.name: o.value(given[o.name]) for o in options if o.name in given}


def _game(game_name: str):
    from montecarlo.registry import get_game

    return get_game(game_name)


def question_command(game_name: str, question_name: str, prefix: str) -> Callable:
    """The odds command of one question: setup options from its fields, the common run options."""
    game = _game(game_name)
    question = game.question(question_name)
    options = setup_options(question.setup_type)

    def odds(run: RunOptions, **given: Any) -> None:
        from montecarlo.games.base import to_plain

        setup = question.setup(_setup_values(options, given))  # checked before any trial
        answer = run.ask(game, question.name, setup, label=game.name)
        shown = ", ".join(f"{k} {_show(v)}" for k, v in to_plain(setup).items())
        emit(answer, run, f"{game.title}, {question.name}: {shown}")

    _with_setup_options(odds, options, [])
    odds.__doc__ = (
        f"{question.description[:1].upper()}{question.description[1:]}: estimate, 95% interval, "
        f"exact value.\n\nOptions under Setup come from the fields of {question.setup_type.__name__}."
        f"\n\nExamples:\n\n  {_example_line(prefix, question, options)}\n"
    )
    odds.__name__ = question.name.replace("-", "_")
    return run_command(variants=tuple(game.variants))(odds)


def odds_command(game_name: str) -> Callable:
    """``montecarlo odds GAME``: the game's default question."""
    game = _game(game_name)
    return question_command(game_name, game.default_question, f"montecarlo odds {game_name}")


def game_app(game_name: str) -> typer.Typer:
    """``montecarlo GAME QUESTION``: one command per question."""
    game = _game(game_name)
    app = typer.Typer(help=f"{game.title}: one command per question.", no_args_is_help=True)
    for name in game.questions:
        app.command(name)(question_command(game_name, name, f"montecarlo {game_name} {name}"))
    return app


def _table_axis(text: str, option: str, options: dict[str, SetupOption]) -> tuple[str, list[Any]]:
    """``attacker=1..6`` or ``attacker=1,3,5`` -> ("attacker", [1, ...]), one-line errors."""
    name, values = field_value(text, option, f"{option} {next(iter(options), 'attacker')}=1..6")
    if name not in options:
        known = ", ".join(options)
        raise InputError(f"{option} {text!r}: {name} is not a setup field ({known})")
    span = whole_range(values, f"{option} {name}", 100)
    if span is not None:
        return name, span
    parts = [_plain(p.strip()) for p in values.split(",") if p.strip()]
    if not parts:
        raise InputError(f"{option} expects values after '=', e.g. {name}=1..6, got {text!r}")
    return name, parts


def table_command(game_name: str) -> Callable:
    """``montecarlo table GAME --rows FIELD=1..6 --cols FIELD=1..6``: a two-way table of a metric."""
    game = _game(game_name)
    question = game.question()
    options = setup_options(question.setup_type)
    by_name = {o.name: o for o in options}
    # in a table, the swept fields come from --rows/--cols: no setup option is required
    loose = [dataclasses.replace(o, default=None) if o.required else o for o in options]

    def table(run: RunOptions, rows: str, cols: str, metric: Optional[str], **given: Any) -> None:
        row_field, row_values = _table_axis(rows, "--rows", by_name)
        col_field, col_values = _table_axis(cols, "--cols", by_name)
        if row_field == col_field:
            raise InputError(f"--rows and --cols sweep the same field {row_field!r}; choose two fields")
        chosen = metric or question.reported_names()[0]
        if chosen not in question.reported_names():
            raise unknown_metric(chosen, question.reported_names(), f"{game.name} {question.name}")
        fixed = {k: v for k, v in _setup_values(loose, given).items() if v is not None}
        fixed.pop(row_field, None)
        fixed.pop(col_field, None)
        setups = {
            (r, c): question.setup({**fixed, row_field: r, col_field: c})
            for r in row_values
            for c in col_values
        }  # every cell checked before any trial
        answers = run.ask_many(game, question.name, list(setups.values()), label=f"{game.name} table")
        cells = dict(zip(setups, answers))  # every cell's chunks in one pool of workers
        first = next(iter(cells.values()))
        if run.json:
            payload = {
                "game": game.name,
                "question": question.name,
                "metric": chosen,
                "rows": row_field,
                "cols": col_field,
                "trials": first.trials,
                "seed": first.seed,
                "variants": list(run.variant),
                "setup": fixed,
                "cells": [
                    {row_field: r, col_field: c, **a.metrics[chosen].to_json()} for (r, c), a in cells.items()
                ],
                "version": first.version,
            }
            typer.echo(json.dumps(payload, default=str))
            return
        from rich.table import Table

        out = Table(
            title=f"{game.title}, {question.name}, {chosen}: estimate over (exact)",
            caption=f"rows: {row_field}, columns: {col_field}; {first.trials:,} trials per cell, "
            f"seed {first.seed}, {', '.join(run.variant) or 'official rules'}"
            f"{interval_note([a.metrics[chosen] for a in cells.values()])}",
        )
        out.add_column(f"{row_field} \\ {col_field}", justify="right", no_wrap=True)
        for c in col_values:
            out.add_column(str(c), justify="right", no_wrap=True)
        for r in row_values:
            metrics = [cells[(r, c)].metrics[chosen] for c in col_values]
            digits = 3 if metrics[0].kind == "mean" else 4
            out.add_row(
                str(r), *(f"{_cell(m, m.estimate, digits)}\n({_cell(m, m.exact, digits)})" for m in metrics)
            )
        console().print(out)

    axis = [o for o in options if o.kind == "int"][:2]
    example_axes = (
        f" --rows {axis[0].name}=1..3 --cols {axis[1].name}=1..3"
        if len(axis) == 2
        else " --rows FIELD=1..3 --cols FIELD=1..3"
    )
    leading = [
        inspect.Parameter(
            "rows",
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[
                str,
                typer.Option(
                    "--rows",
                    metavar="FIELD=VALUES",
                    help="Setup field of the rows and its values: 1..6 or 1,3,5.",
                ),
            ],
        ),
        inspect.Parameter(
            "cols",
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[
                str,
                typer.Option(
                    "--cols", metavar="FIELD=VALUES", help="Setup field of the columns and its values."
                ),
            ],
        ),
        inspect.Parameter(
            "metric",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[
                Optional[str],
                typer.Option(
                    "--metric", "-m", help=f"Metric of the cells: {', '.join(question.reported_names())}."
                ),
            ],
        ),
    ]
    _with_setup_options(table, loose, leading)
    table.__doc__ = (
        f"A two-way table of one metric of {game.name} {question.name}: rows and columns sweep two setup "
        f"fields; each cell is the estimate over the exact value.\n\n--trials counts per cell; the other "
        f"setup fields keep their option.\n\nExamples:\n\n"
        f"  montecarlo table {game_name}{example_axes} -n 2000\n"
    )
    return run_command(trials=TABLE_TRIALS, variants=tuple(game.variants))(table)


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def _cell(metric, value, digits: int) -> str:
    """A cell's number: a chance never printed as 0 or 1 when it is neither."""
    return fmt_prob(value, digits) if metric.kind == "mean" else fmt_chance(value, digits)
