"""The shape of a report's pages: index.html and report.md render the same blocks in the same
order, every HTML page is well formed, and every style rule applies to something a page shows.

The other report tests read numbers and files; these read structure, so that a renderer that
drops a paragraph, a table or a closing tag, or a style rule that no longer matches, fails."""

import itertools
import json
import re
from html.parser import HTMLParser

import polars as pl
import pytest

from montecarlo.reporting import write_index, write_report
from montecarlo.reporting.report import _page
from montecarlo.scenarios import parse_scenario, run_scenario
from tests.conftest import per_test_under_mutation
from tests.reporting.test_report import report, result  # noqa: F401 - the shared report and its run
from tests.test_scenarios import GAME

VOID = {"meta", "img", "br"}
# elements whose own text is layout only: a word directly inside one is a stray string
NO_OWN_TEXT = {"html", "head", "body", "details", "ul", "table", "thead", "tbody", "tr", "figure", "div"}


class Outline(HTMLParser):
    """Walks a page: checks nesting and stray text, and collects its outline."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.headings: list[tuple[int, str]] = []
        self.table_heads: list[list[str]] = []
        self.table_rows: list[list[list[str]]] = []  # per table, its body's rows of cell texts
        self.images: list[tuple[str, str]] = []
        self.tags: set[str] = set()
        self.classes: set[str] = set()
        self.counts: dict[str, int] = {}
        self._text: list[str] | None = None
        self._level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        a = dict(attrs)
        self.classes.update((a.get("class") or "").split())
        key = f"{tag}.{a['class']}" if a.get("class") else tag
        self.counts[key] = self.counts.get(key, 0) + 1
        if tag == "img":
            self.images.append((a.get("data-file") or "", a.get("alt") or ""))
        if tag not in VOID:
            self.stack.append(tag)
        if tag in ("h1", "h2", "h3", "summary"):
            self._level, self._text = (2 if tag == "summary" else int(tag[1])), []
        if tag == "thead":
            self.table_heads.append([])
            self.table_rows.append([])
        if tag == "th" and "thead" in self.stack:
            self._text = []
        if tag == "tr" and "tbody" in self.stack:
            self.table_rows[-1].append([])
        if tag == "td" and "tbody" in self.stack:
            self._text = []
        if tag == "br" and self._text is not None:
            self._text.append(" ")  # a cell's second line (its interval): a space in report.md

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if self._text is not None and tag in ("h1", "h2", "h3", "summary"):
            self.headings.append((self._level, "".join(self._text)))
            self._text = None
        elif self._text is not None and tag == "th":
            self.table_heads[-1].append("".join(self._text))
            self._text = None
        elif self._text is not None and tag == "td":
            self.table_rows[-1][-1].append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)
        if data.strip() and self.stack and self.stack[-1] in NO_OWN_TEXT:
            self.problems.append(f"stray text {data.strip()[:40]!r} in <{self.stack[-1]}>")


def outline(page: str) -> Outline:
    o = Outline()
    o.feed(page)
    o.close()
    if o.stack:
        o.problems.append(f"never closed: {o.stack}")
    return o


def markdown_blocks(text: str) -> list[str]:
    """report.md's blocks (what stands between blank lines), stripped, code blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [block.strip() for block in text.split("\n\n") if block.strip()]


def markdown_outline(text: str) -> dict:
    """The same outline read from report.md (code blocks skipped)."""
    text = "\n\n".join(markdown_blocks(text))
    lines = text.splitlines()
    heads, rows = [], []
    for i, (line, below) in enumerate(zip(lines, lines[1:])):
        if line.startswith("| ") and below.startswith("|---"):
            heads.append(line[2:-2].split(" | "))
            body = itertools.takewhile(lambda row: row.startswith("| "), lines[i + 2 :])
            rows.append([row[2:-2].split(" | ") for row in body])
    return {
        "headings": [(len(m[1]), m[2]) for m in re.finditer(r"^(#+) (.*)$", text, flags=re.M)],
        "table_heads": heads,
        "table_rows": rows,
        "images": re.findall(r"^!\[(.*)\]\((.*)\)$", text, flags=re.M),
        # notes, and the line under a cut table (a note in HTML)
        "notes": len(re.findall(r"^(_.*_|\d+ more rows in .*)$", text, flags=re.M)),
        "facts": re.findall(r"^- \*\*([^*]+)\*\*: ", text, flags=re.M),
        "items": len(re.findall(r"^- (?!\*\*)", text, flags=re.M)),
        "paragraphs": len([b for b in markdown_blocks(text) if not re.match(r"[#|!_`\-]|\d+ more rows", b)]),
    }


@pytest.fixture(scope=per_test_under_mutation)
def pages(report):  # noqa: F811 - the fixture imported above
    return (report / "index.html").read_text(), (report / "report.md").read_text()


def test_index_html_is_well_formed_without_stray_text(pages):
    page = outline(pages[0])
    assert page.problems == []
    # every tag name in lower case, as HTML's own serialisation writes them (the parser folds case)
    names = set(re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", pages[0]))
    assert names and names == {n.lower() for n in names}
    assert page.counts["details"] == 1 and page.counts["summary"] == 1


def test_report_md_and_index_html_show_the_same_blocks_in_the_same_order(pages):
    page, md = outline(pages[0]), markdown_outline(pages[1])
    assert page.headings == md["headings"]
    assert page.table_heads == md["table_heads"]
    assert page.table_rows == md["table_rows"]  # cell by cell, with the same text
    assert [(alt, f) for f, alt in page.images] == md["images"]
    assert page.counts["p.note"] == md["notes"]
    assert page.counts["li"] == md["items"]
    facts_rows = pages[0].split('<table class="facts">')[1].split("</table>")[0].count("<tr>")
    assert facts_rows == len(md["facts"])
    assert page.counts["p"] == md["paragraphs"]


def test_the_outline_of_a_comparison_report(pages):
    """What a reader finds, in order: findings, plots, the comparison (its summary table first,
    then the significant rows and the difference matrices), the tables, then the run's facts."""
    page = outline(pages[0])
    assert [(level, re.sub(r"\d+", "N", text)) for level, text in page.headings] == [
        (1, "Coin odds"),
        (2, "Findings"),
        (2, "Plots"),
        (2, "Comparison with official"),
        (3, "Significant differences (N), metric by metric, largest first"),
        (3, "The chance that at least need heads: difference from official"),
        (3, "The chance that at least need heads: exact difference from official"),
        (3, "Number of heads: difference from official"),
        (3, "Number of heads: exact difference from official"),
        (2, "Tables"),
        (3, "The chance that at least need heads"),
        (3, "The chance that at least need heads: exact values"),
        (3, "Number of heads"),
        (3, "Number of heads: exact values"),
        (3, "Distribution of heads + bonus"),
        (3, "Distribution of heads + bonus: exact values"),
        (3, "All estimates (long form)"),
        (2, "About this run: scenario, rules, reproducibility, files"),
        (3, "Variants"),
        (3, "Metrics"),
        (3, "Files"),
    ]
    assert markdown_outline(pages[1])["facts"] == [
        "scenario", "file", "game", "question", "seed", "seed use", "trials", "chunk size", "grid",
        "fixed setup", "metrics", "variants", "baseline", "common random numbers", "version", "date",
        "run time",
    ]  # fmt: skip
    # a difference: signed, a star when significant, its signed interval; or identical
    signed = r"[+-]\d\.\d{4}|0\.0000"
    difference = re.compile(rf"({signed})\*? \[({signed}), ({signed})\]|identical")
    everywhere = []
    for rows in page.table_rows[2:6:2]:  # the two difference matrices (then their exact values)
        cells = [cell for row in rows for cell in row[3:]]
        assert cells and all(difference.fullmatch(cell) for cell in cells), cells
        everywhere += cells
    starred = [cell for cell in everywhere if "*" in cell]
    assert 0 < len(starred) < len(everywhere), everywhere  # a star marks the significant cells only
    for cell in starred:  # significant after Holm: its own interval leaves out 0
        low, high = (float(x) for x in difference.fullmatch(cell).groups()[1:])
        assert low > 0 or high < 0, cell
    listed = [row[6] for row in page.table_rows[1]]  # the significant rows' differences
    assert listed and all(difference.fullmatch(cell) for cell in listed), listed
    # the estimates' matrices: estimate [low, high] to 3 decimals, no star (nothing is tested there)
    estimates = [cell for rows in page.table_rows[6:10:2] for row in rows for cell in row[3:]]
    interval = re.compile(r"\d+\.\d{3} \[\d+\.\d{3}, \d+\.\d{3}\]")
    assert estimates and all(interval.fullmatch(cell) for cell in estimates), estimates
    # the distribution: the chance of each value with its interval (n/a where a setup cannot reach it)
    chances = [cell for row in page.table_rows[10] for cell in row[4:]]
    assert chances and all(interval.fullmatch(cell) or cell == "n/a" for cell in chances), chances
    # exact values: 3 decimals beside the estimates (the distribution's too), signed to 4 beside
    # the differences
    exact = [cell for rows in page.table_rows[7:11:2] for row in rows for cell in row[3:]]
    exact += [cell for row in page.table_rows[11] for cell in row[4:] if cell != "n/a"]
    assert exact and all(re.fullmatch(r"\d\.\d{3}", cell) for cell in exact), [
        cell for cell in exact if not re.fullmatch(r"\d\.\d{3}", cell)]
    exact = [cell for rows in page.table_rows[3:7:2] for row in rows for cell in row[3:]]
    assert exact and all(re.fullmatch(signed, cell) for cell in exact), exact
    # the summary: the smallest, mean and largest difference of each variant and metric, signed
    summary = page.table_rows[0]
    spans = [[float(x) for x in row[5:8]]
             for row in summary if all(re.fullmatch(signed, x) for x in row[5:8])]
    assert len(spans) == len(summary) and all(low <= mean <= high for low, mean, high in spans), summary
    assert {row[8] for row in summary} == {"exact"}  # the fake game's exact solver answers every setup
    # the long form: estimates, interval ends, standard errors and exact values to 4 decimals
    numbers = [cell for row in page.table_rows[12] for cell in row[5:10]]
    assert numbers and all(re.fullmatch(r"\d\.\d{4}", cell) for cell in numbers), numbers
    matrix, setup = ["tags", "variant", "flips", "1", "2"], ["flips", "need", "tags", "variant"]
    assert page.table_heads == [
        ["variant", "metric", "significant", "identical", "n/a", "min diff", "mean diff", "max diff", "from"],
        [*setup, "metric", "baseline → variant", "difference [95% CI]", "exact", "Holm p"],
        *[matrix] * 8,  # two metrics: differences and their exact values, then estimates and exact values
        # the distribution, then its exact values: totals 0..3, as 4 and 5 (exact 0, never drawn) are
        # left out
        [*setup, "0", "1", "2", "3"],
        [*setup, "0", "1", "2", "3"],
        [*setup, "metric", "estimate", "ci_low", "ci_high", "se", "exact", "trials"],
        ["variant", "built-in", "overrides", "description"],
        ["rule", "official", "same", "loaded"],
        ["metric", "kind", "description"],
    ]


def test_every_style_rule_applies_to_something_a_page_shows(pages, tmp_path):
    index = write_index(
        tmp_path,
        [{"href": "a/index.html", "title": "A", "game": "coin", "headline": "**x**", "summary": "y"}],
    ).read_text()
    shown = [outline(pages[0]), outline(index)]
    for page in shown:
        assert page.problems == []
    tags = set().union(*(p.tags for p in shown))
    classes = set().union(*(p.classes for p in shown))
    style = re.search(r"<style>(.*)</style>", _page("t", "")).group(1)
    # the one media query: plots keep their own size on a phone (their text readable) and scroll,
    # which a line above each one says
    rules_inside = ("figure{overflow-x:auto}figure img{max-width:none}"
                    'figure::before{content:"\\2194  scroll sideways for the whole plot";display:block;'
                    "position:sticky;left:0;font-size:11px;color:#666;margin-bottom:.2em}")
    narrow = "@media (max-width:720px){" + rules_inside + "}"
    assert style.count("@media") == 1 and narrow in style
    style = style.replace(narrow, rules_inside)
    rules = re.findall(r"([^{}]+)\{([^{}]*)\}", style)
    assert "".join(f"{s}{{{d}}}" for s, d in rules) == style  # nothing outside a rule
    unused = []
    for selectors, declarations in rules:
        assert re.fullmatch(r"([a-z-]+:[^;:]+;)*[a-z-]+:[^;:]+", declarations), declarations
        for selector in selectors.split(","):
            for part in selector.split():
                tag, _, cls = part.split("::")[0].partition(".")  # figure::before styles a figure
                if (tag and tag not in tags) or (cls and cls not in classes):
                    unused.append(part)
    # .wrap styles a cell of long words (a description), which this report has none of
    assert set(unused) <= {".wrap"}, unused
    styled = set(re.findall(r"\.([a-z]+)", style))
    assert classes - styled == {"headline"}  # the index's headline keeps the page's own style


def test_each_table_is_headed_by_what_its_file_holds(pages):
    md = pages[1]
    named = dict(
        (m[2], m[1]) for m in re.finditer(r"^### (.*)\n\n_(?:.* \()?([a-z0-9-]+)\.csv\)?_$", md, flags=re.M)
    )
    assert named == {
        "matrix-win": "The chance that at least need heads",
        "matrix-win-exact": "The chance that at least need heads: exact values",
        "matrix-heads": "Number of heads",
        "matrix-heads-exact": "Number of heads: exact values",
        "difference-win": "The chance that at least need heads: difference from official",
        "difference-win-exact": "The chance that at least need heads: exact difference from official",
        "difference-heads": "Number of heads: difference from official",
        "difference-heads-exact": "Number of heads: exact difference from official",
        "distribution-total": "Distribution of heads + bonus",
        "distribution-total-exact": "Distribution of heads + bonus: exact values",
    }


def test_the_words_of_every_paragraph_and_note(pages):
    """The report's own sentences, numbers masked as N: what they say is checked elsewhere."""
    blocks = [b for b in markdown_blocks(pages[1]) if not re.match(r"[#|!\-]", b)]
    said = [re.sub(r"\d+(?:[.,]\d+)*", "N", b) for b in blocks]
    counted = "N of N tests significant (Holm); N identical in every trial"
    shown = ("* significant after Holm (adjusted for the family); not shown: same (identical to official "
             "everywhere)")
    unadjusted = "N% paired intervals, each on its own (not adjusted)"
    assert said == [
        "A fake game for the report tests.",
        f"_N setups × N variants, N trials each, seed N; {counted}_",
        "Differences are variant − official, with N% intervals. Each variant of a setup is played on the "
        "same dice, cards and draws as official, trial by trial (common random numbers), so a difference "
        "is measured on paired trials and is narrower than two separate runs would give. A difference is "
        "significant when it stays so after allowing for how many differences were tested (Holm's "
        f"correction, at N%): {counted}. A row where the two give the same result in every trial is "
        '"identical" and is not tested; a metric that does not apply to a setup is n/a. The min, mean and '
        "max differences are the exact ones where every setup has an exact value (from: exact), else the "
        "trials' (from: trials).",
        f"_columns: `need`; {unadjusted}; {shown} (difference-win.csv)_",
        "_difference-win-exact.csv_",
        f"_columns: `need`; {unadjusted}; {shown} (difference-heads.csv)_",
        "_difference-heads-exact.csv_",
        "_columns: `need`; estimate [N% interval]; n/a: does not apply to the setup (matrix-win.csv)_",
        "_matrix-win-exact.csv_",
        "_columns: `need`; estimate [N% interval]; n/a: does not apply to the setup (matrix-heads.csv)_",
        "_matrix-heads-exact.csv_",
        "_probability of each value of `total` (columns), but total=N–N, which no setup can reach (exact N, "
        "none drawn): estimate [N% interval] (distribution-total.csv)_",
        "_distribution-total-exact.csv_",
        "N more rows in [results.csv](results.csv) / [results.parquet](results.parquet)",
        "Rerun with:",
        "Full rules of each variant:",
        "Estimates carry N% intervals (Wilson for probabilities, Student t for means); exact values come "
        "from the game's exact solver where one exists. Probabilities below N are written in "
        "significant figures (Ne-N).",
    ]


@pytest.mark.parametrize("variants", [("same",), ("same", "loaded")])
def test_a_variant_identical_everywhere_leaves_every_difference_table(tmp_path, variants):
    """Variants as the columns of a one-field grid: ``same`` (the official rules again) is left
    out of the difference matrix and of its exact values; with nothing else to show, no table."""
    given = {"same": {"overrides": {"bias": 0.5}}, "loaded": {"builtin": "loaded"}}
    spec = {"game": GAME, "seed": 1, "trials": 500, "metrics": ["win"], "grid": {"flips": [1, 2, 3]}}
    spec["variants"] = {"official": {}, **{v: given[v] for v in variants}}
    folder = write_report(run_scenario(parse_scenario(spec), jobs=1), tmp_path / "r", command="x")
    assert json.loads((folder / "report.json").read_text())["file"] is None  # given in Python, no file
    page = outline((folder / "index.html").read_text())
    differences = [text for _, text in page.headings if "difference from official" in text]
    if variants == ("same",):
        assert differences == [] and ["flips"] not in page.table_heads
    else:
        assert len(differences) == 2 and page.table_heads[2:4] == [["flips", "loaded"]] * 2


def test_the_variants_left_out_of_a_difference_table_are_named_in_the_scenarios_order():
    from montecarlo.reporting.report import _difference_display
    from montecarlo.reporting.tables import all_tables

    same = {"overrides": {"bias": 0.5}}
    names = ["zeta", "same", "alpha", "mid"]
    spec = {"game": GAME, "seed": 1, "trials": 200, "metrics": ["win"], "grid": {"flips": [1, 2]},
            "variants": {"official": {}, **{name: same for name in names}, "loaded": {"builtin": "loaded"}}}
    tables = all_tables(run_scenario(parse_scenario(spec), jobs=1))
    shown, dropped = _difference_display(tables, "difference-win", ["flips"], tables["comparison"])
    assert dropped == names and shown.columns == ["flips", "loaded"]


@pytest.mark.parametrize("grid", [{"flips": [2]}, {"flips": [1, 2], "need": [1, 2]}], ids=["one", "two"])
def test_a_difference_table_and_the_summary_keep_every_variant_tested(grid):
    """One setup: a difference table of one row, a summary row of one test; two fields: the
    variants are rows of the table, the identical one's rows left out."""
    from montecarlo.reporting.report import _difference_display, _summary_display
    from montecarlo.reporting.tables import all_tables

    variants = {"official": {}, "same": {"overrides": {"bias": 0.5}}, "loaded": {"builtin": "loaded"}}
    spec = {"game": GAME, "seed": 1, "trials": 200, "metrics": ["win"], "grid": grid, "variants": variants}
    run = run_scenario(parse_scenario(spec), jobs=1)
    tables = all_tables(run)
    shown, dropped = _difference_display(tables, "difference-win", list(grid), tables["comparison"])
    assert dropped == ["same"]
    if len(grid) == 1:
        assert shown.columns == ["flips", "loaded"] and shown.height == 1
    else:
        assert shown.columns == ["variant", "flips", "1", "2"]
        assert shown["variant"].to_list() == ["loaded"] * 2
    summary = _summary_display(tables["comparison"], run.scenario)
    tests = 1 if len(grid) == 1 else 3  # flips 1, need 2 cannot be won: identical, not a test
    assert summary["variant"].to_list() == ["loaded"]
    assert summary["significant"].to_list() == [f"{tests} of {tests}"]


def test_a_metric_in_a_table_is_its_description_with_its_code_name():
    from types import SimpleNamespace as N

    from montecarlo.games.base import Metric
    from montecarlo.reporting.report import _metric_label

    metrics = {"win": Metric("win", "probability", "the attacker wins"),
               "total": Metric("total", "distribution", "heads + bonus")}
    sc = N(question=N(metric=metrics.__getitem__))
    assert _metric_label(sc, "win") == "the attacker wins (win)"  # no "the chance that" in a table
    assert _metric_label(sc, "total=3") == "heads + bonus = 3 (total=3)"
    assert _metric_label(sc, "total") == "heads + bonus (total)"


def test_an_exact_value_missing_from_a_table_shows_as_a_dash():
    from montecarlo.reporting.report import _exact_display

    exact = pl.DataFrame({"flips": [1, 2], "official": [0.5, None]})
    assert _exact_display(exact, ["flips"]).to_dicts() == [
        {"flips": 1, "official": "0.500"}, {"flips": 2, "official": "—"}
    ]
    difference = pl.DataFrame({"flips": [1, 2], "loaded": [0.05, None]})
    assert _exact_display(difference, ["flips"], signed=True)["loaded"].to_list() == ["+0.0500", "—"]
    # "n/a" where the metric does not apply (no estimate either), as the estimates' table says it;
    # "—" stays for an estimate without an exact value
    estimates = pl.DataFrame({"flips": [1, 2, 3], "official": [0.4, None, 0.6]})
    three = pl.DataFrame({"flips": [1, 2, 3], "official": [0.5, None, None]})
    shown = _exact_display(three, ["flips"], estimates=estimates)["official"].to_list()
    assert shown == ["0.500", "n/a", "—"]
