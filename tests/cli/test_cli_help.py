"""Help that tells the truth: defaults that are used, the game's variants, no type placeholders,
one meaning per short flag across every game, and tables that fit 80 columns."""

from __future__ import annotations

import json
import re

import click
import pytest
from typer.testing import CliRunner

from montecarlo import registry
from montecarlo.cli import app
from tests.cli.helpers import assert_rows_agree
from tests.cli.test_cli_examples import all_commands, leaf_commands

runner = CliRunner()


def help_of(path: str) -> str:
    result = runner.invoke(app, [*path.split()[1:], "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, (path, result.output)
    return result.stdout


def test_no_type_placeholders_in_any_help():
    for path, _ in all_commands():
        text = help_of(path)
        assert "<bool>" not in text and "<list[" not in text and "<Path>" not in text, path
        # an option's value is named (NAME, N, AREA), not typed: <str>... stays for a list argument
        assert "<int range>" not in text, path
        assert "<str>..." not in text[text.find("─ Options"):], path  # the panels after the arguments


def test_the_folder_of_report_all_is_a_path_as_reports_scenario():
    """report-all's DIRECTORY showed <str> where report's SCENARIO shows <path>."""
    for path, name in (("montecarlo report", "SCENARIO"), ("montecarlo report-all", "DIRECTORY")):
        assert re.search(rf"{name} +<path>", help_of(path)), path


def test_short_flags_mean_one_thing_across_games():
    meaning: dict[str, set[str]] = {}
    for _path, cmd in leaf_commands():
        for param in cmd.params:
            longs = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
            for short in (o for o in getattr(param, "opts", ()) if len(o) == 2):
                meaning.setdefault(short, set()).update(longs)
    clashes = {short: longs for short, longs in meaning.items() if len(longs) > 1}
    assert not clashes, clashes
    assert meaning["-d"] == {"--defender"} and meaning["-a"] == {"--attacker"}


def test_table_help_shows_the_trials_it_uses():
    text = help_of("montecarlo table dune1984")
    assert "[default: 50000]" in text and "200000" not in text
    data = json.loads(runner.invoke(app, ["table", "dune1984", "--metric", "rounds", "--json"]).stdout)
    assert data["trials"] == 50_000
    assert "[default: 200000]" in help_of("montecarlo odds dune1984")


@pytest.mark.parametrize("game", ["dune1984", "imperium", "war-for-arrakis"])
def test_variant_help_lists_the_variants_that_change_the_commands_question(game):
    """Each command's --variant help (and completion) names exactly the variants that can change its
    question: a duel's leaves out best_play (a duel refuses it), a movement roll's names none."""
    found = registry.get_game(game)
    seen = set()
    for path, cmd in leaf_commands():
        if path.split()[1:2] != [game] and path.split()[1:3] not in (["odds", game], ["table", game]):
            continue
        option = next((p for p in cmd.params if p.name == "variant"), None)
        if option is None:
            continue
        question = cmd.callback.question  # every game command with --variant says what it asks
        seen.add(question)
        takes = cmd.callback.takes or (lambda overrides: True)  # advise: not the policy it solves for
        fit = [name for name in found.variants_for(question) if takes(found.variants[name])]
        named = [name for name in found.variants if re.search(rf"\b{name}\b", option.help)]
        assert named == list(fit), (path, named)
        assert [c.value for c in option.shell_complete(None, "")] == list(fit), path
    assert seen == set(found.questions), seen
    assert "best_play" not in help_of("montecarlo odds dune1984")
    reach = " ".join(help_of("montecarlo dune1984 reach").split())
    assert "none of dune1984's variants changes reach" in reach


@pytest.mark.parametrize(
    "command",
    [
        ["dune1984", "advise", "-a", "3,2", "-d", "4"],
        ["war-for-arrakis", "advise", "-a", "3 regular", "-d", "2 regular"],
    ],
)
def test_advise_help_lists_the_variants_it_takes_and_refuses_the_others(command):
    """advise solves one side's choice: its help leaves out the variants that set that choice (and
    War for Arrakis' defender's best play); each left out is refused, each listed runs."""
    game = registry.get_game(command[0])
    cmd = next(c for path, c in leaf_commands() if path == f"montecarlo {command[0]} advise")
    option = next(p for p in cmd.params if p.name == "variant")
    listed = [c.value for c in option.shell_complete(None, "")]
    left_out = [v for v in game.variants_for(cmd.callback.question) if v not in listed]
    assert left_out and listed
    for name in left_out:
        result = runner.invoke(app, [*command, "-v", name])
        assert result.exit_code == 2 and f"-v {name}" in result.output, (name, result.output)
    for name in listed:
        result = runner.invoke(app, [*command, "-v", name, "--json"])
        assert result.exit_code == 0, (name, result.output)


def test_scheduler_and_backend_help_say_what_happens():
    text = " ".join(help_of("montecarlo odds dune1984").split())
    assert "selects --backend dask" in text and "Refused with another --backend" in text


@pytest.mark.parametrize(
    "args",
    [
        [
            "odds",
            "dune1984",
            "-a",
            "Paul",
            "-d",
            "Feyd",
            "--attacker-equipment",
            "sword,gom-jabbar",
            "-n",
            "20000",
        ],
        ["dune1984", "fight", "-a", "4,3", "-d", "5", "-n", "20000"],
        ["odds", "imperium", "--troops", "3,2,2,1", "--conflict", "skirmish", "-n", "20000"],
        ["dune1984", "guile", "--guile", "3", "--spice", "3", "-n", "20000"],
        ["dune1984", "invest", "--sums", "3,11", "--payout", "2", "-n", "20000"],
    ],
)
def test_odds_tables_fit_80_columns_with_whole_metric_names(args):
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    widths = [len(line) for line in result.stdout.splitlines()]
    assert max(widths) <= 80, max(widths)
    rows = assert_rows_agree(result.stdout, at_least=2)
    game, question = (
        (args[1], "duel")
        if args[0] == "odds" and args[1] == "dune1984"
        else (("imperium", "conflict") if args[1] == "imperium" else ("dune1984", args[1]))
    )
    known = set(registry.get_game(game).question(question).reported_names())
    assert set(rows) <= known  # never a truncated or look-alike label


def test_the_duel_table_fits_80_columns():
    result = runner.invoke(app, ["table", "dune1984", "-n", "2000"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_every_help_ends_with_a_working_example():
    for path, _ in leaf_commands():
        lines = [line.strip() for line in help_of(path).splitlines() if line.strip()]
        assert "montecarlo " in lines[-1], (path, lines[-1])


def test_every_run_option_is_listed_with_its_help_under_its_panel():
    """The shared run options (trials, seed, jobs, ...) each appear once, with their own help,
    in the panel they belong to (Simulation, Output, ...), in every command that takes them."""
    import re
    import typing

    from montecarlo.cli import common

    result = runner.invoke(app, ["odds", "dune1984", "--help"], env={"COLUMNS": "400"})
    panel, where = None, {}
    for line in result.stdout.splitlines():
        title = re.match(r"\s*╭─ (.+?) ─", line)
        if title:
            panel = title.group(1)
            continue
        flag = re.match(r"│\s*(?:\*\s+)?(--[\w-]+)\s+(.*?)\s*│?$", line)
        if flag:
            where[flag.group(1)] = (panel, flag.group(2))
    checked = 0
    for hint, _default in common._options(1000).values():
        info = typing.get_args(hint)[1]
        # under Annotated, typer keeps an option's first name where its default would go
        name = next(d for d in (info.default, *info.param_decls) if str(d).startswith("--"))
        if name not in where:
            continue  # an option this command does not take
        panel, text = where[name]
        assert panel == info.rich_help_panel, (name, panel)
        shorts = [d for d in (info.default, *info.param_decls) if re.fullmatch(r"-\w", str(d))]
        assert all(re.search(rf"(^|\s){s}\s", text) for s in shorts), (name, shorts, text)
        if info.metavar:
            assert re.search(rf"(^|\s){info.metavar}\s", text), (name, info.metavar, text)
        if name != "--variant":  # each game lists its own variants there (tested above)
            assert info.help and info.help in text, (name, text)
        checked += 1
    assert checked >= 8 and where["--trials"][0] == "Simulation"
    # the short names and placeholders users type and read
    typed = {"--trials": "-n ", "--seed": "-s ", "--jobs": "-j ", "--variant": "-v ", "--quiet": "-q "}
    for name, start in typed.items():
        assert where[name][1].startswith(start), (name, where[name])
    metavars = {"--jobs": "N", "--precision": "H", "--scheduler": "ADDRESS", "--checkpoint": "FILE"}
    for name, metavar in metavars.items():
        assert re.match(rf"(-\w\s+)?{metavar}\s", where[name][1]), (name, where[name])


def test_the_run_options_say_what_they_do_in_every_commands_help():
    text = " ".join(runner.invoke(app, ["odds", "dune1984", "--help"], env={"COLUMNS": "200"}).output.split())
    for said in ("Number of simulated trials (with --precision: the first batch).",
                 "Cap on trials with --precision (default 10,000,000, or --trials if larger)."):
        assert re.search(rf"(^|\s){re.escape(said)}(\s|$)", text), said  # the whole text, nothing added


def test_each_run_option_is_spelt_as_its_parameter_with_its_short_name():
    import typing

    from montecarlo.cli import common

    spelt = {}
    for key, (hint, _default) in common._options(1000).items():
        info = typing.get_args(hint)[1]  # under Annotated, typer keeps the first name as the default
        spelt[key] = (info.default, *info.param_decls)
        assert info.default == common.flag_of(key), (key, spelt[key])
    shorts = {key: names[1] for key, names in spelt.items() if len(names) > 1}
    assert shorts == {"trials": "-n", "seed": "-s", "jobs": "-j", "variant": "-v", "quiet": "-q"}
    assert list(spelt) == ["trials", "seed", "jobs", "precision", "max_trials", "variant", "json", "quiet",
                           "backend", "scheduler", "checkpoint"]


def _description(text: str) -> list[list[str]]:
    """The paragraphs (lists of lines) of a rendered help between its usage line and its first panel."""
    lines = text.split("╭", 1)[0].splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:")) + 1
    paragraphs: list[list[str]] = [[]]
    for line in lines[start:]:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    return [p for p in paragraphs if p]


def test_every_help_description_fills_an_80_column_terminal():
    """Each line of a description is as long as the next line's first word lets it be: a docstring's
    own line breaks would leave ragged half-lines on a terminal narrower than the source."""
    for path, _ in all_commands():
        result = runner.invoke(app, [*path.split()[1:], "--help"], env={"COLUMNS": "80"})
        for paragraph in _description(result.stdout):
            for line, after in zip(paragraph, paragraph[1:]):
                assert len(line) + 1 + len(after.split()[0]) > 79, (path, line, after)


def test_odds_and_table_list_what_they_answer_for_each_game():
    """`odds --help` said dune1984 answers "duels and fights, Guile checks, movement reach,
    investments", but `odds dune1984` is the duel alone: each game with an odds (or table)
    command says what that command answers (ODDS_SUMMARY, TABLE_SUMMARY), read without importing it."""
    from montecarlo import cli

    odds, table = " ".join(help_of("montecarlo odds").split()), " ".join(help_of("montecarlo table").split())
    for game, module in cli.game_cli_modules().items():
        _, has_table, texts = cli._source_facts(module)
        assert "ODDS_SUMMARY" in texts, module  # every game CLI module has an odds command
        assert " ".join(texts["ODDS_SUMMARY"].split()[:4]) in odds, game
        if has_table:
            assert " ".join(texts["TABLE_SUMMARY"].split()[:4]) in table, game
    assert "one duel of two characters" in odds and "Guile checks" not in odds


PANEL_OF = {
    **dict.fromkeys(
        ("trials", "seed", "jobs", "precision", "max_trials", "backend", "scheduler", "checkpoint"),
        "Simulation",
    ),
    **dict.fromkeys(("variant", "baseline", "house"), "Rules"),
    **dict.fromkeys(("json", "json_out", "as_json", "quiet", "out"), "Output"),
}


def test_every_commands_options_sit_in_the_same_panels_in_the_same_order():
    """A run's options under "Simulation", house rules under "Rules", what is printed or written
    under "Output", in that order, in every command's help: report, report-all and compare had
    them among "Options" (and --quiet alone under Output), advise and need had no Rules panel."""
    order = ["Simulation", "Rules", "Output"]
    for path, cmd in leaf_commands():
        panels = []
        for param in cmd.params:
            if isinstance(param, click.Option) and param.name in PANEL_OF:
                assert param.rich_help_panel == PANEL_OF[param.name], (path, param.name)
            if param.rich_help_panel in order and param.rich_help_panel not in panels:
                panels.append(param.rich_help_panel)
        assert panels == sorted(panels, key=order.index), (path, panels)
