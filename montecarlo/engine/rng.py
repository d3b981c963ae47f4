"""Seeding: one ``SeedSequence`` per run, one child stream per chunk.

A chunk's stream depends only on the run's seed and the chunk's index, never on the worker
that runs it, so a run gives bit-identical results for any number of workers or any backend.
"""

from __future__ import annotations

import numpy as np

from montecarlo.errors import InputError
from montecarlo.validate import is_whole


def check_seed(seed: int) -> int:
    """Return ``seed`` if it is a usable non-negative integer, else raise InputError."""
    if not is_whole(seed) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def chunk_seed(seed: int, chunk_index: int) -> np.random.SeedSequence:
    """The seed sequence of chunk ``chunk_index`` of a run seeded with ``seed``.

    Equal to ``SeedSequence(seed).spawn(k)[chunk_index]`` for any k > chunk_index, but computed
    directly so that a run can grow chunk by chunk (precision targets) without re-spawning.
    """
    return np.random.SeedSequence(check_seed(seed), spawn_key=(chunk_index,))


def chunk_generator(seed: int, chunk_index: int) -> np.random.Generator:
    """The generator chunk ``chunk_index`` must use."""
    return np.random.Generator(np.random.PCG64(chunk_seed(seed, chunk_index)))
