"""Options every simulating command shares, and how results are printed.

``@run_command`` gives a command the common options (--trials, --seed, --jobs, --precision,
--max-trials, --variant, --json, --quiet, --backend, --scheduler) and hands them to it as one
``run: RunOptions`` argument; ``@cli_errors`` turns a MonteCarloError into one line on stderr and
exit code 2. Commands stay thin: parse options into a setup, call :mod:`montecarlo.analysis`,
print with :func:`emit`.
"""

import functools
import inspect
import json
import math
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Optional

import typer

from montecarlo.analysis import DEFAULT_SEED, DEFAULT_TRIALS, Answer, RunSettings
from montecarlo.errors import InputError, MonteCarloError


@dataclass(frozen=True)
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
    backend: str
    scheduler: Optional[str]

    def settings(self) -> RunSettings:
        if self.trials <= 0:
            raise InputError(f"--trials must be a positive integer, got {self.trials}")
        if self.jobs == 0:
            raise InputError("--jobs must be a positive number of workers, or -1 for all cores")
        return RunSettings(
            trials=self.trials, seed=self.seed, jobs=self.jobs, precision=self.precision,
            max_trials=self.max_trials, backend=self.backend, scheduler=self.scheduler,
            progress=not (self.quiet or self.json),
        )


_COMMON: dict[str, tuple[Any, Any]] = {
    "trials": (Annotated[int, typer.Option("--trials", "-n", help="Number of simulated trials (with --precision: the first batch).", rich_help_panel="Simulation")], DEFAULT_TRIALS),
    "seed": (Annotated[int, typer.Option("--seed", "-s", help="Seed of the run: same seed, same numbers.", rich_help_panel="Simulation")], DEFAULT_SEED),
    "jobs": (Annotated[Optional[int], typer.Option("--jobs", "-j", help="Worker processes (-1 = all cores). Default: all cores above 1,000,000 trials.", rich_help_panel="Simulation")], None),
    "precision": (Annotated[Optional[float], typer.Option("--precision", help="Add trials until every probability's 95% half-width is at most this.", rich_help_panel="Simulation")], None),
    "max_trials": (Annotated[Optional[int], typer.Option("--max-trials", help="Cap on trials with --precision (default 10,000,000).", rich_help_panel="Simulation")], None),
    "variant": (Annotated[Optional[list[str]], typer.Option("--variant", "-v", help="Named house rule to apply (repeatable).", rich_help_panel="Rules")], None),
    "json": (Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of a table.", rich_help_panel="Output")], False),
    "quiet": (Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.", rich_help_panel="Output")], False),
    "backend": (Annotated[str, typer.Option("--backend", help="joblib backend: loky (processes), threading, or dask.", rich_help_panel="Simulation")], "loky"),
    "scheduler": (Annotated[Optional[str], typer.Option("--scheduler", help="Dask scheduler address for --backend dask (default: a local cluster).", rich_help_panel="Simulation")], None),
}


def cli_errors(func: Callable) -> Callable:
    """Turn a MonteCarloError into one line on stderr and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except MonteCarloError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def run_command(func: Callable) -> Callable:
    """Add the common run options to ``func``'s signature; pass them as ``run: RunOptions``."""
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.name != "run"]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        for name, (annotation, default) in _COMMON.items()
    ]

    @cli_errors
    def wrapper(**kwargs):
        common = {name: kwargs.pop(name) for name in _COMMON}
        common["variant"] = tuple(common["variant"] or ())
        return func(**kwargs, run=RunOptions(**common))

    wrapper.__signature__ = sig.replace(parameters=own + added)
    wrapper.__annotations__ = {p.name: p.annotation for p in own + added}
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def parse_int_list(text: str, option: str) -> list[int]:
    """'3,2,2,1' -> [3, 2, 2, 1], with a one-line error naming the option."""
    try:
        return [int(part) for part in text.split(",") if part.strip() != ""]
    except ValueError:
        raise InputError(f"{option} expects comma-separated integers, got {text!r}") from None


def parse_name_list(text: Optional[str]) -> list[str]:
    """'sword, gom-jabbar' -> ['sword', 'gom-jabbar'] (empty for None or '')."""
    if not text:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def fmt_prob(x: Optional[float], digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def emit(answer: Answer, run: RunOptions, title: str, extra: Optional[dict] = None) -> None:
    """Print an answer: one JSON object with --json, else a readable table.

    ``extra`` holds exact side results of a command (e.g. a break-even ratio); it goes into the
    JSON object under ``"extra"``. Commands print their own readable form of it.
    """
    if run.json:
        payload = answer.to_json()
        if extra:
            payload["extra"] = extra
        typer.echo(json.dumps(payload, sort_keys=False))
        return
    from rich.console import Console
    from rich.table import Table

    rules = ", ".join(answer.variants) if answer.variants else "official rules"
    trials = f"{answer.trials:,} trials"
    if answer.precision is not None:
        widest = max((m.ci_high - m.ci_low) / 2 for m in answer.metrics.values() if m.kind != "mean")
        verdict = "reached" if widest <= answer.precision else "NOT reached (trial cap hit; raise --max-trials)"
        trials = f"precision ±{answer.precision:g} {verdict} after {trials} (widest half-width {widest:.2g})"
    table = Table(title=title, caption=(
        f"{trials}, seed {answer.seed}, {rules}; 95% intervals "
        "(Wilson for probabilities, normal for means)"
    ))
    table.add_column("metric")
    table.add_column("estimate", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("exact", justify="right")
    for m in answer.metrics.values():
        digits = 3 if m.kind == "mean" else 4
        table.add_row(
            m.name, fmt_prob(m.estimate, digits),
            f"{fmt_prob(m.ci_low, digits)} – {fmt_prob(m.ci_high, digits)}",
            fmt_prob(m.exact, digits),
        )
    Console(file=sys.stdout, width=max(100, Console().width)).print(table)
