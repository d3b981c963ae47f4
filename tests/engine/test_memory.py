"""The allocator setting a simulating process makes (memory.reuse_freed_memory)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

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


def faults(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run(
        [sys.executable, "-c", FAULTS], env={**clean, **env}, capture_output=True, text=True, check=True
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
