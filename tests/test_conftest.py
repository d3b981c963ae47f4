"""What tests/conftest.py changes under mutmut and nowhere else."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import HARNESS

HERE = Path(__file__).resolve().parent

MODULE = '''
def f(n):
    """
    >>> f(2)
    4
    """
    return 2 * n


def x_f__mutmut_orig(n):
    """
    >>> f(2)
    4
    """
    return 2 * n


def x_f__mutmut_1(n):
    """
    >>> f(2)
    4
    """
    return 3 * n


class C:
    def half(self, n):
        """
        >>> C().half(4)
        2.0
        """
        return n / 2

    def xǁCǁhalf__mutmut_1(self, n):
        """
        >>> C().half(4)
        2.0
        """
        return n / 3
'''


def _doctests_collected(tmp_path, under_mutmut: bool) -> list[str]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    for name in HARNESS:
        shutil.copy(HERE / name, tests)
    (tmp_path / "pkg.py").write_text(MODULE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("MUTANT_UNDER_TEST", None)
    if under_mutmut:
        env["MUTANT_UNDER_TEST"] = ""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--rootdir=.", "-c", os.devnull, "--doctest-modules", "--confcutdir=.", "-p", "tests.conftest",
         "pkg.py"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    return sorted(line for line in done.stdout.splitlines() if line.startswith("pkg.py::"))


def test_under_mutmut_doctest_skips_mutmuts_copies_of_a_function(tmp_path):
    assert _doctests_collected(tmp_path, under_mutmut=True) == ["pkg.py::pkg.C.half", "pkg.py::pkg.f"]


def test_elsewhere_every_doctest_is_collected(tmp_path):
    assert _doctests_collected(tmp_path, under_mutmut=False) == [
        "pkg.py::pkg.C.half", "pkg.py::pkg.C.xǁCǁhalf__mutmut_1", "pkg.py::pkg.f",
        "pkg.py::pkg.x_f__mutmut_1", "pkg.py::pkg.x_f__mutmut_orig"]
