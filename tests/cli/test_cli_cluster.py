"""A real dask cluster on loopback: one `dask scheduler` and two `dask worker` processes.

odds, table and report run against it give the numbers of a local run, byte for byte; a worker
killed in the middle of a run leaves the run to finish on the other with the same numbers (or to
fail with one line and nothing written). Skipped when dask.distributed is not installed.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed")

from montecarlo.cli import app  # noqa: E402

pytestmark = pytest.mark.processes
ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

SCENARIO = """
title = "Small duels on a cluster"
game = "dune1984"
question = "duel"
seed = 11
trials = 3000
metrics = ["attacker_win", "rounds"]

[grid]
attacker = [1, 2, 3]
defender = [2, 3]

[variants.official]
[variants.no_strength_gain]
builtin = "no_strength_gain"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    workers = [
        start("worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--name", name)
        for name in ("w1", "w2")
    ]
    try:
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for process in (*workers, scheduler):
            process.terminate()
        for process in (*workers, scheduler):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def output(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def report_data(folder: Path) -> dict:
    """Every table of a report, and its report.json without the date, the run time and the command."""
    data = {p.name: p.read_bytes() for p in folder.glob("*.csv")}
    facts = json.loads((folder / "report.json").read_text())
    for key in ("date", "run_seconds", "rerun", "jobs", "workers", "files"):
        facts.pop(key, None)
    data["report.json"] = json.dumps(facts, sort_keys=True).encode()
    return data


def tasks_seen(address: str) -> int:
    """How many task transitions the cluster's scheduler has made so far."""
    from distributed import Client

    with Client(address, timeout=30) as client:
        return client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)


def test_odds_table_and_report_on_a_cluster_match_a_local_run(cluster, tmp_path):
    address, _ = cluster
    odds = ["odds", "dune1984", "-a", "4", "-d", "5", "-n", "400000", "--json"]
    before = tasks_seen(address)
    assert output([*odds, "--scheduler", address]) == output([*odds, "-j", "1"])
    assert tasks_seen(address) > before  # run there, not on a cluster of its own
    table = ["table", "dune1984", "-n", "20000", "--json"]
    assert output([*table, "--scheduler", address]) == output([*table, "-j", "1"])
    path = tmp_path / "small.toml"
    path.write_text(SCENARIO)
    output(["report", str(path), "--out", str(tmp_path / "local"), "-q", "-j", "1"])
    output(["report", str(path), "--out", str(tmp_path / "cluster"), "-q", "--backend", "dask",
            "--scheduler", address])
    assert report_data(tmp_path / "cluster") == report_data(tmp_path / "local")


def test_a_worker_killed_mid_run_leaves_the_numbers_unchanged_or_one_line(cluster, tmp_path):
    from distributed import Client

    address, workers = cluster
    odds = ["odds", "dune1984", "-a", "5", "-d", "5", "-n", "30000000", "--json"]  # 229 chunks
    local = output([*odds, "-j", "1"])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen(
        [sys.executable, "-m", "montecarlo", *odds, "--scheduler", address], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    with Client(address, timeout=30) as client:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(client.processing().values()):
            time.sleep(0.05)  # until the run's first chunks are on the workers
        assert run.poll() is None, "the run ended before a worker could be killed"
        workers[0].kill()
    stdout, stderr = run.communicate(timeout=120)
    if run.returncode == 0:
        assert stdout == local
    else:
        lines = stderr.strip().splitlines()
        assert run.returncode == 2 and stdout == "" and len(lines) == 1 and lines[0].startswith("error: ")


def test_a_cluster_of_one_thread_is_said_and_one_that_loses_every_worker_ends_in_one_line(tmp_path):
    """A cluster of its own. With one worker thread joblib runs the work in the command's own
    process, not on the cluster: said. With two, every worker killed mid-run left the command
    waiting for ever (an audit stopped it after 56 s); it now ends after WORKERS_WAIT_SECONDS
    without a worker, in one line, its checkpoint keeping the chunks done."""
    import signal

    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    scheduler = start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    workers = []

    def worker(name: str) -> None:  # in a group of its own: its nanny and its process die together
        command = [sys.executable, "-m", "dask", "worker", address, "--nthreads", "1", "--no-dashboard"]
        quiet = subprocess.DEVNULL
        workers.append(subprocess.Popen(
            [*command, "--name", name], cwd=ROOT, env=env, stdout=quiet, stderr=quiet, start_new_session=True,
        ))

    montecarlo = [sys.executable, "-m", "montecarlo", "odds", "dune1984", "-a", "5", "-d", "5", "--json",
                  "--scheduler", address]
    try:
        worker("w1")
        with Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        one = subprocess.run([*montecarlo, "-n", "20000"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=120)
        assert one.returncode == 0 and one.stderr.startswith(
            f"warning: the dask cluster at {address} has 1 worker thread: joblib then runs the work in this "
            "process"), one.stderr
        worker("w2")
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            checkpoint = tmp_path / "c.json"
            long_run = [*montecarlo, "-n", "400000000", "--checkpoint", str(checkpoint)]
            piped = subprocess.PIPE
            run = subprocess.Popen(long_run, cwd=ROOT, env=env, stdout=piped, stderr=piped, text=True)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not any(client.processing().values()):
                time.sleep(0.05)
        assert run.poll() is None, "the run ended before its workers could be killed"
        for process in workers:
            os.killpg(process.pid, signal.SIGKILL)
        stopped = time.monotonic()
        stdout, stderr = run.communicate(timeout=120)
        assert (run.returncode, stdout, stderr) == (2, "", (
            f"error: the dask cluster at {address} has had no worker for 10 s during the run (killed or "
            "stopped?); restart its workers and run the command again (with --checkpoint it resumes)\n"
        ))
        assert time.monotonic() - stopped < 60 and checkpoint.is_file()
    finally:
        for process in workers:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        scheduler.terminate()
        scheduler.wait(timeout=10)
