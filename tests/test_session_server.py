"""mutmut's fork server as a pytest session (tests/session_server.py): a mutant's child runs the
session's items, likely killers first, until one fails."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests import mutant_order

ROOT = Path(__file__).resolve().parent.parent

# In a pytest session over a small project: run_items on the named tests, as a mutant's child
# would, and print which tests ran and the exit code it gives mutmut.
DRIVER = """
import json, sys
import pytest
from tests import session_server

tree, mutant, *names = sys.argv[1:]
ran = []

class Serve:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        items = {item.nodeid: item for item in session.items}
        code = session_server.run_items(session, [items[n] for n in names], mutant or None, {}, Path(tree))
        print("\\nRESULT", json.dumps({"code": code, "ran": ran}))
        return True

    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            ran.append(report.nodeid)

from pathlib import Path
pytest.main(["-q", "-p", "no:cacheprovider", "-x", "t_small.py"], plugins=[Serve()])
"""

SMALL = """
def test_first():
    pass

def test_fails():
    assert False

def test_last():
    pass
"""


def _run(tmp_path, mutant, *names):
    (tmp_path / "t_small.py").write_text(textwrap.dedent(SMALL))
    environment = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path), mutant, *names], cwd=tmp_path,
                          capture_output=True, text=True, env=environment, check=False)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def test_the_named_items_run_until_the_first_failure(tmp_path):
    first, fails, last = "t_small.py::test_first", "t_small.py::test_fails", "t_small.py::test_last"
    assert _run(tmp_path, "", first, last) == {"code": 0, "ran": [first, last]}
    assert _run(tmp_path, "", first, fails, last) == {"code": 1, "ran": [first, fails]}
    assert _run(tmp_path, "", last) == {"code": 0, "ran": [last]}  # only the named ones


def test_a_mutants_known_killers_run_first(tmp_path):
    first, fails, last = "t_small.py::test_first", "t_small.py::test_fails", "t_small.py::test_last"
    mutant_order.record_killer(tmp_path, "pkg.mod.x_f", fails)
    assert _run(tmp_path, "pkg.mod.x_f__mutmut_2", first, last, fails) == {"code": 1, "ran": [fails]}
    other = _run(tmp_path, "pkg.mod.x_g__mutmut_2", first, last, fails)  # another function's
    assert other == {"code": 1, "ran": [first, last, fails]}
    mutant_order.record_killer(tmp_path, "pkg.mod.x_g", last, "pkg.mod.x_g__mutmut_3")  # passes here
    own = _run(tmp_path, "pkg.mod.x_g__mutmut_3", first, fails, last)
    assert own == {"code": 1, "ran": [last, first, fails]}
    runs = [line.split("\t") for line in (tmp_path / "mutant-runs.tsv").read_text().splitlines()]
    assert [run[:3] for run in runs] == [["pkg.mod.x_f__mutmut_2", "1", fails],
                                         ["pkg.mod.x_g__mutmut_2", "3", fails],
                                         ["pkg.mod.x_g__mutmut_3", "3", fails]]
    assert all(0 <= float(run[4]) <= float(run[3]) < 60 for run in runs)


def test_a_test_the_session_does_not_hold_sends_the_mutant_to_pytest_started_afresh(tmp_path):
    from types import SimpleNamespace

    from tests import session_server

    class Fallback:
        def run_tests(self, *, mutant_name, tests):
            calls.append((mutant_name, tests))
            return 3

    calls = []
    session = SimpleNamespace(items=[SimpleNamespace(nodeid="t.py::a")])
    runner = session_server.SessionTests(session, Fallback(), str(tmp_path))
    assert runner.run_tests(mutant_name="m.x_f__mutmut_1", tests=["t.py::a", "t.py::gone"]) == 3
    assert runner.run_tests(mutant_name="m.x_f__mutmut_1", tests=[]) == 3
    assert calls == [("m.x_f__mutmut_1", ["t.py::a", "t.py::gone"]), ("m.x_f__mutmut_1", [])]
