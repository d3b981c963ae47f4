"""docs/api.md's examples run as written: the ``>>>`` blocks as doctests (their printed values
compared), the others as scripts in a fresh folder (a newcomer pasting the matplotlib example
met a NameError: the page had left out its import)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_page_has_its_examples():
    assert len(BLOCKS) >= 5 and any(">>>" in b for b in BLOCKS) and any(">>>" not in b for b in BLOCKS)


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_an_example_of_the_python_api_page_runs_as_written(number, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import montecarlo as mc

    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the page's paths (scenarios/...) are the clone's
    block = BLOCKS[number]
    names = {"mc": mc, "__name__": "__docs__"}
    if ">>>" in block:
        test = doctest.DocTestParser().get_doctest(block, names, f"api.md block {number}", str(PAGE), 0)
        flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=lambda text: pytest.fail(text))
        assert runner.failures == 0
    else:
        saved = []  # a plot saved into the clone would be left behind: only its name is kept
        monkeypatch.setattr("matplotlib.pyplot.savefig", lambda name, *a, **k: saved.append(name))
        exec(compile(block, f"api.md block {number}", "exec"), names)
