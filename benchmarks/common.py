"""Helpers shared by the benchmark scripts behind ``make bench``.

Figures are medians over repeats, in trials per second; this machine is noisy, so compare
ratios within one run rather than figures across runs.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any, Callable

import numpy as np

from montecarlo.analysis import kernel_for, resolve
from montecarlo.engine import runner

CORES = os.cpu_count() or 1


def median_seconds(func: Callable[[], Any], repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``func()`` over ``repeats`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kernel_rate(
    game: str,
    question: str | None,
    setup: dict,
    variants=(),
    n: int = runner.DEFAULT_CHUNK_SIZE,
    repeats: int = 7,
) -> float:
    """Trials per second of one game kernel on one core (no engine, no tallies)."""
    g, q = resolve(game, question)
    kernel = kernel_for(q, g.rules(variants), q.setup(setup))
    rng = np.random.default_rng(1)
    return n / median_seconds(lambda: kernel(n, rng), repeats)


def engine_rate(
    game: str,
    question: str | None,
    setup: dict,
    trials: int,
    jobs: int = CORES,
    variants=(),
    repeats: int = 3,
) -> float:
    """Trials per second through the whole engine (chunks, workers, tallies) with ``jobs`` workers."""
    g, q = resolve(game, question)
    kernel = kernel_for(q, g.rules(variants), q.setup(setup))
    run = lambda: runner.run(kernel, q.metrics, trials, 1, jobs=jobs)  # noqa: E731
    return trials / median_seconds(run, repeats)


FIGURES: list[dict[str, Any]] = []  # every figure printed by line(), for benchmarks/results.json


def line(label: str, value: float, unit: str, target: str = "") -> None:
    """Print one benchmark figure, with the machine's core count and the issue's target, and keep
    it for ``benchmarks/results.json``."""
    suffix = f"   (target: {target})" if target else ""
    shown = f"{value:>14,.2f}" if abs(value) < 100 else f"{value:>14,.1f}"
    print(f"{label:<58} {shown} {unit:<10} [{CORES} cores]{suffix}", flush=True)
    FIGURES.append({"figure": label, "value": float(value), "unit": unit, "target": target or None})
