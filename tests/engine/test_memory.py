"""The allocator setting a simulating process makes (memory.reuse_freed_memory)."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import montecarlo

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="a glibc setting"
)

# Page faults of 40 rounds of a chunk's pattern (eight 1 MiB arrays alive at once, then freed),
# after a first round.
FAULTS = """
import json, resource, sys
import numpy as np
from montecarlo.engine import memory
applied = memory.reuse_freed_memory()
[np.ones(1 << 17) for _ in range(8)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(40):
    [np.ones(1 << 17) for _ in range(8)]
print(json.dumps({"applied": applied, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
"""


# Where the package imported here lies: the child imports the same one (under mutation testing,
# the mutated copy, not the installed project).
PACKAGE_PARENT = Path(montecarlo.__file__).resolve().parents[1]


def faults(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run(
        [sys.executable, "-c", FAULTS], env={**clean, **env}, cwd=PACKAGE_PARENT,
        capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout)


@glibc
def test_freed_chunks_are_reused_without_new_page_faults():
    # 40 x 8 MiB mapped afresh is 40 x 2,048 pages faulted in; reused heap memory faults none again
    got = faults()
    assert got["applied"] is True
    assert got["faults"] < 1_000


@glibc
def test_the_users_own_allocator_settings_are_left_alone():
    got = faults(GLIBC_TUNABLES="")
    assert got["applied"] is False
    assert got["faults"] > 20_000  # glibc's default maps (and faults in) every large array again
    assert faults(MALLOC_TRIM_THRESHOLD_="131072")["applied"] is False


def test_it_is_tried_once_per_process(monkeypatch):
    from montecarlo.engine import memory

    monkeypatch.setattr(memory, "_allocator_set", None)
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert memory.reuse_freed_memory() is False
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    assert memory.reuse_freed_memory() is False  # not tried again: the answer of the first call


def chunk_pattern_faults() -> int:
    """Page faults of 20 rounds of eight 1 MiB arrays alive at once, after a first round."""
    [np.ones(1 << 17) for _ in range(8)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        [np.ones(1 << 17) for _ in range(8)]
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@glibc
def test_in_this_process_both_thresholds_are_set(monkeypatch):
    # the same measure in-process (what a run's own process does): 20 x 2,048 faults by default,
    # and still thousands with only blocks kept on the heap but the heap trimmed as they free
    from montecarlo.engine import memory

    for name in memory._USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(memory, "_allocator_set", None)
    assert memory.reuse_freed_memory() is True
    assert chunk_pattern_faults() < 1_000


def test_both_thresholds_are_asked_for(monkeypatch):
    """Both settings, whatever the process inherited: one alone leaves freed arrays mapped afresh
    (the mmap threshold alone still trims the heap as they free)."""
    from montecarlo.engine import memory

    asked = []

    def mallopt(parameter, value):
        asked.append((parameter, value))
        return 1  # glibc's "done"

    for name in memory._USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(memory, "_allocator_set", None)
    monkeypatch.setattr(memory.ctypes, "CDLL", lambda name: SimpleNamespace(mallopt=mallopt))
    monkeypatch.setattr(sys, "platform", "linux")
    assert memory.reuse_freed_memory() is True
    assert asked == [(memory._M_MMAP_THRESHOLD, memory.HEAP_BLOCK_LIMIT),
                     (memory._M_TRIM_THRESHOLD, memory.KEPT_FREE_BYTES)]


def test_without_glibcs_mallopt_nothing_is_set(monkeypatch):
    from montecarlo.engine import memory

    def no_libc(name):
        raise OSError("no C library to load")

    for name in memory._USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(memory, "_allocator_set", None)
    monkeypatch.setattr(memory.ctypes, "CDLL", no_libc)
    assert memory.reuse_freed_memory() is False
