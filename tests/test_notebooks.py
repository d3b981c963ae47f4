"""The example notebooks run in the suite: a failing cell fails the test."""

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "tools" / "run_notebooks.py")
run_notebooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_notebooks)


def outputs(notebook) -> list[dict]:
    return [o for cell in notebook["cells"] if cell["cell_type"] == "code" for o in cell.get("outputs", [])]


def test_there_is_a_notebook():
    assert ROOT / "docs" / "examples" / "balance.ipynb" in run_notebooks.NOTEBOOKS


@pytest.mark.parametrize("path", run_notebooks.NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_shows_a_dataframe_and_a_plot(path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel imports this checkout's montecarlo
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    ran = outputs(run_notebooks.execute(path))
    assert not [o for o in ran if o["output_type"] == "error"]
    assert any("image/png" in o.get("data", {}) for o in ran), "no plot"
    assert any("<table" in "".join(o.get("data", {}).get("text/html", "")) for o in ran), "no table"
    # seeded, so what a reader sees stored is what running it prints (tools/run_notebooks.py)
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert texts(ran) == texts(outputs(stored)), "stored outputs are stale: run tools/run_notebooks.py"


def texts(outputs: list[dict]) -> list[str]:
    """The text a reader sees of each output (printed, tables): every number, no plot."""
    seen = []
    for o in outputs:
        if o["output_type"] == "stream":
            seen.append("".join(o["text"]))
        for kind in ("text/plain", "text/html"):
            if kind in o.get("data", {}) and "image/png" not in o["data"]:
                seen.append("".join(o["data"][kind]))
    return seen


@pytest.mark.parametrize("path", run_notebooks.NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_show_a_dataframe_and_a_plot(path):
    """What a reader sees without running it (tools/run_notebooks.py stores the outputs)."""
    stored = outputs(json.loads(path.read_text(encoding="utf-8")))
    assert any("image/png" in o.get("data", {}) for o in stored)
    assert any("dataframe" in "".join(o.get("data", {}).get("text/html", "")) for o in stored)
    assert not [o for o in stored if o["output_type"] == "error"]
