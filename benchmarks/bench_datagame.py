"""Rules as data: the Risk file's exact table, and its kernels against a hand-written Risk kernel.

Figures (issue 12): the whole 10x10 exact attacker-win table from scenarios/games/risk.toml in
under 50 ms (cold: the file compiled and every dice distribution enumerated again), and the
TOML-defined battle simulated at no less than half the speed of a hand-written vectorised kernel
for the same battle (both figures printed, with the ratio).
"""

from __future__ import annotations

import pathlib
import time

import numpy as np
from common import line, median_seconds

from montecarlo.datagame import rounds
from montecarlo.datagame.compile import compile_text

RISK = pathlib.Path(__file__).resolve().parents[1] / "scenarios" / "games" / "risk.toml"
N = 131_072
BATTLE = (10, 10)


def hand_kernel(attackers: int, defenders: int, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Classic Risk written by hand: up to 3 dice against 2, highest pairs, ties to the defender."""
    a, d = np.full(n, attackers), np.full(n, defenders)
    where = np.arange(n)
    win, rounds_ = np.empty(n, dtype=bool), np.empty(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    while where.size:
        m = where.size
        na, nd = np.minimum(3, a), np.minimum(2, d)
        ra = np.where(np.arange(3) < na[:, None], rng.integers(1, 7, size=(m, 3)), 0)
        rd = np.where(np.arange(2) < nd[:, None], rng.integers(1, 7, size=(m, 2)), 0)
        ra = -np.sort(-ra, axis=1)
        rd.sort(axis=1)
        rd = rd[:, ::-1]
        two = np.minimum(na, nd) >= 2
        first, second = ra[:, 0] > rd[:, 0], ra[:, 1] > rd[:, 1]
        d = d - first - (two & second)
        a = a - ~first - (two & ~second)
        count += 1
        over = (a == 0) | (d == 0)
        if over.any():
            win[where[over]] = d[over] == 0
            rounds_[where[over]] = count[over]
            keep = ~over
            where, a, d, count = where[keep], a[keep], d[keep], count[keep]
    return {"attacker_win": win, "rounds": rounds_}


def cold_table() -> float:
    """Seconds to compile the file and solve all 100 cells from nothing cached."""
    text = RISK.read_text()
    compile_text.cache_clear()
    rounds.clear_caches()
    start = time.perf_counter()
    compiled = compile_text(text, str(RISK))
    q, rules = compiled.game.question(), compiled.game.rules()
    for a in range(1, 11):
        for d in range(1, 11):
            q.exact(rules, q.setup({"attackers": a, "defenders": d}))
    return time.perf_counter() - start


def main() -> None:
    cold = min(cold_table() for _ in range(5))
    line("risk.toml: exact 10x10 attacker-win table, cold", cold * 1000, "ms", "< 50 ms")
    compiled = compile_text(RISK.read_text(), str(RISK))
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"attackers": BATTLE[0], "defenders": BATTLE[1]})
    rng = np.random.default_rng(1)
    hand = N / median_seconds(lambda: hand_kernel(*BATTLE, N, rng), 5)
    sampler = N / median_seconds(lambda: q.simulate(rules, setup, N, rng), 5)
    direct = N / median_seconds(lambda: compiled.simulate_direct(rules, setup, N, rng), 5)
    label = f"{BATTLE[0]} vs {BATTLE[1]}"
    same = hand_kernel(*BATTLE, N, np.random.default_rng(2))["attacker_win"].mean()
    print(
        f"  same battle: hand-written estimate {same:.4f}, risk.toml exact "
        f"{q.exact(rules, setup)['attacker_win']:.4f}",
        flush=True,
    )
    line(f"Risk {label}: hand-written vectorised kernel", hand, "trials/s")
    line(
        f"Risk {label}: risk.toml kernel (chain sampler, the default)",
        sampler,
        "trials/s",
        f">= {hand / 2:,.0f} (half the hand-written)",
    )
    line(f"Risk {label}: risk.toml round-by-round kernel (large chains)", direct, "trials/s")
    line("ratio: risk.toml default kernel / hand-written", sampler / hand, "x", ">= 0.5")
    line("ratio: risk.toml round-by-round kernel / hand-written", direct / hand, "x")


if __name__ == "__main__":
    main()
