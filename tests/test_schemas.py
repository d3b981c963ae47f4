"""JSON Schemas: generated from the loaders, shipped up to date, every shipped file valid."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from montecarlo import schemas
from montecarlo.datagame import is_definition
from montecarlo.errors import InputError

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "scenarios").rglob("*.toml"))


def validator(kind: str):
    schema = json.loads(schemas.path_of(kind).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("kind", schemas.KINDS)
def test_shipped_schema_is_the_generated_one(kind):
    """After a loader changes: python -m montecarlo.schemas rewrites the files."""
    assert schemas.path_of(kind).read_text(encoding="utf-8") == schemas.text(kind)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_validates(path):
    kind = "battle" if is_definition(path) else "scenario"
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator(kind).iter_errors(tomllib.loads(path.read_text(encoding="utf-8")))]
    assert not errors


def test_both_kinds_of_file_are_shipped():
    kinds = {is_definition(p) for p in FILES}
    assert kinds == {True, False}


@pytest.mark.parametrize(
    "data",
    [
        {"game": "dune1984", "seed": 1, "colour": "red"},  # unknown key
        {"game": "dune1984"},  # no seed
        {"game": "dune1984", "seed": -1},
        {"game": "chess", "seed": 1},
        {"game": "dune1984", "seed": 1, "metrics": ["nope"]},
        {"game": "dune1984", "seed": 1, "question": "guile", "metrics": "attacker_win"},
        {"game": "dune1984", "seed": 1, "variants": {"house": {"builtin": "nope"}}},
        {"game": "dune1984", "seed": 1, "rules": {"nope": 1}},
        {"game": "war-for-arrakis", "seed": 1, "question": "duel"},
        {"game": "dune1984", "seed": 1, "plots": [{"kind": "pie"}]},
        {"game": "dune1984", "seed": 1, "grid": {"attacker": 3}},
    ],
)
def test_scenario_mistakes_the_loader_refuses_are_schema_errors_too(data):
    from montecarlo.errors import ScenarioError
    from montecarlo.scenarios import parse_scenario

    assert list(validator("scenario").iter_errors(data))
    with pytest.raises(ScenarioError):
        parse_scenario(data)


def test_battle_mistakes_are_schema_errors():
    good = tomllib.loads((ROOT / "scenarios/games/risk.toml").read_text(encoding="utf-8"))
    v = validator("battle")
    assert not list(v.iter_errors(good))
    for broken in ({**good, "format": "dice-battle/2"}, {**good, "extra": 1},
                   {**good, "round": {**good["round"], "compare": "sum"}},
                   {k: good[k] for k in good if k != "end"}):
        assert list(v.iter_errors(broken))


@pytest.mark.parametrize("old, new", [
    ("faces = 6", "faces = 10_001"),  # more faces than a die has
    ("faces = 6", f"faces = {list(range(1, 10_002))}"),
    ("faces = 6", "faces = [1, 4611686018427387904]"),  # numbers below 2**62 in size
    ("max = 100", "max = 4611686018427387904"),
    ("attack_dice = 3", "attack_dice = 5000000000000000000"),  # a rule
    ("overrides = { defend_dice = 3 }", "overrides = { defend_dice = 5000000000000000000 }"),
    ('attackers = "attackers - attacker_lost"', "attackers = 5000000000000000000"),  # an expression
])
def test_numbers_the_battle_loader_refuses_are_schema_errors_too(old, new):
    from montecarlo.datagame import DefinitionError, parse_definition

    text = (ROOT / "scenarios/games/risk.toml").read_text(encoding="utf-8").replace(old, new, 1)
    assert list(validator("battle").iter_errors(tomllib.loads(text)))
    with pytest.raises(DefinitionError):
        parse_definition(text)


def test_a_loader_key_the_schema_does_not_describe_fails_generation(monkeypatch):
    from montecarlo import scenarios

    monkeypatch.setattr(scenarios, "TOP_KEYS", (*scenarios.TOP_KEYS, "colour"))
    with pytest.raises(InputError, match="does not describe \\['colour'\\]"):
        schemas.schema("scenario")


def test_cli_prints_the_schema_and_refuses_an_unknown_kind():
    run = [sys.executable, "-m", "montecarlo", "schema"]
    out = subprocess.run([*run, "battle"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert json.loads(out.stdout) == schemas.schema("battle")
    where = subprocess.run([*run, "scenario", "--path"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert Path(where.stdout.strip()) == schemas.path_of("scenario")
    bad = subprocess.run([*run, "report"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: unknown schema 'report'; known: scenario, battle"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_points_its_editor_at_its_schema(path):
    """The first line ``#:schema PATH``, relative to the file, so it works from any clone."""
    kind = "battle" if is_definition(path) else "scenario"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("#:schema "), first
    assert (path.parent / first.removeprefix("#:schema ")).resolve() == schemas.path_of(kind).resolve()


def test_a_scenarios_setup_offers_what_each_question_accepts():
    """The schema offered a guile check's character (the parser fills it in, and refuses it
    given) and none of the values parsers read besides their fields (players, card_counts,
    enemy_die...): it now offers what the Python API lists, question by question."""
    import montecarlo as mc

    catalogue = mc.games()
    games = {rule["if"]["properties"]["game"]["const"]: rule["then"]
             for rule in schemas.schema("scenario")["allOf"]}
    for name, info in catalogue.items():
        for question, asked in info.questions.items():
            branch = next(b for b in games[name]["allOf"]
                          if b["if"]["properties"]["question"]["const"] == question)
            offered = set(branch["then"]["properties"]["setup"]["properties"])
            assert offered == {f.name for f in asked.setup}, (name, question)
