"""PNG screenshots of the report pages in a real browser (Chromium headless), to look at.

Usage: ``python tools/screenshots.py [REPORTS] [OUT]`` (default ``reports`` and
``reports/screenshots``); ``make screenshots`` runs it (after ``make report`` when there are
no reports yet). It shoots
``REPORTS/index.html`` and every ``REPORTS/<name>/index.html`` at 1280 px wide, and says which
pages are wider than the window (their content would scroll sideways). Chromium comes from the
system's packages (Debian: ``apt-get install chromium``); without it the script says so and
exits 2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTH = 1280
HEIGHT = int(os.environ.get("SCREENSHOT_HEIGHT", "2000"))  # taller to see a whole long page
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
# Prints the page's scroll width into the DOM so that --dump-dom can read it.
PROBE = "document.documentElement.scrollWidth"


def browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def shoot(exe: str, page: Path, png: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="montecarlo-chromium-") as profile:
        subprocess.run(
            [
                exe,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                f"--window-size={WIDTH},{HEIGHT}",
                page.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def page_width(exe: str, page: Path) -> int | None:
    """The page's scroll width at the window width (wider than WIDTH: it scrolls sideways)."""
    html = page.read_text(encoding="utf-8")
    probe = (
        f"<script>document.addEventListener('DOMContentLoaded',()=>{{document.title="
        f"'WIDTH='+{PROBE};}});</script>"
    )
    with tempfile.TemporaryDirectory(prefix="montecarlo-chromium-") as profile:
        copy = page.with_name(f".probe-{page.name}")
        copy.write_text(html.replace("</head>", probe + "</head>", 1), encoding="utf-8")
        try:
            done = subprocess.run(
                [
                    exe,
                    *FLAGS,
                    f"--user-data-dir={profile}",
                    f"--window-size={WIDTH},{HEIGHT}",
                    "--dump-dom",
                    copy.resolve().as_uri(),
                ],
                check=True,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            copy.unlink(missing_ok=True)
    marker = done.stdout.split("<title>WIDTH=", 1)
    return int(marker[1].split("<", 1)[0]) if len(marker) > 1 else None


def main(argv: list[str]) -> int:
    reports = Path(argv[0] if argv else "reports")
    out = Path(argv[1] if len(argv) > 1 else reports / "screenshots")
    exe = browser()
    if exe is None:
        print("error: no Chromium found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    pages = [reports / "index.html", *sorted(reports.glob("*/index.html"))]
    pages = [p for p in pages if p.is_file()]
    if not pages:
        print(f"error: no report pages under {reports} (run make report first)", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    wide = 0
    for page in pages:
        name = "index" if page.parent == reports else page.parent.name
        png = out / f"{name}.png"
        shoot(exe, page, png)
        width = page_width(exe, page)
        too_wide = width is not None and width > WIDTH
        wide += too_wide
        print(f"{png}  page width {width} px{'  WIDER THAN THE WINDOW' if too_wide else ''}")
    print(f"{len(pages)} pages, {wide} wider than {WIDTH} px")
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
