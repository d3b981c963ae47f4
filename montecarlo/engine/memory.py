"""How much memory a run may use, and a one-line refusal when a plan would need more.

A run is refused *before* it starts when its estimate exceeds the memory available, so a
user who asks for a huge grid or a huge chunk gets one line with the estimate instead of an
hour of swapping or an out-of-memory kill.

>>> fmt_bytes(3 * 2**30)
'3.0 GiB'
>>> check_fits(1_000, "a tiny run", available=10_000)
>>> check_fits(10**15, "a huge run", available=2**34)
Traceback (most recent call last):
...
montecarlo.errors.InputError: a huge run would need about 909.5 TiB of memory; 16.0 GiB are available
"""

from __future__ import annotations

import os

from montecarlo.errors import InputError


def available_bytes() -> int | None:
    """Memory available to a new allocation (MemAvailable on Linux, else physical memory; None if unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def fmt_bytes(n: float) -> str:
    """``n`` bytes in binary units, one decimal."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    raise AssertionError("unreachable")


def check_fits(needed: float, what: str, available: int | None = None, hint: str = "") -> None:
    """Raise InputError (one line, with the estimate) if ``needed`` bytes exceed what is available."""
    if available is None:
        available = available_bytes()
    if available is None or needed <= available:
        return
    raise InputError(
        f"{what} would need about {fmt_bytes(needed)} of memory; {fmt_bytes(available)} are available"
        + (f": {hint}" if hint else "")
    )
