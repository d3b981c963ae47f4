"""Best play (engine/decisions.py) on synthetic chains: the time of one cold solve.

- "dense": 5,000 decision states with 10 options each, every option 3 random steps forward (one
  in five with a self-loop of 1/5 besides), rewards on two tags, 50 final states.
- "battle-shaped": the shape of a War for Arrakis best-play question (two legions of up to 6
  units: a few thousand states, up to ~10 choices after a roll): 2,500 rolls of 8 outcomes (one a
  tie that changes nothing) alternating with 2,500 decisions among 10 deterministic options.
- "cycles": the dense chain where every 10th state may also step back up to 50 states: one
  strongly connected component of 5,000 states, solved by policy iteration (the slow case).

The transitions are built beforehand, so the figures are the solver's own: medians of cold
solves (nothing kept between them). Then the sampler under best play against the sampler of a
fixed policy (always the first option) on the battle-shaped chain, with the objective as a metric.
"""

from __future__ import annotations

import numpy as np
from common import line, median_seconds

from montecarlo.engine.chain import Chain
from montecarlo.engine.decisions import Choice, Objective, follow, solve, with_objective
from montecarlo.engine.metrics import Metric

STATES, OPTIONS, ENDS = 5_000, 10, 50


def synthetic(shape: str, seed: int = 1):
    """(transitions, objective): live states 0..STATES-1, final states STATES.. on."""
    rng = np.random.default_rng(seed)
    table: dict[int, object] = {}
    for i in range(STATES):
        if shape == "battle-shaped" and i % 2 == 0:  # a roll: 7 outcomes forward and a tie
            targets = rng.integers(i + 1, min(i + 40, STATES + ENDS), 7).tolist()
            probs = rng.random(7) + 0.1
            probs = (0.9 * probs / probs.sum()).tolist()
            steps = [(p, t, ("a",) if t % 3 else ("b",)) for p, t in zip(probs, targets)]
            table[i] = steps + [(0.1, i, ("b",))]
            continue
        if shape == "battle-shaped":  # a choice: one deterministic step to a roll or an end
            jumps = (i + 1 + 2 * rng.integers(0, 10, OPTIONS)).tolist()
            targets = jumps if i + 21 < STATES else list(range(STATES, STATES + OPTIONS))
            tags = [("a",) if k % 2 else ("b",) for k in range(OPTIONS)]
            table[i] = Choice({f"option {k}": [(1.0, t, tags[k])] for k, t in enumerate(targets)})
            continue
        low = max(0, i - 50) if shape == "cycles" and i % 10 == 0 else i + 1
        targets = rng.integers(low, min(i + 60, STATES + ENDS), (OPTIONS, 3))
        targets = np.where(targets == i, STATES + rng.integers(0, ENDS, (OPTIONS, 3)), targets).tolist()
        stays = np.where(rng.random(OPTIONS) < 0.2, 0.2, 0.0).tolist()
        weights = rng.random((OPTIONS, 3)) + 0.1
        probs = ((1 - np.array(stays))[:, None] * weights / weights.sum(axis=1, keepdims=True)).tolist()
        options = {}
        for k in range(OPTIONS):
            steps = [(p, t, ("a",) if t % 2 else ("b",)) for p, t in zip(probs[k], targets[k])]
            options[f"option {k}"] = steps + [(stays[k], i, ("b",))] if stays[k] else steps
        table[i] = Choice(options)
    finals = rng.normal(size=ENDS)
    rewards = {"a": -0.01, "b": 0.0 if shape == "cycles" else 0.02}
    return (lambda s: table.get(s, ())), Objective(lambda s: float(finals[s - STATES]), rewards)


def main() -> None:
    for shape in ("dense", "battle-shaped", "cycles"):
        transitions, objective = synthetic(shape)
        repeats, warmup = (1, 0) if shape == "cycles" else (5, 1)
        ms = 1e3 * median_seconds(lambda t=transitions, o=objective: solve(t, 0, o), repeats, warmup)
        target = "< 100 ms" if shape == "battle-shaped" else ""
        line(f"best play, {STATES:,} states x {OPTIONS} options, {shape}", ms, "ms", target)
    transitions, objective = synthetic("battle-shaped")
    solution = solve(transitions, 0, objective)
    described = with_objective(objective, lambda s: {"end": s >= STATES}, (Metric("end", "probability", ""),))
    rng = np.random.default_rng(1)
    best = Chain(solution.transitions, *described)
    fixed = Chain(follow(transitions, lambda s, choice: choice.names[0]), *described)
    rates = {}
    for name, chain in (("best play", best), ("first option", fixed)):
        rates[name] = 200_000 / median_seconds(lambda c=chain: c.sample(0, 200_000, rng), repeats=3)
        line(f"sampler, battle-shaped chain, {name}, 200,000 trials", rates[name], "trials/s")
    line("sampler: best play / fixed policy", rates["best play"] / rates["first option"], "ratio", ">= 0.5")


if __name__ == "__main__":
    main()
