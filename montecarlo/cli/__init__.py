"""The ``montecarlo`` command: thin typer commands over :mod:`montecarlo.analysis`.

The root knows no game by name. For every game of :func:`montecarlo.registry.list_games` whose CLI
module ``montecarlo.cli.<module>`` exists, it offers ``montecarlo GAME QUESTION`` (the module's
``app``), ``montecarlo odds GAME`` (its ``ODDS``) and, if the module defines one,
``montecarlo table GAME`` (its ``TABLE``). A game with no CLI module gets all three generated
from its setup fields (:mod:`montecarlo.cli.generated`). Modules are imported only when their
command runs, so ``montecarlo --help`` imports no game, no scipy and no polars; the help lists
each game with the first line of its CLI module's docstring (or, without one, of its game
package's), read from the source without importing it. No module imports this one back.

Every mistake of the user's ends as one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from difflib import get_close_matches
from typing import Annotated, Optional

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

try:  # recent typer vendors its own copy of click
    from typer._click import exceptions as click_exceptions
    from typer._click.shell_completion import CompletionItem
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as click_exceptions
    from click.shell_completion import CompletionItem

from montecarlo import __version__
from montecarlo.errors import MonteCarloError, readable
from montecarlo.registry import names_a_file, not_a_game

# Scenario commands live in montecarlo.cli.reports (polars, matplotlib): loaded when run.
SCENARIO_COMMANDS = {
    "report": "Run a scenario and write its report: index.html, report.md, tables, plots.",
    "report-all": "Run every scenario under a folder and write an index linking the reports.",
    "compare": "Compare every variant of a scenario with the baseline (paired, Holm-corrected).",
}


def _hide_flag_types() -> None:
    """Help screens show no ``<bool>`` after flags (--json, --help), ``<str>...`` for lists and
    ``<path>`` for a path read by a parser of our own (options and arguments)."""
    for kind in (TyperOption, TyperArgument):
        original = getattr(kind, "display_type_rich", None)
        if original is None or getattr(original, "_montecarlo", False):  # pragma: no cover
            continue

        def display_type_rich(self, ctx, original=original):
            if getattr(self, "is_flag", False) and not getattr(self, "count", False):
                return None
            shown = original(self, ctx)
            if isinstance(shown, str) and shown.startswith("<list[") and shown.endswith("]>"):
                return f"<{shown[6:-2]}>..."
            return shown.lower() if shown == "<Path>" else shown

        display_type_rich._montecarlo = True
        kind.display_type_rich = display_type_rich


_hide_flag_types()


# --- discovery --------------------------------------------------------------------------------


def game_cli_modules() -> dict[str, str]:
    """Game name -> its CLI module path, for every registered game that has one (not imported)."""
    from montecarlo import registry

    found = {}
    for name in registry.list_games():
        module = f"{__name__}.{registry.module_name(name).rsplit('.', 1)[-1]}"
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # pragma: no cover
            spec = None
        if spec is not None:
            found[name] = module
    return found


@functools.lru_cache(maxsize=None)
def _source_facts(module: str) -> tuple[str, bool, dict[str, str]]:
    """(first docstring line, defines TABLE, its string constants such as ODDS_SUMMARY) of a CLI
    module, read from its source cheaply."""
    spec = importlib.util.find_spec(module)
    try:
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, TypeError):  # pragma: no cover - unusual loaders
        loaded = importlib.import_module(module)
        texts = {k: v for k, v in vars(loaded).items() if k.endswith("_SUMMARY") and isinstance(v, str)}
        return (loaded.__doc__ or "").strip().split("\n")[0], hasattr(loaded, "TABLE"), texts
    doc = (ast.get_docstring(tree) or "").strip().split("\n")[0]
    names, texts = set(), {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
        value = getattr(node, "value", None)
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            texts.update((t.id, value.value) for t in targets if isinstance(t, ast.Name))
    return doc, "TABLE" in names, texts


def describe(module: str, summary: Optional[str] = None) -> str:
    """A CLI module's one line: its ``summary`` constant (ODDS_SUMMARY: what ``odds GAME``
    answers, not everything the game's commands do) where it has one, else its docstring's."""
    doc, _, texts = _source_facts(module)
    return texts.get(summary, doc) if summary else doc


def has_table(module: str) -> bool:
    return _source_facts(module)[1]


def _canonical(name: str, known) -> Optional[str]:
    if name in known:
        return name
    key = name.strip().lower().replace("_", "-")
    return key if key in known else None


def _game_of(module: str) -> Optional[str]:
    return next((g for g, m in game_cli_modules().items() if m == module), None)


def game_descriptions(summary: Optional[str] = None) -> dict[str, str]:
    """Every registered game -> one line: its CLI module's ``summary`` constant or docstring,
    else its package's docstring."""
    from montecarlo import registry

    clis = game_cli_modules()
    return {
        name: describe(clis[name], summary) if name in clis else describe(registry.module_name(name))
        for name in registry.list_games()
    }


def _generated():
    return importlib.import_module(f"{__name__}.generated")


def _tidy_help(cmd) -> None:
    """A command's help as the terminal should show it: each paragraph of its docstring one line
    (recent typers keep a docstring's line breaks, ragged on a terminal narrower than the source),
    and its 'Examples:' paragraph moved to its epilog, the end of its help, one example a line.
    And an option given twice refused (:func:`_refuse_repeats`)."""
    _refuse_repeats(cmd)
    if cmd.help is None:
        return
    head, mark, examples = cmd.help.partition("Examples:")
    cmd.help = "\n\n".join(_one_line(paragraph) for paragraph in head.rstrip().split("\n\n"))
    if not mark or cmd.epilog:
        return
    lines = [line.strip() for line in examples.strip().splitlines() if line.strip()]
    cmd.epilog = "Examples:\n\n" + "\n\n".join(f"  {line}" for line in lines)


def _refuse_repeats(cmd) -> None:
    """A usage error for an option of one value given twice (``--policy best --policy all_in``):
    click keeps the last one without a word, and the command answered another question than the
    one typed (an audit ran the defender's best play for ``--policy best --policy defender:best``).
    Flags and repeatable options (``-v``) may come any number of times."""
    if getattr(cmd, "_repeats_refused", False) or hasattr(cmd, "commands"):  # a group: its commands do
        return
    cmd._repeats_refused = True
    once = {  # (click's classes, or those typer carries: an option is what has opts and is_flag)
        name: param
        for param in getattr(cmd, "params", ())
        if hasattr(param, "is_flag") and not (param.multiple or param.is_flag or param.count)
        for name in (*param.opts, *param.secondary_opts)
    }
    if not once:
        return
    parse = cmd.parse_args

    def parse_args(ctx, args):
        seen = {}  # an option's name -> the form it was first typed in
        for token in args:
            if token == "--":
                break
            name = token.split("=", 1)[0] if token.startswith("--") else token
            param = once.get(name)
            if param is None:
                continue
            if param.name in seen:
                typed = seen[param.name]
                again = "given twice" if typed == name else f"given twice ({typed} and {name})"
                raise click_exceptions.UsageError(f"{name} {again}; give it once", ctx)
            seen[param.name] = name
        return parse(ctx, args)

    cmd.parse_args = parse_args


def _one_line(paragraph: str) -> str:
    r"""A paragraph's lines joined by spaces, unless click's ``\b`` asks to keep them.

    >>> _one_line("a long\n  sentence"), _one_line("\b\nkept\nas is")
    ('a long sentence', '\x08\nkept\nas is')
    """
    if paragraph.startswith("\b"):
        return paragraph
    return " ".join(line.strip() for line in paragraph.splitlines() if line.strip())


def _completer(names):
    """A parameter's shell completion offering ``names`` (click's ``shell_complete`` signature)."""

    def complete(ctx, param, incomplete: str):
        return [CompletionItem(n) for n in names if n.startswith(incomplete)]

    return complete


def _tidy(command, game: Optional[str]) -> None:
    """Examples at the end of each help; the variants that can change the command's question
    (``@asks``; else every variant of the game) named in --variant's help and completed."""
    found = None
    if game is not None:
        from montecarlo.registry import get_game

        found = get_game(game)
    stack = [command]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        _tidy_help(cmd)
        for param in getattr(cmd, "params", ()):
            if param.name == "variant" and found is not None:
                question = getattr(cmd.callback, "question", None)
                takes = getattr(cmd.callback, "takes", None) or (lambda overrides: True)
                fit = list(found.variants_for(question) if question else found.variants)
                variants = [name for name in fit if takes(found.variants[name])]
                param.help = _variant_help(game, question, variants, list(found.variants), len(fit))
                param._custom_shell_complete = _completer(variants)  # what click's shell_complete asks


def _variant_help(
    game: Optional[str], question: Optional[str], variants: list[str], every: list[str], fit: int
) -> str:
    """--variant's help: ``variants``, the house rules the command takes; ``fit`` of the game's
    (``every``) can change ``question`` (all of them if None), and it takes some of those.

    >>> _variant_help("g", "reach", [], ["a"], 0)
    "House rule to apply; none of g's variants changes reach (`montecarlo games` lists them)."
    >>> _variant_help("g", "duel", ["a"], ["a", "b"], 1)
    'House rule to apply (repeatable): a (the ones that can change duel); `montecarlo games` describes them.'
    >>> _variant_help("g", "fight", ["a"], ["a", "b"], 2)[34:]
    'a (the ones that can change fight and that this command takes); `montecarlo games` describes them.'
    >>> _variant_help("g", None, [], [], 0)
    'House rule to apply; g has none yet.'
    """
    if not every:
        return f"House rule to apply; {game} has none yet."
    if not fit:
        return (f"House rule to apply; none of {game}'s variants changes {question} "
                "(`montecarlo games` lists them).")
    which = f" (the ones that can change {question}" if len(variants) < len(every) else ""
    which += " and that this command takes)" if len(variants) < fit else ")" if which else ""
    listed = ", ".join(variants)
    return f"House rule to apply (repeatable): {listed}{which}; `montecarlo games` describes them."


# --- lazy groups ------------------------------------------------------------------------------


class LazyGroup(TyperGroup):
    """A group whose commands are imported when asked for; its help lists them from stubs."""

    _listing = False

    def lazy_commands(self, ctx) -> dict[str, str]:
        """Command name -> one-line description, for the commands not loaded yet."""
        return {}

    def load_command(self, ctx, name: str):
        raise NotImplementedError

    def list_commands(self, ctx) -> list[str]:
        eager = super().list_commands(ctx)
        return eager + [n for n in self.lazy_commands(ctx) if n not in eager]

    def get_command(self, ctx, cmd_name: str):
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            _tidy_help(cmd)
            return cmd
        lazy = self.lazy_commands(ctx)
        name = _canonical(cmd_name, lazy)
        if name is None:
            return None
        if name in self.commands:
            return self.commands[name]
        if self._listing:
            return TyperCommand(name, help=lazy[name], short_help=lazy[name])
        cmd = self.load_command(ctx, name)
        _tidy_help(cmd)
        cmd.name = name
        self.commands[name] = cmd
        return cmd

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click_exceptions.UsageError as exc:
            if args and "Did you mean" not in exc.message:
                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    exc.message = (
                        exc.message.rstrip(".") + ". Did you mean " + ", ".join(map(repr, matches)) + "?"
                    )
            raise

    def shell_complete(self, ctx, incomplete: str):
        """Complete command names from the stubs: listing them imports no game module."""
        self._listing = True
        try:
            return super().shell_complete(ctx, incomplete)
        finally:
            self._listing = False

    def format_help(self, ctx, formatter) -> None:
        self._listing = True
        try:
            return super().format_help(ctx, formatter)
        finally:
            self._listing = False


class RootGroup(LazyGroup):
    def lazy_commands(self, ctx) -> dict[str, str]:
        return {**SCENARIO_COMMANDS, **game_descriptions()}

    def load_command(self, ctx, name: str):
        if name in SCENARIO_COMMANDS:
            module = importlib.import_module(f"{__name__}.reports")
            return typer.main.get_group(module.app).commands[name]
        cli = game_cli_modules().get(name)
        game_app = importlib.import_module(cli).app if cli else _generated().game_app(name)
        group = typer.main.get_group(game_app)
        _tidy(group, name)
        return group


class OddsGroup(LazyGroup):
    def lazy_commands(self, ctx) -> dict[str, str]:
        return game_descriptions("ODDS_SUMMARY")

    def get_command(self, ctx, cmd_name: str):
        if names_a_file(cmd_name):  # a battle defined in a file: docs/rules-as-data.md
            return importlib.import_module(f"{__name__}.datagame").command_for(cmd_name)
        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and not self._listing and not ctx.resilient_parsing:
            known = ", ".join(self.lazy_commands(ctx))
            # a path given where a game goes: what the odds command takes from files
            as_file = " (or a battle file, FILE.toml)" if "/" in cmd_name or cmd_name.startswith(".") else ""
            problem = not_a_game(cmd_name)
            raise click_exceptions.UsageError(f"{problem}; known: {known}{as_file}", ctx)
        return cmd

    def load_command(self, ctx, name: str):
        cli = game_cli_modules().get(name)
        if cli is None:
            return _single(_generated().odds_command(name), name)
        module = importlib.import_module(cli)
        odds = getattr(module, "ODDS", None)
        if odds is None:
            raise click_exceptions.UsageError(
                f"{name} defines no odds command; try: montecarlo {name} --help", ctx
            )
        return _single(odds, name)


def _toml_has_no_table(path: str) -> str:
    """Why ``table FILE.toml`` has no table: a battle file's, a scenario's or a missing file's words."""
    if not os.path.isfile(path):
        return f"{path}: no such file; table takes a game's name (a battle file has no table command)"
    from montecarlo.datagame import is_definition

    if is_definition(path):
        return (f"{path}: a battle file has no table command; sweep its setup in a scenario's [grid] "
                "and run montecarlo report (docs/scenarios.md)")
    return f"{path}: a scenario file, which montecarlo report runs (its grid is its table)"


class TableGroup(LazyGroup):
    def lazy_commands(self, ctx) -> dict[str, str]:
        clis = game_cli_modules()
        return {
            name: text
            for name, text in game_descriptions("TABLE_SUMMARY").items()
            if name not in clis or has_table(clis[name])
        }

    def get_command(self, ctx, cmd_name: str):
        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and not self._listing and not ctx.resilient_parsing:
            game = _canonical(cmd_name, game_descriptions())
            having = ", ".join(self.lazy_commands(ctx)) or "none"
            problem = f"{game} has no table command" if game is not None else not_a_game(cmd_name)
            if game is None and names_a_file(cmd_name):
                problem = _toml_has_no_table(cmd_name)
            raise click_exceptions.UsageError(f"{problem}; games with one: {having}", ctx)
        return cmd

    def load_command(self, ctx, name: str):
        cli = game_cli_modules().get(name)
        if cli is None:
            return _single(_generated().table_command(name), name)
        return _single(importlib.import_module(cli).TABLE, name)


def _single(func, name: str):
    """The click command of one command function, named ``name``, with the game's variants."""
    holder = typer.Typer()
    holder.command(name)(func)
    cmd = typer.main.get_group(holder).commands[name]
    _tidy(cmd, name)
    return cmd


# --- the app ----------------------------------------------------------------------------------

app = typer.Typer(
    name="montecarlo",
    cls=RootGroup,
    help="Balance questions about board-game rules, answered by simulation and exact computation.",
    epilog="Start with: montecarlo games, then e.g. montecarlo odds dune1984 --attacker 4 --defender 5",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,  # --install-completion, --show-completion; names complete (see _tidy)
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every command
)
odds_app = typer.Typer(
    cls=OddsGroup,
    no_args_is_help=True,
    help="Odds of one situation of a game's main question: estimate, 95% interval, exact value.",
    epilog="Also a battle described as data: montecarlo odds FILE.toml --set FIELD=VALUE (montecarlo odds "
    "FILE.toml --help lists its fields; e.g. scenarios/games/risk.toml).",
)
table_app = typer.Typer(
    cls=TableGroup,
    no_args_is_help=True,
    help="Whole two-way tables of odds (with their exact values), for the games that have one.",
)
app.add_typer(odds_app, name="odds")
app.add_typer(table_app, name="table")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"montecarlo {__version__}")
        raise typer.Exit()


def _caution_lines(previous):
    """``warnings.showwarning`` that prints the API's cautions (characters of one house on both
    sides of a scenario's setup) as the CLI's own lines, "warning: ..." on stderr, and hands
    every other warning (a library's) to ``previous``, as Python shows it."""
    from montecarlo.errors import Caution

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, Caution):
            typer.echo(f"warning: {message}", err=True)
        else:
            previous(message, category, filename, lineno, file, line)

    show.caution_lines = True  # installed once a process
    return show


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Balance questions about board-game rules, answered by simulation and exact computation."""
    from montecarlo.errors import Caution

    if not getattr(warnings.showwarning, "caution_lines", False):  # the API's cautions as CLI lines
        warnings.showwarning = _caution_lines(warnings.showwarning)
    # the command's own warning lines, not Python warnings: PYTHONWARNINGS=error turned one into a
    # traceback (a library's warnings still follow it); the same filter again replaces the first
    warnings.filterwarnings("default", category=Caution)


@app.command("games")
def games(
    files: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="GAME|FILE.toml",
            help="Games to list alone (e.g. dune1984), or battle files (rules as data) to list as well.",
        ),
    ] = None,
) -> None:
    """List the modelled games, their questions (with the command that asks each) and variants.

    Examples:

      montecarlo games

      montecarlo games dune1984

      montecarlo games scenarios/games/risk.toml
    """
    from montecarlo import api
    from montecarlo.cli.common import cli_errors, say
    from montecarlo.registry import list_games

    chosen = [f for f in files or () if f in list_games()]
    paths = [f for f in files or () if f not in chosen]
    catalogue = cli_errors(api.games)(*paths)
    for name, game in catalogue.items():
        if chosen and name not in chosen and name not in paths:
            continue
        say(f"{name}: {game.title}")
        for q in game.questions.values():
            command = f"odds {name}" if name in paths else f"{name} {q.name}"
            say(f"  question {q.name}: {q.description}  [montecarlo {command}]")
        for command, text in ({} if name in paths else _other_commands(name, game.questions)).items():
            say(f"  command {command}: {text}  [montecarlo {name} {command}]")
        for v in game.variants:
            say(f"  {game.variant_line(v)}")


def _other_commands(game: str, questions) -> dict[str, str]:
    """A game's commands that ask no question of its own (``advise``, ``table``, ``need``):
    name -> the first line of its help, so that ``games`` shows where the advice is."""
    module = game_cli_modules().get(game)
    if module is None:
        return {}
    group = typer.main.get_group(importlib.import_module(module).app)
    return {
        command: (group.commands[command].help or "").strip().split("\n")[0]
        for command in group.commands
        if command not in questions
    }


def _schema_kinds(incomplete: str) -> list[str]:
    from montecarlo.schemas import KINDS

    return [k for k in KINDS if k.startswith(incomplete)]


@app.command("schema")
def schema(
    kind: str = typer.Argument(
        ..., help="scenario (scenario files) or battle (battle files: rules as data).",
        autocompletion=_schema_kinds,
    ),
    path: bool = typer.Option(False, "--path", help="Print the shipped schema file's path instead."),
) -> None:
    """Print the JSON Schema of scenario files or battle files, for editors and validators.

    A TOML file's first line `#:schema PATH` points taplo / Even Better TOML at it.

    Examples:

      montecarlo schema scenario

      montecarlo schema battle --path
    """
    from montecarlo.schemas import path_of

    shipped = path_of(kind)  # InputError for an unknown kind
    typer.echo(str(shipped) if path else shipped.read_text(encoding="utf-8"), nl=path)


INTERRUPTED = 130  # the exit code of a run stopped by Ctrl-C (128 + SIGINT)
TERMINATED = 143  # the exit code of a run stopped by a kill (128 + SIGTERM)
_terminated = False  # set by a SIGTERM, which stops the run as Ctrl-C does


STOP_GRACE_SECONDS = 3.0  # a second Ctrl-C (or kill) this soon lets the first one's stop finish
_stopping_since: float | None = None  # when the first Ctrl-C or kill of the command came


def _stop_as_ctrl_c(signum, frame) -> None:
    """Ctrl-C (SIGINT) or a kill (SIGTERM): KeyboardInterrupt, which stops the command cleanly:
    a report's unfinished folder is removed, a checkpoint saves its last chunks, the workers are
    stopped; then exit code 130, or 143 for a kill.

    A second one within STOP_GRACE_SECONDS, while that stop is under way, is let be: a terminal's
    double Ctrl-C interrupted joblib as it stopped its workers, and the command then hung at exit
    waiting for them (7 of 11 tries in an audit), with tracebacks (some on stdout, into --json).
    A later one stops again (a stop that does not end)."""
    global _terminated, _stopping_since
    now = time.monotonic()
    if _stopping_since is not None and now - _stopping_since < STOP_GRACE_SECONDS:
        return
    _stopping_since = now
    if signum == signal.SIGTERM:
        _terminated = True
    raise KeyboardInterrupt

def _quiet_while_stopping(previous):
    """A thread's uncaught exception as Python prints it, except while a Ctrl-C or kill stops the
    command: the worker pool's own threads may fail as the stop tears them down (loky's
    ExecutorManagerThread printed "KeyError: 5" in about 1 of 19 Ctrl-Cs of report-all), and the
    traceback would read as a crash of a stop that went as meant."""

    def hook(args) -> None:
        if _stopping_since is None:
            previous(args)

    hook.quiet_while_stopping = True  # installed once a process
    return hook


def _forget_the_interrupted_eval() -> None:
    """After a Ctrl-C or kill was caught: exit with 130, 143 or an error's code, not killed by SIGINT.

    CPython marks a KeyboardInterrupt that leaves an ``eval`` of a string as unhandled, even once
    caught further up, and at exit then kills the process with SIGINT (exit status -2, after
    "interrupted" was printed). ``collections.namedtuple`` builds its classes that way, and psutil
    builds many as the workers start: a Ctrl-C there did it in 2 of 20 tries on a busy machine.
    An ``eval`` of a string that ends normally clears the mark."""
    eval("None")  # noqa: S307 - a constant: only its normal end matters


# click >= 8.2 raises this for a bare group after printing its help; older click exits by itself
_NO_ARGS_IS_HELP = getattr(click_exceptions, "NoArgsIsHelpError", ())


class _ClosedOutput:
    """What stdout or stderr is when the command was started with it closed (``>&-``). Writing
    to stdout says so (``error: standard output is closed``), as Unix tools do, where the output
    vanished with exit code 0, or a worker's start failed on Python's None; what goes to a
    closed stderr is dropped (nobody can be told), the exit code still saying how it went. The
    descriptor itself is /dev/null meanwhile, so that no file the command opens takes its
    number and the output of processes it starts."""

    def __init__(self, fd: int, name: str) -> None:
        self.fd, self.name = fd, name

    def write(self, text: str) -> int:
        import errno

        if not text or self.name == "error":
            return len(text)
        raise OSError(errno.EBADF, f"standard {self.name} is closed")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return False


def _standard_streams() -> None:
    """Stand-ins for standard output and error that the command was started without."""
    import os

    for fd, attribute, name in ((1, "stdout", "output"), (2, "stderr", "error")):
        if getattr(sys, attribute) is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:  # closed: /dev/null takes its number (the lowest free one, or moved there)
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        setattr(sys, attribute, _ClosedOutput(fd, name))


def main() -> None:
    """Entry point: run the app, turning usage errors and domain errors into one line + exit 2."""
    global _stopping_since
    _stopping_since = None  # a new command: no stop under way (an earlier call in this process)
    _standard_streams()
    command = typer.main.get_command(app)
    in_main_thread = threading.current_thread() is threading.main_thread()
    # Ctrl-C as Python's own handler would, unless it is ignored (a command started in the
    # background, which must go on ignoring it)
    ctrl_c = in_main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if in_main_thread:
        signal.signal(signal.SIGTERM, _stop_as_ctrl_c)
    if ctrl_c:
        signal.signal(signal.SIGINT, _stop_as_ctrl_c)
    if not getattr(threading.excepthook, "quiet_while_stopping", False):
        threading.excepthook = _quiet_while_stopping(threading.excepthook)
    try:
        code = command.main(args=sys.argv[1:], prog_name="montecarlo", standalone_mode=False)
    except _NO_ARGS_IS_HELP as exc:  # a bare group: its help, and success
        text = exc.format_message()  # empty when rich has already printed the help
        if text.strip():
            typer.echo(text)
        sys.exit(0)
    except click_exceptions.UsageError as exc:
        path = exc.ctx.command_path if exc.ctx else "montecarlo"
        typer.echo(f"error: {readable(exc.format_message())} (see: {path} --help)", err=True)
        sys.exit(2)
    except MonteCarloError as exc:
        typer.echo(f"error: {readable(str(exc))}", err=True)
        sys.exit(2)
    except OSError as exc:  # outside a command's own handling: its help or a listing to a full disk
        from montecarlo.cli.common import say_os_error

        sys.exit(say_os_error(exc))
    except (typer.Abort, KeyboardInterrupt):
        code = INTERRUPTED
    finally:  # the command is over: the process only exits now, joblib stopping its workers. A
        # Ctrl-C or a kill is let be meanwhile: raised there, it printed a traceback and could
        # hang the exit; ending the process there left the workers running on without it
        _forget_the_interrupted_eval()  # on every way out: an error may follow an interrupt too
        if in_main_thread:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if ctrl_c:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _terminated:
        typer.echo("terminated", err=True)
        sys.exit(TERMINATED)
    if code == INTERRUPTED:  # typer turns Ctrl-C into a return code of 130
        typer.echo("interrupted", err=True)
    sys.exit(code if isinstance(code, int) else 0)
