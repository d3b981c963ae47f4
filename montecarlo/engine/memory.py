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

import ctypes
import os
import sys

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


def check_fits(
    needed: float, what: str, available: int | None = None, hint: str = "",
    error: type[InputError] = InputError,
) -> None:
    """Raise ``error`` (one line, with the estimate) if ``needed`` bytes exceed what is available."""
    if available is None:
        available = available_bytes()
    if available is None or needed <= available:
        return
    raise error(
        f"{what} would need about {fmt_bytes(needed)} of memory; {fmt_bytes(available)} are available"
        + (f": {hint}" if hint else "")
    )


# glibc's mallopt parameters (malloc.h) and the values a simulating process sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
KEPT_FREE_BYTES = 64 << 20  # free heap memory kept before any is returned to the system
HEAP_BLOCK_LIMIT = 32 << 20  # blocks up to this size come from the heap, not a fresh mapping
_USER_SETTINGS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")
_allocator_set: bool | None = None  # None: not tried yet in this process


def reuse_freed_memory() -> bool:
    """Let this process reuse the memory its chunks free instead of asking the system again.

    A chunk allocates and frees arrays of about a megabyte many times. By default glibc maps
    each afresh and returns it on free, or trims the heap as soon as 2 of them lie free, so every
    chunk pays the kernel to map and zero the same pages again: a sixth of the time of a Dune
    1984 duel table (36 cells of 1,000,000 trials: 1.23-1.30 s against 1.03-1.06 s with 1 job)
    and a fifth of the War for Arrakis battle matrix's (0.83-0.85 s against 0.67-0.68 s, December
    2026). Keeping up to ``KEPT_FREE_BYTES`` of freed heap ends that. Once per process, on glibc
    only, and never over settings the user made (``MALLOC_*_`` or ``GLIBC_TUNABLES`` in the
    environment). True if set.
    """
    global _allocator_set
    if _allocator_set is None:
        _allocator_set = False
        if sys.platform.startswith("linux") and not any(name in os.environ for name in _USER_SETTINGS):
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):  # not glibc (musl has no mallopt)
                return False
            mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
            _allocator_set = bool(
                mallopt(_M_MMAP_THRESHOLD, HEAP_BLOCK_LIMIT) and mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES)
            )
    return _allocator_set
