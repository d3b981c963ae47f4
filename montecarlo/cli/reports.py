"""Scenario commands: ``report``, ``report-all`` and ``compare``.

``report`` runs a scenario file and writes its report folder; ``report-all`` runs every shipped
scenario and writes an index linking them; ``compare`` prints each variant's difference from
the baseline (paired, common random numbers, Holm-corrected) as a table or one JSON object.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import polars as pl
import typer

from montecarlo.analysis import DEFAULT_TRIALS, seconds_said
from montecarlo.engine.runner import DEFAULT_MAX_TRIALS
from montecarlo.cli.common import (
    _options,
    backend_for,
    check_edges,
    cli_errors,
    field_value,
    fits_whole,
    not_reached,
    note_variants_outside,
    print_whole,
    flag_of,
    warn_excess_jobs,
    whole_range,
    wrapped,
)
from montecarlo.cli.common import console as stdout_console
from montecarlo.errors import InputError, MonteCarloError, ScenarioError, unusable_path
from montecarlo.registry import names_a_file

# The root (montecarlo.cli) loads these commands from this app when one of them is run.
app = typer.Typer()

DEFAULT_OUT = Path("reports")
MAX_ROWS = 40  # significant rows printed by compare, shared among its variants
MIN_ROWS_PER_VARIANT = 10

Jobs = Annotated[
    Optional[int],
    typer.Option(
        "--jobs", "-j", metavar="N",
        help="Worker processes (-1 = all cores). Default: all cores, started at once where a "
        "report of a large scenario is written (report, report-all, compare --out: they also draw its "
        "plots), else once the run shows more than 1.5 s of work left.",
     rich_help_panel="Simulation"),
]
# the same declarations as every simulating command's
Quiet, Backend, Scheduler = (_options(DEFAULT_TRIALS)[name][0] for name in ("quiet", "backend", "scheduler"))
Trials = Annotated[
    Optional[int],
    typer.Option(
        "--trials",
        "-n",
        help="Trials per setup and variant, over the scenario's own (with a precision: the first batch).",
     rich_help_panel="Simulation"),
]
Seed = Annotated[
    Optional[int],
    typer.Option("--seed", "-s", help="Seed, over the scenario's own.", rich_help_panel="Simulation"),
]
Precision = Annotated[
    Optional[float],
    typer.Option(
        "--precision",
        metavar="H",
        help="Add trials until every probability's 95% half-width is at most H (0 < H < 0.5), over the "
        "scenario's own.",
     rich_help_panel="Simulation"),
]
MaxTrials = Annotated[
    Optional[int],
    typer.Option("--max-trials", metavar="N", help="Cap on trials per setup of a precision run, over the "
                 f"scenario's own (default {DEFAULT_MAX_TRIALS:,}, or --trials if larger).",
                 rich_help_panel="Simulation"),
]
Variants = Annotated[
    Optional[list[str]],
    typer.Option(
        "--variant",
        "-v",
        metavar="NAME",
        help="Run only this variant of the scenario beside the baseline (repeatable).",
     rich_help_panel="Rules"),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of the words "
                                      "and tables for people.", rich_help_panel="Output")]


@dataclass(frozen=True)
class Overrides:
    """What the command line sets over a scenario's own run values (None: the scenario's)."""

    trials: Optional[int] = None
    seed: Optional[int] = None
    precision: Optional[float] = None
    max_trials: Optional[int] = None
    variants: tuple[str, ...] = ()

    def check(self, backend: Optional[str], scheduler: Optional[str], jobs: Optional[int] = None) -> str:
        """Refuse bad values before any file is read; the backend to use."""
        if jobs is not None:  # by the run settings' own rule, named as odds names it
            from montecarlo.api import run_settings

            run_settings(jobs=jobs, name=flag_of)
        if self.trials is not None and self.trials <= 0:
            raise InputError(f"--trials must be a positive integer, got {self.trials}")
        if self.seed is not None and self.seed < 0:
            raise InputError(f"--seed must be a whole number >= 0, got {self.seed}")
        if self.max_trials is not None and self.max_trials <= 0:
            raise InputError(f"--max-trials must be a positive integer, got {self.max_trials}")
        if self.precision is not None and not 0 < self.precision < 0.5:
            raise InputError(f"--precision must be a half-width between 0 and 0.5, got {self.precision}")
        # --max-trials alone is fine when the scenario has a precision: checked in apply()
        check_edges(self.variants, 0.0, None, backend, scheduler)
        return backend_for(backend, scheduler)

    def apply(self, sc, baseline: Optional[str] = None):
        """The scenario with these values (so its report records them)."""
        precision = self.precision if self.precision is not None else sc.precision
        if self.max_trials is not None and precision is None:
            raise InputError(
                f"--max-trials caps a precision run and {sc.path or sc.name} sets no precision; "
                "give --precision H with it, or set --trials N instead"
            )
        trials = self.trials if self.trials is not None else sc.trials
        changes: dict = {
            "trials": trials,
            "seed": self.seed if self.seed is not None else sc.seed,
            "precision": precision,
            "max_trials": self.max_trials if self.max_trials is not None else sc.max_trials,
            "chunk_size": min(sc.chunk_size, trials) if precision else sc.chunk_size,
        }
        cap = changes["max_trials"]
        if precision is not None and cap is not None and cap < trials:

            def said(flag: str, key: str, given: Optional[int]) -> str:
                return flag if given is not None else f"{key} of {sc.path or sc.name}"

            raise InputError(
                f"{said('--max-trials', 'max_trials', self.max_trials)} ({cap:,}) is below "
                f"{said('--trials', 'trials', self.trials)} ({trials:,}), the first batch it caps; "
                "raise the cap or lower the trials"
            )
        if self.variants:
            keep = {sc.variant(name, "--variant").name for name in self.variants} | {baseline or sc.baseline}
            changes["variants"] = tuple(v for v in sc.variants if v.name in keep)
            if sc.plots is not None:
                kept = tuple(
                    p for p in sc.plots
                    if (p.variant is None or p.variant in keep) and (p.kind != "forest" or len(keep) > 1)
                )
                # the file's plots all left out with their variants: the defaults, not none at all
                changes["plots"] = kept if kept or not sc.plots else None
        applied = dataclasses.replace(sc, **changes)
        from montecarlo.scenarios import too_few_trials

        flag = f"--trials {self.trials}" + (f" for {sc.path}" if sc.path is not None else "")
        too_few = self.trials is not None and too_few_trials(applied, said=flag)
        if too_few:  # in the flag's words, not as the file's key (a ScenarioError: report-all lists each)
            raise ScenarioError(too_few)
        return applied

    def args(self) -> list[str]:
        """The options to rerun with the same values."""
        out: list[str] = []
        for flag, value in (
            ("--trials", self.trials), ("--seed", self.seed),
            ("--precision", self.precision), ("--max-trials", self.max_trials),
        ):
            if value is not None:
                out += [flag, str(value)]
        for name in self.variants:
            out += ["--variant", name]
        return out


# the words of the command line for the API's checks of a comparison
COMPARE_FLAGS = {"baseline": "--baseline", "metrics": "--metric"}
OUT_FLAG = {"out": "--out"}

Checkpoint = Annotated[
    Optional[Path],
    typer.Option(
        "--checkpoint",
        metavar="FILE",
        help="Save finished chunks to FILE as the run goes; the same command with the same FILE "
        "resumes after an interruption, with the numbers of an uninterrupted run.",
     rich_help_panel="Simulation"),
]


def _as_typed(text: str) -> str:
    """A path argument kept as typed, so that an empty one can be refused: typer would read
    Path("") as the current folder. (Annotated Path, help shows <path>.)"""
    return text


def _typed_path(text: Any, name: str, give: str) -> Path:
    """A path argument kept as typed (:func:`_as_typed`) as a Path; an empty one refused (typer
    would have read it as the current folder, "is a folder")."""
    if not str(text).strip():
        raise InputError(f"{name}: an empty path is not a file; give {give}")
    return Path(text)


def _progress(sc, jobs: Optional[int], quiet: bool, measured: bool = False):
    """Progress over the whole grid's trials, with the up-front estimate of a long run.

    ``measured``: the run starts its workers once it shows more than 1.5 s of work left
    (``run_scenario(..., measured_start=True)``), so a run long enough for the estimate (over a
    minute) runs on every core whatever the scenario's size.
    """
    if quiet:
        return None  # no bar and no estimate (False would have the API warn of a long run)
    from montecarlo.cli.common import ProgressReporter
    from montecarlo.scenarios import scenario_workers

    workers = scenario_workers(sc, -1 if measured and jobs is None else jobs)
    return ProgressReporter(sc.name, workers, sc.precision is not None)


def _game_named(scenario: Path, folders: bool = False) -> Optional[str]:
    """The game ``scenario`` names rather than a file (not a file, a ``.toml`` or a path), else
    None; with ``folders``, a folder of that name (scenarios/imperium) does not hide the game."""
    from montecarlo.registry import canonical_name

    text = str(scenario)
    if (scenario.is_file() if folders else scenario.exists()) or names_a_file(text) or "/" in text:
        return None
    try:
        return canonical_name(text)
    except InputError:  # not a game either: the usual "no such scenario file"
        return None


def _battle_file(scenario: Path) -> Optional[str]:
    """``scenario`` when it is a battle file (rules as data: a game of its own), else None."""
    if not names_a_file(scenario) or not scenario.is_file():
        return None
    import tomllib

    from montecarlo.tomlread import read_text

    try:
        data = tomllib.loads(read_text(scenario, "scenario"))
    except (InputError, tomllib.TOMLDecodeError):
        return None  # the scenario loader says what is wrong with it
    return str(scenario) if "format" in data and "game" not in data else None


def _scenario_file(scenario: Path, command: str) -> Path:
    """``scenario``, unless it names a game rather than a file: then one line that says what
    the command reads and where a game's variants are ("no such scenario file" did not); or a
    folder: then where its scenarios' reports come from (report-all)."""
    if scenario.is_dir():
        raise InputError(
            f"{scenario}: is a folder; {command} reads one .toml scenario file "
            f"(`montecarlo report-all {scenario}` reports every scenario under the folder)"
        )
    game = _game_named(scenario)
    if game is None:
        return scenario
    raise InputError(
        f"{scenario}: a game, not a scenario file: {command} reads a scenario file that names the "
        f"setups and variants (see scenarios/{game.replace('-', '_')}/ and docs/scenarios.md); "
        f"`montecarlo games {game}` lists the game's built-in variants"
    )


@app.command(
    "report", epilog="Examples: montecarlo report scenarios/dune1984/guile-survival.toml --out reports/guile"
)
@cli_errors
def report(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO", parser=_as_typed,
                             help="Scenario file (TOML), see docs/scenarios.md.")
    ],
    trials: Trials = None,  # the panels in odds's order: Simulation, Rules, Output
    seed: Seed = None,
    precision: Precision = None,
    max_trials: MaxTrials = None,
    jobs: Jobs = None,
    backend: Backend = None,
    scheduler: Scheduler = None,
    checkpoint: Checkpoint = None,
    variant: Variants = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Report folder (default: reports/<scenario name>).",
                                     rich_help_panel="Output")
    ] = None,
    as_json: AsJson = False,
    quiet: Quiet = False,
) -> None:
    """Run a scenario and write its report: index.html, report.md, tables (CSV, Parquet), plots.

    --trials, --seed, --precision, --max-trials and --variant replace the scenario's own values;
    the report records the values used and the command that reruns it. --json prints the
    report's facts (report.json) on stdout.
    """
    from montecarlo import api
    from montecarlo.scenarios import load_scenario, start_scenario_workers

    example = "scenarios/dune1984/house-rule-sword.toml"
    scenario = _typed_path(scenario, "SCENARIO", f"a .toml scenario file, e.g. {example}")
    given = Overrides(trials, seed, precision, max_trials, tuple(variant or ()))
    backend_name = given.check(backend, scheduler, jobs)
    sc = given.apply(load_scenario(_scenario_file(scenario, "report")))
    start_scenario_workers(sc, jobs, backend_name)  # their start-up overlaps loading the report's modules
    folder = api.report_folder(sc, out, name=OUT_FLAG.get)  # before any simulation
    api.check_report_checkpoint(folder, checkpoint)
    warn_excess_jobs(jobs, backend_name)
    progress = _progress(sc, jobs, quiet)
    started = time.perf_counter()
    try:
        result = api.report(
            sc, folder, jobs=jobs, progress=progress, backend=backend_name, scheduler=scheduler,
            checkpoint=checkpoint, command=_command(scenario, out, given),
        ).raw
    finally:
        if progress:
            progress.close()
    if as_json:
        facts = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        typer.echo(json.dumps({"folder": str(folder), **facts}))
    elif not quiet:  # the simulation's time and the whole report's (most of the rest is plots)
        whole = time.perf_counter() - started
        typer.echo(f"wrote {folder}/index.html ({len(sc.points)} setups, simulated in "
                   f"{seconds_said(result.seconds)}, report written in {seconds_said(whole)})", err=True)


@app.command("report-all", epilog="Example: montecarlo report-all scenarios --out reports")
@cli_errors
def report_all(
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIRECTORY", parser=_as_typed,
            help="Folder of scenarios: <game>/*.toml (e.g. scenarios).",
        ),
    ],
    trials: Trials = None,  # the panels in odds's order: Simulation, Output
    seed: Seed = None,
    precision: Precision = None,
    max_trials: MaxTrials = None,
    jobs: Jobs = None,
    backend: Backend = None,
    scheduler: Scheduler = None,
    checkpoint: Annotated[
        Optional[str],
        typer.Option(
            "--checkpoint",
            metavar="DIR",
            help="Save finished chunks to DIR/<scenario name>.checkpoint, one file per report; the "
            "same command resumes after an interruption, with the numbers of an uninterrupted run.",
            rich_help_panel="Simulation",
        ),
    ] = None,
    out: Annotated[
        str,
        typer.Option("--out", "-o", metavar="DIR", help="Folder for the reports and their index.html.",
                     rich_help_panel="Output"),
    ] = str(DEFAULT_OUT),
    as_json: AsJson = False,
    quiet: Quiet = False,
) -> None:
    """Run every scenario under DIRECTORY and write OUT/<name>/ for each plus OUT/index.html.

    --trials, --seed, --precision and --max-trials replace every scenario's own values (each
    report records them); variants differ by scenario, so there is no --variant here. --json
    prints the index entries on stdout.
    """

    from montecarlo import api
    from montecarlo.reporting import check_index_out, check_out, write_index
    from montecarlo.scenarios import (
        find_scenarios, load_scenario, name_clashes, start_scenario_workers, too_few_trials,
    )

    given = Overrides(trials, seed, precision, max_trials)
    backend_name = given.check(backend, scheduler, jobs)
    for name, text, example in (
        ("DIRECTORY", str(directory), "scenarios"), ("--out", out, "reports"),
        ("--checkpoint", checkpoint, "runs"),
    ):
        if text is not None and not text.strip():  # "" would be the current folder
            raise InputError(f"{name}: an empty path is not a folder; give a folder, e.g. {example}")
    scenarios_dir, home = Path(directory), Path(out)
    checkpoints = None if checkpoint is None else Path(checkpoint)
    paths = find_scenarios(scenarios_dir)
    if not paths:
        raise ScenarioError(f"{directory}: no scenario files (*.toml or <game>/*.toml; battle files "
                            "are games, not scenarios)")
    with unusable_path(f"--out {out}", "give another folder"):
        same = home.resolve() == scenarios_dir.resolve()
    if same:  # each report keeps a copy as OUT/<name>/scenario.toml: the next run would read them all
        raise InputError(
            f"--out: {out} is the scenarios' folder, where the reports' copies of their scenario.toml "
            "would be read as scenarios next time; give another folder"
        )
    scenarios, errors = [], []
    for path in paths:  # validate everything before running anything
        try:
            scenarios.append(given.apply(load_scenario(path)))
        except ScenarioError as exc:
            errors.append(str(exc))
            continue
        too_few = too_few_trials(scenarios[-1])
        if too_few:  # refused here, not after the reports before it were written
            errors.append(too_few)
    errors += name_clashes(scenarios)
    if errors:
        for line in errors[:-1]:
            typer.echo(f"error: {line}", err=True)
        raise ScenarioError(
            errors[-1] + (f" ({len(errors)} invalid scenario files)" if len(errors) > 1 else "")
        )
    with unusable_path(f"--checkpoint {checkpoint}", "give another folder"):
        if checkpoints is not None and not checkpoints.is_dir():
            problem = (
                "is a file, not a folder" if checkpoints.exists() else "no such folder (create it first)"
            )
            raise InputError(
                f"--checkpoint: {checkpoint}: {problem}; report-all keeps one file per report in it"
            )
    start_scenario_workers(scenarios[0], jobs, backend_name)  # one pool of workers serves every report
    check_index_out(home)  # every destination before any simulation; other files in OUT are kept
    for sc in scenarios:
        check_out(home / sc.name, option=f"--out ({sc.name})")
        if checkpoints is not None:  # every report's file, not each as its report comes
            api.check_report_checkpoint(home / sc.name, checkpoints / f"{sc.name}.checkpoint")
    entries = []  # OUT is made with the first report (and removed with it if that is interrupted)
    started = time.perf_counter()
    warn_excess_jobs(jobs, backend_name)
    talk = not (quiet or as_json)

    for sc in scenarios:
        progress = _progress(sc, jobs, quiet)
        try:
            written = api.report(
                sc, home / sc.name, jobs=jobs, progress=progress, backend=backend_name, scheduler=scheduler,
                checkpoint=None if checkpoints is None else checkpoints / f"{sc.name}.checkpoint",
                command=_command(sc.path, home / sc.name, given),
            )
        finally:
            if progress:
                progress.close()
        folder, result = written.path, written.raw
        facts = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        entries.append(
            {
                "href": f"{sc.name}/index.html",
                "title": sc.title,
                "game": sc.game.title,
                "headline": facts["headline"],
                "summary": _sizes(facts),
            }
        )
        if talk:
            typer.echo(f"wrote {folder}/index.html ({seconds_said(result.seconds)})", err=True)
    write_index(home, entries)
    if as_json:
        typer.echo(json.dumps({"index": str(home / "index.html"), "reports": entries}))
    elif not quiet:
        typer.echo(
            f"wrote {home}/index.html: {len(entries)} report{'s' * (len(entries) != 1)} in "
            f"{time.perf_counter() - started:.0f} s",
            err=True,
        )


@app.command(
    "compare", epilog="Example: montecarlo compare scenarios/imperium/tie-variants.toml --metric tie_first"
)
@cli_errors
def compare(
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO|GAME", parser=_as_typed,
                             help="Scenario file (TOML) with two or more variants, or a game (or battle "
                             "file) with -v VARIANT and --set/--grid.")
    ],
    setting: Annotated[
        Optional[list[str]],
        typer.Option("--set", metavar="FIELD=VALUE", help="With a GAME: a setup field, in the game's "
                     "own terms (repeatable), e.g. --set attacker=4 --set defender=5; a battle file's "
                     "fields not given take its example values."),
    ] = None,
    sweep: Annotated[
        Optional[list[str]],
        typer.Option("--grid", metavar="FIELD=VALUES", help="With a GAME: a setup field swept over values "
                     "(repeatable): 1,2,3 or 1..6, or separated by ; when a value holds a comma."),
    ] = None,
    question: Annotated[
        Optional[str],
        typer.Option("--question", help="With a GAME: the question asked (default: the game's main one)."),
    ] = None,
    trials: Trials = None,  # the panels in odds's order: Simulation, Rules, Output
    seed: Seed = None,
    precision: Precision = None,
    max_trials: MaxTrials = None,
    jobs: Jobs = None,
    backend: Backend = None,
    scheduler: Scheduler = None,
    checkpoint: Checkpoint = None,
    baseline: Annotated[
        Optional[str],
        typer.Option(
            "--baseline", "-b", help="Variant to compare against (default: the scenario's baseline)."
        , rich_help_panel="Rules"),
    ] = None,
    variant: Variants = None,
    house: Annotated[
        Optional[list[str]],
        typer.Option("--rule", metavar="FIELD=VALUE", help="With a GAME: a house rule of your own, a rule "
                     "field and its value (repeatable), compared as the variant 'house', e.g. --rule "
                     "max_dice=4; an unknown field lists the game's.", rich_help_panel="Rules"),
    ] = None,
    metric: Annotated[
        Optional[list[str]],
        typer.Option(
            "--metric", "-m", metavar="NAME",
            help="Show only this metric (repeatable; a distribution shows all its values).",
         rich_help_panel="Output"),
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="Show every difference, not only the significant ones.",
                           rich_help_panel="Output")
    ] = False,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Also write the full report (with forest plot) to this folder.",
                     rich_help_panel="Output"),
    ] = None,
    as_json: AsJson = False,
    quiet: Quiet = False,
) -> None:
    """Compare every variant with the baseline: paired differences, 95% intervals, Holm correction.

    SCENARIO is a scenario file, or a game: then --variant names its house rules to compare with
    the official rules (`montecarlo games GAME` lists them), --rule sets rules of your own (the
    variant 'house'), --set and --grid its setup.
    --trials, --seed, --precision, --max-trials and --variant replace the scenario's own values
    (the JSON and the report record them).

    Examples:

      montecarlo compare scenarios/imperium/tie-variants.toml --metric tie_first

      montecarlo compare dune1984 -v ties_favour_defender --grid attacker=1..6 --set defender=4

      montecarlo compare dune1984 --rule max_dice=4 --grid attacker=1..6 --set defender=4
    """
    from montecarlo import api
    from montecarlo.reporting import check_out, write_report
    from montecarlo.scenarios import load_scenario, local_workers, start_scenario_workers

    scenario = _typed_path(scenario, "SCENARIO|GAME", "a .toml scenario file or a game, e.g. dune1984")
    given = Overrides(trials, seed, precision, max_trials, tuple(variant or ()))
    backend_name = given.check(backend, scheduler, jobs)
    game = _game_named(scenario, folders=True) or _battle_file(scenario)
    if game is not None:
        if baseline is not None:
            raise InputError(
                f"--baseline: compare {scenario} compares each -v variant with the official rules; "
                "a scenario file can name another baseline"
            )
        sc = _game_scenario(game, question, tuple(variant or ()), setting or (), sweep or (), house or ())
        given = dataclasses.replace(given, variants=())  # the scenario holds the -v arms alone
    elif (setting or sweep or question or house) and not scenario.is_file():
        from montecarlo.registry import list_games

        raise InputError(
            f"{scenario}: no such game or scenario file; games: {', '.join(list_games())} (or a battle file)"
        )
    elif setting or sweep or question or house:
        raise InputError(
            "--set, --grid, --question and --rule describe a game's setup and rules (montecarlo compare GAME "
            "-v VARIANT --set FIELD=VALUE); a scenario file names its own setups and variants"
        )
    else:
        sc = load_scenario(_scenario_file(scenario, "compare"))
    api.check_baseline(sc, baseline, name=COMPARE_FLAGS.get)
    sc = given.apply(sc, baseline)
    if variant and len(sc.variants) < 2:  # the file has more: the selection left only the baseline
        raise InputError(
            f"--variant: {', '.join(variant)} leaves only the baseline {baseline or sc.baseline!r} to "
            "compare; name another variant"
        )
    api.check_comparable(sc, metric or (), name=COMPARE_FLAGS.get, where=scenario)
    if jobs is not None or out is not None:  # else the run starts them once it proves long enough
        start_scenario_workers(sc, jobs, backend_name)  # (with --out they also draw the plots)
    if out is not None:
        check_out(out)  # before any simulation
    api.check_report_checkpoint(out, checkpoint)  # before the --jobs warning: a mistake comes alone
    warn_excess_jobs(jobs, backend_name)
    progress = _progress(sc, jobs, quiet, measured=True)
    try:
        compared = api.compare(
            sc, baseline=baseline, jobs=jobs, progress=progress, backend=backend_name, scheduler=scheduler,
            checkpoint=checkpoint,
        )
    except InputError as exc:  # a setup field named as the battle command's option: compare's --set
        if game is not None:
            exc.args = (str(exc).replace("(--harkonnen)", "(--set harkonnen=attacker or defender)"),)
        raise
    finally:
        if progress:
            progress.close()
    result = compared.raw
    assert compared.differences is not None  # two or more variants, checked above
    table = compared.differences.to_polars()
    shown = table
    if metric:
        names = [n for m in metric for n in sc.question.metric(m).reported_names()]
        shown = table.filter(pl.col("metric").is_in(names))
    if as_json:
        typer.echo(json.dumps(_json(result, table, shown, compared.facts), default=str))
    else:
        _print(result, table, shown, show_all, compared.facts)
    if out is not None:  # after the summary: a failed write still leaves the numbers on screen
        rerun = _command(scenario, out, given) if game is None else _game_command(
            game, question, setting or (), sweep or (), out, given, tuple(variant or ()), house or ()
        )
        folder = write_report(result, out, command=rerun, jobs=local_workers(sc, jobs, backend_name))
        if not (quiet or as_json):
            typer.echo(f"wrote {folder}/index.html", err=True)


HOUSE = "house"  # the variant of compare GAME's --rule values


def _game_scenario(game: str, question: Optional[str], variants: tuple[str, ...], settings, sweeps,
                   house=()):
    """``compare GAME``'s scenario: the official rules, each --variant and the --rule values (the
    variant 'house'), on the --set setup swept over the --grid values."""
    from montecarlo import api

    if not variants and not house:
        raise InputError(
            f"compare {game}: name the house rules to compare with the official rules with -v VARIANT "
            f"(montecarlo games {game} lists them) or set rules of your own with --rule FIELD=VALUE, or "
            "give a scenario file"
        )
    setup: dict = {}
    grid: dict = {}
    rules: dict = {}
    notes: list[str] = []  # said once the scenario is built (an error comes alone)
    for text in house:
        field, value = field_value(text, "--rule", "--rule max_dice=4 (a rule field and its value)")
        if field in rules:
            raise InputError(f"--rule {field} is given twice; give each rule once")
        rules[field] = _typed(value)
    if HOUSE in variants and rules:
        raise InputError(f"-v {HOUSE}: the name of the --rule variant; no game has a built-in one by it")
    arms: dict = {"official": {}, **{name: name for name in variants}}
    if rules:
        said = ", ".join(f"{k}={v}" for k, v in rules.items())
        arms[HOUSE] = {"overrides": rules, "description": f"house rule: {said}"}
    for flag, texts, into in (("--set", settings, setup), ("--grid", sweeps, grid)):
        for text in texts:
            field, value = field_value(text, flag, f"{flag} attacker=4")
            if field in into:
                raise InputError(f"{flag} {field} is given twice; give each field once")
            into[field] = _typed(value) if flag == "--set" else _swept(value, field, notes)
    both = sorted(set(setup) & set(grid))
    if both:
        raise InputError(f"--set and --grid both give {both[0]}: fix it with --set or sweep it with --grid")
    if names_a_file(game):  # as `odds FILE.toml`: a field neither set nor swept takes the file's example
        taken = {k: v for k, v in _example(game, question).items() if k not in grid and k not in setup}
        if taken:
            said = ", ".join(f"{k}={v}" for k, v in taken.items())
            notes.append(f"{said}: the example of {game} (--set FIELD=VALUE to change)")
        setup = {**taken, **setup}
    try:
        chosen = arms if rules else list(variants)
        built = api.game_scenario(game, question, variants=chosen, grid=grid or None, **setup)
    except InputError as exc:  # the scenario's words ("compare: setup: ...") as the options typed
        message = _in_options(str(exc))
        if question is None and message.startswith(("--set", "--grid")):
            message += _other_question(game, setup, grid)
        raise InputError(message) from None
    notes += _official_already(built, rules)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    note_variants_outside(built.game, built.question.name, variants)  # its differences are all 0
    return built


def _official_already(built, rules: dict) -> list[str]:
    """A note for each --rule the official rules already have: its difference can only be 0."""
    by_name = {arm.name: arm.rules for arm in built.variants}
    if HOUSE not in by_name:
        return []
    official, house = by_name["official"], by_name[HOUSE]
    same = [f"{k}={v}" for k, v in rules.items() if getattr(official, k) == getattr(house, k)]
    if not same:
        return []
    if len(same) == len(rules):
        return [f"--rule {', '.join(same)}: the official rules already say so; {HOUSE} is the official "
                "rules and every difference will be 0"]
    return [f"--rule {', '.join(same)}: the official rules already say so (the other rules make {HOUSE})"]


def _example(game: str, question: Optional[str]) -> dict:
    """The example setup of a battle file's question, {} where the file or the question is
    wrong (the scenario built next says what is wrong, in the words of the options)."""
    from montecarlo.analysis import resolve

    try:
        return dict(resolve(game, question)[1].example)
    except InputError:
        return {}


def _other_question(game: str, setup: dict, grid: dict) -> str:
    """The hint after a setup refused by the game's first question that another question takes
    at every grid point (``--set attacker=4,2`` is a Dune fight, not a duel), else nothing."""
    import itertools

    from montecarlo.analysis import resolve

    try:
        g, first = resolve(game, None)
    except InputError:
        return ""
    points = [dict(zip(grid, values)) for values in itertools.islice(itertools.product(*grid.values()), 1000)]
    for name, q in g.questions.items():
        if name != first.name:
            try:
                for point in points:
                    q.setup({**setup, **point})
            except (MonteCarloError, TypeError, ValueError):
                continue
            return f" (for the question {first.name}; --question {name} takes this setup)"
    return ""


def _in_options(message: str) -> str:
    """A scenario's error in the words of ``compare GAME``'s options.

    >>> _in_options("compare: setup: duel setup: attacker is required (a Strength)")
    '--set: duel setup: attacker is required (a Strength)'
    >>> _in_options("compare: variants.nope.builtin: unknown variant 'nope'")
    "-v nope: unknown variant 'nope'"
    >>> _in_options("compare: variants.best_play: best play: ...")
    '-v best_play: best play: ...'
    >>> _in_options("compare: grid point defender=9: defender must be ...")
    '--grid defender=9: defender must be ...'
    >>> _in_options("compare: variants.house, grid point attackers=45: risk.toml: under the rules ...")
    '--rule at --grid attackers=45: risk.toml: under the rules ...'
    >>> _in_options("compare: variants.flat, setup: risk.toml: under the rules ...")
    '-v flat: risk.toml: under the rules ...'
    """
    where = re.match(r"^compare: variants\.(.+?), (grid point [^:]*|setup): ", message)
    if where:  # rules of a variant (or --rule) that one setup cannot be played under
        name, at = where.groups()
        at = "" if at == "setup" else " at --grid " + at.removeprefix("grid point ")
        return ("--rule" if name == HOUSE else f"-v {name}") + f"{at}: " + message[where.end():]
    message = re.sub(rf"^compare: variants\.{HOUSE}(\.overrides)?: ", "--rule: ", message)
    message = re.sub(r"^compare: variants\.(.*?)(\.builtin)?: ", r"-v \1: ", message)
    message = re.sub(r"^compare: grid point ", "--grid ", message)
    message = re.sub(r"^compare: grid\.(\w+): ", r"--grid \1: ", message)
    for said, flag in (("setup", "--set"), ("question", "--question"), ("grid", "--grid")):
        message = message.replace(f"compare: {said}: ", f"{flag}: ", 1)
    return message


def _typed(text: str):
    """A value typed on the command line as a scenario file would hold it: a whole number, a
    number, true or false, whole numbers separated by commas as a list (a fight's Strengths, the
    sums of an investment), else the text (a legion, names separated by commas).

    >>> _typed("4"), _typed("0.5"), _typed("True"), _typed("3,11"), _typed("4 regular, bashar")
    (4, 0.5, True, [3, 11], '4 regular, bashar')
    """
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"\s*-?\d+(\s*,\s*-?\d+)+\s*", text):
        return [int(part) for part in text.split(",")]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


MAX_RANGE = 10_000  # values of one --grid range (a grid of millions is refused later, but slowly)


def _swept(text: str, field: str, notes: list[str]) -> list:
    """--grid's values: A..B (whole numbers), else separated by ';' when one holds a comma (a
    legion), else by ','. A note for the user (legions split at their commas) goes to ``notes``.

    >>> _swept("1..3", "a", []), _swept("3 regular; 4 regular, bashar", "a", []), _swept("0,1", "a", [])
    ([1, 2, 3], ['3 regular', '4 regular, bashar'], [0, 1])
    """
    span = whole_range(text, f"--grid {field}", MAX_RANGE)
    if span is not None:
        return span
    items = [item.strip() for item in text.split(";" if ";" in text else ",")]
    if not all(items):
        raise InputError(f"--grid {field}={text}: an empty value; separate values by single commas (or ;)")
    values = [_typed(item) for item in items]
    counted = [v for v in values if isinstance(v, str) and re.match(r"\d+ \w", v)]  # "4 regular": a legion's
    if ";" not in text and len(items) > 1 and counted:
        # "4 regular, 1 elite" is two legions here, where the user may have meant one of two kinds
        shown = ", ".join(repr(item) for item in items)
        notes.append(
            f"--grid {field} sweeps {len(items)} values, {shown}; to sweep values that hold commas, "
            f"separate them by ; (--grid \"{field}=4 regular, 1 elite; 5 regular\")"
        )
    return values


def _game_command(game: str, question: Optional[str], settings, sweeps, out: Optional[Path],
                  given: Overrides, variants=(), house=()) -> str:
    """The command that reruns ``compare GAME`` (its report's rerun line)."""
    parts = ["montecarlo", "compare", game]
    parts += ["--question", question] if question else []
    for flag, texts in (("--set", settings), ("--grid", sweeps), ("--rule", house)):
        for text in texts:
            parts += [flag, text]
    parts += ["--out", str(out)] if out is not None else []
    return shlex.join(parts + given.args() + [arg for name in variants for arg in ("--variant", name)])


def _json(result, table: pl.DataFrame, shown: pl.DataFrame, facts: dict) -> dict:
    """compare --json; ``facts``: the API's facts of the run (its precision facts are reused)."""
    sc = result.scenario
    from montecarlo.games.base import to_plain
    from montecarlo.reporting.tables import IDENTICAL, NOT_APPLICABLE, TESTED

    grid = list(sc.grid)
    rows = [{"setup": {k: row.pop(k) for k in grid}, **row} for row in shown.to_dicts()]
    status = table["status"]
    return {
        "scenario": sc.name,
        "game": sc.game.name,
        "question": sc.question.name,
        "seed": sc.seed,
        "trials": sc.trials,  # the scenario's: a precision run's first batch
        "trials_min": min(table["trials"].to_list()),  # what ran, per setup, as report.json says
        "trials_max": max(table["trials"].to_list()),
        "fixed_setup": {k: to_plain(v) for k, v in sc.setup.items()},  # beside each row's grid values
        "baseline": result.baseline,
        "variants": [v.name for v in result.variants],
        "rules": {v.name: to_plain(v.rules) for v in result.variants},
        "common_random_numbers": True,
        "correction": "holm",
        "alpha": 0.05,
        "tests": int((status == TESTED).sum()),
        "significant": int(table["significant"].fill_null(False).sum()),
        "identical": int((status == IDENTICAL).sum()),
        "not_applicable": int((status == NOT_APPLICABLE).sum()),
        "precision": sc.precision,
        **{key: facts[key] for key in PRECISION_FACTS if key in facts},  # a precision run's only
        "version": result.version,
        "rows": rows,
    }


def _sizes(facts: dict) -> str:
    """``"108 setups × 4 variants, 20,000–60,000 trials each; 12 of 46 tests significant"``."""
    lo, hi = facts["trials_min"], facts["trials_max"]
    text = (
        f"{facts['setups']} setup{'s' * (facts['setups'] != 1)} × {len(facts['variants'])} "
        f"variant{'s' * (len(facts['variants']) != 1)}, {lo:,}{f'–{hi:,}' if hi != lo else ''} "
        "trials each"
    )
    if "tests" in facts:
        text += f"; {facts['significant']} of {facts['tests']} tests significant (Holm)"
    return text


WIDTH = 100  # the summary written to a file or a pipe is at least this wide
# below this many trials a setup, a paired difference's t interval and p-value cannot be trusted: the
# mean of a few 0/1 differences is far from normal, and a difference seen on every trial has no spread
# (5 trials flagged an Imperium difference significant whose exact value lay outside its interval)
FEW_TRIALS = 30


# what the API's facts of a precision run add (montecarlo.reporting.tables.precision_facts)
PRECISION_FACTS = ("precision_reached", "widest_half_width")


def _print(result, table: pl.DataFrame, shown: pl.DataFrame, show_all: bool, facts: dict) -> None:
    from rich.table import Table

    from montecarlo.reporting.report import fmt_p
    from montecarlo.reporting.tables import comparison_summary, fmt, holm_line

    sc = result.scenario
    console = stdout_console(piped_width=WIDTH)
    ran = table["trials"].to_list()
    low, high = min(ran), max(ran)
    span = f"{low:,}" if low == high else f"{low:,}–{high:,}"
    caption = (
        f"{span} trials per setup, seed {sc.seed}; every variant plays the same dice as the baseline, "
        f"trial by trial (common random numbers); significant at 5% after Holm's correction for the "
        f"number of tests: {holm_line(table)}"
    )
    if low < FEW_TRIALS:  # the t interval assumes a roughly normal mean: a few dozen trials
        caption += (
            f"; fewer than {FEW_TRIALS} trials a setup: the intervals and p-values assume a roughly normal "
            "mean, run more trials before trusting a significant difference"
        )
    if sc.precision:  # whether the trials added reached the target, as the report's header says
        widest = facts["widest_half_width"]  # the setup that has it hit the cap: the most trials
        verdict = "reached" if facts["precision_reached"] else not_reached(high, widest, sc.precision)
        caption += f"; precision ±{sc.precision:g} {verdict}, widest half-width {widest:.2g}"
    caption += "; the diffs are exact where every setup has an exact value (from), else the trials'"
    summary = Table(title=f"{sc.title}: variants − {result.baseline}", caption=caption)
    columns = ("variant", "metric", "significant", "identical", "n/a")
    for col in (*columns, "min diff", "mean diff", "max diff", "from"):
        left = col in ("variant", "metric")
        # a terminal too narrow for the whole table folds the names onto a second line rather
        # than cutting them into look-alikes; a wide one shows them whole
        summary.add_column(
            col,
            justify="left" if left else "right",
            overflow="fold",
            no_wrap=not left,
            min_width=5 if left else None,
        )
    lines = []
    # a metric that applies to no setup (an objective nobody asked for) has nothing to show;
    # the caption counts it among the not applicable
    summed = comparison_summary(shown).filter((pl.col("tests") > 0) | (pl.col("identical") > 0))
    for row in summed.iter_rows(named=True):
        low, mean, high = (fmt(row[f"{k}_difference"], 4, signed=True) for k in ("min", "mean", "max"))
        counts = (f"{row['significant']} of {row['tests']}", str(row["identical"]),
                  str(row["not_applicable"]))
        source = "exact" if row["exact"] else "trials"
        summary.add_row(row["variant"], row["metric"], *counts, low, mean, high, source)
        lines.append(
            f"{row['variant']}, {row['metric']}: {counts[0]} significant, {counts[1]} identical, "
            f"{counts[2]} n/a; difference {low} to {high}, mean {mean} ({source})"
        )
    if not console.is_terminal or fits_whole(console, summary):  # piped: names whole, however wide
        print_whole(console, summary)
    else:  # a terminal narrower than the table: one row a line rather than a frame broken by folds
        text = "\n".join((str(summary.title), *(f"  {line}" for line in lines), caption))
        console.print(wrapped(text, console.width), markup=False, highlight=False)
    rows = shown if show_all else shown.filter(pl.col("significant").fill_null(False))
    rest = shown.height - rows.height
    if rows.height == 0:
        tested = int((shown["status"] == "tested").sum())  # identical and n/a rows test nothing
        console.print(f"No significant differences in the {tested} tests of the {shown.height} rows shown "
                      "(use --all to list them).")
        return
    grid = list(sc.grid)
    variants = rows["variant"].unique(maintain_order=True).to_list()
    # each variant its share of the rows: one with many rows left none to the variants after it
    limit = rows.height if show_all else max(MAX_ROWS // len(variants), MIN_ROWS_PER_VARIANT)
    hidden: dict[str, int] = {}
    for variant in variants:
        part = rows.filter(pl.col("variant") == variant)
        if part.height > limit:
            hidden[variant] = part.height - limit
        title = f"{variant} − {result.baseline}" + ("" if show_all else ": significant after Holm")
        detail = Table(title=title, title_justify="left")
        for col in ("setup", "metric", "baseline", "variant", "difference [95% CI]", "exact diff", "Holm p"):
            left = col in ("setup", "metric")
            detail.add_column(
                col, justify="left" if left else "right", overflow="fold", min_width=6 if left else None
            )
        for row in part.head(limit).iter_rows(named=True):
            if row["status"] != "tested":
                diff, p = row["status"], "—"
            else:
                diff = (
                    f"{fmt(row['difference'], 4, True)} "
                    f"[{fmt(row['ci_low'], 4, True)}, {fmt(row['ci_high'], 4, True)}]"
                )
                p = fmt_p(row["p_holm"]) + ("*" if row["significant"] else "")  # as the report writes it
            detail.add_row(
                ", ".join(f"{g}={row[g]}" for g in grid) or "—",
                row["metric"],
                fmt(row["baseline_estimate"], 4),
                fmt(row["variant_estimate"], 4),
                diff,
                fmt(row["exact_difference"], 4, True),
                p,
            )
        print_whole(console, detail)
    notes = ["* significant after Holm"]
    if hidden:
        each = ", ".join(f"{n} of {v}" for v, n in hidden.items())
        notes.append(f"{sum(hidden.values())} more significant rows not shown ({each})")
    if rest and not show_all:
        notes.append(f"{rest} not significant, identical or n/a not shown")
    more = " (use --all, or --json / --out for everything)." if len(notes) > 1 else "."
    console.print("; ".join(notes) + more)


def _command(scenario: Path, out: Optional[Path], given: Optional[Overrides] = None) -> str:
    parts = ["montecarlo", "report", str(scenario)]
    if out is not None:
        parts += ["--out", str(out)]
    return shlex.join(parts + (given.args() if given else []))
