"""What a newcomer tripped on (issue 21): one set of options on every simulating command, no
traceback for a bad --scheduler, Ctrl-C that says so, refusals instead of silent surprises."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from montecarlo import api, scenarios
from montecarlo.cli import app, main
from montecarlo.cli.common import check_scheduler, shorten
from montecarlo.errors import InputError

cli = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
TIES = str(ROOT / "scenarios" / "imperium" / "tie-variants.toml")
ODDS = ["odds", "dune1984", "-a", "3", "-d", "2", "-n", "1000", "-q"]


def refused(args: list[str]) -> str:
    """The one error line of a command that must fail with exit code 2."""
    result = cli.invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# --- --scheduler: one line and exit 2, and dask everywhere ----------------------------------------


@pytest.mark.parametrize("address", ["notanaddress", "tcp://localhost:notaport", "tcp://x:1:2", "tcp://x:0"])
@pytest.mark.parametrize(
    "command",
    [
        ODDS,
        ["compare", TIES],
        ["report", TIES, "--out", "unused-folder"],
        ["war-for-arrakis", "storm", "--legion", "3 regular", "--terrain", "deep_desert"],
    ],
    ids=["odds", "compare", "report", "storm"],
)
def test_a_malformed_scheduler_address_is_one_line(command, address):
    assert refused([*command, "--scheduler", address]) == (
        f"error: --scheduler must be a Dask scheduler address such as tcp://HOST:8786, got {address!r}"
    )


def test_well_formed_scheduler_addresses_pass():
    for address in ("tcp://10.0.0.1:8786", "localhost:8786", "tls://[::1]:8786", "inproc://x/1/2"):
        assert check_scheduler(address) == address


def test_a_scheduler_address_where_another_service_answers_is_one_line():
    """An HTTP server (or a dashboard's port) answers dask's handshake with text that dask
    reads as the length of a frame of exabytes: one line, not a MemoryError traceback."""
    import contextlib
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"

    def answer():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed at the end of the test
                return
            with conn, contextlib.suppress(OSError):  # a service that speaks first, in its own protocol
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 20)
                conn.recv(1000)  # the client may have hung up already

    threading.Thread(target=answer, daemon=True).start()
    try:
        assert refused([*ODDS, "--scheduler", address]) == (
            f"error: {address!r} is not a dask scheduler: something else answered there "
            "(a scheduler listens on port 8786 by default; 8787 is its dashboard)"
        )
    finally:
        server.close()


def test_a_web_server_that_waits_for_a_request_is_no_scheduler_and_said_at_once(monkeypatch):
    """A web server (the dashboard's port) writes nothing until it has a whole request, where a
    scheduler writes its handshake as soon as the connection opens: dask's client waited for ever
    (the audit stopped one after 584 s); the address is now refused after PROBE_SECONDS."""
    import socket
    import threading
    import time

    from montecarlo.engine import runner

    monkeypatch.setattr(runner, "PROBE_SECONDS", 0.3)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    started = time.monotonic()
    try:
        assert refused([*ODDS, "--scheduler", address]) == (
            f"error: {address!r} is not a dask scheduler: nothing came within 0.3 s of connecting, where a "
            "scheduler speaks first (a scheduler listens on port 8786 by default; 8787 is its dashboard)"
        )
        assert time.monotonic() - started < 5
    finally:
        server.close()


def test_an_address_where_nothing_listens_is_refused_at_once():
    """A refused connection failed after dask's whole 10 s timeout; now at once."""
    import socket
    import time

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    started = time.monotonic()
    assert refused([*ODDS, "--scheduler", f"tcp://127.0.0.1:{port}"]) == (
        f"error: cannot reach the dask scheduler 'tcp://127.0.0.1:{port}': Connection refused"
    )
    assert time.monotonic() - started < 5


def test_a_scheduler_without_workers_is_one_line_with_the_command_that_starts_one(monkeypatch):
    """joblib's own wait ended in three lines of Python advice and exit code 1."""
    import dask.distributed

    from montecarlo.engine import runner

    class Lonely:
        def __init__(self, *args, **kwargs):
            self.closed = False

        def wait_for_workers(self, n, timeout):
            raise TimeoutError(f"only 0/{n} workers arrived after {timeout}")

        def close(self):
            self.closed = True

    monkeypatch.setattr(runner, "_probe_scheduler", lambda scheduler: None)
    monkeypatch.setattr(dask.distributed, "Client", Lonely)  # what dask_cluster imports
    address = "tcp://127.0.0.1:8786"
    assert refused([*ODDS, "--scheduler", address]) == (
        f"error: the dask scheduler {address!r} has no workers (after 10 s): start some with: "
        f"dask worker {address}"
    )


def test_report_takes_scheduler_to_mean_dask(monkeypatch):
    seen = {}

    def fake_run(sc, **kwargs):
        seen.update(kwargs)
        raise InputError("stopped before running")

    monkeypatch.setattr(scenarios, "run_scenario", fake_run)
    for command in (["report", TIES, "--out", "unused"], ["compare", TIES]):
        seen.clear()
        refused([*command, "--scheduler", "tcp://10.0.0.1:8786"])
        assert seen["backend"] == "dask" and seen["scheduler"] == "tcp://10.0.0.1:8786"
    line = refused(["report", TIES, "--scheduler", "tcp://10.0.0.1:8786", "--backend", "loky"])
    assert "it needs --backend dask" in line


def test_ctrl_c_says_interrupted_and_exits_130(monkeypatch, capsys):
    import montecarlo.analysis

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(montecarlo.analysis, "ask", interrupted)
    monkeypatch.setattr("montecarlo.cli.dune1984_fights.answer_of", interrupted)
    monkeypatch.setattr(sys, "argv", ["montecarlo", *ODDS])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 130
    assert capsys.readouterr().err.strip() == "interrupted"


def test_a_kill_stops_a_report_as_ctrl_c_does_and_leaves_nothing_half_written(tmp_path):
    """SIGTERM (``kill``) left the report's unfinished folder (.out.tmp-*, 24 files) behind: it
    now stops the command as Ctrl-C does, which removes it; exit code 143 (128 + SIGTERM)."""
    import signal
    import subprocess
    import time

    command = [sys.executable, "-m", "montecarlo", "report", TIES, "-n", "3000", "-j", "1", "-q",
               "--out", str(tmp_path / "out")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = time.perf_counter()
    while not list(tmp_path.glob(".out.tmp-*")) and time.perf_counter() - started < 60:
        time.sleep(0.002)  # the report is being written: the moment a kill did harm
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (143, "terminated\n")
    assert list(tmp_path.iterdir()) == []


def test_a_kill_or_ctrl_c_after_the_command_is_over_is_let_be_while_it_exits(monkeypatch):
    """A kill or a Ctrl-C that came while joblib stopped the workers at exit, the report already
    in place, raised KeyboardInterrupt inside joblib's exit handler: a traceback, and exit code 0,
    or a hang; ending the process there instead left its workers running. Once the command is
    over, both are ignored while the process exits (conftest gives this process its own back);
    a Ctrl-C the command found ignored (started in the background) stays ignored."""
    import signal

    monkeypatch.setattr(sys, "argv", ["montecarlo", "--version"])
    for inherited in (signal.default_int_handler, signal.SIG_IGN):
        signal.signal(signal.SIGINT, inherited)
        with pytest.raises(SystemExit):
            main()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_second_ctrl_c_or_kill_soon_after_the_first_lets_its_stop_finish(monkeypatch):
    """The first raises KeyboardInterrupt (the clean stop); one within STOP_GRACE_SECONDS of it
    is let be (it interrupted joblib stopping the workers, and the exit then hung); a later one
    stops again. A kill marks the stop as a kill (exit code 143)."""
    import signal

    import montecarlo.cli as cli_module

    now = [100.0]
    monkeypatch.setattr(cli_module.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(cli_module, "_stopping_since", None)
    monkeypatch.setattr(cli_module, "_terminated", False)
    with pytest.raises(KeyboardInterrupt):
        cli_module._stop_as_ctrl_c(signal.SIGINT, None)
    now[0] += cli_module.STOP_GRACE_SECONDS - 0.01
    assert cli_module._stop_as_ctrl_c(signal.SIGINT, None) is None
    assert cli_module._stop_as_ctrl_c(signal.SIGTERM, None) is None and not cli_module._terminated
    now[0] += 0.02
    with pytest.raises(KeyboardInterrupt):
        cli_module._stop_as_ctrl_c(signal.SIGTERM, None)
    assert cli_module._terminated


def test_a_threads_failure_is_printed_unless_a_stop_tears_the_pool_down(monkeypatch):
    """loky's manager thread printed "Exception in thread ExecutorManagerThread ... KeyError: 5"
    in about 1 of 19 Ctrl-Cs of report-all: while a stop is under way a thread's failure is not
    printed; otherwise Python's own hook prints it."""
    import montecarlo.cli as cli_module

    seen = []
    hook = cli_module._quiet_while_stopping(seen.append)
    monkeypatch.setattr(cli_module, "_stopping_since", None)
    hook("a failure")
    monkeypatch.setattr(cli_module, "_stopping_since", 100.0)
    hook("a failure while stopping")
    assert seen == ["a failure"] and hook.quiet_while_stopping


@pytest.mark.processes
@pytest.mark.parametrize("gap", [0.05, 0.3])
def test_a_double_ctrl_c_stops_once_with_one_line_and_leaves_no_worker(gap):
    """A terminal's double Ctrl-C (the second 0.05-0.3 s after the first, both to every process
    of the command) hung the command in 7 of 11 tries, with tracebacks on stderr and stdout and
    the workers left running when a third came: now "interrupted", exit 130, nothing else."""
    import os
    import signal
    import subprocess
    import time

    command = [sys.executable, "-m", "montecarlo", "table", "dune1984", "-j", "2", "-n", "20000000",
               "--json", "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGINT)
    time.sleep(gap)
    try:
        os.killpg(process.pid, signal.SIGINT)
    except ProcessLookupError:  # every process of it already gone
        pass
    try:
        out, err = process.communicate(timeout=60)  # ends when no process of it holds its output
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert (process.returncode, out, err) == (130, "", "interrupted\n")


INTERRUPTED_IN_AN_EVAL = """
import typer
import montecarlo.cli as cli

cli.app = typer.Typer()


@cli.app.command()
def stop():  # Ctrl-C inside an eval of a string, as in collections.namedtuple
    eval("(_ for _ in ()).throw(KeyboardInterrupt)")


cli.main()
"""


def test_a_ctrl_c_caught_after_an_eval_exits_130_not_killed_by_sigint(tmp_path):
    """``python -m montecarlo`` stopped while psutil built its named tuples (an eval of a string
    each) printed "interrupted" and then died of SIGINT (status -2) in 2 of 20 tries: CPython
    marks a KeyboardInterrupt that leaves such an eval as unhandled, even once caught, and a
    module run with -m acts on the mark at exit."""
    import os
    import subprocess

    (tmp_path / "interrupted_in_an_eval.py").write_text(INTERRUPTED_IN_AN_EVAL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "interrupted_in_an_eval"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")


INTERRUPTED_WHILE_IMPORTING = """
import sys


class CtrlC:  # Ctrl-C while the CLI is imported, inside an eval of a string (a namedtuple's)
    def find_spec(self, name, path=None, target=None):
        if name == "montecarlo.cli":
            eval("(_ for _ in ()).throw(KeyboardInterrupt)")


sys.meta_path.insert(0, CtrlC())
from montecarlo._console import main

main()
"""


def test_a_ctrl_c_while_the_command_is_imported_is_one_line_and_exit_130(tmp_path):
    """In the first 0.08 s of a command (typer and the CLI being imported), a Ctrl-C printed a
    KeyboardInterrupt traceback from inside an import; the entry point says "interrupted"."""
    import os
    import subprocess

    (tmp_path / "interrupted_while_importing.py").write_text(INTERRUPTED_WHILE_IMPORTING)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "interrupted_while_importing"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")


@pytest.mark.processes
@pytest.mark.parametrize("delay", [0.6, 1.0])
def test_a_real_ctrl_c_while_the_workers_start_prints_one_line_and_no_traceback(delay):
    """A terminal sends Ctrl-C to every process of the command, workers too: those still
    importing printed a KeyboardInterrupt traceback each. Started with SIGINT ignored, they print
    nothing; the command says "interrupted" (exit 130), or ends normally if it was done first."""
    import os
    import signal
    import subprocess
    import time

    command = [sys.executable, "-m", "montecarlo", "table", "dune1984", "-j", "2", "-n", "2000000"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True,  # its own group: the signal reaches only it
                               # Ctrl-C as a terminal gives it (a background shell's is ignored)
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err, err
    assert (process.returncode, err.strip().splitlines()[-1:]) in ((130, ["interrupted"]), (0, [])) or (
        process.returncode == 0 and "Dune (1984)" in out
    ), (process.returncode, err)


# --- the same options everywhere ------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["--help"], ["odds", "--help"], [*ODDS[:2], "--help"], ["report", "--help"], ["table", "dune1984"]],
)
def test_dash_h_is_help(command):
    command = [c for c in command if c != "--help"] + ["-h"]
    result = cli.invoke(app, command)
    assert result.exit_code == 0 and "Usage:" in result.output


def test_table_war_for_arrakis_takes_quiet_like_table_dune1984():
    result = cli.invoke(app, ["table", "war-for-arrakis", "-q"])
    assert result.exit_code == 0, result.output
    assert cli.invoke(app, ["table", "dune1984", "-q", "-n", "100"]).exit_code == 0


def test_max_trials_without_precision_is_refused():
    capped = "--max-trials caps a --precision run; give --precision H with it, or set --trials N instead"
    assert refused([*ODDS, "--max-trials", "5000"]) == f"error: {capped}"
    assert "--max-trials caps a precision run" in refused(["compare", TIES, "--max-trials", "5000"])


def test_a_repeated_variant_is_refused():
    line = refused([*ODDS, "-v", "ties_favour_defender", "-v", "ties_favour_defender"])
    assert line == "error: --variant 'ties_favour_defender' is given twice; name each house rule once"
    assert "given twice" in refused(["table", "war-for-arrakis", "-v", "x", "-v", "x"])


def test_report_and_compare_take_the_run_options_and_record_them(tmp_path):
    out = tmp_path / "r"
    args = ["-n", "1000", "--seed", "3", "-v", "ties_split_up", "--json"]
    result = cli.invoke(app, ["report", TIES, "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    assert facts["seed"] == 3 and facts["trials"] == 1000 and facts["trials_max"] == 1000
    assert [v["name"] for v in facts["variants"]] == ["official", "ties_split_up"]
    assert facts["rerun"].endswith("--trials 1000 --seed 3 --variant ties_split_up")
    compared = cli.invoke(app, ["compare", TIES, "-n", "500", "-s", "4", "--precision", "0.2", "--json"])
    assert compared.exit_code == 0, compared.output
    data = json.loads(compared.stdout)
    assert data["seed"] == 4 and data["trials"] == 500 and data["precision"] == 0.2
    assert "--variant: unknown variant 'nope'" in refused(["compare", TIES, "-v", "nope"])
    assert "--trials must be a positive integer" in refused(["report", TIES, "-n", "0"])


def test_a_cap_below_the_first_batch_and_a_selection_of_the_baseline_alone_name_the_flags():
    """--max-trials below --trials silently ran fewer trials than asked; compare -v official
    blamed the file ("variants: expected two or more variants to compare, got 1")."""
    capped = ["-n", "2000", "--precision", "0.01", "--max-trials", "1000"]
    below = ("--max-trials (1,000) is below --trials (2,000), the first batch it caps; "
             "raise the cap or lower the trials")
    for command in (["compare", TIES], ["report", TIES, "--out", "unused"]):
        assert refused([*command, *capped]) == f"error: {below}"
    odds = [*ODDS[:6], *ODDS[8:]]  # without its own -n: an option given twice is refused
    assert refused([*odds, *capped]) == (
        "error: --max-trials must be at least the first batch of trials (2,000), got 1,000"
    )
    assert refused(["compare", TIES, "-v", "official"]) == (
        "error: --variant: official leaves only the baseline 'official' to compare; name another variant"
    )
    assert refused(["compare", TIES, "-b", "ties_split_up", "-v", "ties_split_up"]) == (
        "error: --variant: ties_split_up leaves only the baseline 'ties_split_up' to compare; name another "
        "variant"
    )


@pytest.mark.parametrize("args, message", [
    (["dune1984", "fight", "-a", "4,3", "-d", "5,2", "--policy", "best", "--policy", "defender:best"],
     "error: --policy given twice; give it once (see: montecarlo dune1984 fight --help)"),
    (["odds", "dune1984", "-a", "4", "-d", "5", "--attacker=3"],
     "error: --attacker given twice (-a and --attacker); give it once "
     "(see: montecarlo odds dune1984 --help)"),
    (["report", TIES, "-n", "10", "-n", "20"],
     "error: -n given twice; give it once (see: montecarlo report --help)"),
])
def test_an_option_of_one_value_given_twice_is_refused(args, message, monkeypatch, capsys):
    """click kept the last one without a word: `--policy best --policy defender:best` played the
    defender's best play. A repeatable option (-v) and a flag may come again."""
    monkeypatch.setattr(sys, "argv", ["montecarlo", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2 and capsys.readouterr().err.strip() == message
    again = cli.invoke(app, [*ODDS, "-v", "no_strength_gain", "-v", "ties_favour_defender", "-q", "--json"])
    assert again.exit_code == 0, again.output


def test_report_all_takes_the_run_options(tmp_path):
    folder = tmp_path / "scenarios" / "imperium"
    folder.mkdir(parents=True)
    (folder / "tie-variants.toml").write_text(Path(TIES).read_text())
    out = str(tmp_path / "out")
    result = cli.invoke(app, ["report-all", str(tmp_path / "scenarios"), "--out", out, "-n", "600", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["href"] for r in data["reports"]] == ["tie-variants/index.html"]
    facts = json.loads((tmp_path / "out" / "tie-variants" / "report.json").read_text())
    assert facts["trials"] == 600 and "--trials 600" in facts["rerun"]


def test_a_long_scenario_run_says_how_long_up_front(monkeypatch):
    """A scenario's progress is the odds command's reporter over the whole grid's trials, so a
    long report or compare says how long it will take, as odds does."""
    import io

    from montecarlo.cli import common, reports

    sc = scenarios.load_scenario(ROOT / "scenarios" / "dune1984" / "duel-matrix.toml")
    progress = reports._progress(sc, 2, False)
    assert isinstance(progress, common.ProgressReporter) and progress.label == sc.name
    assert reports._progress(sc, 2, True) is None  # --quiet: no bar, no estimate (the API warns on False)
    ticks = [0.0, 0.1, 1.0]
    monkeypatch.setattr(common.time, "perf_counter", lambda: ticks.pop(0) if len(ticks) > 1 else ticks[0])
    progress.stream, progress.bar_enabled = io.StringIO(), False
    for done in (0, 100_000, 200_000):
        progress(done, 10**9)
    assert progress.stream.getvalue().startswith("estimated time: about ")

def test_a_measured_run_estimates_on_every_core_whatever_the_scenarios_size(monkeypatch):
    """compare starts its workers once the run shows more than 1.5 s of work left, so a run long
    enough for the estimate (over a minute) runs on every core, even for a small scenario, which
    report runs in one process."""
    from montecarlo.cli import reports

    monkeypatch.setattr(scenarios.os, "cpu_count", lambda: 4)
    small = dataclasses.replace(scenarios.load_scenario(TIES), trials=1_000)
    assert scenarios.scenario_workers(small, None) == 1
    assert reports._progress(small, None, False).workers == 1  # report's rule, by size
    assert reports._progress(small, None, False, measured=True).workers == 4
    assert reports._progress(small, 1, False, measured=True).workers == 1  # -j is followed
    assert reports._progress(small, 3, False, measured=True).workers == 3


@pytest.mark.parametrize("out", [False, True])
def test_compare_tells_its_progress_that_its_run_is_measured(monkeypatch, tmp_path, out):
    from montecarlo.cli import reports

    seen = []
    real = reports._progress

    def spy(sc, jobs, quiet, measured=False):
        seen.append(measured)
        return real(sc, jobs, quiet, measured)

    monkeypatch.setattr(reports, "_progress", spy)
    where = ["--out", str(tmp_path / "r")] if out else []
    result = cli.invoke(app, ["compare", TIES, "-n", "300", "-q", *where])
    assert result.exit_code == 0, result.output
    assert seen == [True]


def test_long_values_are_cut_in_messages():
    assert len(shorten("x" * 100_000)) < 80
    line = refused([*ODDS, "--scheduler", "y" * 100_000])
    assert len(line) < 200 and "100,002 characters" in line


# --- --out: checked before the work, and a link is kept ---------------------------------------------


def test_an_unwritable_out_is_refused_before_any_simulation(monkeypatch):
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")

    def never(*args, **kwargs):
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(scenarios, "run_scenario", never)
    assert refused(["report", TIES, "--out", "/proc/foo"]).startswith("error: --out: cannot write in /proc")
    assert refused(["compare", TIES, "--out", "/proc/foo"]).startswith("error: --out: cannot write in /proc")


def test_a_name_too_long_for_the_file_system_is_one_line_before_any_simulation(monkeypatch, tmp_path):
    """Linux takes 255 bytes a name: a longer one raised OSError out of pathlib's checks."""
    def never(*args, **kwargs):
        raise AssertionError("simulated before checking the paths")

    monkeypatch.setattr(scenarios, "run_scenario", never)
    long = str(tmp_path / ("a" * 300))
    for args, start in (
        (["report", TIES, "--out", long], "error: --out "),
        (["report", TIES, "--out", long + "/x"], "error: --out "),
        (["compare", TIES, "--out", long], "error: --out "),
        (["report-all", str(ROOT / "scenarios" / "imperium"), "--out", long], "error: --out "),
        (["report-all", str(ROOT / "scenarios" / "imperium"), "--out", str(tmp_path / "r"),
          "--checkpoint", long], "error: --checkpoint "),
        (["report-all", long], "error: "),
        ([*ODDS, "--checkpoint", long + ".ck"], "error: checkpoint "),
        ([*ODDS, "--checkpoint", long + "/x.ck"], "error: checkpoint "),
        (["odds", long + ".toml"], "error: "),
    ):
        line = refused(args)
        assert line.startswith(start) and "File name too long" in line, (args, line)
    assert not list(tmp_path.iterdir())  # nothing written
    # a long name under a folder that does not exist yet: "no such file" hid it until the report
    # was written, after the whole run, and left the new folder x behind
    for command in (["report", TIES], ["compare", TIES]):
        line = refused([*command, "--out", str(tmp_path / "x" / ("c" * 300) / "y")])
        assert line.startswith("error: --out: a name in ") and "is 300 bytes, longer than the 255" in line
    assert not list(tmp_path.iterdir())


def test_report_all_refuses_empty_paths_and_its_own_scenarios_folder_as_out(monkeypatch, tmp_path):
    """--out "" wrote into the current folder; --out the scenarios' folder made the next run read
    the reports' scenario.toml copies as scenarios; report "" said "." is a folder."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "ties.toml").write_text(Path(TIES).read_text())
    monkeypatch.chdir(tmp_path)
    for args, said in (
        (["report-all", "mine", "--out", ""], "error: --out: an empty path is not a folder"),
        (["report-all", "mine", "--checkpoint", " "], "error: --checkpoint: an empty path is not a folder"),
        (["report-all", ""], "error: DIRECTORY: an empty path is not a folder"),
        (["report", ""], "error: SCENARIO: an empty path is not a file; give a .toml scenario file"),
        (["compare", " "], "error: SCENARIO|GAME: an empty path is not a file; give a .toml scenario"),
        (["report-all", "mine", "--out", "mine"], "error: --out: mine is the scenarios' folder"),
        (["report-all", "mine", "--out", "mine/."], "error: --out: mine/. is the scenarios' folder"),
    ):
        assert refused(args).startswith(said), args
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["mine", "ties.toml"]


def test_a_file_where_a_folder_should_be_is_named_as_such(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    line = refused(["odds", str(notes / "x.toml")])
    assert line.endswith("cannot be read (Not a directory); check the path")
    assert refused([*ODDS, "--checkpoint", str(notes / "x.ck")]).endswith(f"{notes} is not a folder")
    assert notes.read_text() == "mine"


def test_an_os_error_the_checks_did_not_foresee_is_one_line(monkeypatch, capsys):
    import errno

    import typer

    from montecarlo.cli.common import cli_errors

    for number, code in ((errno.ENAMETOOLONG, 2), (errno.ENOSPC, 1)):
        @cli_errors
        def command(number=number):
            raise OSError(number, "it failed", "deck.toml")

        with pytest.raises(typer.Exit) as exit_info:
            command()
        assert exit_info.value.exit_code == code
        assert capsys.readouterr().err == "error: deck.toml: it failed\n"


def test_out_naming_a_link_to_an_earlier_report_writes_through_the_link(tmp_path):
    target, link = tmp_path / "first", tmp_path / "latest"
    assert cli.invoke(app, ["report", TIES, "--out", str(target), "-n", "300", "-q"]).exit_code == 0
    link.symlink_to(target)
    result = cli.invoke(app, ["report", TIES, "--out", str(link), "-n", "400", "-q"])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert json.loads((target / "report.json").read_text())["trials"] == 400
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first", "latest"]  # no temporary left


# --- Imperium: one troop limit for every syntax ---------------------------------------------------


@pytest.mark.parametrize("troops", ["13,2", "deploy:12+12,2", "deploy:11+5,2", "0:1/2|13:1/2,2", "2-13,2"])
def test_every_troop_syntax_has_the_12_cube_limit(troops):
    line = refused(["odds", "imperium", "-t", troops, "-n", "100"])
    assert "at most 12 (a player has 12 troop cubes)" in line


# --- metrics that cannot apply are empty ----------------------------------------------------------


def test_an_8_fight_campaign_leaves_survived_9_to_12_empty(tmp_path):
    import polars as pl

    scenario = tmp_path / "campaign.toml"
    scenario.write_text(
        'game = "dustrunners"\nquestion = "campaign"\nseed = 1\ntrials = 200\n'
        'metrics = ["survived", "vp"]\n[setup]\nvehicle = "interceptor"\nfights = 8\n'
        '[grid]\npolicy = ["all_in", "just_enough"]\n'
    )
    result = cli.invoke(app, ["report", str(scenario), "--out", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 0, result.output
    table = pl.read_csv(tmp_path / "out" / "results.csv")
    survived = table.filter(pl.col("metric").str.starts_with("survived="))
    beyond = survived.filter(pl.col("metric").is_in([f"survived={k}" for k in range(9, 13)]))
    assert beyond.height == 8 and beyond["estimate"].null_count() == 8  # 4 values x 2 setups
    within = survived.filter(~pl.col("metric").is_in(beyond["metric"].to_list()))
    assert within.height == 18 and within["estimate"].null_count() == 0
    assert abs(within["estimate"].sum() - 2.0) < 1e-9  # each setup's 0..8 sum to 1


# --- refused or warned, as the rules make sense ---------------------------------------------------


@pytest.mark.parametrize(
    "args,message",
    [
        (["fight", "-a", "Paul, Paul", "-d", "5"],
         "--attacker: Paul Atreides is named twice on the attacker side"),
        (["duel", "-a", "Paul", "-d", "paul"], "--defender: Paul Atreides is named on both sides"),
        (["fight", "-a", "4, Paul, Paul", "-d", "5"],  # a plain Strength first: the names still checked
         "--attacker: Paul Atreides is named twice on the attacker side"),
        (["fight", "-a", "Paul", "-d", "3, paul"], "--defender: Paul Atreides is named on both sides"),
        (["fight", "-a", "4,,3", "-d", "5"], "--attacker: an empty item in '4,,3'"),
        (["duel", "-a", "4", "-d", "5", "--attacker-equipment", "sword,sword"],
         "--attacker-equipment: sword is listed twice"),
    ],
)
def test_one_character_twice_and_doubled_items_are_refused(args, message):
    assert refused(["dune1984", *args, "-n", "100"]).startswith(f"error: {message}")


def test_two_characters_of_one_house_on_opposite_sides_warn_before_the_run():
    result = cli.invoke(app, ["dune1984", "fight", "-a", "Paul,Chani", "-d", "Gurney", "-n", "100", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == (
        "warning: Paul Atreides and Gurney Halleck are both Red characters (one player's) on opposite sides"
    )
    json.loads(result.stdout)
    plain = cli.invoke(app, ["dune1984", "duel", "-a", "Paul", "-d", "Feyd", "-n", "100", "-q"])
    assert plain.exit_code == 0 and plain.stderr == ""


def test_a_warning_line_stays_a_line_when_python_warnings_are_errors():
    """PYTHONWARNINGS=error turned the line above into a traceback and exit code 1."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = cli.invoke(app, ["dune1984", "duel", "-a", "Paul", "-d", "Gurney", "-n", "100", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "warning: Paul Atreides and Gurney Halleck are both Red characters (one player's) on opposite sides\n"
    )


# --- errors in the user's words ---------------------------------------------------------------------


def test_errors_name_the_flags_the_user_typed():
    assert refused(["dustrunners", "campaign", "--enemies", "spybot", "-n", "10"]) == (
        "error: --health: give the vehicle's health (--health) or a shipped vehicle (--vehicle)"
    )
    assert refused(["odds", "dune1984", "-a", "7", "-d", "5"]).startswith("error: --attacker must be")


def test_a_100_kb_bad_value_is_cut_in_the_message():
    line = refused(["odds", "dune1984", "-a", "x" * 100_000, "-d", "5"])
    assert len(line) < 400 and "(100,003 characters)" in line  # the quoted value and its ";"


# --- a TOML battle: the file's example values are the defaults, and --help lists the fields -------

D10 = """format = "dice-battle/1"
name = "d10"
title = "d10 duel"
question = "duel"
end = "red == 0 or blue == 0"

[setup.red_pool]
min = 1
max = 5
example = 3
description = "dice of the red side"

[setup.blue_pool]
min = 1
max = 5
example = 2
description = "dice of the blue side"

[state]
red = "red_pool"
blue = "blue_pool"

[dice.d10]
faces = 10

[round]
compare = "highest"

[round.roll]
red = { d10 = "red" }
blue = { d10 = "blue" }

[round.update]
red = "red - red_lost"
blue = "blue - blue_lost"

[metrics.red_win]
kind = "probability"
value = "blue == 0"
description = "red wins"
"""


def test_a_toml_battle_takes_its_example_values_as_defaults_and_lists_its_fields(tmp_path):
    path = tmp_path / "d10.toml"
    path.write_text(D10)
    result = cli.invoke(app, ["odds", str(path), "-n", "2000", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("d10 duel: red_pool 3, blue_pool 2")
    overridden = cli.invoke(app, ["odds", str(path), "--set", "blue_pool=4", "-n", "2000", "-q"])
    assert overridden.stdout.startswith("d10 duel: red_pool 3, blue_pool 4"), overridden.output
    shown = cli.invoke(app, ["odds", str(path), "--help"], env={"COLUMNS": "200"})
    assert "red_pool (1..5, default 3): dice of the red side" in shown.stdout
    assert "blue_pool (1..5, default 2): dice of the blue side" in shown.stdout
    path.write_text(D10.replace('description = "dice of the blue side"\n', ""))  # none: not its name again
    shown = cli.invoke(app, ["odds", str(path), "--help"], env={"COLUMNS": "200"})
    assert "blue_pool (1..5, default 2)." in shown.stdout and "blue_pool: blue_pool" not in shown.stdout


def test_dice_too_many_to_solve_exactly_are_simulated_with_a_note_naming_the_round(tmp_path):
    """Three d1000 against two, paired: once refused ("too many to enumerate"), now simulated."""
    path = tmp_path / "d1000.toml"
    path.write_text(D10.replace("faces = 10\n", "faces = 1000\n").replace('"highest"', '"pairs"'))
    result = cli.invoke(app, ["odds", str(path), "-n", "2000", "-q"])
    assert result.exit_code == 0, result.output
    note = " ".join(result.stdout.split())  # (the table wraps it)
    assert "note: exact value unavailable because a round of the battle at (red=3, blue=2) has up to" in note
    assert "results of both sides' dice, more than the exact solver lists in a round" in note


def test_the_shipped_deck_path_shown_exists_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    campaign = ["dustrunners", "campaign", "--vehicle", "interceptor", "--enemies", "spybot", "-n", "50"]
    result = cli.invoke(app, [*campaign, "--json"])
    assert result.exit_code == 0, result.output
    shown = Path(json.loads(result.stdout)["extra"]["deck_file"])
    assert shown.is_absolute() and shown.is_file()
    (tmp_path / "mine.toml").write_bytes(shown.read_bytes())
    given = cli.invoke(app, [*campaign, "--deck", "mine.toml", "--json"])
    assert json.loads(given.stdout)["extra"]["deck_file"] == "mine.toml"  # as given


# --- wide terminals: one line per cell, names whole -------------------------------------------------


def test_table_dune1984_has_one_line_per_cell_on_a_wide_terminal():
    wide = cli.invoke(app, ["table", "dune1984", "-n", "200", "-q"], env={"COLUMNS": "160"})
    rows = [line for line in wide.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == 6 and all(line.count("(") == 6 for line in rows), wide.stdout
    narrow = cli.invoke(app, ["table", "dune1984", "-n", "200", "-q"], env={"COLUMNS": "80"})
    assert len([line for line in narrow.stdout.splitlines() if line.startswith("│")]) == 12


def test_compare_shows_whole_names_on_a_wide_terminal(tmp_path):
    risk = str(ROOT / "scenarios" / "risk" / "house-rules.toml")
    result = cli.invoke(app, ["compare", risk, "-n", "500", "-q"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    names = {cell.strip() for line in result.stdout.splitlines() if line.startswith("│")
             for cell in line.split("│")[1:3]}
    assert {"ties_to_attacker", "defender_three_dice", "attackers_remaining"} <= names, result.stdout


def test_a_scenario_given_to_odds_says_what_it_is_and_what_runs_it():
    """odds FILE.toml takes a battle file; a scenario said "game: unknown key" (the battle
    format's complaint about the scenario's first key)."""
    result = CliRunner().invoke(app, ["odds", "scenarios/risk/house-rules.toml"])
    assert result.exit_code == 2
    said = "a scenario file (it names a game), not a battle file: run it with montecarlo report"
    assert said in result.output


def test_a_comparison_of_one_trial_is_refused_before_it_runs(tmp_path):
    """One trial has no spread: its differences have no interval, and the report's forest plot
    crashed on them (a TypeError traceback, exit 1)."""
    said = f"error: --trials 1 for {TIES}: comparing variants needs at least 2 trials a setup"
    assert refused(["compare", TIES, "--trials", "1"]).startswith(said)
    out = tmp_path / "one"
    assert refused(["report", TIES, "--trials", "1", "--out", str(out)]).startswith(said)
    assert not out.exists()
    # the file's own trials = 1: named as the file's key, with the file
    one = tmp_path / "one-trial.toml"
    text = Path(TIES).read_text(encoding="utf-8")
    one.write_text(text.replace("trials = ", "trials = 1 #", 1), encoding="utf-8")
    said = f"error: {one}: trials = 1: comparing variants needs at least 2 trials a setup"
    assert refused(["compare", str(one)]).startswith(said)
    # a game's comparison has no file: the flag alone (it named the scenario built, "compare")
    game = ["compare", "dune1984", "-v", "ties_favour_defender", "--set", "attacker=3", "--set", "defender=4"]
    assert refused([*game, "-n", "1"]).startswith("error: --trials 1: comparing variants needs at least 2")
    # the Python API's trials= over a file's: the caller's value, not the file's key
    with pytest.raises(InputError, match=f"^trials=1 for {TIES}: comparing variants needs at least 2"):
        api.compare(TIES, trials=1)


def test_compare_says_whether_its_precision_was_reached():
    result = CliRunner().invoke(
        app, ["compare", TIES, "--trials", "500", "--precision", "0.002", "--max-trials", "1000", "-q"],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 0, result.output
    caption = " ".join(result.stdout.split())  # the caption wraps inside the table's width
    # as odds says it: how many trials would reach it, from the cap and the widest half-width
    said = re.search(r"precision ±0\.002 NOT reached \(trial cap hit; about ([\d,]+) trials would reach it: "
                     r"raise --max-trials\), widest half-width ([\d.]+);", caption)
    assert said, caption
    needed, widest = int(said[1].replace(",", "")), float(said[2])
    assert needed == pytest.approx(1000 * (widest / 0.002) ** 2, rel=0.15)  # both rounded to 2 digits
    data = json.loads(CliRunner().invoke(
        app, ["compare", TIES, "--trials", "500", "--precision", "0.002", "--max-trials", "1000", "--json"]
    ).stdout)
    assert (data["trials"], data["trials_min"], data["trials_max"]) == (500, 1000, 1000)  # what ran
    assert data["precision_reached"] is False


def test_compare_warns_that_a_few_trials_give_untrustworthy_intervals():
    """5 trials a setup flagged an Imperium difference significant whose exact value lay outside
    its interval: the summary says so under 30 trials, and not at 30."""
    def summary(trials: str) -> str:
        result = CliRunner().invoke(app, ["compare", TIES, "--trials", trials, "-q"])
        assert result.exit_code == 0, result.output
        return " ".join(result.stdout.split())  # the caption wraps inside the table's width

    warning = "fewer than 30 trials a setup: the intervals and p-values assume a roughly normal mean"
    assert warning in summary("29") and warning not in summary("30")


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["odds", "dustrunners", "--enemy", "war-rig", "--vehicle", "interceptor", "--redraw", ""],
         "--redraw"),
        (["odds", "dustrunners", "--deck", "illustrative-12", "--enemy", "war-rig", "--vehicle",
          "interceptor", "--policy", "best", "--objective", " "], "--objective"),
        (["dustrunners", "campaign", "--vehicle", "hauler", "--redraw", " "], "--redraw"),
        (["dustrunners", "road", "--vehicle", "hauler", "--redraw", ""], "--redraw"),
        (["dustrunners", "advise", "--enemy", "road-raiders", "--enemy-health", "4", "--vehicle",
          "interceptor", "--ammo", "3", "--objective", ""], "--objective"),
        (["odds", "war-for-arrakis", "-a", "4 regular, bashar", "-d", "3 regular", "--policy", "best",
          "--objective", ""], "--objective"),
        (["war-for-arrakis", "advise", "-a", "5 regular, Beast Rabban", "-d", "3 regular",
          "--objective", " "], "--objective"),
        (["dune1984", "fight", "--attacker", "Paul,Chani", "--defender", "Rabban", "--policy", "best",
          "--objective", ""], "--objective"),
    ],
)
def test_a_blank_redraw_or_objective_is_refused_not_read_as_none(args, flag):
    """A blank value (an unset shell variable) read as "none": best play's title said "for ,"."""
    assert refused(args).startswith(f"error: {flag}: blank; give ")


def test_a_house_rule_that_changes_nothing_here_is_noted_not_hidden():
    """-v set_aside_die on a duel of Strengths up to 6 (dice = Strength anyway): the numbers are the
    official rules', and the user is told so on stderr (stdout, JSON included, is unchanged); -v
    fight_to_last (a duel has no next character) is no house rule of a duel at all, in any setup,
    and is told so; a variant that changes the setup gets no note."""
    idle = cli.invoke(app, [*ODDS, "-v", "set_aside_die", "--json"])
    assert idle.exit_code == 0, idle.output
    assert idle.stderr == ("note: -v set_aside_die changes no exact value of this setup: the official rules "
                           "give the same exact values here (it may matter in other setups)\n")
    assert json.loads(idle.stdout)["variants"] == ["set_aside_die"]
    both = cli.invoke(app, [*ODDS, "-v", "fight_to_last", "-v", "set_aside_die", "--json"])
    assert both.stderr.splitlines() == [
        "note: -v fight_to_last changes nothing in duel: it sets no rule that duel uses (`montecarlo "
        "games` says what each house rule changes)",
        idle.stderr.strip(),
    ]
    assert json.loads(both.stdout)["variants"] == ["fight_to_last", "set_aside_die"]
    # two that apply to a duel but change nothing in this one (no Gom Jabbar, Strengths up to 6)
    pair = cli.invoke(app, [*ODDS, "-v", "set_aside_die", "-v", "gom_counts_toward_cap"])
    assert pair.stderr == ("note: -v set_aside_die -v gom_counts_toward_cap change no exact value of this "
                           "setup: the official rules give the same exact values here (they may matter in "
                           "other setups)\n")
    two = cli.invoke(app, ["dune1984", "reach", "--distance", "7", "-n", "100", "-q",
                           "-v", "ties_favour_defender", "-v", "no_strength_gain"])
    assert two.stderr.startswith("note: -v ties_favour_defender -v no_strength_gain change nothing in "
                                 "reach: they set no rule that reach uses"), two.stderr
    # an answer of a game the registry does not know (a battle file's, its game not passed): no note,
    # no failure
    from dataclasses import replace

    from montecarlo import api
    from montecarlo.cli.common import note_idle_variants

    answer = api.odds("dune1984", attacker=3, defender=2, variants=["set_aside_die"], trials=100).raw
    note_idle_variants(replace(answer, game="no-such-game"))
    busy = cli.invoke(app, [*ODDS, "-v", "ties_favour_defender"])
    assert busy.exit_code == 0 and "note:" not in busy.stderr
    # a battle file's too: a defender of 2 armies never rolls a third die
    risk = ["odds", str(ROOT / "scenarios/games/risk.toml"), "-v", "defender_three_dice", "-n", "2000"]
    idle = cli.invoke(app, [*risk, "--set", "defenders=2"])
    assert idle.exit_code == 0, idle.output
    assert idle.stderr.startswith("note: -v defender_three_dice changes no exact value")
    busy = cli.invoke(app, [*risk, "--set", "defenders=3"])
    assert busy.exit_code == 0 and "note:" not in busy.stderr


@pytest.mark.processes
def test_a_closed_or_full_standard_output_is_one_line():
    """`montecarlo odds ... >&-` ended with exit 0 and printed nothing (with workers: loky's
    start flushed Python's None, a traceback); `montecarlo --help > /dev/full` and the listings
    ended in a traceback. Each is one line now, exit 1; a report needs no stdout; a closed stderr
    keeps the exit code."""
    import os
    import subprocess

    def shell(command: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": str(ROOT)}
        return subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=300)

    mc = f"{sys.executable} -m montecarlo"
    odds = f"{mc} odds dune1984 -a 4 -d 4 -n 2000"
    for jobs in (1, 2):
        done = shell(f"{odds} --jobs {jobs} >&-")
        assert (done.returncode, done.stderr) == (1, "error: standard output is closed\n"), done.stderr
    for command in ("--help", "games", "schema scenario", "odds dune1984 --help", "dune1984 characters"):
        done = shell(f"{mc} {command} > /dev/full")
        assert (done.returncode, done.stderr) == (1, "error: No space left on device\n"), command
    assert shell(f"{mc} odds dune1984 -a 9 -d 4 2>&-").returncode == 2


def test_the_listing_of_commands_leaves_no_file_open():
    """Reading each command module's docstring left its file to the garbage collector: with
    PYTHONWARNINGS=error, 'Exception ignored ... ResourceWarning: unclosed file' for each module."""
    import gc
    import warnings

    from montecarlo.cli import _source_facts

    gc.collect()  # files other tests of this process left open are not this test's
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        _source_facts.__wrapped__("montecarlo.cli.dune1984")
        gc.collect()
    ours = [w for w in seen if issubclass(w.category, ResourceWarning) and "dune1984.py" in str(w.message)]
    assert ours == []


def test_a_report_folder_name_too_long_for_its_temporary_folder_is_refused_before_the_run(tmp_path):
    """A name of 242-255 bytes fits the file system, but the report is first written beside it
    as .NAME.tmp-1a2b3c4d: it was refused with 'File name too long' after the whole run."""
    for command in (["report", TIES], ["compare", TIES]):
        line = refused([*command, "--out", str(tmp_path / ("y" * 242))])
        assert line == (
            "error: --out: the folder name yyyyyyyyyyyyyyyyyyyy... is 242 bytes; a report is written beside "
            "it under a longer temporary name first, so it takes at most 241; give a shorter name"
        )
    assert not list(tmp_path.iterdir())
    done = cli.invoke(app, ["report", TIES, "--out", str(tmp_path / ("y" * 241)), "-n", "500", "-q"])
    assert done.exit_code == 0, done.output
    assert [p.name for p in tmp_path.iterdir()] == ["y" * 241]


def test_a_folder_given_as_a_game_is_called_a_folder(tmp_path):
    """A folder of battle files given where a game goes was an 'unknown game' (odds and table: in
    tests/cli/test_cli_main.py, whose main turns their usage errors into this line)."""
    folder = str(tmp_path)
    assert refused(["games", folder]) == (
        f"error: {folder!r} is a folder, not a game: give a game's name (dune1984, dustrunners, imperium, "
        "war-for-arrakis) or a battle file (FILE.toml)"
    )


def test_one_trial_is_one_trial_not_1_trials():
    duel = ["odds", "dune1984", "-a", "4", "-d", "5", "-q"]
    shown = cli.invoke(app, [*duel, "-n", "1"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "\n1 trial, seed " in shown.stdout and "1 trials" not in shown.stdout
    shown = cli.invoke(app, [*duel, "-n", "2"], env={"COLUMNS": "200"})
    assert "\n2 trials, seed " in shown.stdout


def test_report_all_says_one_report_in_the_singular_and_folders_a_spaced_file(monkeypatch, tmp_path):
    """"1 reports in 1 s"; and "my ties.toml" was refused where its folder can be my-ties."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "my ties.toml").write_text(Path(TIES).read_text())
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(app, ["report-all", "mine", "--out", "out", "-n", "500", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "wrote out/index.html: 1 report in " in result.stderr, result.stderr
    assert (tmp_path / "out" / "my-ties" / "index.html").is_file()
