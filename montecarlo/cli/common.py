"""Options every simulating command shares, progress, and how results are printed.

``@run_command`` gives a command the common options (--trials, --seed, --jobs, --precision,
--max-trials, --variant, --json, --quiet, --backend, --scheduler, --checkpoint) and hands them to it as one
``run: RunOptions`` argument; ``@cli_errors`` turns a MonteCarloError into one line on stderr and
exit code 2. Commands stay thin: parse options into a setup, ask it with ``run.ask`` (the API's
path to the engine), print with :func:`emit`.

Conventions of a game's CLI module (``montecarlo/cli/<module>.py``, found by the root):

- ``app = typer.Typer(...)``: one command per question of the game, named after it.
- ``ODDS``: the command function of the game's main question (``montecarlo odds GAME``);
  optionally ``TABLE`` (``montecarlo table GAME``).
- Every command's docstring ends with an ``Examples:`` paragraph whose lines start with
  ``montecarlo``; a test runs each of them.
- Short flags keep one meaning across games (``-a``/``-d`` attacker/defender, ``-n`` trials,
  ``-s`` seed, ``-j`` jobs, ``-v`` variant, ``-q`` quiet, ``-m`` metric); the test suite checks.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import inspect
import json
import math
import os
import re
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Iterator, Mapping, Optional, Sequence

import typer

from montecarlo.analysis import DEFAULT_SEED, DEFAULT_TRIALS, Answer, RunSettings, chosen_backend, excess_jobs
from montecarlo.analysis import duration as _duration
from montecarlo.analysis import unreached_said
from montecarlo.api import answer_of, answers_of, check_report_checkpoint, checked_setups, run_settings
from montecarlo.engine import runner
from montecarlo.engine.pace import Projection
from montecarlo.engine.runner import BACKENDS, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_TRIALS, scheduler_address
from montecarlo.errors import InputError, MonteCarloError, readable
from montecarlo.progress import trial_bar, working
from montecarlo.validate import first_repeated



@dataclass
class RunOptions:
    """The common options of a simulating command, as the user gave them."""

    trials: int
    seed: int
    jobs: Optional[int]
    precision: Optional[float]
    max_trials: Optional[int]
    variant: tuple[str, ...]
    json: bool
    quiet: bool
    backend: Optional[str]
    scheduler: Optional[str]
    checkpoint: Optional[Path] = None
    _reporters: list = field(default_factory=list, repr=False)
    _warned: bool = field(default=False, repr=False)

    def backend_name(self) -> str:
        """The backend to use: as given, else dask with --scheduler, else loky."""
        return backend_for(self.backend, self.scheduler)

    def settings(self, label: str = "simulating", warn: bool = True) -> RunSettings:
        """Run settings (checked as the API checks them, errors naming the flag), with a progress
        reporter unless --quiet (with --json too: the bar and the estimate of a long run go to
        stderr, the JSON to stdout); ``warn``: say now if --jobs exceeds the cores."""
        settings = self._checked()
        if warn and not self._warned:
            self._warned = warn_excess_jobs(self.jobs, self.backend_name())
        if self.quiet:
            return settings
        reporter = ProgressReporter(label, settings.resolved_jobs(), self.precision is not None)
        self._reporters.append(reporter)
        return dataclasses.replace(settings, progress=reporter)

    def ask(
        self, game: Any, question: Optional[str], setup: Any, overrides: Optional[dict] = None,
        label: str = "simulating",
    ) -> Answer:
        """The answer of one setup under --variant (and rule ``overrides``), through the API's
        one path to the engine (:func:`montecarlo.api.answer_of`)."""
        settings = self.settings(label, warn=False)
        checked = checked_setups(game, question, [setup], variants=self.variant, rules=overrides)[0]
        self.warn_once()
        return answer_of(game, question, checked, variants=self.variant, rules=overrides, settings=settings)

    def ask_many(self, game: Any, question: Optional[str], setups: list, label: str) -> list[Answer]:
        """:meth:`ask` for several setups, their chunks in one pool (:func:`montecarlo.api.answers_of`)."""
        settings = self.settings(label, warn=False)
        checked = checked_setups(game, question, setups, variants=self.variant)
        self.warn_once()
        return answers_of(game, question, checked, variants=self.variant, settings=settings)

    def warn_once(self) -> None:
        """The --jobs warning, once, after the setups and the checkpoint were found right (a
        mistake comes alone)."""
        check_report_checkpoint(None, self.checkpoint)  # no report folder here
        if not self._warned:
            self._warned = warn_excess_jobs(self.jobs, self.backend_name())

    def start_workers(self) -> None:
        """Start the workers now if the run will use several, so that their start-up overlaps
        what the command does before it simulates; a setting in error is left for the command
        to report (it checks them again when it asks)."""
        try:
            settings = self._checked()
        except InputError:
            return
        settings.start_workers()

    def _checked(self) -> RunSettings:
        """The run settings, checked as the API checks them (errors name the flag)."""
        return run_settings(
            self.trials, self.seed, self.precision, self.max_trials, self.jobs, name=flag_of,
            backend=self.backend_name(), scheduler=self.scheduler, checkpoint=self.checkpoint,
        )

    def close(self) -> None:
        for reporter in self._reporters:
            reporter.close()


def not_blank(name: str, value: Any, give: str) -> None:
    """Refuse a text option typed blank (an unset shell variable) where the data layer would read
    blank as "none": ``name: blank; give ...`` (the error names it as the flag ``--name``).

    >>> not_blank("objective", " ", "win")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: objective: blank; give win
    >>> not_blank("objective", None, "win"), not_blank("objective", "win", "win")
    (None, None)
    """
    if isinstance(value, str) and not value.strip():
        raise InputError(f"{name}: blank; give {give}")


def flag_of(key: str) -> str:
    """The flag of a run setting: ``max_trials`` -> ``--max-trials``."""
    return "--" + key.replace("_", "-")


def check_scheduler(address: str) -> str:
    """A Dask scheduler address (``tcp://HOST:PORT``, ``HOST:PORT``, ``inproc://...``), its spaces
    stripped, or InputError (see :func:`montecarlo.engine.runner.scheduler_address`).

    >>> check_scheduler(" tcp://10.0.0.1:8786")
    'tcp://10.0.0.1:8786'
    >>> check_scheduler("tcp://x:1:2")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: --scheduler must be a Dask scheduler address such as tcp://HOST:8786, got 'tcp://x:1:2'
    """
    checked = scheduler_address(address)
    if checked is None:
        raise InputError(
            f"--scheduler must be a Dask scheduler address such as tcp://HOST:8786, got {shorten(address)}"
        )
    return checked


def backend_for(backend: Optional[str], scheduler: Optional[str]) -> str:
    """The backend a command uses: as given, else dask when a --scheduler is given, else loky."""
    if scheduler is not None:
        check_scheduler(scheduler)
        if backend not in (None, "dask"):
            raise InputError(
                f"--scheduler is the address of a Dask scheduler: it needs --backend dask, "
                f"got --backend {backend}"
            )
    backend = chosen_backend(backend, scheduler)
    if backend not in BACKENDS:
        raise InputError(f"--backend must be one of {', '.join(BACKENDS)}, got {shorten(backend)}")
    return backend


def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut in the middle when long: an error message stays one readable line.

    >>> shorten("x" * 1000)[:12], len(shorten("x" * 1000)) < 100
    ("'xxxxxxxxxxx", True)
    >>> shorten("x" * 58) == repr("x" * 58), shorten("x" * 59) == repr("x" * 59)  # 60 characters kept
    (True, False)
    >>> shorten("abcdefghij" * 10)  # the first 40 characters, the count, the last 8
    "'abcdefghijabcdefghijabcdefghijabcdefghi…(102 characters)…defghij'"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}…({len(text):,} characters)…{text[-8:]}"


LONG_RUN_SECONDS = 3600  # an estimate past an hour says how to stop the run


class ProgressReporter:
    """``progress(done, total)`` for the runner: a rich bar on a terminal, and a time estimate.

    The bar (on stderr, only when stderr is a terminal) starts with the run and vanishes when it
    ends. Once the run has gone on for half a second past its first chunk, a run projected to
    take more than a minute says so on stderr, with the hint to use --precision (and, past an
    hour, that Ctrl-C stops it). A run that starts its workers part way (the default ``--jobs``)
    is timed from its first chunk after they have started: the chunks run here meanwhile are one
    process's pace, shared with their start.
    """

    def __init__(self, label: str, workers: int, precision: bool, stream=None) -> None:
        self.label = label
        self.workers = workers
        self.precision = precision
        self.stream = stream if stream is not None else sys.stderr
        self.bar_enabled = _is_terminal(self.stream)
        self.progress = None
        self.task = None
        # while workers start, chunks run here alone: the clock starts again once they run
        self.projection = Projection(lambda: runner.starting())
        self.messages: list[str] = []

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.bar_enabled:
            self._bar(done, total)
        seconds = self.projection(done, total, now)
        if seconds is not None:
            hint = "a coarser --precision or a lower --max-trials ends it sooner" if self.precision else (
                "--precision 0.001 stops as soon as every probability is known to ±0.001, or lower --trials"
            )
            stop = " (Ctrl-C stops it)" if seconds > LONG_RUN_SECONDS else ""  # a newcomer's 83 days ran on
            self._say(
                f"estimated time: about {_duration(seconds)} for {total:,} trials on {self.workers} "
                f"worker(s){stop}; {hint}"
            )

    def _bar(self, done: int, total: int) -> None:
        if self.progress is None and done < total:
            self.progress = trial_bar(self.stream)
            self.task = self.progress.add_task(self.label, total=total)
        if self.progress is not None:
            self.progress.update(self.task, completed=done, total=total)
            if done >= total and not self.precision:
                self.close()

    def _say(self, message: str) -> None:
        self.messages.append(message)
        if self.progress is not None:
            self.progress.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


@contextmanager
def solving(message: str = "solving best play exactly (Ctrl-C stops it)") -> Iterator[None]:
    """Inside, an exact solve: a spinner on stderr if it lasts more than a second and stderr is
    a terminal (the largest take from 3 to 10 s, and a combat too long to solve is refused only
    after its budget of draws is spent, 10 s and more)."""
    if not _is_terminal(sys.stderr):
        yield
        return
    with working(sys.stderr, message):
        yield


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _options(trials: int, variants: Sequence[str] | None = None) -> dict[str, tuple[Any, Any]]:
    """The common run options; ``variants``, where the command knows them (a battle file's, which
    ``montecarlo games`` does not list), are named in --variant's help."""
    variant_help = "Named house rule to apply (repeatable); `montecarlo games` lists them."
    if variants is not None:
        variant_help = f"Named house rule to apply (repeatable): {', '.join(variants) or 'none here'}."
    return {
        "trials": (
            Annotated[
                int,
                typer.Option(
                    "--trials",
                    "-n",
                    help="Number of simulated trials (with --precision: the first batch).",
                    rich_help_panel="Simulation",
                ),
            ],
            trials,
        ),
        "seed": (
            Annotated[
                int,
                typer.Option(
                    "--seed",
                    "-s",
                    help="Seed of the run: same seed, same numbers.",
                    rich_help_panel="Simulation",
                ),
            ],
            DEFAULT_SEED,
        ),
        "jobs": (
            Annotated[
                Optional[int],
                typer.Option(
                    "--jobs",
                    "-j",
                    metavar="N",
                    help="Worker processes, at most the cores (-1 = all cores). "
                    "Default: all cores once the run shows more than 1.5 s of work left, else 1.",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
        "precision": (
            Annotated[
                Optional[float],
                typer.Option(
                    "--precision",
                    metavar="H",
                    help="Add trials until every probability's 95% half-width is at most H (0 < H < 0.5, "
                    "e.g. 0.001).",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
        "max_trials": (
            Annotated[
                Optional[int],
                typer.Option(
                    "--max-trials",
                    metavar="N",
                    help=f"Cap on trials with --precision (default {DEFAULT_MAX_TRIALS:,},"
                    " or --trials if larger).",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
        "variant": (
            Annotated[
                Optional[list[str]],
                typer.Option(
                    "--variant",
                    "-v",
                    metavar="NAME",
                    help=variant_help,
                    rich_help_panel="Rules",
                ),
            ],
            None,
        ),
        "json": (
            Annotated[
                bool,
                typer.Option(
                    "--json",
                    help="Print one JSON object on stdout instead of a table.",
                    rich_help_panel="Output",
                ),
            ],
            False,
        ),
        "quiet": (
            Annotated[
                bool,
                typer.Option(
                    "--quiet", "-q", help="No progress bar or time estimate.", rich_help_panel="Output"
                ),
            ],
            False,
        ),
        "backend": (
            Annotated[
                Optional[str],
                typer.Option(
                    "--backend",
                    metavar="NAME",
                    help="joblib backend: loky (processes; the default), threading, or dask "
                    "(the default with --scheduler).",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
        "scheduler": (
            Annotated[
                Optional[str],
                typer.Option(
                    "--scheduler",
                    metavar="ADDRESS",
                    help="Dask scheduler address; selects --backend dask "
                    "(which without it starts a local cluster). Refused with another --backend.",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
        "checkpoint": (
            Annotated[
                Optional[Path],
                typer.Option(
                    "--checkpoint",
                    metavar="FILE",
                    help="Save finished chunks to FILE as the run goes; the same command with the same "
                    "FILE resumes after an interruption, with the numbers of an uninterrupted run.",
                    rich_help_panel="Simulation",
                ),
            ],
            None,
        ),
    }


COMMON_OPTIONS = tuple(_options(DEFAULT_TRIALS))


def warn_excess_jobs(jobs: Optional[int], backend: str = "loky") -> bool:
    """Warn on stderr when --jobs asks for more workers than cores (the run uses the cores); not
    for a Dask cluster, whose workers are the cluster's."""
    cores = excess_jobs(jobs) if backend != "dask" else None
    if cores is not None:
        machine, workers = ("1 core", "1 worker") if cores == 1 else (f"{cores} cores", f"{cores} workers")
        warning = f"warning: --jobs {jobs} is more than the {machine} of this machine; running {workers}"
        typer.echo(warning, err=True)
    return cores is not None


# errors of a path itself, not of the machine: the user can fix them by giving another
PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ELOOP,
                         errno.EACCES, errno.EPERM, errno.EROFS, errno.EEXIST})


def cli_errors(func: Callable) -> Callable:
    """Turn a MonteCarloError into one line on stderr and exit code 2.

    An OSError that reaches here (a path the user gave that the checks before the work did not
    foresee: a deck file's name too long for the file system, say) is one line too, naming the
    file: exit code 2 for a path that cannot be used, 1 for a failure of the machine (disk full).
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except MonteCarloError as exc:
            message = str(exc)
            if message.startswith("unknown variant "):  # a -v this game does not have, as the flag
                message = f"--variant: {message}"
            typer.echo(f"error: {readable(message)}", err=True)
            raise typer.Exit(2) from None
        except OSError as exc:
            raise typer.Exit(say_os_error(exc)) from None

    return wrapper


def say_os_error(exc: OSError) -> int:
    """An OSError as one line on stderr (naming its file, if any); its exit code: 2 for a path
    the user can fix, 1 for a failure of the machine (a full disk). A failed write to stdout
    (``> /dev/full``) leaves stdout on /dev/null, where Python's flush at exit cannot fail again;
    stdout's reader leaving (``| head``) is said by no line at all. For the commands
    (:func:`cli_errors`) and for what fails outside them (help, listings) alike."""
    if isinstance(exc, BrokenPipeError) and exc.filename is None:  # stdout's reader left (`| head`):
        _quiet_stdout()  # nothing is wrong, and nobody reads on (a FIFO the command writes is named)
        return 1
    where = f"{exc.filename}: " if exc.filename is not None else ""
    try:
        typer.echo(f"error: {readable(where + (exc.strerror or str(exc)))}", err=True)
    except OSError:  # stderr cannot take it either
        pass
    if exc.filename is None:
        _quiet_stdout()
    return 2 if exc.errno in PATH_ERRNOS else 1


def _quiet_stdout() -> None:
    """stdout to /dev/null, after its reader left: Python's flush at exit would fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file of the system's (io.UnsupportedOperation)
        pass


def named_flags(func: Callable) -> Callable:
    """Name the flags the user typed in a setup-field error of ``func`` (``enemy_health must
    be ...`` -> ``--enemy-health must be ...``), as :func:`run_command` does for its commands."""
    flags = flags_of(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            exc.args = (in_flags(str(exc), flags),)
            raise

    return wrapper


def flags_of(func: Callable) -> dict[str, str]:
    """Parameter name -> the long flag a user types for it (``attacker_equipment`` ->
    ``--attacker-equipment``, ``json_out`` -> ``--json``), read from the typer declarations.

    >>> from typing import Annotated
    >>> def odds(
    ...     attacker_equipment: Annotated[str, typer.Option()] = "",
    ...     json_out: Annotated[bool, typer.Option("--json", "-J")] = False,
    ...     trial_count: Annotated[int, typer.Option("-n", "--trials")] = 1,
    ...     game: Annotated[str, typer.Argument()] = "",
    ... ): ...
    >>> flags_of(odds)
    {'attacker_equipment': '--attacker-equipment', 'json_out': '--json', 'trial_count': '--trials'}
    """
    flags = {}
    # eval_str: a module with ``from __future__ import annotations`` has its annotations as text
    for p in inspect.signature(func, eval_str=True).parameters.values():
        flag: Optional[str] = "--" + p.name.replace("_", "-")
        for meta in getattr(p.annotation, "__metadata__", ()):
            if isinstance(meta, typer.models.ArgumentInfo):
                flag = None
            elif isinstance(meta, typer.models.OptionInfo):
                # inside Annotated, typer reads a first argument "--name" as a name, not a default
                names = (meta.default, *(meta.param_decls or ()))
                long = [d for d in names if isinstance(d, str) and d.startswith("--")]
                flag = long[0] if long else flag
        if flag is not None and p.name != "run":
            flags[p.name] = flag
    return flags


def in_flags(message: str, flags: dict[str, str]) -> str:
    """A setup-field message in the words of the command line: a field that starts the message or
    stands in parentheses becomes the flag the user typed.

    >>> in_flags("health: give the vehicle's health (health) or a shipped vehicle (vehicle)",
    ...          {"health": "--health", "vehicle": "--vehicle"})
    "--health: give the vehicle's health (--health) or a shipped vehicle (--vehicle)"
    """
    for name, flag in flags.items():  # names are identifiers: no one matches inside another's place
        message = re.sub(rf"^{re.escape(name)}(?=[:\s])", flag, message)
        message = message.replace(f"({name})", f"({flag})")
    return message


def check_edges(
    variants: tuple[str, ...],
    precision: Optional[float],
    max_trials: Optional[int],
    backend: Optional[str],
    scheduler: Optional[str],
) -> None:
    """Checks of the common options that need no game, made before anything runs.

    A variant named twice, --max-trials without --precision (it caps only a --precision run),
    and an unknown backend or malformed --scheduler address are refused with one line.
    """
    twice = first_repeated(variants)
    if twice is not None:
        raise InputError(f"--variant {shorten(twice)} is given twice; name each house rule once")
    if max_trials is not None and precision is None:
        raise InputError(
            "--max-trials caps a --precision run; give --precision H with it, or set --trials N instead"
        )
    backend_for(backend, scheduler)


def asks(
    question: str, takes: Optional[Callable[[Mapping[str, Any]], bool]] = None
) -> Callable[[Callable], Callable]:
    """Mark a command function with the question it answers (``@asks("duel")``): its --variant help
    lists only the game's variants that can change that question (``Game.variants_for``), and a
    run under another is told that it changes nothing there. ``takes(overrides)``: whether the
    command accepts a variant of those overrides (advise refuses the variants that set the policy
    it solves for), where it refuses some."""

    def mark(func: Callable) -> Callable:
        func.question = question  # typer's wrapper copies __dict__
        func.takes = takes
        return func

    return mark


def run_command(
    func: Optional[Callable] = None, *, trials: int = DEFAULT_TRIALS, variants: Sequence[str] | None = None
) -> Callable:
    """Add the common run options to ``func``'s signature; pass them as ``run: RunOptions``.

    Use as ``@run_command``, or ``@run_command(trials=50_000)`` where the command's own default
    number of trials differs (the help then shows the default that is used); ``variants`` names
    the house rules in --variant's help.
    """
    if func is None:
        return functools.partial(run_command, trials=trials, variants=variants)
    options = _options(trials, variants)
    flags = flags_of(func)
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.name != "run"]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        for name, (annotation, default) in options.items()
    ]

    @cli_errors
    def wrapper(*args, **kwargs):
        common = {name: kwargs.pop(name) for name in options}
        common["variant"] = tuple(common["variant"] or ())
        run = RunOptions(**common)
        check_edges(run.variant, run.precision, run.max_trials, run.backend, run.scheduler)
        run.start_workers()
        try:
            return func(*args, **kwargs, run=run)
        except InputError as exc:  # name the flags the user typed, not the setup fields
            exc.args = (in_flags(str(exc), flags),)  # cli_errors names the flag of an unknown variant
            raise
        finally:
            run.close()

    wrapper.__signature__ = sig.replace(parameters=own + added)
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def parse_int_list(text: str, option: str) -> list[int]:
    """'3,2,2,1' -> [3, 2, 2, 1], with a one-line error naming the option."""
    try:
        return [int(part) for part in text.split(",") if part.strip() != ""]
    except ValueError:
        raise InputError(f"{option} expects comma-separated integers, got {text!r}") from None


def field_value(text: str, flag: str, example: str) -> tuple[str, str]:
    """One FIELD=VALUE option (``--set``, ``--grid``, ``--rule``, ``--rows``, ...) -> its two
    sides, stripped, the field's dashes read as underscores (fields are identifiers); a one-line
    InputError naming the option, with an ``example`` of it, when a side is missing.

    >>> field_value(" max-dice = 4", "--rule", "--rule max_dice=4")
    ('max_dice', '4')
    """
    field, equals, value = text.partition("=")
    field = field.strip().replace("-", "_")
    if not equals or not field or not value.strip():
        raise InputError(f"{flag} {text!r}: give FIELD=VALUE, e.g. {example}")
    return field, value.strip()


def whole_range(text: str, where: str, most: int) -> Optional[list[int]]:
    """``'1..6'`` -> [1, 2, 3, 4, 5, 6]; None when ``text`` is not LOW..HIGH; a one-line
    InputError, naming ``where`` (``--grid defender``), for a range that runs down or holds more
    than ``most`` values.

    >>> whole_range(" -1 .. 2", "--grid a", 10), whole_range("1,2", "--grid a", 10)
    ([-1, 0, 1, 2], None)
    """
    ends = re.fullmatch(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*", text)
    if ends is None:
        return None
    low, high = int(ends.group(1)), int(ends.group(2))
    if high < low:
        raise InputError(f"{where}={text.strip()}: the range runs down from {low}; give {high}..{low}")
    if high - low >= most:
        raise InputError(f"{where}={text.strip()}: {high - low + 1:,} values; a range holds at most {most:,}")
    return list(range(low, high + 1))


def parse_name_list(text: Optional[str]) -> list[str]:
    """'sword, gom-jabbar' -> ['sword', 'gom-jabbar'] (empty for None or '')."""
    if not text:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def fmt_prob(x: Optional[float], digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def fmt_chance(x: Optional[float], digits: int = 4, *, compact: bool = False, near_one: str = "bound") -> str:
    """A chance to ``digits`` decimals, unless it would read as 0 or 1 and is neither: a small
    one in two significant figures (as the reports write it; one with ``compact``), one just
    below 1 as ``>0.999`` (``>.999`` with ``compact``; with ``near_one="decimals"``, the decimals
    that show it, up to 8). A cell read "0.000 (0.001)" for an estimate of 4.5e-4 beside its
    exact 5.5e-4, and an exact chance of 0.99995 read "1.000".

    >>> fmt_chance(0.25971, 3), fmt_chance(4.5e-4, 3), fmt_chance(0.99995, 3), fmt_chance(0.0, 3)
    ('0.260', '4.5e-4', '>0.999', '0.000')
    >>> fmt_chance(4.5e-4, 3, compact=True), fmt_chance(0.99995, 3, compact=True)
    ('4e-4', '>.999')
    >>> fmt_chance(0.99995, near_one="decimals"), fmt_chance(1 - 1e-10, near_one="decimals")
    ('0.99995', '>0.99999999')
    >>> fmt_chance(1.4e-9), fmt_chance(1.0), fmt_chance(0.9999999999999999), fmt_chance(-2e-17)
    ('1.4e-9', '1.0000', '1.0000', '0.0000')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    # within 1e-12 of 0 or 1 is the exact solvers' rounding (a sure thing computed as
    # 0.9999999999999999, a nought as -2e-17), as the reports' numbers take it
    if abs(x) <= 1e-12 or abs(x - 1) <= 1e-12:
        return f"{round(x):.{digits}f}"
    text = f"{x:.{digits}f}"
    if float(text) not in (0.0, 1.0):
        return text
    if x < 0.5:
        mantissa, exponent = f"{x:.{0 if compact else 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if near_one == "decimals":
        for more in range(digits + 1, 9):
            if f"{x:.{more}f}" != f"{1:.{more}f}":
                return f"{x:.{more}f}"
        return ">0." + "9" * 8
    return (">." if compact else ">0.") + "9" * digits


def decimals_apart(values: list[float]) -> int:
    """Decimals enough (4 to 8) to tell exact values apart where they differ, and to show one that
    is not 0 or 1 as neither (a chance of 0.999997 is not "1.0000"): the advice commands' values.

    >>> decimals_apart([0.5963112, 0.5963019]), decimals_apart([0.999997, 0.5]), decimals_apart([1.0, 0.0])
    (5, 6, 4)
    """
    distinct = {round(v, 12) for v in values}
    for digits in range(4, 9):
        texts = [f"{v:.{digits}f}" for v in values]
        looks_sure = any(float(t) in (0.0, 1.0) and round(v, 12) not in (0.0, 1.0)
                         for t, v in zip(texts, values))
        if len(set(texts)) == len(distinct) and not looks_sure:
            return digits
    return 8


def console(stderr: bool = False, piped_width: Optional[int] = None):
    """A rich console on stdout (or stderr) as wide as the terminal; written to a file or a pipe,
    80 columns, or ``piped_width`` if wider (a wide table then keeps its names whole, where a
    terminal must fold them: a line longer than the terminal would wrap and break the frame)."""
    from rich.console import Console

    out = Console(file=sys.stderr if stderr else sys.stdout)
    if piped_width is not None and not out.is_terminal:
        out.width = max(piped_width, out.width)
    return out


def say(text: str) -> None:
    """Print prose on stdout: on a terminal wrapped to its width (see :func:`wrapped`), piped as it
    is, one line an item, for grep."""
    import shutil

    typer.echo(wrapped(text, shutil.get_terminal_size().columns if _is_terminal(sys.stdout) else None))


def wrapped(text: str, width: Optional[int]) -> str:
    r"""``text`` with each of its lines wrapped to ``width`` (None: unchanged), the continuation
    indented four columns past the line's own indent, so that the items of a list stand out; a
    [bracketed command] is never split.

    >>> print(wrapped("  variant ties_favour_defender: a tied round is won by the defender", 44))
      variant ties_favour_defender: a tied
          round is won by the defender
    >>> print(wrapped("title\n  the first item [montecarlo game question]", 40))
    title
      the first item
          [montecarlo game question]
    >>> wrapped("  as it is", None)
    '  as it is'
    """
    if width is None:
        return text
    import textwrap

    shown = []
    for line in text.split("\n"):
        body = line.lstrip()
        lead = line[: len(line) - len(body)]
        whole = re.sub(r"\[[^]]*\]", lambda m: m[0].replace(" ", "\xa0"), body)
        shown += textwrap.wrap(
            whole, max(width - 1, 40), initial_indent=lead, subsequent_indent=lead + "    ",
            break_on_hyphens=False, break_long_words=False,
        ) or [""]
    return "\n".join(shown).replace("\xa0", " ")


def natural_width(out, table) -> int:
    """The width ``table`` takes on ``out`` with room for every cell whole."""
    return out.measure(table, options=out.options.update_width(10_000)).maximum


def fits_whole(out, table) -> bool:
    """Whether ``table`` at its natural width fits the console ``out`` (else rich would cut cells)."""
    return natural_width(out, table) <= out.width


def unknown_metric(metric: str, names: Sequence[str], where: str) -> InputError:
    """A table's metric that is none of ``names`` (the reported ones), with a hint where it names
    a distribution whose values are reported one by one (compare takes the distribution whole).

    >>> print(unknown_metric("n", ["n=1", "n=2"], "x"))
    unknown metric 'n' for x: a table shows one value of a distribution, e.g. n=1; known: n=1, n=2
    """
    values = [n for n in names if n.startswith(f"{metric}=")]
    hint = f": a table shows one value of a distribution, e.g. {values[0]}" if values else ""
    return InputError(f"unknown metric {metric!r} for {where}{hint}; known: {', '.join(names)}")


def interval_note(values: Sequence[Any]) -> str:
    """How wide the 95% intervals of a table's estimates are, for its caption (a cell shows the
    estimate and the exact value only): a line of its own, '' with none.

    >>> from types import SimpleNamespace as V
    >>> print(interval_note([V(ci_low=0.49, ci_high=0.51), V(ci_low=0.0, ci_high=0.003),
    ...                      V(ci_low=None, ci_high=None)]).strip())
    every 95% interval within ±0.01 of its estimate
    >>> interval_note([V(ci_low=None, ci_high=None)])
    ''
    """
    halves = [(m.ci_high - m.ci_low) / 2 for m in values if m.ci_low is not None and m.ci_high is not None]
    return f"\nevery 95% interval within ±{max(halves):.2g} of its estimate" if halves else ""


def print_whole(out, table) -> None:
    """Print ``table`` on ``out``; piped, at least as wide as its natural width, so that a file or
    grep gets every name whole on one line (a terminal's width is the terminal's)."""
    if out.is_terminal:
        out.print(table)
        return
    width = out.width  # print's own width can only narrow the console's
    out.width = max(width, natural_width(out, table))
    try:
        out.print(table)
    finally:
        out.width = width


def explanations(answer: Answer) -> list[tuple[str, str]]:
    """(label, description) once per metric shown: 'winner_strength=v' for a distribution. A
    description that only repeats the name (a battle file's metric without one) is left out."""
    seen: dict[str, str] = {}
    for name, m in answer.metrics.items():
        base, _, value = name.partition("=")
        label = f"{base}=v" if value else base
        if label not in seen and m.description and m.description.strip() != base:
            seen[label] = m.description
    return list(seen.items())


def emit(
    answer: Answer,
    run: RunOptions,
    title: str,
    extra: Optional[dict] = None,
    setup_extra: Optional[dict] = None,
    game: Any = None,
) -> None:
    """Print an answer: one JSON object with --json, else a readable table and what each metric means.

    ``extra`` holds exact side results of a command (e.g. a break-even ratio); it goes into the
    JSON object under ``"extra"``. Commands print their own readable form of it. ``setup_extra``
    adds derived facts to the JSON ``setup`` (e.g. a named character's Strength and Guile).
    ``game``: the answer's game where the registry has none of its name (a battle file).
    """
    answer = _applicable(answer, game)  # the note weighs the metrics shown
    note_idle_variants(answer, game)
    if run.json:
        payload = answer.to_json()
        if setup_extra:
            payload["setup"].update(setup_extra)
        if extra:
            payload["extra"] = extra
        typer.echo(json.dumps(payload, sort_keys=False))
        return
    from rich.table import Table

    rules = ", ".join(answer.variants) if answer.variants else "official rules"
    trials = f"{answer.trials:,} trial{'s' * (answer.trials != 1)}"
    if answer.precision is not None:
        widest = answer.widest_half_width()
        reached = answer.precision_reached()
        verdict = "reached" if reached else not_reached(answer.trials, widest, answer.precision)
        trials = f"precision ±{answer.precision:g} {verdict} after {trials} (widest half-width {widest:.2g})"
    # Title and caption go above and below the table at the terminal's width: inside a narrow
    # table they would wrap mid-word (a deck file's path, a legion).
    table = Table()  # printed only where it fits whole (below): nothing in it wraps
    table.add_column("metric")
    table.add_column("estimate", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("exact", justify="right")
    rows = []
    unseen = _cannot_happen(answer)
    chances = _chance_objective(answer)
    for m in answer.metrics.values():
        if m.name in unseen:
            continue
        shown = (functools.partial(fmt_prob, digits=3) if m.kind == "mean" and m.name not in chances
                 else functools.partial(fmt_chance, near_one="decimals"))
        rows.append(
            (
                m.name,
                shown(m.estimate),
                f"{shown(m.ci_low)} – {shown(m.ci_high)}",
                shown(m.exact),
            )
        )
        table.add_row(*rows[-1])
    out = console()
    out.print(title, style="bold", highlight=False)
    if fits_whole(out, table):
        out.print(table)
    else:  # a narrow terminal would cut the numbers: each metric on its own two lines instead
        for name, estimate, interval, exact in rows:
            out.print(f"{name}\n  {estimate} ({interval}), exact {exact}", highlight=False)
    out.print(
        f"{trials}, seed {answer.seed}, {rules}; 95% intervals "
        "(Wilson for probabilities, Student t for means)",
        highlight=False,
    )
    if unseen:
        out.print(unreached_said(unseen), highlight=False)
    print_explanations(out, explanations(answer))


def not_reached(trials: int, widest: float, precision: float) -> str:
    """Why a precision run stopped short, and how many trials would reach it: a half-width
    shrinks as one over the square root of the trials (--precision 1e-9 was told to raise
    --max-trials, where it would take some 1e17 trials).

    >>> not_reached(10_000_000, 1.5e-4, 1e-4)
    'NOT reached (trial cap hit; about 22,000,000 trials would reach it: raise --max-trials)'
    >>> not_reached(10_000_000, 1.5e-4, 1e-9)
    'NOT reached (trial cap hit; about 2.2e+17 trials would reach it: ask a coarser --precision)'
    """
    needed = trials * (widest / precision) ** 2
    if needed > 1e12:  # past what any run here could do
        return (f"NOT reached (trial cap hit; about {needed:.2g} trials would reach it: ask a coarser "
                "--precision)")
    shown = float(f"{needed:.2g}")
    return f"NOT reached (trial cap hit; about {shown:,.0f} trials would reach it: raise --max-trials)"


def _chance_objective(answer: Answer) -> tuple[str, ...]:
    """``("objective",)`` where best play's objective is to win: a mean of wins, a chance, shown to
    the decimals of the chance to win beside it (it read 0.397 under player_win's 0.3975)."""
    if "objective" not in answer.metrics:
        return ()
    from montecarlo.games.base import to_plain

    try:
        objective = to_plain(answer.setup).get("objective")
    except (AttributeError, TypeError):  # pragma: no cover - a setup that is no dataclass
        return ()
    return ("objective",) if objective == "win" else ()


def _cannot_happen(answer: Answer) -> list[str]:
    """The values of distributions that this setup cannot reach: exact 0 and never drawn (a
    battle file's ``attackers_left=6`` for 5 attackers), which a table need not list."""
    return [m.name for m in answer.metrics.values()
            if m.kind == "distribution" and m.exact == 0 and m.estimate == 0]


def _applicable(answer: Answer, game: Any = None) -> Answer:
    """The answer without the metrics its question says do not apply to its setup (a worm's dice
    at a harvester alone, a seat a 3-player conflict lacks), as ``montecarlo.odds`` shows it."""
    try:
        return answer.applicable(answer.game if game is None else game)
    except Exception:  # noqa: BLE001 - a game not found shows every metric, as before
        return answer


def note_variants_outside(game: Any, question: str, variants: Sequence[str]) -> tuple[str, ...]:
    """A note on stderr naming the variants that set no rule ``question`` uses (``-v
    ties_favour_defender`` on a movement roll): they change nothing there, in any setup. Returns them."""
    outside = game.variants_outside(question, variants)
    if outside:
        named = " ".join(f"-v {name}" for name in outside)
        typer.echo(
            f"note: {named} {'changes' if len(outside) == 1 else 'change'} nothing in {question}: "
            f"{'it sets' if len(outside) == 1 else 'they set'} no rule that {question} uses "
            "(`montecarlo games` says what each house rule changes)",
            err=True,
        )
    return outside


def note_idle_variants(answer: Answer, game: Any = None) -> None:
    """A note on stderr where the variants change no exact value of the setup: their numbers are
    the official rules' there, which a user would otherwise read as the house rule's effect. The
    variants that set no rule of the question at all are named as such, in any setup."""
    from montecarlo.analysis import variants_change_nothing
    from montecarlo.registry import get_game

    try:
        found = get_game(answer.game) if game is None else game
        outside = note_variants_outside(found, answer.question, answer.variants)
    except Exception:  # noqa: BLE001 - a note is never worth a failure
        outside = ()
    rest = [name for name in answer.variants if name not in outside]
    if rest and variants_change_nothing(answer, game):
        named = " ".join(f"-v {name}" for name in rest)
        one = len(rest) == 1
        typer.echo(
            f"note: {named} {'changes' if one else 'change'} no exact value of this setup: the official "
            f"rules give the same exact values here ({'it' if one else 'they'} may matter in other setups)",
            err=True,
        )


def print_explanations(out, rows: list[tuple[str, str]]) -> None:
    """One line per metric under a table: 'name  what it means' (wrapped under its own column)."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")  # a word longer than a narrow column is folded, not cut
    for label, description in rows:
        grid.add_row(Text(label), Text(description))
    out.print(grid)


def examples_of(help_text: Optional[str]) -> list[str]:
    """The example command lines of a command's help: lines that start with 'montecarlo '.

    >>> examples_of("Odds.\\n\\nExamples:\\n\\n  montecarlo odds dune1984 -a 4 -d 5")
    ['montecarlo odds dune1984 -a 4 -d 5']
    >>> examples_of("Example: montecarlo games")
    ['montecarlo games']
    >>> examples_of("  $ montecarlo games --json")
    ['montecarlo games --json']
    """
    found = []
    for line in (help_text or "").splitlines():
        line = line.strip()
        for prefix in ("Examples:", "Example:", "$"):
            line = line.removeprefix(prefix).strip()
        if line.startswith("montecarlo "):
            found.append(line)
    return found


__all__ = [
    "RunOptions",
    "ProgressReporter",
    "run_command",
    "asks",
    "note_variants_outside",
    "cli_errors",
    "emit",
    "console",
    "say",
    "wrapped",
    "explanations",
    "fmt_prob",
    "fmt_chance",
    "parse_int_list",
    "parse_name_list",
    "examples_of",
    "COMMON_OPTIONS",
    "DEFAULT_CHUNK_SIZE",
]
