"""The one TOML reader (montecarlo/tomlread.py) as every file kind meets it: scenarios, battle
files and Dustrunners decks, each read the same way, with one line naming the file."""

from pathlib import Path

import pytest

import montecarlo as mc
from montecarlo.errors import InputError
from montecarlo.games.dustrunners.deck import load_deck
from montecarlo.tomlread import parse_text, read_text
from tests.games.test_dustrunners import CARD

BOM = "\ufeff"
RISK = Path(__file__).resolve().parent.parent / "scenarios" / "games" / "risk.toml"


def test_a_byte_order_mark_is_not_a_toml_statement(tmp_path):
    """Some editors start a UTF-8 file with a byte-order mark: it was 'invalid TOML: Invalid
    statement (at line 1, column 1)'; it is read as the text after it."""
    path = tmp_path / "bom.toml"
    path.write_text(BOM + 'name = "x"\n', encoding="utf-8")
    assert parse_text(read_text(path, "scenario"), str(path)) == {"name": "x"}
    deck = tmp_path / "deck.toml"
    deck.write_text(BOM + f'name = "mine"\n[[card]]\n{CARD}count = 3\nskulls = 1\n', encoding="utf-8")
    assert load_deck(str(deck)).size == 3
    battle = tmp_path / "risk.toml"
    battle.write_text(BOM + RISK.read_text(encoding="utf-8"), encoding="utf-8")
    assert mc.odds(str(battle), attackers=2, defenders=1, trials=100).estimate["attacker_win"] >= 0


def test_files_that_are_not_utf8_text_or_not_files_are_one_line(tmp_path):
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n')
    for read in (lambda p: read_text(p, "scenario"), lambda p: load_deck(str(p))):
        with pytest.raises(InputError, match=r"latin.toml: not UTF-8 text \(.*\); save the file as UTF-8$"):
            read(latin)
        with pytest.raises(InputError, match=r": is a directory; give the path of a \.toml "):
            read(tmp_path)


def test_a_battle_file_with_a_byte_order_mark_is_not_taken_for_a_scenario(tmp_path):
    from montecarlo.datagame import is_definition
    from montecarlo.scenarios import find_scenarios

    (tmp_path / "risk.toml").write_text(BOM + RISK.read_text(encoding="utf-8"), encoding="utf-8")
    assert is_definition(tmp_path / "risk.toml") and find_scenarios(tmp_path) == []


def test_a_file_that_cannot_be_read_gets_the_advice_that_fits(tmp_path, monkeypatch):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    with pytest.raises(InputError) as err:  # a file where a folder should be: not a permission
        read_text(notes / "x.toml", "scenario")
    assert str(err.value) == f"{notes / 'x.toml'}: cannot be read (Not a directory); check the path"

    from montecarlo import tomlread

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tomlread, "open", refused, raising=False)  # the module's own open
    with pytest.raises(InputError) as err:
        read_text(notes, "scenario")
    assert str(err.value) == f"{notes}: cannot be read (Permission denied); check its permissions"


def test_a_file_without_end_is_refused_and_a_pipe_that_ends_is_read(tmp_path, monkeypatch):
    """`report /dev/zero` read without end and filled the memory (24 GB, then the kernel killed
    it): at most MAX_TOML_BYTES are read, then one line; a pipe that ends (`<(cat file)`) is
    read as a file is, as it was before."""
    import os
    import threading

    from montecarlo import tomlread

    monkeypatch.setattr(tomlread, "MAX_TOML_BYTES", 59)
    for read in (lambda p: read_text(p, "scenario"), lambda p: load_deck(str(p))):
        with pytest.raises(InputError, match=r"^/dev/zero: more than 59 bytes, more than any .* file holds"):
            read(Path("/dev/zero"))
    big = tmp_path / "big.toml"
    big.write_text("x = 1\n" * 10)
    with pytest.raises(InputError) as err:
        read_text(big, "scenario")
    assert str(err.value) == f"{big}: more than 59 bytes, more than any scenario file holds; check the path"
    monkeypatch.setattr(tomlread, "MAX_TOML_BYTES", 60)
    assert read_text(big, "scenario") == "x = 1\n" * 10
    pipe = tmp_path / "pipe.toml"
    os.mkfifo(pipe)
    writer = threading.Thread(target=lambda: pipe.write_text('name = "piped"\n'))
    writer.start()
    assert parse_text(read_text(pipe, "scenario"), str(pipe)) == {"name": "piped"}
    writer.join()
