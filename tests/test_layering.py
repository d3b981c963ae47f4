"""Arrows point one way: cli/api/reporting -> scenarios -> analysis -> registry -> datagame -> games
-> engine -> errors.

Read from the source with ``ast`` (no imports run): a module may import only from its own layer
or lower ones, so the engine knows nothing about games and games know nothing of reports.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "montecarlo"

# what each package may import from the project (besides itself)
ALLOWED = {
    "errors": set(),
    "validate": {"errors"},
    # the one progress bar of a run's trials (rich), for scenario runs and the CLI
    "progress": set(),
    # one way to read a TOML file a user wrote (scenarios, game definitions)
    "tomlread": {"errors", "validate"},
    "engine": {"errors", "validate"},
    "games": {"errors", "validate", "tomlread", "engine"},
    # a game described in a TOML file is a game too, built on the games' base, never imported by them
    "datagame": {"errors", "validate", "tomlread", "engine", "games"},
    # above both: a name is found among the game packages, a ``.toml`` path handed to datagame
    "registry": {"errors", "validate", "tomlread", "engine", "games", "datagame"},
    "analysis": {"errors", "validate", "tomlread", "engine", "games", "datagame", "registry"},
    "scenarios": {"errors", "validate", "tomlread", "engine", "games", "analysis", "datagame", "registry",
                  "progress"},
    "reporting": {"errors", "validate", "tomlread", "engine", "games", "analysis", "scenarios", "registry",
                  "progress"},
    # schemas are generated from the loaders' definitions (scenarios, datagame) and the games
    "schemas": {"errors", "validate", "tomlread", "engine", "games", "analysis", "scenarios", "datagame",
                "registry", "progress"},
    # the Python API sits beside the CLI: everything below it, never the CLI
    "api": {"errors", "validate", "tomlread", "engine", "games", "analysis", "scenarios", "datagame",
            "reporting", "schemas", "registry", "progress"},
    # the command's entry point, above everything: it imports the CLI and nothing else
    "_console": {"cli"},
}


def layer_of(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


def project_imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "montecarlo" and len(parts) > 1:
                found.add(parts[1])
    return found


MODULES = [p for p in sorted(ROOT.rglob("*.py")) if layer_of(p) in ALLOWED]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    layer = layer_of(path)
    wrong = project_imports(path) - ALLOWED[layer] - {layer, "__init__", "__version__"}
    assert not wrong, f"{path.relative_to(ROOT)} ({layer}) imports {sorted(wrong)}"


def test_cli_modules_never_import_the_root_back():
    for path in sorted((ROOT / "cli").glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "montecarlo.cli":
                pytest.fail(f"{path.name} imports the CLI root back")


def test_the_games_never_import_datagame_and_every_package_has_a_layer():
    """The games know nothing of rules-as-data; a new top-level module must be given its layer."""
    assert "datagame" not in ALLOWED["games"]
    top = {layer_of(p) for p in ROOT.rglob("*.py")} - {"__init__", "__main__", "cli"}
    assert top <= set(ALLOWED), f"modules with no layer in ALLOWED: {sorted(top - set(ALLOWED))}"
