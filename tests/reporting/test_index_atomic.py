"""An interrupted ``write_index`` leaves the previous index byte for byte, and no temporary file."""

import os
from pathlib import Path

import pytest

from montecarlo.reporting import write_index

ENTRY = {"href": "a/index.html", "title": "A", "game": "coin", "summary": "2 setups"}


@pytest.fixture
def old_index(tmp_path):
    page = write_index(tmp_path, [ENTRY] * 3)
    return page, page.read_bytes()


def _left_over(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "index.html")


def test_write_that_fails_halfway_keeps_the_old_index(tmp_path, old_index, monkeypatch):
    page, before = old_index
    real_write_text = Path.write_text

    def half_then_fail(self, data, *args, **kwargs):
        real_write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", half_then_fail)
    monkeypatch.setattr(Path, "write_bytes", lambda self, data: half_then_fail(self, data.decode()))
    with pytest.raises(OSError, match="disk full"):
        write_index(tmp_path, [{**ENTRY, "title": "B"}])
    assert page.read_bytes() == before
    assert _left_over(tmp_path) == []


def test_rename_that_fails_keeps_the_old_index(tmp_path, old_index, monkeypatch):
    page, before = old_index

    def refuse(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C at the worst moment

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "rename", refuse)
    with pytest.raises(KeyboardInterrupt):
        write_index(tmp_path, [{**ENTRY, "title": "B"}])
    assert page.read_bytes() == before
    assert _left_over(tmp_path) == []


def test_a_completed_write_replaces_the_index(tmp_path, old_index):
    page, before = old_index
    write_index(tmp_path, [{**ENTRY, "title": "B"}])
    assert page.read_bytes() != before and ">B</a>" in page.read_text()
    assert _left_over(tmp_path) == []


def test_a_write_that_fails_before_any_byte_raises_its_own_error(tmp_path, old_index, monkeypatch):
    """No temporary file was made: the clean-up finds nothing to remove and the error is the write's."""
    page, before = old_index

    def fail(self, data, *args, **kwargs):
        raise OSError("no space left")

    monkeypatch.setattr(Path, "write_text", fail)
    with pytest.raises(OSError, match="^no space left$"):
        write_index(tmp_path, [{**ENTRY, "title": "B"}])
    assert page.read_bytes() == before and _left_over(tmp_path) == []


def test_each_report_is_one_item_and_one_without_headline_or_summary_leads_with_nothing(tmp_path):
    bare = {"href": "b/index.html", "title": "B", "game": "coin"}
    page = write_index(tmp_path, [ENTRY, bare]).read_text()
    assert (
        '<h2>coin</h2>\n<ul class="index">\n'
        '<li><a href="a/index.html">A</a><br><span class="headline">2 setups</span></li>\n'
        '<li><a href="b/index.html">B</a><br><span class="headline"></span></li>\n</ul>'
    ) in page


def test_the_reports_are_listed_under_a_heading_per_game_in_the_order_games_first_come(tmp_path):
    entries = [{"href": f"{n}/index.html", "title": n, "game": game, "headline": ""}
               for n, game in (("a", "Risk"), ("b", "Dune"), ("c", "Risk"))]
    page = write_index(tmp_path, entries).read_text()
    assert page.count('<ul class="index">') == 2
    risk, dune = page.index("<h2>Risk</h2>"), page.index("<h2>Dune</h2>")
    a, b, c = (page.index(f'"{n}/index.html"') for n in "abc")
    assert risk < a < c < dune < b and "</ul>\n<h2>Dune</h2>\n" in page
