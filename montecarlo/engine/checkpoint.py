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
...     print(exc)
checkpoint notes.txt: not a montecarlo checkpoint (left as it is); give another file
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from montecarlo.errors import InputError

FORMAT = "montecarlo-checkpoint"
FORMAT_VERSION = 2  # 2: the contents carry their digest
SAVE_EVERY = 1.0  # seconds between saves while a run goes on (and once more when it stops)


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

    def _fail(self, problem: str) -> InputError:
        return InputError(f"checkpoint {self.path.name or self.path}: {problem}")  # "" is "."

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
            raise InputError(f"checkpoint {self.path}: is a folder; give a file name")
        if self._target.is_symlink():  # a loop of links: writing would replace the link itself
            raise self._fail("a link that leads to no file (a loop of links); give another file")
        if not self.path.exists():
            return None
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
            raise self._fail(f"written in checkpoint format {found!r}, not {FORMAT_VERSION}")
        if data.get("digest") != _digest(data):
            raise self._fail("its contents do not match their digest (edited or damaged since they were "
                             "saved); give another file, or delete it to start afresh")
        return data

    def resume(self, states: Sequence, facts: Mapping[str, Any]) -> list:
        """``states`` (fresh) replaced by the file's, after checking that the file is this run's."""
        self._facts = json.loads(json.dumps(dict(facts)))
        data = self.check()
        if data is None:
            self.save(states, final=True)  # an unwritable place fails now, not after hours
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
                counts = [int(point[key]) for key in ("done", "next_chunk", "target")]
                finished = point["finished"]
            except (KeyError, TypeError, ValueError):
                raise self._fail("its points are damaged; give another file") from None
            if totals.shape != fresh.totals.shape:
                raise self._fail("its tallies do not match this run's")
            out.append(type(fresh)(totals, *counts, bool(finished)))
        self._saved_state = _signature(out)
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
        text = json.dumps(data, separators=(",", ":"))
        try:
            handle, temporary = tempfile.mkstemp(
                dir=self._target.parent, prefix=f".{self._target.name}.", suffix=".tmp"
            )
        except OSError as exc:
            raise self._fail(f"cannot be written ({exc.strerror})") from None
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.replace(temporary, self._target)
            except PermissionError as exc:  # an immutable file: named, not its hidden temporary one
                raise self._fail(f"cannot be written ({exc.strerror or exc})") from None
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._saved_at, self._saved_state = now, signature


def _digest(data: Mapping[str, Any]) -> str:
    """SHA-256 of everything but the digest itself, in one canonical JSON form."""
    body = {key: value for key, value in data.items() if key != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _signature(states: Sequence) -> tuple:
    return tuple((s.next_chunk, s.target, s.finished) for s in states)


# the words a user knows for the facts a run records under another name
FACT_WORDS = {"arms": "variants, their rules and the baseline"}  # the baseline is the first arm


def _difference(key: str, theirs: Any, ours: Any) -> str:
    """'seed 7 there, 8 here', or only what differs when the values are long ('not the same
    setups')."""
    a, b = json.dumps(theirs, default=str), json.dumps(ours, default=str)
    words = FACT_WORDS.get(key, key)
    if len(a) + len(b) > 60:
        return f"not the same {words}"
    return f"{words} {a} there, {b} here"
