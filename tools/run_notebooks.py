"""Execute the example notebooks and store their outputs: ``python tools/run_notebooks.py``.

The stored outputs (a DataFrame, a plot) are what a reader sees on GitHub without running
anything; tests/test_notebooks.py executes the same notebooks in the test suite, without writing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "docs" / "examples").glob("*.ipynb"))


def execute(path: Path, timeout: int = 300):
    """The notebook at ``path`` after running every cell in a fresh kernel (raises on a failing cell)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    return notebook


def main() -> int:
    import nbformat

    for path in NOTEBOOKS:
        nbformat.write(execute(path), path)
        print(f"executed {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
