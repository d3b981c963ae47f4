"""``python -m montecarlo.schemas``: rewrite the shipped schema files after a loader changed."""

from montecarlo.schemas import write

for path in write():
    print(f"wrote {path}")
