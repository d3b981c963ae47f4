"""Checkpoint and resume: a run interrupted at any chunk (or inside one) and resumed from its file
ends with exactly the tallies of a run never interrupted; a file of another run is refused."""

import functools
import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pytest

from montecarlo.engine import checkpoint as checkpoints
from montecarlo.engine import runner
from montecarlo.engine.checkpoint import Checkpoint
from montecarlo.engine.runner import Point
from montecarlo.errors import InputError
from tests.engine.fake_kernels import METRICS, coin

WORK = {"game": "coin", "setups": [0.2, 0.5, 0.8]}


class Interrupt(Exception):
    """Stands for Ctrl-C, a kill or a crash: raised by a kernel after some chunks."""


class Stops:
    """Counts the kernels' calls and interrupts the run at call ``at`` (drawing half a chunk
    first, as if interrupted inside the chunk)."""

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0

    def arm(self, p: float):
        def kernel(n, rng):
            self.calls += 1
            if self.calls > self.at:
                rng.random(n // 2)
                raise Interrupt
            return coin(p, n, rng)

        return kernel


def grid(stops: Stops | None = None) -> list[Point]:
    make = stops.arm if stops else (lambda p: functools.partial(coin, p))
    return [Point((make(p), make(p + 0.1)), METRICS) for p in WORK["setups"]]


OPTIONS = {"chunk_size": 1_000}


def run(path, stops=None, seed=7, work=WORK, **options):
    return runner.run_grid(grid(stops), 3_500, seed, checkpoint=Checkpoint(path, work), **OPTIONS, **options)


def saves_counted(monkeypatch) -> list:
    """The files a checkpoint's saves rename into place, as they happen (each save renames once)."""
    written: list = []
    real_replace = checkpoints.os.replace
    monkeypatch.setattr(checkpoints.os, "replace", lambda a, b: (written.append(b), real_replace(a, b)))
    return written


@pytest.mark.parametrize("precision", [None, 0.03])
def test_interrupted_at_random_chunks_and_resumed_gives_the_uninterrupted_numbers(tmp_path, precision):
    whole = runner.run_grid(grid(), 3_500, 7, precision=precision, **OPTIONS)
    calls_of_whole = 2 * sum(-(-r.trials // 1_000) for r in whole)
    stops = random.Random(24).sample(range(calls_of_whole), 6) + [0, calls_of_whole - 1]
    for at in stops:
        path = tmp_path / f"at-{at}.json"
        with pytest.raises(Interrupt):
            run(path, Stops(at), precision=precision)
        saved = json.loads(path.read_text())
        assert sum(p["next_chunk"] for p in saved["points"]) == at // 2  # every finished chunk kept
        assert all(type(p["finished"]) is bool for p in saved["points"])  # a flag, never null
        resumed = run(path, precision=precision)
        for a, b in zip(whole, resumed):
            assert a.trials == b.trials and np.array_equal(a.totals, b.totals), at
    # twice interrupted, then resumed
    path = tmp_path / "twice.json"
    for at in (3, 5):
        with pytest.raises(Interrupt):
            run(path, Stops(at), precision=precision)
    resumed = run(path, precision=precision)
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(whole, resumed))


def test_interrupted_between_a_rounds_last_chunk_and_its_planning_resumes(tmp_path):
    """Stopped after the last chunk of the first target, before the precision stop planned more:
    the resumed run's first round has nothing to run, then plans and goes on as if never stopped."""
    whole = runner.run_grid(grid(), 3_500, 7, precision=0.01, **OPTIONS)
    assert all(r.trials > 3_500 for r in whole)  # the precision asked for more than the first target

    def stop_at_the_first_target(done, total):
        if done == total == 3 * 3_500:
            raise Interrupt

    path = tmp_path / "between.json"
    with pytest.raises(Interrupt):
        run(path, precision=0.01, progress=stop_at_the_first_target)
    assert [p["next_chunk"] for p in json.loads(path.read_text())["points"]] == [4, 4, 4]
    resumed = run(path, precision=0.01)
    assert all(a.trials == b.trials and np.array_equal(a.totals, b.totals) for a, b in zip(whole, resumed))


def test_a_finished_checkpoint_answers_at_once(tmp_path):
    path = tmp_path / "done.json"
    first = run(path)
    again = run(path, Stops(0))  # no kernel is called: every chunk is in the file
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(first, again))


def test_progress_of_a_resumed_run_starts_where_the_file_stops(tmp_path):
    path = tmp_path / "p.json"
    with pytest.raises(Interrupt):
        run(path, Stops(8))
    calls = []
    run(path, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (3_500, 10_500)  # the first point's four chunks and calls[-1] == (10_500, 10_500)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": 8}, "seed 7 there, 8 here"),
        ({"work": {**WORK, "version": "9.9"}}, "version"),
        ({"work": {**WORK, "setups": [0.3]}}, "setups"),
        ({"precision": 0.01}, "precision none there, 0.01 here"),
        ({"precision": 0.01, "max_trials": 9_000}, "max trials none there, 9000 here"),
    ],
)
def test_a_checkpoint_of_another_run_is_refused_with_one_line(tmp_path, change, message):
    path = tmp_path / "c.json"
    run(path)
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        run(path, **change)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"checkpoint {tmp_path / 'c.json'}: written by another run")
    assert message in text
    assert path.read_bytes() == before


def restamped(data: dict) -> dict:
    """``data`` with the digest of its edited contents: the checks behind the digest, reached."""
    from montecarlo.engine.checkpoint import _digest

    return {**data, "digest": _digest(data)}


def edit_first_point(key, value):
    def edit(point):
        if value is KeyError:
            del point[key]
        elif key == "totals" and value in ("+1000", "nan"):
            row = point["totals"]
            while isinstance(row[0], list):
                row = row[0]
            row[0] = row[0] + 1000 if value == "+1000" else float("nan")
        else:
            point[key] = value
    return edit


@pytest.mark.parametrize("edit", [
    edit_first_point("done", 123),  # an estimate of 629.5 was resumed from it
    edit_first_point("totals", "+1000"),  # 0.2614 for 0.2598
    edit_first_point("next_chunk", 1),  # chunks counted twice: 0.404
    edit_first_point("finished", False),
    edit_first_point("totals", KeyError),  # these crashed with a traceback
    edit_first_point("done", "abc"),
])
def test_tallies_edited_or_damaged_since_they_were_saved_are_refused(tmp_path, edit):
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    edit(data["points"][0])
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == (
        f"checkpoint {path}: its contents do not match their digest (edited or damaged since they were "
        "saved); give another file, or delete it to start afresh"
    )


@pytest.mark.parametrize("edit", [
    edit_first_point("totals", KeyError), edit_first_point("done", "abc"), edit_first_point("target", None),
    edit_first_point("totals", "many"),
    # behind a digest recomputed after an edit: counts no run of this one could have saved
    edit_first_point("next_chunk", -5), edit_first_point("next_chunk", 1000),
    edit_first_point("next_chunk", 3),
    edit_first_point("done", 0), edit_first_point("done", 3500.0), edit_first_point("finished", "no"),
    edit_first_point("target", 10**15), edit_first_point("totals", "nan"),
    # a finished point of 500 trials in a run of 3,500 (an estimate of 0.54 for 0.26 was resumed)
    lambda point: point.update(done=500, target=500, next_chunk=1),
])
def test_points_damaged_behind_a_good_digest_are_one_line(tmp_path, edit):
    """A file whose digest matches but whose points cannot be read (a writer of its own): one
    line, not a KeyError, ValueError or TypeError traceback."""
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    edit(data["points"][0])
    path.write_text(json.dumps(restamped(data)))
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == f"checkpoint {tmp_path / 'c.json'}: its points are damaged; give another file"


@pytest.mark.parametrize(
    ("part", "problem"), [("points", "its points do not match"), ("totals", "its tallies do not match")]
)
def test_a_checkpoint_whose_points_were_edited_is_refused_in_one_line(tmp_path, part, problem):
    """A file of this run (same work and facts) with a point, or a point's tally, taken out."""
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    (data["points"] if part == "points" else data["points"][0]["totals"]).pop()
    path.write_text(json.dumps(restamped(data)))
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == f"checkpoint {tmp_path / 'c.json'}: {problem} this run's"


@pytest.mark.parametrize(
    ("part", "value", "problem"),
    [
        ("work", None, "written by another run (game"),  # taken out: every fact of the work differs
        ("run", None, "written by another run (chunk size"),
        ("work", ["coin"], "its run facts are damaged (not tables); give another file"),
        ("run", "seed 7", "its run facts are damaged (not tables); give another file"),
    ],
)
def test_a_checkpoint_whose_run_facts_were_edited_is_refused_in_one_line(tmp_path, part, value, problem):
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    if value is None:
        del data[part]
    else:
        data[part] = value
    path.write_text(json.dumps(restamped(data)))
    with pytest.raises(InputError) as err:
        run(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"checkpoint {tmp_path / 'c.json'}: {problem}"), text


def test_a_fact_this_run_has_is_named_before_one_only_the_file_has(tmp_path):
    """The file has an extra fact that sorts first ("aaa") and another seed: the line names the
    seed, a fact of this run, before the stray one."""
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    data["run"] = {**data["run"], "aaa": 1, "seed": 8}
    path.write_text(json.dumps(restamped(data)))
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == (
        f"checkpoint {tmp_path / 'c.json'}: written by another run (seed 8 there, 7 here); give another file"
    )


def test_a_folder_an_unknown_format_and_an_unwritable_place_are_refused_in_words(tmp_path, monkeypatch):
    with pytest.raises(InputError) as err:
        run(tmp_path)
    assert str(err.value) == f"checkpoint {tmp_path}: is a folder; give a file name"  # which folder
    for given, shown in (("", "."), ("..", "..")):  # typer reads an empty path as "."
        monkeypatch.chdir(tmp_path)
        with pytest.raises(InputError) as err:
            run(Path(given))
        assert str(err.value) == (
            f"checkpoint {shown}: is a folder (an empty path, or the current or parent folder); "
            "give a file name"
        )
    path = tmp_path / "c.json"
    run(path)
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "format_version": 99}))
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == (
        f"checkpoint {tmp_path / 'c.json'}: written in checkpoint format 99, not 2 (by another version of "
        "montecarlo); give another file, or delete it to start afresh"
    )

    def refused(**kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(checkpoints.tempfile, "mkstemp", refused)
    with pytest.raises(InputError) as err:
        run(tmp_path / "new.json")
    assert str(err.value) == f"checkpoint {tmp_path / 'new.json'}: cannot be written (Permission denied)"
    # a checkpoint that cannot be replaced (immutable, say) is named, not its hidden temporary file
    monkeypatch.undo()
    monkeypatch.setattr(checkpoints.os, "replace", lambda *a: refused())
    with pytest.raises(InputError) as err:
        run(tmp_path / "kept.json")
    assert str(err.value) == f"checkpoint {tmp_path / 'kept.json'}: cannot be written (Permission denied)"
    assert not list(tmp_path.glob(".*.tmp"))  # its temporary file removed


def test_a_difference_is_quoted_up_to_60_characters_of_values_and_named_beyond():
    # json.dumps of a text of n letters is n + 2 characters: 30 + 30 quoted, 30 + 31 only named
    quoted = f'game "{"a" * 28}" there, "{"b" * 28}" here'
    assert checkpoints._difference("game", "a" * 28, "b" * 28) == quoted
    assert checkpoints._difference("game", "a" * 28, "b" * 29) == "not the same game"
    # a fact recorded under a name of the code is said in the user's words
    named = checkpoints._difference("arms", "a" * 28, "b" * 29)
    assert named == "not the same variants, their rules and the baseline"
    assert checkpoints._difference("arms", 1, 2) == "variants, their rules and the baseline 1 there, 2 here"


def test_a_file_that_is_not_a_checkpoint_is_never_overwritten(tmp_path):
    mine = tmp_path / "notes.json"
    for text in ('{"my": "notes"}', "not json at all", ""):
        mine.write_text(text)
        with pytest.raises(InputError) as err:
            run(mine)
        assert str(err.value) == (
            f"checkpoint {mine}: not a montecarlo checkpoint (left as it is); give another file"
        )
        assert mine.read_text() == text
    photo = tmp_path / "photo.jpg"  # not even UTF-8 text
    photo.write_bytes(b"\xff\xd8\xff\xe0 not text \x80\x81")
    with pytest.raises(InputError, match="not a montecarlo checkpoint"):
        run(photo)
    assert photo.read_bytes() == b"\xff\xd8\xff\xe0 not text \x80\x81"
    with pytest.raises(InputError, match="does not exist"):
        run(tmp_path / "missing" / "c.json")
    with pytest.raises(InputError, match="is a folder"):
        run(tmp_path)
    with pytest.raises(InputError) as err:  # a file where its folder should be
        run(mine / "c.json")
    assert str(err.value) == f"checkpoint {mine / 'c.json'}: {mine} is not a folder"


def test_a_name_too_long_for_the_file_system_is_one_line(tmp_path):
    for path in (tmp_path / ("a" * 300 + ".json"), tmp_path / ("a" * 300) / "c.json"):
        with pytest.raises(InputError) as err:
            run(path)
        assert str(err.value).endswith(": cannot be used (File name too long); give another file")
        assert not list(tmp_path.iterdir())


def test_a_checkpoint_damaged_since_it_was_saved_says_so_and_is_left_as_it_is(tmp_path):
    path = tmp_path / "c.json"
    run(path)
    text = path.read_text()
    damaged = text.replace("{", "[", 2)  # no longer JSON, still plainly one of ours
    path.write_text(damaged)
    with pytest.raises(InputError) as err:
        run(path)
    assert str(err.value) == (
        f"checkpoint {path}: its contents are damaged (edited since they were saved?); give another file, "
        "or delete it to start afresh"
    )
    assert path.read_text() == damaged


def test_saves_are_atomic_and_leave_no_temporary_file(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoints, "SAVE_EVERY", 0.0)
    seen = []
    real_replace = checkpoints.os.replace

    def replace(src, dst):
        seen.append(json.loads(open(src).read())["points"][0]["next_chunk"])  # whole before the rename
        real_replace(src, dst)

    monkeypatch.setattr(checkpoints.os, "replace", replace)
    run(tmp_path / "c.json")
    assert seen[0] == 0 and seen == sorted(seen) and len(seen) > 4
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


def test_a_run_saves_between_chunks_no_more_often_than_save_every(tmp_path, monkeypatch):
    """12 chunks well within SAVE_EVERY: the file is written when the run starts and when it
    ends, not after every chunk (each write is an fsync: thousands of small chunks would crawl)."""
    monkeypatch.setattr(checkpoints, "SAVE_EVERY", 3_600.0)
    written = saves_counted(monkeypatch)
    run(tmp_path / "c.json")
    assert len(written) == 2


def test_a_save_that_fails_while_writing_removes_its_temporary_file_and_keeps_the_last_one(
    tmp_path, monkeypatch
):
    from montecarlo.engine.runner import _PointState

    store = Checkpoint(tmp_path / "c.json", WORK)
    store.save([_PointState(np.zeros(2), 0, 0, 10, False)], final=True)
    before = (tmp_path / "c.json").read_text()

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoints.os, "fsync", full)
    with pytest.raises(InputError) as err:  # the disk's error, naming the file
        store.save([_PointState(np.ones(2), 5, 1, 10, False)], final=True)
    assert str(err.value) == f"checkpoint {tmp_path / 'c.json'}: cannot be written (No space left on device)"
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]  # no temporary file left behind
    assert (tmp_path / "c.json").read_text() == before  # the last whole save is intact


def test_a_device_a_pipe_or_a_huge_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """`--checkpoint /dev/zero` read without end (24 GB of memory); a FIFO waited for ever; a
    file of 1 GB took 2 GB to be told it is no checkpoint."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path in (Path("/dev/zero"), pipe):
        with pytest.raises(InputError) as err:
            run(path)
        refused = f"checkpoint {path}: not a regular file (a device or a pipe?); give a file name"
        assert str(err.value) == refused
    big = tmp_path / "big.json"
    big.write_text("x" * 100)
    monkeypatch.setattr(checkpoints, "MAX_BYTES", 99)
    with pytest.raises(InputError) as err:
        run(big)
    assert str(err.value) == (
        f"checkpoint {big}: 100 bytes, more than a checkpoint holds (99 at most): not a montecarlo "
        "checkpoint; give another file"
    )


def test_a_disk_that_fills_during_the_run_costs_the_saves_not_the_numbers(tmp_path, monkeypatch):
    """The first save, before any trial, fails as an error; a save that fails later (the disk
    filled up) is one warning, and the run ends with the numbers of a run without a checkpoint."""
    from montecarlo.errors import Caution

    saves = []

    def full_after_the_first(fd):
        saves.append(fd)
        if len(saves) > 1:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoints.os, "fsync", full_after_the_first)
    monkeypatch.setattr(checkpoints, "SAVE_EVERY", 0.0)
    with pytest.warns(Caution) as said:
        got = run(tmp_path / "c.json")
    assert [str(w.message) for w in said] == [
        f"checkpoint {tmp_path / 'c.json'}: cannot be written (No space left on device); the run goes on, "
        "and saves again when it can"
    ]
    want = runner.run_grid(grid(), 3_500, 7, **OPTIONS)
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(got, want)) and len(saves) > 2
    monkeypatch.setattr(checkpoints.os, "fsync", lambda fd: full_after_the_first(fd) or None)
    new = re.escape(str(tmp_path / "new.json"))
    refused = rf"^checkpoint {new}: cannot be written \(No space left on device\)$"
    with pytest.raises(InputError, match=refused):
        run(tmp_path / "new.json")


def test_a_temporary_file_left_by_a_killed_save_goes_at_the_next_run(tmp_path):
    """A kill between writing a save's temporary file and renaming it left the file for ever;
    the next run with the checkpoint removes those over an hour old, never a recent one (a run
    that shares the file may be saving it) nor another file's."""
    import time

    names = [
        ".c.json.ab12cd_9.tmp",  # this checkpoint's, an hour old: removed
        ".c.json.x2x2x2x2.tmp",  # this checkpoint's, recent: kept
        ".d.json.x3x3x3x3.tmp", ".c.json.bak.ab12cd34.tmp",  # d.json's and c.json.bak's: kept
        ".c.json.bak.tmp",  # no name mkstemp makes: kept
    ]
    hour_ago = time.time() - 3700
    for name in names:
        (tmp_path / name).write_text("{")
        if name != names[1]:
            os.utime(tmp_path / name, (hour_ago, hour_ago))
    run(tmp_path / "c.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names[1:], "c.json"])


def test_a_save_keeps_the_files_permissions(tmp_path):
    """Each save replaces the file by a temporary one, made 0600: the file keeps the mode it had,
    and a new one gets the umask's usual mode."""
    path = tmp_path / "c.json"
    run(path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    path.chmod(0o640)
    data = json.loads(path.read_text())
    data["points"][0] = {**data["points"][0], "finished": False}  # one more save to come
    path.write_text(json.dumps(restamped(data)))
    path.chmod(0o640)
    run(path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_save_is_skipped_when_nothing_changed_or_too_soon_and_work_reads_as_it_reads_back(
    tmp_path, monkeypatch
):
    from pathlib import Path

    from montecarlo.engine.runner import _PointState

    written = saves_counted(monkeypatch)
    store = Checkpoint(tmp_path / "c.json", {"where": Path("x"), "sizes": (1, 2)})
    assert store.work == {"where": "x", "sizes": [1, 2]}  # as json.loads gives it back
    state = [_PointState(np.zeros(2), 0, 0, 10, False)]
    store.save(state, final=True)
    store.save(state, final=True)  # nothing changed since: no second write
    moved = [_PointState(np.ones(2), 5, 1, 10, False)]
    store.save(moved, final=False)  # changed, but within SAVE_EVERY of the last save
    assert len(written) == 1
    store.save(moved, final=True)  # the last save of a run is always written
    assert len(written) == 2


def test_a_resumed_run_brings_back_no_companion_for_a_point_whose_first_chunk_ran_before(tmp_path):
    """Chunk 0 of the first and the last point finished before the interruption (the points run
    in the order 0, 2, 1: see runner._spread): their companions are not run again (the caller
    computes them); the point that starts after the resume brings its own."""
    path = tmp_path / "companion.json"
    with pytest.raises(Interrupt):
        run(path, Stops(10))  # 5 chunks of two arms: the first point's 4 and one of the last
    companions = [functools.partial(str, p) for p in WORK["setups"]]
    points = [Point(point.arms, point.metrics, c) for point, c in zip(grid(), companions)]
    resumed = runner.run_grid(points, 3_500, 7, checkpoint=Checkpoint(path, WORK), **OPTIONS)
    assert [r.companion for r in resumed] == [None, "0.5", None]


def test_a_checkpoint_is_written_beside_itself_then_renamed(tmp_path, monkeypatch):
    """The temporary file lives in the checkpoint's own folder: a rename is atomic only within
    one file system (a temporary file under /tmp may sit on another)."""
    renamed = []
    real = checkpoints.os.replace

    def replace(source, target):
        renamed.append((Path(source), Path(target)))
        real(source, target)

    monkeypatch.setattr(checkpoints.os, "replace", replace)
    path = tmp_path / "beside.json"
    run(path)
    assert renamed and all(s.parent == t.parent == tmp_path and t == path for s, t in renamed)
    # hidden, named after the checkpoint, and marked temporary: a user's listing shows whose it is
    assert all(s.name.startswith(".beside.json.") and s.name.endswith(".tmp") for s, _ in renamed)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beside.json"]  # no temporary file left


def test_a_points_progress_is_replaced_in_one_store(tmp_path, monkeypatch):
    """Ctrl-C between a point's tallies and its chunk count (three updates in place) made the
    final save count a chunk twice (0.3733 for 0.2598 on resume). A chunk now replaces the
    point's state in one store: a state a save has seen is never changed afterwards."""
    seen = []
    real_save = Checkpoint.save

    def save(self, states, final):
        seen.extend((s, s.done, s.next_chunk, s.totals.copy()) for s in states)
        return real_save(self, states, final)

    monkeypatch.setattr(Checkpoint, "save", save)
    run(tmp_path / "c.json")
    assert len(seen) > 3
    for state, done, next_chunk, totals in seen:
        assert (state.done, state.next_chunk) == (done, next_chunk)
        assert np.array_equal(state.totals, totals)


def test_a_link_to_a_checkpoint_stays_a_link(tmp_path):
    target = tmp_path / "kept" / "c.json"
    target.parent.mkdir()
    link = tmp_path / "c.link"
    link.symlink_to(target)  # dangling: the first save creates the target
    run(link)
    assert link.is_symlink() and target.is_file()
    before = target.read_bytes()
    run(link)  # finished: resumed through the link, the same file
    assert link.is_symlink() and target.read_bytes() == before


def test_a_loop_of_links_is_refused_and_left_as_it_is(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError) as err:
        run(loop)
    assert str(err.value) == (
        f"checkpoint {loop}: a link that leads to no file (a loop of links); give another file"
    )
    assert loop.is_symlink() and os.readlink(loop) == str(loop)


def test_the_digest_is_sha256_of_the_sorted_compact_json_without_itself():
    """Part of the file format (version 2): a file saved by one release is checked by another,
    so the digest is pinned to one form, written out here by hand."""
    import hashlib

    from montecarlo.engine.checkpoint import _digest

    data = {"run": {"seed": 7}, "points": [{"totals": [0.5, 2.0], "done": 1}],
            "format": "montecarlo-checkpoint", "digest": "not part of it"}
    text = b'{"format":"montecarlo-checkpoint","points":[{"done":1,"totals":[0.5,2.0]}],"run":{"seed":7}}'
    assert _digest(data) == hashlib.sha256(text).hexdigest()
