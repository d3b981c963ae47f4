"""Checkpoints: the tallies of a run's finished chunks, saved as it goes, so that it can resume.

A long run killed, interrupted or crashed loses at most the chunks in flight: the same command
with the same file resumes where the file stops and ends with exactly the numbers of a run that
was never interrupted. That holds because a point's tallies are folded in chunk order and chunk
``i`` always draws from ``(seed, i)``: the file keeps, per point, the sums of its first chunks
(JSON floats round-trip exactly), the index of the next chunk and the point's current target.

The file also records what fixes the numbers: the caller's description of the work (game,
setups, rules, package version: the engine knows nothing of games, it only compares) and the
run's trials, seed, chunk size and precision. A file written for anything else is refused with
one line, and a file that is not a checkpoint is never overwritten. Writes are atomic (a
temporary file in the same folder, then a rename), so a kill never leaves half a file; a digest
of the contents is saved with them, so that tallies edited or damaged since are refused rather
than resumed into wrong numbers.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "notes.txt").write_text("mine")
4
>>> try:
...     Checkpoint(folder / "notes.txt", {"game": "dice"}).check()
... except InputError as exc:
...     print(str(exc).replace(str(folder), "FOLDER"))
checkpoint FOLDER/notes.txt: not a montecarlo checkpoint (left as it is); give another file
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import warnings
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from montecarlo.errors import Caution, InputError, outside_level

FORMAT = "montecarlo-checkpoint"
FORMAT_VERSION = 2  # 2: the contents carry their digest
MAX_BYTES = 1 << 30  # far above any run's checkpoint (a 10,000-point grid's is tens of MB)
SAVE_EVERY = 1.0  # seconds between saves while a run goes on (and once more when it stops)
STALE_SECONDS = 3600.0  # a save's temporary file this old was left by a save that was killed


class Checkpoint:
    """The checkpoint file of one run: checked up front, read to resume, saved as chunks finish.

    ``work`` describes what is run (plain JSON values); two runs may share a file only when their
    ``work`` and their run facts (trials, seed, chunk size, precision) are equal.
    """

    def __init__(self, path: str | os.PathLike, work: Mapping[str, Any]) -> None:
        self.path = Path(path)
        # a link to a checkpoint is written through: the user's link stays a link
        self._target = Path(os.path.realpath(self.path))
        self.work = json.loads(json.dumps(dict(work), default=str))  # as it reads back
        self._saved_at = float("-inf")
        self._saved_state: tuple | None = None
        self._facts: dict[str, Any] = {}
        self._resumed = False  # a save that fails before the run is an error, after it a warning
        self._warned = False

    def damaged(self) -> InputError:
        """The error of a file whose points cannot be this run's (checked by the runner too)."""
        return self._fail("its points are damaged; give another file")

    def _fail(self, problem: str) -> InputError:
        return InputError(f"checkpoint {self.path}: {problem}")  # as the user gave it

    def check(self) -> dict[str, Any] | None:
        """The file's contents if it is a checkpoint (None if there is no file yet); InputError if
        it is something else or cannot be written. Cheap: call it before any long work."""
        try:
            return self._read()
        except OSError as exc:  # a name too long for the file system, say (in the folder, perhaps)
            raise InputError(f"checkpoint {self.path}: cannot be used ({exc.strerror or exc}); "
                             "give another file") from None

    def _read(self) -> dict[str, Any] | None:
        folder = self._target.parent
        if not folder.is_dir():
            missing = "is not a folder" if folder.exists() else "does not exist"
            raise self._fail(f"{folder} {missing}")
        if self.path.is_dir():  # its whole path: "checkpoint tmp" would not say which folder
            how = " (an empty path, or the current or parent folder)" if self.path.name in ("", "..") else ""
            raise InputError(f"checkpoint {self.path}: is a folder{how}; give a file name")
        if self._target.is_symlink():  # a loop of links: writing would replace the link itself
            raise self._fail("a link that leads to no file (a loop of links); give another file")
        if not self.path.exists():
            return None
        if not self.path.is_file():  # /dev/zero, a pipe: a read that never ends
            raise self._fail("not a regular file (a device or a pipe?); give a file name")
        size = self.path.stat().st_size
        if size > MAX_BYTES:
            raise self._fail(f"{size:,} bytes, more than a checkpoint holds "
                             f"({MAX_BYTES:,} at most): not a montecarlo checkpoint; give another file")
        text = self.path.read_text(encoding="utf-8", errors="replace")
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if data is None and re.search(rf'"format"\s*:\s*"{FORMAT}"', text):
            raise self._fail("its contents are damaged (edited since they were saved?); give another file, "
                             "or delete it to start afresh")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise self._fail("not a montecarlo checkpoint (left as it is); give another file")
        if data.get("format_version") != FORMAT_VERSION:
            found = data.get("format_version")
            raise self._fail(f"written in checkpoint format {found!r}, not {FORMAT_VERSION} (by another "
                             "version of montecarlo); give another file, or delete it to start afresh")
        if data.get("digest") != _digest(data):
            raise self._fail("its contents do not match their digest (edited or damaged since they were "
                             "saved); give another file, or delete it to start afresh")
        return data

    def resume(self, states: Sequence, facts: Mapping[str, Any]) -> list:
        """``states`` (fresh) replaced by the file's, after checking that the file is this run's."""
        self._facts = json.loads(json.dumps(dict(facts)))
        data = self.check()
        self._remove_stale_temporaries()
        if data is None:
            self.save(states, final=True)  # an unwritable place fails now, not after hours
            self._resumed = True
            return list(states)
        ours = {**self.work, **self._facts}
        work, facts = data.get("work", {}), data.get("run", {})
        if not isinstance(work, dict) or not isinstance(facts, dict):
            raise self._fail("its run facts are damaged (not tables); give another file")
        theirs = {**work, **facts}
        for key in sorted(set(ours) | set(theirs), key=lambda k: (k not in ours, k)):
            if ours.get(key) != theirs.get(key):
                difference = _difference(key, theirs.get(key), ours.get(key))
                raise self._fail(f"written by another run ({difference}); give another file")
        saved = data.get("points")
        if not isinstance(saved, list) or len(saved) != len(states):
            raise self._fail("its points do not match this run's")
        out = []
        for fresh, point in zip(states, saved):
            try:
                totals = np.asarray(point["totals"], dtype=np.float64)
                counts = [point[key] for key in ("done", "next_chunk", "target")]
                finished = point["finished"]
            except (KeyError, TypeError, ValueError):
                raise self.damaged() from None
            if totals.shape != fresh.totals.shape:
                raise self._fail("its tallies do not match this run's")
            if not _sound(totals, counts, finished, self._facts):
                raise self.damaged()
            out.append(type(fresh)(totals, *counts, finished))
        self._saved_state = _signature(out)
        self._resumed = True
        return out

    def save(self, states: Sequence, final: bool) -> None:
        """Write the states atomically: at most every SAVE_EVERY seconds, always when ``final``,
        never when nothing changed since the last save."""
        now = time.monotonic()
        signature = _signature(states)
        if signature == self._saved_state or (not final and now - self._saved_at < SAVE_EVERY):
            return
        data = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "work": self.work,
            "run": self._facts,
            "points": [
                {"done": s.done, "next_chunk": s.next_chunk, "target": s.target, "finished": s.finished,
                 "totals": s.totals.tolist()}
                for s in states
            ],
        }
        data["digest"] = _digest(data)
        try:
            self._write(json.dumps(data, separators=(",", ":")))
        except InputError as exc:
            if not self._resumed:  # before the run: the user fixes it now, not after hours
                raise
            if not self._warned:  # during the run (a disk that filled up): its numbers still come
                self._warned = True
                said = f"{exc}; the run goes on, and saves again when it can"
                warnings.warn(Caution(said), stacklevel=outside_level())
            return
        self._saved_at, self._saved_state = now, signature

    def _remove_stale_temporaries(self) -> None:
        """The temporary files of saves killed (SIGKILL) between writing and renaming: hidden,
        named after this checkpoint, and older than STALE_SECONDS (a run sharing the file saves
        every SAVE_EVERY seconds, so never one of its own)."""
        now = time.time()
        ours = re.compile(rf"\.{re.escape(self._target.name)}\.[a-z0-9_]{{8}}\.tmp")  # mkstemp's names
        try:
            for path in self._target.parent.glob(f".{glob_escape(self._target.name)}.*.tmp"):
                if ours.fullmatch(path.name) and now - path.stat().st_mtime > STALE_SECONDS:
                    path.unlink(missing_ok=True)
        except OSError:  # a folder that cannot be listed: the save says what is wrong
            pass

    def _write(self, text: str) -> None:
        """The file replaced atomically by ``text``, with the mode the file had (a new one: the
        user's umask), not the temporary file's 0600; a failure is an InputError naming it."""
        try:
            handle, temporary = tempfile.mkstemp(
                dir=self._target.parent, prefix=f".{self._target.name}.", suffix=".tmp"
            )
        except OSError as exc:
            raise self._fail(f"cannot be written ({exc.strerror})") from None
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), _mode(self._target))
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, self._target)
        except BaseException as exc:
            Path(temporary).unlink(missing_ok=True)
            if isinstance(exc, OSError):  # a full disk, an immutable file: named, not the temporary one
                raise self._fail(f"cannot be written ({exc.strerror or exc})") from None
            raise


def _mode(path: Path) -> int:
    """The permissions a saved checkpoint gets: those of the file it replaces, else the usual
    ones of a new file under the process's umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without setting it (setting it, even back, would give a file
    another thread creates meanwhile the wrong mode): Linux shows it in /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)  # elsewhere: the only way to read it
    os.umask(umask)
    return umask


def _sound(totals: np.ndarray, counts: list, finished: Any, facts: Mapping[str, Any]) -> bool:
    """Whether a saved point can be this run's: whole counts, 0 <= next chunk <= trials done <=
    target, as many chunks as the trials done take (exactly so without a precision, whose
    chunks are all full but a point's last), a yes/no ``finished`` and finite tallies, none
    before any trial: a file whose digest was recomputed after an edit is not taken on trust."""
    if not all(type(c) is int for c in counts) or not isinstance(finished, bool):
        return False
    done, next_chunk, target = counts
    if not 0 <= next_chunk <= done <= target or not np.isfinite(totals).all():
        return False
    if not done and totals.any():
        return False
    size = facts.get("chunk_size")
    if type(size) is not int or size < 1:
        return True  # the run's own facts were compared before: not this run's otherwise
    least = -(-done // size)  # chunks of at most ``size`` trials
    return next_chunk == least if facts.get("precision") is None else next_chunk >= least


def _digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of everything but the digest itself, in one canonical JSON form."""
    body = {key: value for key, value in data.items() if key != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _signature(states: Sequence) -> tuple:
    return tuple((s.next_chunk, s.target, s.finished) for s in states)


# the words a user knows for the facts a run records under another name
FACT_WORDS = {
    "arms": "variants, their rules and the baseline",  # the baseline is the first arm
    "max_trials": "max trials", "chunk_size": "chunk size",
    # a battle file's whole text: a comment changed is a change, as the text is what was run
    "definition": "battle file: its text differs from the one the checkpoint was saved for, if only in a "
                  "comment",
}


def _difference(key: str, theirs: Any, ours: Any) -> str:
    """'seed 7 there, 8 here', or only what differs when the values are long ('not the same
    setups'); a value not given reads "none" (JSON would say null)."""
    a, b = (
        "none" if value is None else json.dumps(value, default=str) for value in (theirs, ours)
    )
    words = FACT_WORDS.get(key, key)
    if len(a) + len(b) > 60:
        return f"not the same {words}"
    return f"{words} {a} there, {b} here"
