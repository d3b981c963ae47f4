"""Arrows point one way: cli/api/reporting -> scenarios -> analysis -> games -> engine -> errors.

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
    "engine": {"errors", "validate"},
    # a game described in a TOML file is a game too: the registry hands such paths to datagame
    "games": {"errors", "validate", "engine", "datagame"},
    "datagame": {"errors", "validate", "engine", "games"},
    "analysis": {"errors", "validate", "engine", "games", "datagame"},
    "scenarios": {"errors", "validate", "engine", "games", "analysis", "datagame"},
    "reporting": {"errors", "validate", "engine", "games", "analysis", "scenarios"},
    # schemas are generated from the loaders' definitions (scenarios, datagame) and the games
    "schemas": {"errors", "validate", "engine", "games", "analysis", "scenarios", "datagame"},
    # the Python API sits beside the CLI: everything below it, never the CLI
    "api": {"errors", "validate", "engine", "games", "analysis", "scenarios", "datagame", "reporting",
            "schemas"},
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
