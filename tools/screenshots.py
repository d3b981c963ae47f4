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


def measure(exe: str, page: Path) -> tuple[int | None, int | None]:
    """(the page's scroll width, how many tables are cut by their scroll box) at WIDTH.

    A page wider than WIDTH scrolls sideways; a cut table must be scrolled inside its box.
    The probe runs on a copy in a temporary folder (the report folder is left as it is).
    """
    html = page.read_text(encoding="utf-8")
    probe = (
        "<script>document.addEventListener('DOMContentLoaded',()=>{"
        f"const cut=[...document.querySelectorAll('.scroll')].filter(e=>e.scrollWidth>e.clientWidth+1);"
        f"document.title='WIDTH='+{PROBE}+'/'+cut.length;}});</script>"
    )
    with tempfile.TemporaryDirectory(prefix="montecarlo-chromium-") as tmp:
        copy = Path(tmp) / page.name
        copy.write_text(html.replace("</head>", probe + "</head>", 1), encoding="utf-8")
        done = subprocess.run(
            [exe, *FLAGS, f"--user-data-dir={tmp}/profile", f"--window-size={WIDTH},{HEIGHT}",
             "--dump-dom", copy.as_uri()],
            check=True, capture_output=True, text=True, timeout=120,
        )
    marker = done.stdout.split("<title>WIDTH=", 1)
    if len(marker) < 2:
        return None, None
    width, cut = marker[1].split("<", 1)[0].split("/")
    return int(width), int(cut)


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
        width, cut = measure(exe, page)
        too_wide = width is not None and width > WIDTH
        wide += too_wide
        note = "  WIDER THAN THE WINDOW" if too_wide else ""
        print(f"{png}  page width {width} px, {cut} table(s) scrolling inside their box{note}")
    print(f"{len(pages)} pages, {wide} wider than {WIDTH} px")
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
