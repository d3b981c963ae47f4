"""RunSettings checks every run option once; the runner, the CLI and scenarios trust it."""

import dataclasses
import os

import numpy as np
import pytest

from montecarlo.analysis import RunSettings, SettingError
from montecarlo.engine import runner
from montecarlo.engine.metrics import Metric

TOO_MANY = "at most 1,000,000,000,000,000 (about a year of simulation per arm)"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(trials=0), "trials must be a positive integer, got 0"),
        (dict(trials=-5), "trials must be a positive integer, got -5"),
        (dict(trials=2.5), "trials must be a positive integer, got 2.5"),
        (dict(trials=True), "trials must be a positive integer, got True"),
        (dict(trials=10**30), f"trials must be {TOO_MANY}, got {10**30:,}"),
        (dict(seed=-1), "seed must be a non-negative integer, got -1"),
        (dict(jobs=0), "jobs must be a positive number of workers, or -1 for all cores, got 0"),
        (dict(jobs=-2), "jobs must be a positive number of workers, or -1 for all cores, got -2"),
        (dict(jobs=1.5), "jobs must be a positive number of workers, or -1 for all cores, got 1.5"),
        (dict(backend="mpi"), "backend must be one of loky, threading, dask, got 'mpi'"),
        (dict(precision=0.0), "precision must be a half-width between 0 and 0.5, got 0.0"),
        (dict(precision=0.5), "precision must be a half-width between 0 and 0.5, got 0.5"),
        (dict(precision="0.1"), "precision must be a half-width between 0 and 0.5, got '0.1'"),
        (dict(precision=float("nan")), "precision must be a half-width between 0 and 0.5, got nan"),
        (dict(precision=0.01, max_trials=0), "max_trials must be a positive integer, got 0"),
        (dict(precision=0.01, max_trials=10**30), f"max_trials must be {TOO_MANY}, got {10**30:,}"),
        (dict(chunk_size=0), "chunk_size must be a positive integer, got 0"),
        (dict(progress=True), "progress must be a function progress(done, total), or None, got True"),
        (
            dict(chunk_size=runner.MAX_TRIALS + 1),
            f"chunk_size must be {TOO_MANY}, got 1,000,000,000,000,001",
        ),
    ],
)
def test_bad_settings_say_what_is_wrong(kwargs, message):
    with pytest.raises(SettingError) as info:
        RunSettings(**kwargs)
    assert str(info.value) == message
    assert info.value.key == next(iter(kwargs.keys() - {"precision"}), "precision")


@pytest.mark.parametrize(
    "kwargs, key, message",
    [
        (dict(backend="dask", scheduler="tcp://x:1:2"), "scheduler",
         "scheduler must be a Dask scheduler address such as tcp://HOST:8786, got 'tcp://x:1:2'"),
        (dict(backend="dask", scheduler="  "), "scheduler",
         "scheduler must be a Dask scheduler address such as tcp://HOST:8786, got '  '"),
        (dict(backend="dask", scheduler=8786), "scheduler",
         "scheduler must be a Dask scheduler address such as tcp://HOST:8786, got 8,786"),
        (dict(scheduler="tcp://127.0.0.1:8786"), "backend",  # loky would run locally, silently
         "backend must be dask with a scheduler (the address of a Dask cluster), got 'loky'"),
        (dict(backend="threading", scheduler="tcp://127.0.0.1:8786"), "backend",
         "backend must be dask with a scheduler (the address of a Dask cluster), got 'threading'"),
    ],
)
def test_a_scheduler_is_an_address_used_with_dask(kwargs, key, message):
    with pytest.raises(SettingError) as info:
        RunSettings(**kwargs)
    assert (info.value.key, str(info.value)) == (key, message)


def test_a_pasted_schedulers_spaces_are_stripped_before_dask_reads_them():
    settings = RunSettings(backend="dask", scheduler=" tcp://127.0.0.1:8786\n")
    assert settings.scheduler == "tcp://127.0.0.1:8786"
    assert RunSettings(backend="dask").scheduler is None  # dask without one: a local cluster


def test_good_settings_at_their_bounds():
    assert RunSettings(trials=runner.MAX_TRIALS, chunk_size=1).trials == runner.MAX_TRIALS
    assert RunSettings(trials=np.int64(7), seed=np.uint32(5), jobs=-1).resolved_jobs() >= 1
    assert RunSettings(trials=1, precision=0.001, max_trials=1).max_trials == 1
    assert RunSettings(seed=0, jobs=1).seed == 0  # seed 0 and one worker are valid


def test_numpy_integers_are_kept_as_python_integers():
    """A report's header did ``"s" * (jobs != 1)``: with numpy's int64 that is a numpy bool, and
    the run's end was a TypeError."""
    settings = RunSettings(trials=np.int64(7), seed=np.uint32(5), jobs=np.int32(2), precision=0.1,
                           max_trials=np.int64(9), chunk_size=np.int16(3))
    for key in ("trials", "seed", "jobs", "max_trials", "chunk_size"):
        assert type(getattr(settings, key)) is int, key
    assert (settings.trials, settings.seed, settings.jobs, settings.max_trials) == (7, 5, 2, 9)


def test_a_cap_without_precision_or_below_the_first_batch_is_refused():
    """It was silently ignored (no precision) or cut the run below the trials asked for."""
    with pytest.raises(SettingError) as err:
        RunSettings(trials=2000, max_trials=5000)
    assert str(err.value) == (
        "max_trials must be given only with precision, whose run it caps (set trials instead), got 5,000"
    )
    with pytest.raises(SettingError) as err:
        RunSettings(trials=2000, precision=0.01, max_trials=1000)
    assert str(err.value) == "max_trials must be at least the first batch of trials (2,000), got 1,000"
    assert RunSettings(trials=2000, precision=0.01, max_trials=2000).max_trials == 2000


@pytest.mark.parametrize(
    "cores, settings, workers",
    [
        (4, dict(jobs=3), 3),
        (4, dict(jobs=9), 4),  # never more workers than cores
        (4, dict(jobs=-1), 4),
        (4, dict(jobs=1, trials=10**7), 1),
        (4, dict(trials=100), 4),  # by default at most all cores, started once the run proves long
        (4, dict(trials=100, precision=0.01), 4),
        (None, dict(jobs=-1), 1),  # cores unknown: one
        (None, dict(trials=10**7), 1),
    ],
)
def test_workers_resolved_from_jobs_trials_and_cores(monkeypatch, cores, settings, workers):
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert RunSettings(**settings).resolved_jobs() == workers


def test_by_default_the_run_decides_when_to_start_workers_and_a_command_does_not_start_them_early(
    monkeypatch,
):
    """jobs=None: the runner is told ``auto`` (it starts the workers once the run proves long
    enough); a number of jobs is followed as given, and the workers started as soon as asked."""
    import functools

    from montecarlo.engine import runner
    from tests.engine.fake_kernels import METRICS, coin

    told, started = [], []
    real = runner.run_grid
    monkeypatch.setattr(runner, "run_grid", lambda *a, **k: told.append(k["auto"]) or real(*a, **k))
    monkeypatch.setattr(runner, "start_workers", lambda *a: started.append(a))
    for jobs in (None, 1, 2):
        settings = RunSettings(trials=10, jobs=jobs)
        settings.run(functools.partial(coin, 0.5), METRICS)
        settings.start_workers(["m"])
    assert told == [True, False, False]
    assert [a[0] for a in started] == [1, min(2, os.cpu_count() or 1)]


def test_a_front_end_names_the_setting_its_own_way():
    with pytest.raises(SettingError) as info:
        RunSettings(max_trials=-3, precision=0.1)
    assert info.value.named("--max-trials") == "--max-trials must be a positive integer, got -3"


def test_a_comparisons_checkpoint_is_refused_when_an_arms_rules_changed(tmp_path):
    """The run's identity in a checkpoint holds each arm's rules, not only its label: the same
    labels with other rules are another run, refused in one line, the file left as it was."""
    from montecarlo.analysis import compare_many
    from montecarlo.errors import InputError
    from montecarlo.games.dune1984.rules import Rules

    path = tmp_path / "c.json"
    settings = RunSettings(trials=2_000, seed=5, checkpoint=path)
    setup = [{"attacker": 4, "defender": 5}]
    compare_many("dune1984", "duel", setup, [("official", Rules()), ("house", Rules(ties="defender"))],
                 settings)
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        compare_many("dune1984", "duel", setup, [("official", Rules()), ("house", Rules(ties="reroll"))],
                     settings)
    assert "\n" not in str(err.value) and "written by another run" in str(err.value)
    assert path.read_bytes() == before
    with pytest.raises(InputError) as err:  # the same arms on another setup: another run too
        compare_many("dune1984", "duel", [{"attacker": 4, "defender": 6}],
                     [("official", Rules()), ("house", Rules(ties="defender"))], settings)
    assert "written by another run" in str(err.value) and path.read_bytes() == before


def test_an_asks_checkpoint_is_refused_when_the_rules_overridden_changed(tmp_path):
    """The same game, question, variants and setups under other overrides is another run."""
    from montecarlo.analysis import ask_many
    from montecarlo.errors import InputError

    path = tmp_path / "a.json"
    settings = RunSettings(trials=2_000, seed=5, checkpoint=path)
    setup = [{"attacker": 4, "defender": 5}]
    (answer,) = ask_many("dune1984", "duel", setup, overrides={"ties": "defender"}, settings=settings)
    assert isinstance(answer.seconds, float) and answer.seconds >= 0  # the run's time, for the footer
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        ask_many("dune1984", "duel", setup, overrides={"ties": "reroll"}, settings=settings)
    assert "\n" not in str(err.value) and "written by another run" in str(err.value)
    assert path.read_bytes() == before
    with pytest.raises(InputError) as err:  # the same overrides on another setup: another run too
        ask_many("dune1984", "duel", [{"attacker": 4, "defender": 6}], overrides={"ties": "defender"},
                 settings=settings)
    assert "written by another run" in str(err.value) and path.read_bytes() == before


def test_a_comparison_and_its_answers_say_what_they_are_of():
    from montecarlo.analysis import compare_many
    from montecarlo.games.dune1984.rules import Rules

    arms = [("official", Rules()), ("house", Rules(ties="defender"))]
    settings = RunSettings(trials=2_000, seed=5)
    (comparison,) = compare_many("dune1984", "duel", [{"attacker": 4, "defender": 5}], arms, settings)
    assert (comparison.game, comparison.question, comparison.labels, comparison.rules) == (
        "dune1984", "duel", ("official", "house"), (Rules(), Rules(ties="defender"))
    )
    for answer, (label, rules) in zip(comparison.answers, arms, strict=True):
        assert (answer.game, answer.question, answer.rules) == ("dune1984", "duel", rules)
        assert answer.variants == (label,)
        assert isinstance(answer.seconds, float) and answer.seconds >= 0  # the run's time, for the footer


def test_compare_rules_is_compare_many_for_one_setup_with_the_settings_given():
    from montecarlo.analysis import compare_many, compare_rules
    from montecarlo.games.base import to_plain
    from montecarlo.games.dune1984.rules import Rules

    arms = [("official", Rules()), ("sword_ties", Rules(ties="defender"))]
    settings = RunSettings(trials=3_000, seed=11)
    one = compare_rules("dune1984", "duel", {"attacker": 4, "defender": 5}, arms, settings)
    many = compare_many("dune1984", "duel", [{"attacker": 4, "defender": 5}], arms, settings)[0]
    assert one.trials == 3_000 and one.seed == 11
    assert [(a.seed, a.trials, a.variants) for a in many.answers] == [
        (11, 3_000, ("official",)), (11, 3_000, ("sword_ties",))]  # each arm's answer: the run's seed
    assert [a.to_json()["setup"] for a in one.answers] == [to_plain(one.setup)] * 2  # and the setup asked
    assert one.setup.attacker == 4 and one.setup.defender == 5
    assert one.differences == many.differences  # bit for bit (the run's seconds aside)
    assert [list(row) for row in one.differences] == [list(one.answers[0].metrics)]
    assert all(d.name == name for row in one.differences for name, d in row.items())  # each names its metric
    assert [a.metrics for a in one.answers] == [a.metrics for a in many.answers]
    fight = compare_rules("dune1984", "fight", {"attacker": [4, 2], "defender": [5]}, arms, settings)
    assert fight.question == "fight" and "attacker_survivors=2" in fight.answers[0].metrics  # the one asked


@dataclasses.dataclass(frozen=True)
class _CoinRules:
    p: float = 0.5


@dataclasses.dataclass(frozen=True)
class _Coin:
    side: int = 1


def _heads(rules: _CoinRules, setup: _Coin, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"heads": rng.random(n) < rules.p}


def _where(rules: _CoinRules, setup: _Coin) -> dict[str, float]:
    """Not the chance of heads: the process that worked the "exact value" out (read by the test)."""
    return {"heads": float(os.getpid())}


@pytest.mark.processes
def test_exact_values_are_worked_out_by_the_worker_that_runs_a_setups_first_chunk(monkeypatch):
    """That worker has just built what an exact solve needs (a chain, its memos), which the parent
    would build again after the run; the estimates are those of a run on one worker."""
    from montecarlo.analysis import ask_many, compare_many
    from montecarlo.games.base import Game, Question

    heads = (Metric("heads", "probability", "heads"),)
    flip = Question("flip", "a coin", _Coin, heads, _heads, _where)
    game = Game("coin", "Coin", _CoinRules, {}, {"flip": flip}, "flip")
    setups = [{"side": k} for k in (1, 2, 3)]
    monkeypatch.setattr(runner, "starting", lambda: False)  # every chunk to the pool
    settings = RunSettings(trials=2_000, seed=3, jobs=2)
    two = ask_many(game, None, setups, settings=settings)
    arms = [("fair", _CoinRules()), ("loaded", _CoinRules(0.7))]
    compared = compare_many(game, None, setups, arms, settings)
    answers = [*two, *(a for c in compared for a in c.answers)]
    found = {a.metrics["heads"].exact for a in answers}
    assert found and float(os.getpid()) not in found
    one = ask_many(game, None, setups, settings=RunSettings(trials=2_000, seed=3, jobs=1))
    assert {a.metrics["heads"].exact for a in one} == {float(os.getpid())}
    assert [a.metrics["heads"].estimate for a in one] == [a.metrics["heads"].estimate for a in two]


def _fair_only(rules: _CoinRules, setup: _Coin) -> dict[str, float] | None:
    """The chance of heads exactly for a fair coin only (a solver that gives up on other rules)."""
    return {"heads": 0.5} if rules.p == 0.5 else None


def test_a_difference_has_an_exact_value_only_where_both_arms_have_one():
    from montecarlo.analysis import compare_many
    from montecarlo.games.base import Game, Question

    flip = Question("flip", "a coin", _Coin, (Metric("heads", "probability", "heads"),), _heads, _fair_only)
    game = Game("coin", "Coin", _CoinRules, {}, {"flip": flip}, "flip")
    settings = RunSettings(trials=2_000, seed=3, jobs=1)
    for arms in ([("fair", _CoinRules()), ("loaded", _CoinRules(0.7))],
                 [("loaded", _CoinRules(0.7)), ("fair", _CoinRules())],
                 [("fair", _CoinRules()), ("also fair", _CoinRules(0.5))]):
        [compared] = compare_many(game, None, [{"side": 1}], arms, settings)
        exacts = [a.metrics["heads"].exact for a in compared.answers]
        assert exacts == [0.5 if rules.p == 0.5 else None for _, rules in arms]
        both = None not in exacts
        assert compared.differences[0]["heads"].exact == (0.0 if both else None)


def test_run_is_one_point_of_a_grid_with_the_settings_given():
    import functools

    from tests.engine.fake_kernels import METRICS, coin

    kernel = functools.partial(coin, 0.3)
    settings = RunSettings(trials=5_000, seed=4, chunk_size=2_000)
    result = settings.run(kernel, METRICS)
    grid = settings.run_grid([runner.Point((kernel,), METRICS)])[0]
    assert result.trials == 5_000 and result.seed == 4 and np.array_equal(result.totals, grid.totals)
    # a list of arms (variants on common random numbers) is one point with every arm
    other = functools.partial(coin, 0.6)
    both = settings.run([kernel, other], METRICS)
    pair = settings.run_grid([runner.Point((kernel, other), METRICS)])[0]
    assert both.n_arms == 2 and np.array_equal(both.totals, pair.totals)
    assert np.array_equal(both.totals[0], result.totals[0])


def test_run_grid_hands_every_setting_to_the_runner(monkeypatch):
    """The runner receives the workers resolved from ``jobs``, the chunk size, the precision
    target, its cap, the backend, the scheduler and the progress callback as the settings hold
    them (a lost ``jobs`` would run in-process without a word: the same numbers, one core)."""
    handed = {}

    def fake_run_grid(points, trials, seed, **kwargs):
        handed.update(points=points, trials=trials, seed=seed, **kwargs)
        return ["result"]

    monkeypatch.setattr(runner, "run_grid", fake_run_grid)
    monkeypatch.setattr("os.cpu_count", lambda: 8)

    def progress(done, total):
        return None

    settings = RunSettings(trials=900, seed=3, jobs=5, precision=0.01, max_trials=4_000, backend="dask",
                           scheduler="tcp://127.0.0.1:8786", progress=progress, chunk_size=300)
    assert settings.run_grid(["point"]) == ["result"]
    assert handed == dict(points=["point"], trials=900, seed=3, jobs=5, chunk_size=300, precision=0.01,
                          max_trials=4_000, backend="dask", scheduler="tcp://127.0.0.1:8786",
                          progress=progress, checkpoint=None, auto=False)
    RunSettings(trials=900, jobs=-1).run_grid(["point"])
    assert (handed["jobs"], handed["max_trials"], handed["progress"]) == (8, None, None)
    assert handed["auto"] is False
    RunSettings(trials=900).run_grid(["point"])
    assert (handed["jobs"], handed["auto"]) == (8, True)


def test_ask_puts_its_question_and_rule_overrides_to_its_one_setup():
    """``ask`` is ``ask_many`` of one setup: the question asked (not the game's default, duel) and
    the rules changed by name reach the answer."""
    from montecarlo.analysis import ask

    settings = RunSettings(trials=500, seed=2, jobs=1)
    answer = ask("dune1984", "guile", {"guile": 3}, overrides={"spice_per_guile": 2}, settings=settings)
    assert answer.question == "guile" and answer.rules.spice_per_guile == 2 and answer.trials == 500
    import montecarlo

    shown = answer.to_json()  # what --json prints: the version the numbers came from among them
    assert (shown["question"], shown["trials"], shown["version"]) == ("guile", 500, montecarlo.__version__)


def test_a_machine_whose_cores_python_cannot_count_is_taken_for_one_core(monkeypatch):
    from montecarlo.analysis import excess_jobs

    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert excess_jobs(2) == 1 and excess_jobs(1) is None


def test_variants_that_change_no_exact_value_are_told_apart_from_those_that_do():
    from montecarlo.analysis import ask, variants_change_nothing

    settings = RunSettings(trials=1_000, seed=1, jobs=1)

    def answer(variants, **setup):
        return ask("dune1984", "duel" if "fight" not in setup else "fight",
                   {k: v for k, v in setup.items() if k != "fight"}, variants=variants, settings=settings)

    assert variants_change_nothing(answer(("fight_to_last",), attacker=4, defender=5))  # a duel: no next one
    gain = answer(("set_aside_die", "no_strength_gain"), attacker=4, defender=5)  # the Strength after
    assert variants_change_nothing(gain) is False
    assert variants_change_nothing(answer(("set_aside_die",), attacker=[3, 2], defender=[4], fight=1))
    assert not variants_change_nothing(answer(("set_aside_die",), attacker=[4, 3], defender=[5], fight=1))
    assert not variants_change_nothing(answer((), attacker=4, defender=5))  # nothing asked of it
    missing = answer(("fight_to_last",), attacker=4, defender=5)
    missing.metrics["rounds"] = dataclasses.replace(missing.metrics["rounds"], exact=None)
    assert not variants_change_nothing(missing)  # not every value can be compared: nothing is said


def test_a_grids_points_carry_the_affinity_of_their_chains(monkeypatch):
    """A chain question's setups of one context (here a settlement rank) share an affinity, one
    context per arm; a question without one gives none."""
    from montecarlo.analysis import ask_many, compare_many
    from montecarlo.games.war_for_arrakis import GAME as wfa

    seen: list = []
    real = runner.run_grid
    monkeypatch.setattr(runner, "run_grid", lambda pts, *a, **k: seen.append(pts) or real(pts, *a, **k))
    setups = [{"attacker": "2 regular", "defender": "1 regular", "settlement": s} for s in (0, 1, 0)]
    compare_many(wfa, "battle", setups, [("a", wfa.rules()), ("b", wfa.rules(["continue_always_costs"]))],
                 RunSettings(trials=500))
    kin = [p.affinity for p in seen[-1]]
    assert kin[0] == kin[2] != kin[1] and len(kin[0]) == 2 and kin[0][0] != kin[0][1]
    ask_many(wfa, "battle", setups, settings=RunSettings(trials=500))
    kin = [p.affinity for p in seen[-1]]
    assert kin[0] == kin[2] != kin[1] and len(kin[0]) == 1
    from montecarlo.analysis import resolve

    game, question = resolve("dustrunners", None)
    ask_many(game, None, [question.example], settings=RunSettings(trials=500))
    assert seen[-1][0].affinity is None
