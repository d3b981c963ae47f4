"""Under mutmut, a report's plots drawn once for all the mutants that cannot change them.

Most of a report mutant's time went to drawing the report's plots (matplotlib's layout and Agg
rendering: 2.1 of 2.3 s for the fixture of ``tests/reporting/test_report.py``), although no
mutant of report writing, findings or the CLI's options can change a plot: the plots module
(not mutated itself) is given its inputs, and what it calls (tables, scenarios, the games) never
calls back into those modules. So, in a child that tests a mutant of one of :data:`SAFE`
modules, ``plots.draw_file`` looks its inputs up in a memo kept in mutmut's tree: a hit writes
the same PNG bytes and returns the same caption; a miss draws as usual and stores the result.

Why a hit is what the draw would have given:
- the key is a hash of everything ``draw_file`` is given (pickled, the test's temporary folder
  left out: the PNG does not depend on where it goes) and of mutmut's tree as generated (every
  module's size and time), so a memo never outlives the source it was drawn from;
- a draw is stored only if no frame of a :data:`SAFE` module ran while it was drawn (watched with
  ``sys.setprofile``): with the same inputs, the same code runs, so no mutant of those modules
  can change it; a draw that entered one of them is never stored;
- a test that patches the plots module (a ``save_png`` that fails, a smaller limit) or changes
  matplotlib's settings draws its plots itself;
- the children of other modules' mutants (tables, scenarios, the games, the engine: the draw
  calls them) draw every plot themselves.

Nothing here runs outside mutmut's children (``MUTANT_UNDER_TEST`` naming a mutant).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import sys
from pathlib import Path, PurePath

MEMO = ".plot-memo"  # beside mutmut-stats.json, in mutmut's tree
SAFE = ("montecarlo.reporting.report", "montecarlo.reporting.findings", "montecarlo.cli.common")
_TEMPORARY = re.compile(rb"pytest-of-[^/\x00]*/pytest-\d+")  # tmp_path_factory's base, per session


def tree_state(tree: Path) -> str:
    """A hash of the package modules in mutmut's tree, as generated (names, sizes, times)."""
    digest = hashlib.sha256()
    for path in sorted((tree / "montecarlo").rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(tree)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def key(state: str, args: tuple) -> str | None:
    """The memo's key of one ``draw_file`` call; None when its inputs cannot be pickled."""
    *inputs, path = args
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, protocol=5).dump((*inputs, Path(path).name))
    except Exception:  # an input pickle refuses: draw it
        return None
    return hashlib.sha256(state.encode() + b"\0" + _TEMPORARY.sub(b"T", buffer.getvalue())).hexdigest()


class _Pickler(pickle.Pickler):
    """Pickles a path as its text, so that the temporary folder in it can be left out."""

    def reducer_override(self, obj):
        if isinstance(obj, PurePath):
            return str, (str(obj),)
        return NotImplemented


def _draw_watching(draw, args: tuple, watched: set[str]):
    """``draw(*args)``, and whether a frame of a ``watched`` file ran meanwhile."""
    entered = False

    def profile(frame, event, arg):
        nonlocal entered
        if event == "call" and frame.f_code.co_filename in watched:
            entered = True

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = draw(*args)
    finally:
        sys.setprofile(previous)
    return result, entered


def _store(folder: Path, name: str, caption: str | None, png: bytes | None) -> None:
    """Write one memo entry atomically (two children may draw the same plot at once)."""
    try:
        folder.mkdir(exist_ok=True)
        tmp = folder / f".{name}.{os.getpid()}"
        tmp.write_bytes(json.dumps({"caption": caption}).encode() + b"\n" + (png or b""))
        os.replace(tmp, folder / name)
    except OSError:
        pass  # only the next mutant's time is lost


def _load(path: Path) -> tuple[str | None, bytes] | None:
    try:
        head, _, png = path.read_bytes().partition(b"\n")
        return json.loads(head)["caption"], png
    except (OSError, ValueError, KeyError):
        return None


def install(tree: Path, mutant: str) -> bool:
    """In the child that tests ``mutant``: memoise ``plots.draw_file`` if the mutant's module is
    one of :data:`SAFE` (whether it was installed)."""
    module = mutant.rpartition(".")[0]
    if module not in SAFE or not (tree / "mutmut-stats.json").exists():
        return False
    from montecarlo.reporting import plots

    import matplotlib

    watched = {str(tree / (name.replace(".", "/") + ".py")) for name in SAFE}
    state = tree_state(tree)
    folder = tree / MEMO
    draw = plots.draw_file
    names = dict(vars(plots))  # what a test may patch: plots.save_png failing, a smaller limit...
    settings = dict(matplotlib.rcParams)

    def as_installed() -> bool:
        """Whether the plots module and matplotlib's settings are as when the memo was installed."""
        return all(vars(plots).get(name) is value for name, value in names.items()
                   if name != "draw_file") and dict(matplotlib.rcParams) == settings

    def draw_file(*args, **kwargs):
        name = key(state, args) if len(args) == 6 and not kwargs and as_installed() else None
        if name is None:
            return draw(*args, **kwargs)
        found = _load(folder / name)
        if found is not None:
            caption, png = found
            if caption is not None:
                Path(args[-1]).write_bytes(png)
            return caption
        caption, entered = _draw_watching(draw, args, watched)
        if not entered:
            png = Path(args[-1]).read_bytes() if caption is not None else None
            _store(folder, name, caption, png)
        return caption

    draw_file.__doc__ = draw.__doc__
    plots.draw_file = draw_file
    return True
