"""The combat die of War for Arrakis: exact distributions of a pool, by enumeration.

A pool of ``n`` dice, each showing Hit, Shield, Special or blank with face counts
``(hit, shield, special, blank)``, has the multinomial distribution over the counts: the
probability of ``h`` Hits, ``s`` Shields and ``x`` Specials (and ``b = n - h - s - x`` blanks)
is ``n! / (h! s! x! b!) * p_h**h * p_s**s * p_x**x * p_b**b``. Every (h, s, x) is enumerated
once per pool and cached.

>>> dist = pool(1, (3, 2, 1, 0))
>>> dist[(1, 0, 0)], dist[(0, 1, 0)], dist[(0, 0, 1)]
(0.5, 0.3333333333333333, 0.16666666666666666)
>>> round(sum(pool(6, (3, 2, 1, 0)).values()), 12)
1.0
>>> pool_fractions(2, (3, 2, 1, 0))[(1, 0, 1)]
Fraction(1, 6)
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

Faces = tuple[int, int, int, int]  # (hit, shield, special, blank) face counts


@functools.lru_cache(maxsize=256)
def pool_fractions(n: int, faces: Faces) -> dict[tuple[int, int, int], Fraction]:
    """``{(hits, shields, specials): probability}`` of ``n`` dice, as exact fractions."""
    total = sum(faces)
    p = [Fraction(f, total) for f in faces]
    out: dict[tuple[int, int, int], Fraction] = {}
    for h in range(n + 1):
        for s in range(n - h + 1):
            for x in range(n - h - s + 1):
                b = n - h - s - x
                ways = math.factorial(n) // (
                    math.factorial(h) * math.factorial(s) * math.factorial(x) * math.factorial(b)
                )
                prob = ways * p[0] ** h * p[1] ** s * p[2] ** x * p[3] ** b
                if prob:
                    out[(h, s, x)] = prob
    return out


@functools.lru_cache(maxsize=256)
def pool(n: int, faces: Faces) -> dict[tuple[int, int, int], float]:
    """``{(hits, shields, specials): probability}`` of ``n`` dice (floats, summing to 1)."""
    total = sum(faces)
    p = [f / total for f in faces]
    fact = [math.factorial(i) for i in range(n + 1)]
    out: dict[tuple[int, int, int], float] = {}
    for h in range(n + 1):
        for s in range(n - h + 1):
            for x in range(n - h - s + 1):
                b = n - h - s - x
                prob = (
                    fact[n]
                    / (fact[h] * fact[s] * fact[x] * fact[b])
                    * p[0] ** h
                    * p[1] ** s
                    * p[2] ** x
                    * p[3] ** b
                )
                if prob:
                    out[(h, s, x)] = prob
    return out


@functools.lru_cache(maxsize=1024)
def damage(n: int, faces: Faces, special_hits: int, hit_hits: int = 1) -> tuple[float, ...]:
    """Distribution of the hits ``n`` dice inflict when Shields count for nothing (storms, worms).

    Each Hit counts ``hit_hits``, each Special ``special_hits``; ``result[k] = P(k hits)``.

    >>> damage(2, (3, 2, 1, 0), 2)  # a Coriolis storm in Deep Desert
    (0.1111111111111111, 0.3333333333333333, 0.3611111111111111, 0.16666666666666666, 0.027777777777777776)
    """
    top = n * max(special_hits, hit_hits)
    out = [Fraction(0)] * (top + 1)
    for (h, _, x), p in pool_fractions(n, faces).items():
        out[h * hit_hits + x * special_hits] += p
    return tuple(float(v) for v in out)


def clear_caches() -> None:
    """Forget every cached pool (for cold timings)."""
    for cached in (pool_fractions, pool, damage):
        cached.cache_clear()
