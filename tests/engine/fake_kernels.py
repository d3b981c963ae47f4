"""Module-level kernels (picklable, so joblib workers can run them) for engine tests."""

import numpy as np

from montecarlo.games.base import Metric

METRICS = (
    Metric("hit", "probability", "uniform below p"),
    Metric("value", "mean", "the uniform itself"),
    Metric("bucket", "distribution", "which quarter the uniform fell in", (0, 1, 2, 3)),
)


def coin(p: float, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    u = rng.random(n)
    return {"hit": u < p, "value": u, "bucket": (u * 4).astype(np.int64)}


def die(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A kernel whose process dies (as if killed, or out of memory) on its first chunk."""
    import os

    os._exit(3)


def on_dask(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A coin whose ``value`` is 1 when it runs in a dask worker, else 0: where a run really ran
    (the numbers alone cannot tell, they are the same everywhere)."""
    try:
        from distributed import get_worker

        get_worker()
        inside = 1.0
    except (ImportError, ValueError):
        inside = 0.0
    out = coin(0.5, n, rng)
    out["value"] = np.full(n, inside)
    return out


RAN_ON: dict[float, set[int]] = {}  # p -> the threads that ran coin_noting_thread(p, ...)


def coin_noting_thread(p: float, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A coin that notes which thread ran it (a threading backend's worker) in RAN_ON."""
    import threading

    RAN_ON.setdefault(p, set()).add(threading.get_ident())
    return coin(p, n, rng)
