"""Checks shared by the CLI tests: printed and JSON estimates agree with their exact values."""

from __future__ import annotations

import re

Z95 = 1.959963984540054
NUMBER = r"(-?[\d.]+(?:e-?\d+)?)"  # 0.2583, or a small chance in significant figures (1.9e-5)
ROW = re.compile(
    rf"^│\s*(\S+)\s*│\s*{NUMBER}\s*│\s*{NUMBER} – {NUMBER}\s*│\s*(-?[\d.]+(?:e-?\d+)?|—)\s*│$"
)


def table_rows(text: str) -> dict[str, tuple[float, float, float, float | None]]:
    """metric -> (estimate, ci_low, ci_high, exact) from a printed odds table."""
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            name, est, low, high, exact = match.groups()
            rows[name] = (float(est), float(low), float(high), None if exact == "—" else float(exact))
    return rows


def assert_rows_agree(text: str, at_least: int = 1) -> dict:
    """Every printed estimate lies within 4.5 standard errors (from its interval) of the exact value."""
    rows = table_rows(text)
    assert len(rows) >= at_least, text
    for name, (est, low, high, exact) in rows.items():
        assert low <= est <= high, (name, rows[name])
        if exact is None:
            continue
        se = (high - low) / (2 * Z95)
        assert abs(est - exact) <= 4.5 * se + 1e-3, (name, rows[name])  # 1e-3: printed rounding
    return rows


def assert_json_agrees(data: dict) -> None:
    """Every metric of a JSON answer: estimate inside its interval, within 4.5 se of the exact value."""
    for name, m in data["metrics"].items():
        assert m["ci_low"] <= m["estimate"] <= m["ci_high"], name
        if m["exact"] is not None:
            se = max(m["se"], (m["ci_high"] - m["ci_low"]) / (2 * Z95))  # Wilson width where p = 0 or 1
            assert abs(m["estimate"] - m["exact"]) <= 4.5 * se + 1e-9, (name, m)
