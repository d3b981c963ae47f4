"""Kernel speed of the Dune (1984) Guile check, movement reach and investment questions."""

from __future__ import annotations

from common import kernel_rate, line

CASES = (
    ("guile", {"guile": 3, "spice": 3}, ()),
    ("guile", {"guile": 3, "spice": 3}, ("guile_check_2d6",)),
    ("reach", {"distance": 5, "second_distance": 3}, ()),
    ("invest", {"sums": [3, 11], "payout": 4, "players": 4}, ()),
)


def main() -> None:
    for question, setup, variants in CASES:
        label = f"dune1984 {question} kernel {' '.join(variants) or 'official'}"
        line(label, kernel_rate("dune1984", question, setup, variants), "trials/s")


if __name__ == "__main__":
    main()
