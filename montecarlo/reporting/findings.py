"""Findings: the few sentences a report opens with, generated from its tables.

For a comparison: which variants move which metric (how often, which way, by how much), the
largest effects with their setup and interval, and the variants that change nothing, said in
one line instead of a table of zeros. For a matrix of one rule set: the range of each metric,
where a chance crosses 50%, the largest asymmetries between the two sides and seat
advantages. Metrics and variants are named in words (their descriptions), the code name in
backticks after them (Markdown code; the HTML renders it as ``<code>``); a grid field that
belongs to one side (``attacker_equipment``) is never read as a seat advantage.

>>> number_range([0.1, 0.25])
'+0.100 to +0.250'
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Collection, Mapping, Sequence

import polars as pl

from montecarlo.reporting.tables import (
    IDENTICAL, NOT_APPLICABLE, TESTED, exactly_different, fmt, matrix_layout, metric_text, settled,
    settled_column,
)
from montecarlo.errors import InputError
from montecarlo.scenarios import ScenarioResult, show_value

MAX_LARGEST = 3  # largest effects named
MAX_METRICS_NAMED = 3  # metrics named per variant; the rest counted
MAX_ROWS_DESCRIBED = 6  # rows of a matrix described one by one for the 50% line
MAX_VARIANT_WORDS = 110  # characters of a variant's description quoted in a finding (its key words fit)
MAX_HEADLINE_METRICS = 2  # metrics named per variant in the headline (the index's one line)
MAX_HEADLINE_VARIANTS = 3  # variants named in the headline
MAX_VALUE_CHARS = 48  # characters of a grid value (a list of areas) quoted in a finding
SMALL_CHANGE = 0.001  # a change counted, but said to be below this (exact 1.8e-12 is true, not felt)
_SEAT = re.compile(r"^seat(\d+)_(.+)$")
_EMPTY = ("none", "", "[]", "()", "False", "0", "None")  # a setup field's value that gives nothing


def findings(result: ScenarioResult, tables: dict[str, pl.DataFrame]) -> list[str]:
    """The report's findings, most important first (the first one is the headline).

    The variants lead when there are several, unless the scenario names the grid fields its
    title asks about (``focus``): then what those fields change leads, under the baseline.
    """
    sc = result.scenario
    compared = "comparison" in tables
    variants = comparison_findings(result, tables["comparison"]) if compared else []
    if compared:
        variants += seat_findings_by_variant(result, tables["results"])
    own = matrix_findings(
        result, tables["results"], variant=result.baseline, compared=compared, focused=bool(sc.focus)
    )
    lead = focus_findings(result, tables["results"])
    crossing = [s for s in own if "is above 50%" in s]
    if crossing and (sc.focus or not variants):  # where the odds turn is a better headline than a range
        own.remove(crossing[0])
        lead.append(crossing[0])  # after what the focus fields change, the title's question
    out = lead + own + variants if sc.focus else variants + lead + own
    return out or ["No numbers to summarise: every metric is not applicable to every setup."]


def named_once(result: ScenarioResult, sentences: Sequence[str]) -> list[str]:
    """``sentences`` (findings) with each metric and variant in words the first time only, by its
    code name after: "the chance that the defender is destroyed or retreats and the attacker has
    units (`attacker_win`)" written out in eight findings of one report buried what each said.
    Each finding alone (the index's headline, a test) keeps its words."""
    variants = {v.name for v in result.variants}
    seen: set[tuple[str, str]] = set()  # (kind, name): a variant may share its name with a metric
    out = []
    for sentence in sentences:
        for name in dict.fromkeys(re.findall(r"\(`([^`]+)`\)", sentence)):
            forms = _forms(result, name, variants)
            if not forms:
                continue

            def short(match: re.Match, name: str = name, forms: dict[str, str] = forms) -> str:
                said = (forms[match.group(0)], name)
                if said in seen:
                    return f"`{name}`"
                seen.add(said)
                return match.group(0)

            sentence = re.sub("|".join(map(re.escape, forms)), short, sentence)
        out.append(sentence)
    return out


def _forms(result: ScenarioResult, name: str, variants: set[str]) -> dict[str, str]:
    """The ways a finding writes ``name`` out, as a variant and as a metric: {form: its kind}."""
    words = [(_variant(result, name), "variant")] if name in variants else []
    try:
        words += [(metric_words(result.scenario, name), "metric"),
                  (metric_words(result.scenario, name, chance=False), "metric")]
    except (KeyError, InputError):  # not a metric (a variant, a seat's reward)
        pass
    # (in any order: no two forms start alike, so the scan meets the longer of two where it starts)
    return {form: kind for w, kind in words if w != f"`{name}`" for form in (w, _cap(w))}


def headline(sentences: Sequence[str]) -> str:
    """The first finding, for the index of all reports; none, an empty line.

    >>> headline(["Attackers win 60%.", "Defenders hold 40%."])
    'Attackers win 60%.'
    >>> headline([])
    ''
    """
    return sentences[0] if sentences else ""


# ---------------------------------------------------------------- comparisons


def comparison_findings(result: ScenarioResult, comp: pl.DataFrame) -> list[str]:
    """Sentences about the variants' differences from the baseline."""
    sc = result.scenario
    setups = len(sc.points)
    base = result.baseline
    moved, quiet, unchanged, unchanged_rare = [], [], [], 0
    for variant in comp["variant"].unique(maintain_order=True):
        rows = comp.filter(pl.col("variant") == variant)
        applicable = rows.filter(pl.col("status") != NOT_APPLICABLE)
        if applicable.height and (applicable["status"] == IDENTICAL).all():
            unchanged.append(_variant(result, variant))
            unchanged_rare += exactly_different(applicable)
            continue
        parts, same, flat, everywhere, same_rare = [], [], [], True, 0
        for metric in sc.metrics:
            names = sc.question.metric(metric).reported_names()
            part = applicable.filter(pl.col("metric").is_in(list(names)))
            if part.height == 0:
                continue
            if (part["status"] == IDENTICAL).all():
                same.append(metric_words(sc, metric))
                everywhere = everywhere and _setups(part, sc) == setups
                same_rare += exactly_different(part)
                continue
            sig = part.filter(pl.col("significant"))
            if sig.height == 0:
                flat.append(metric_words(sc, metric))
            elif sc.question.metric(metric).kind == "distribution":
                parts.append(
                    f"shifts the distribution of {metric_words(sc, metric, chance=False)} in "
                    f"{_setups(sig, sc)} of {setups} setups"
                )
            else:
                parts.append(
                    f"{_direction(sig['difference'])} {metric_words(sc, metric)} in {sig.height} of "
                    f"{part.height} setups ({_ranges_by_unit(sc, metric, sig)})"
                )
        unmoved = f"identical {_where_all(everywhere, setups)}{_rare(same_rare)}"  # what `same` says
        if parts:
            if len(parts) > MAX_METRICS_NAMED:
                more = len(parts) - MAX_METRICS_NAMED
                parts = parts[:MAX_METRICS_NAMED] + [
                    f"moves {more} more metric{'s' * (more > 1)} " "(see the comparison table)"
                ]
            text = _cap(_variant(result, variant)) + " " + _join(parts)
            if same:
                text += f"; it leaves {_few(same)} {unmoved}"
            if flat:
                text += f"; no significant change to {_few(flat)}"
            moved.append(text + ".")
        else:
            text = f"{_cap(_variant(result, variant))} changes nothing significantly"
            if flat:
                largest = applicable.filter(pl.col("status") == TESTED)["difference"].abs().max()
                text += f" ({_join(flat)}: largest difference {fmt(largest, 4)})"
            if same:
                text += f"; it leaves {_join(same)} {unmoved}"
            quiet.append(text + ".")
    out = [_headline(comp, result)] if len(moved) + len(quiet) + len(unchanged) > 1 else []
    out += moved + quiet
    if unchanged:
        who = _join(unchanged)
        verb, sets = ("leaves", "the two rule sets")
        if len(unchanged) > 1:
            verb, sets = "leave", f"all {len(unchanged) + 1} rule sets"
        out.append(
            f"{_cap(who)} {verb} every metric identical to {_variant(result, base)} in all {setups} setups: "
            f"{sets} agree on every trial of these setups{_rare(unchanged_rare)}."
        )
    tests = int((comp["status"] == TESTED).sum())
    if not moved and tests:
        out.insert(0, f"No variant changes any metric significantly ({tests} tests, Holm correction at 5%).")
    largest = _largest(result, comp)
    if largest:
        out.append(largest)
    return out


def _headline(comp: pl.DataFrame, result: ScenarioResult) -> str:
    """One sentence over all variants: what each one moves (metrics in the scenario's order)."""
    sc = result.scenario
    parts = []
    for variant in comp["variant"].unique(maintain_order=True):
        rows = comp.filter(pl.col("variant") == variant, pl.col("status") != NOT_APPLICABLE)
        sig = rows.filter(pl.col("significant"))
        if sig.height == 0:
            same = rows.height and (rows["status"] == IDENTICAL).all()
            verdict = "changes nothing" if same else "no significant change"
            parts.append(f"{_variant(result, variant)} {verdict}")
            continue
        base = sig["metric"].str.split("=").list.first()
        signs: dict[str, set[bool | None]] = defaultdict(set)
        for metric, diff in zip(base, sig["difference"]):  # a distribution's values: None, it shifts
            signs[metric].add(None if sc.question.metric(metric).kind == "distribution" else diff > 0)
        seats = {m: names for names in _seat_groups(result).values() for m in names}
        # in the scenario's order; seat 1, seat 2, ... said once ("each seat")
        verbs: dict[str, set[bool | None]] = {}
        codes: dict[str, list[str]] = {}  # the metrics behind each name said
        seat_words = set()
        applies = set(rows["metric"])  # a seat no setup has (4 seats in 2-player conflicts) is no seat here
        for m in (m for m in sc.metrics if m in signs):
            changed = [n for n in seats.get(m, ()) if n in signs]
            if len(changed) > 1:  # "each seat", or "each seat but seat 4" where seat 4's did not change
                unchanged = [n for n in seats[m] if n not in signs and n in applies]
                name = _seat_words(result, seats[m], code=False, but=unchanged)
                seat_words.add(name)
            else:
                name = metric_words(sc, m, code=False)
            verbs.setdefault(name, set()).update(signs[m])
            codes.setdefault(name, []).append(m)
        count = f"changes in {_setups(sig, sc)} of {len(sc.points)} setups"  # any metric named or not
        # of the first metric named: metrics of other units (rolls beside a chance) are not compared
        count += _largest_change(sc, sig.filter(base.is_in(codes[next(iter(verbs))])))
        parts.append(f"{_variant(result, variant)} {_moves(verbs, seats=seat_words)} ({count})")
    more = len(parts) - MAX_HEADLINE_VARIANTS
    if more > 0:  # the index's one line stays a line or two; the report's findings name every variant
        counted = f"and {more} more variant{'s' * (more > 1)}"
        parts = parts[:MAX_HEADLINE_VARIANTS] + [counted]
    return f"Against {_variant(result, result.baseline)}: " + "; ".join(parts) + "."


def _largest_change(sc, sig: pl.DataFrame) -> str:
    """How large a variant's largest significant change in ``sig`` is (the headline's first metric,
    or each seat's of it), for the headline, which says only which way it moves each metric:
    ``"; largest +0.939, in seat 1's victory points"``. By the exact difference where the row has
    one (the truth the estimate comes near)."""
    changes = [
        (exact if exact is not None else diff, metric)
        for metric, diff, exact in zip(sig["metric"], sig["difference"], sig["exact_difference"])
        if "=" not in metric  # a distribution's values: a shift, said as such
    ]
    if not changes:
        return ""
    value, metric = max(changes, key=lambda change: abs(change[0]))  # of equal sizes, the first
    return f"; largest {number_range([value])}, in {metric_words(sc, metric, code=False)}"


def _moves(
    signs: dict[str, set[bool | None]], limit: int = MAX_HEADLINE_METRICS, seats: Collection[str] = ()
) -> str:
    """What a variant moves, which way: metrics with the signs of their significant differences
    (True: up; None: a distribution, which shifts), the first ``limit`` named, those of one
    direction together; each seat's metric (in ``seats``) simply moves, up for some seats and
    down for others.

    >>> _moves({"a": {True}, "b": {False}, "c": {True}})
    'raises a, lowers b and moves 1 more metric'
    >>> _moves({"a": {True}, "b": {True, False}})
    'raises a and moves (both ways) b'
    >>> _moves({"a": {True}, "b": {True}, "c": {False}}, limit=3)
    'raises a and b, and lowers c'
    >>> _moves({"total": {None}, "seat*": {True, False}}, seats=["seat*"])
    'shifts the distribution of total and moves seat*'
    >>> _moves({"seat*": {True}}, seats=["seat*"])  # every seat's goes up
    'raises seat*'
    >>> _moves({"a": {True}, "b": {True}, "c": {False}, "d": {None}, "e": {True, False}}, limit=4)
    'raises a and b, lowers c, shifts the distribution of d, and moves 1 more metric'
    >>> _moves({"a": {True}, "rolls, ties included": {True}, "c": {False}}, limit=2)  # its own commas
    'raises a and “rolls, ties included”, and moves 1 more metric'
    """
    named, more = list(signs)[:limit], len(signs) - limit
    groups: dict[str, list[str]] = {}
    for name in named:
        shown = f"“{name}”" if "," in name else name  # a name's commas are not the list's
        if name in seats and len(signs[name]) > 1:  # up for some seats, down for others
            verb = "moves"
        elif None in signs[name]:
            verb = "shifts the distribution of"
        elif signs[name] == {True}:
            verb = "raises"
        elif signs[name] == {False}:
            verb = "lowers"
        else:
            verb = "moves (both ways)"
        groups.setdefault(verb, []).append(shown)
    parts = [f"{verb} {_join(names)}" for verb, names in groups.items()]
    if more > 0:
        parts.append(f"moves {more} more metric{'s' * (more > 1)}")
    if len(parts) > 1 and any(" and " in p for p in parts):
        return ", ".join(parts[:-1]) + ", and " + parts[-1]
    return _join(parts)


def _largest(result: ScenarioResult, comp: pl.DataFrame) -> str | None:
    sig = comp.filter(pl.col("significant").fill_null(False))
    if sig.height == 0:
        return None
    base = pl.col("metric").str.split("=").list.first()  # a distribution's values count as one metric
    top = (
        sig.with_columns(pl.col("difference").abs().alias("_size"), base.alias("_base"))
        .sort("_size", descending=True)
        .unique(["variant", "_base"], keep="first", maintain_order=True)
        .head(MAX_LARGEST)
    )
    grid = list(result.scenario.grid)
    items = []
    for row in top.iter_rows(named=True):
        exact = "" if row["exact_difference"] is None else f"; exact {fmt(row['exact_difference'], 4, True)}"
        where = _setup_text(row, grid)
        items.append(
            f"{_variant(result, row['variant'])} on {metric_words(result.scenario, row['metric'])}: "
            f"{fmt(row['difference'], 4, True)} "
            f"(95% CI {fmt(row['ci_low'], 4, True)} to {fmt(row['ci_high'], 4, True)}{exact})"
            + (f" at {where}" if where else "")
        )
    return f"Largest effect{'s' * (len(items) > 1)}: " + "; ".join(items) + "."


def _rare(rows: int) -> str:
    """The caveat for identical rows whose exact values differ (see ``exactly_different``)."""
    if not rows:
        return ""
    rows_text = f"{rows} row{'s' * (rows > 1)}"
    return f" (though the exact values differ in {rows_text}: a change too rare for these trials)"


def _where_all(everywhere: bool, setups: int) -> str:
    return f"in all {setups} setups" if everywhere else "in every setup where it applies"


def _direction(diffs: pl.Series) -> str:
    """The verb for significant differences from the baseline.

    >>> [_direction(pl.Series(d)) for d in ([0.1, 0.2], [-0.1, -0.2], [-0.1, 0.2])]
    ['raises', 'lowers', 'moves (both ways)']
    """
    if (diffs > 0).all():
        return "raises"
    if (diffs < 0).all():
        return "lowers"
    return "moves (both ways)"


def _setups(rows: pl.DataFrame, sc) -> int:
    grid = list(sc.grid)
    return rows.select(grid).unique().height if grid else 1


# ---------------------------------------------------------------- one rule set


def matrix_findings(
    result: ScenarioResult, long: pl.DataFrame, variant: str, compared: bool, focused: bool
) -> list[str]:
    """Sentences about ``variant``'s own numbers: ranges, 50% lines, asymmetries, seats (beside
    a comparison, only the first metric's range, unless the grid is the report's focus)."""
    sc = result.scenario
    rows = long.filter(pl.col("variant") == variant)
    who = f" under {_variant(result, variant)}" if compared else ""
    full = focused or not compared
    out = []
    row_field, col_field = matrix_layout(result)
    scalar = [m for m in sc.metrics if sc.question.metric(m).kind != "distribution"]
    for metric in scalar[: 3 if full else 1]:
        part = rows.filter(pl.col("metric") == metric, pl.col("estimate").is_not_null())
        if part.height == 0:
            continue
        unit, chance = _unit_field(sc, metric), _is_chance(sc, metric)
        if unit:  # a range per unit: a win chance and points are not one range
            for group in part.partition_by(unit):
                where = f"{who} with {_field(unit)} = {_short(str(group[unit][0]))}"
                grid = [f for f in sc.grid if f != unit]
                out.append(_range(_cap(metric_words(sc, metric)), group, grid, where, chance))
        elif part.height > 1:
            out.append(_range(_cap(metric_words(sc, metric)), part, list(sc.grid), who, chance))
        else:
            out.append(
                f"{_cap(metric_words(sc, metric))}{who} is {fmt(part['estimate'][0])} "
                f"(95% CI {fmt(part['ci_low'][0])} to {fmt(part['ci_high'][0])})."
            )
        # with a focus, where the odds turn is said only over two of its fields (a matrix of them)
        turn = not sc.focus or {row_field, col_field} <= set(sc.focus)
        if sc.question.metric(metric).kind == "probability" and full and turn:
            out += _crossing(result, metric, part, row_field, col_field, who)
            # a seat advantage only where the other side wins exactly when this one does not: with
            # draws (both legions destroyed) p(a, a) is below 0.5 for equal sides
            swaps = sc.question.metric(metric).complement_swaps
            if swaps and row_field and col_field and metric.split("_")[0] in (row_field, col_field):
                out += _asymmetry(result, metric, part, row_field, col_field)
    if not compared:
        out += _seats(result, rows)
    return out


# ---------------------------------------------------------------- the grid's own question


def focus_findings(result: ScenarioResult, long: pl.DataFrame) -> list[str]:
    """What each of the scenario's ``focus`` fields changes in its first scalar metric, under
    the baseline: one sentence per field (see :func:`_field_effect`)."""
    sc = result.scenario
    scalar = [m for m in sc.metrics if sc.question.metric(m).kind != "distribution"]
    if not scalar:  # distributions only: no one number to compare
        return []
    metric = scalar[0]
    part = long.filter(
        pl.col("variant") == result.baseline, pl.col("metric") == metric, pl.col("estimate").is_not_null()
    )
    sentences = (_field_effect(result, metric, part, name) for name in sc.focus)
    return [s for s in sentences if s]


def _field_effect(result: ScenarioResult, metric: str, part: pl.DataFrame, name: str) -> str | None:
    """How ``metric`` changes with the grid field ``name``, the other fields held fixed.

    Each setup of the other fields is one comparison. Two values: the second against the first.
    Numbers in ascending order, or a field the scenario lists as ``ordered``: each step up. Other
    values: each against the first value (the yardstick), averaged over the setups of the other
    fields, with the highest and lowest named.
    Exact values where every setup has one; else estimates, where a difference within 1.96
    standard errors (the two setups' own, independent) counts as none.
    """
    sc = result.scenario
    raw = list(sc.grid[name])
    values = [str(sc.shown(name, v)) for v in raw]
    others = [f for f in sc.grid if f != name]
    exact = part["exact"].is_not_null().all()
    column = "exact" if exact else "estimate"
    cells = []  # per setup of the other fields: value of the field -> (number, standard error)
    for group in part.partition_by(others) if others else [part]:  # in any order: ranges and means
        rows = group.iter_rows(named=True)
        cells.append({str(r[name]): (r[column], 0.0 if exact else r["se"] or 0.0) for r in rows})
    # step by step: ascending numbers, or values the scenario declares ordered (labelled words)
    steps = (sc.numeric(name) and all(a < b for a, b in zip(raw, raw[1:]))) or name in sc.ordered
    pairs = list(zip(values, values[1:])) if steps else [(values[0], v) for v in values[1:]]
    diffs: dict[str, list[tuple[float, bool]]] = defaultdict(list)  # pair's later value -> (difference, real)
    for cell in cells:
        for a, b in pairs:
            if a in cell and b in cell:
                d = cell[b][0] - cell[a][0]
                noise = 1.96 * math.hypot(cell[a][1], cell[b][1])
                diffs[b].append((d, abs(d) > max(noise, 1e-12)))
    if not diffs:
        return None
    what = metric_words(sc, metric)
    setups = len(cells)
    where = f" across the {setups} setups of the other fields" if others and setups > 1 else ""
    source = "exact values" if exact else "estimates; a difference within noise counts as none"
    if len(pairs) == 1 or steps:
        real = [d for ds in diffs.values() for d, sig in ds if sig]
        count = sum(len(ds) for ds in diffs.values())
        if len(pairs) == 1:
            a, b = pairs[0]
            subject = f"{_field(name)} = {_short(b)} instead of {_short(a)}"
            counted = f"{len(real)} of {count} setups of the other fields" if count > 1 else ""
        else:
            chain = " → ".join(_short(v) for v in values)
            subject = f"each step up in {_field(name)} ({chain})"
            counted = f"{len(real)} of {count} steps{where}"
        counted = f" in {counted}" if counted else ""
        if not real:
            counted = counted.replace(" in 0 of", " in any of")
            return f"{_cap(subject)} does not change {what}{counted} ({source})."
        verb = _direction(pl.Series(real))
        small = sum(abs(d) < SMALL_CHANGE for d in real)  # true, but too small to matter at a table
        tiny = f"; {small} of them by less than {SMALL_CHANGE}" if small and len(real) > 1 else ""
        return f"{_cap(subject)} {verb} {what}{counted} ({number_range(real)}{tiny}; {source})."
    means = {b: sum(d for d, _ in ds) / len(ds) for b, ds in diffs.items()}
    moved = [b for b, ds in diffs.items() if any(sig for _, sig in ds)]
    yardstick = f"Against {_field(name)} = {_short(values[0])} (the first value)"
    if not moved:
        anywhere = f" in any of the {setups} setups of the other fields" if where else ""
        return f"{yardstick}, none of the other {len(means)} values changes {what}{anywhere} ({source})."
    # the extremes among the values that change it: one that changes nothing is not the "lowest rise"
    pool = {b: means[b] for b in moved}
    high = max(pool, key=lambda b: pool[b])
    low = min(pool, key=lambda b: pool[b])

    def named(value: str) -> str:  # a value, "“…”" around one that holds a comma, and its ties
        ties = sum(abs(m - means[value]) <= 1e-9 for m in pool.values()) - 1
        shown = f"“{_short(value)}”" if "," in value else _short(value)
        return shown + (f" ({fmt(means[value], 3, True)}, and {ties} more value{'s' * (ties > 1)} alike)"
                        if ties else f" ({fmt(means[value], 3, True)})")

    average = f"on average{where}" if where else ""
    somewhere = " in at least one setup" if len(cells) > 1 else ""
    # the way the values that change it go (one that changes nothing is not "both ways")
    verb = _direction(pl.Series(list(pool.values())))
    # "highest" of changes that all lower it read as the largest fall: most and least instead
    extremes = {
        "raises": f"most with {named(high)}, least with {named(low)}",
        "lowers": f"most with {named(low)}, least with {named(high)}",
    }.get(verb, f"highest with {named(high)}, lowest with {named(low)}")
    if len(moved) == len(means):
        every = "both" if len(means) == 2 else f"all {len(means)}"
        return (
            f"{yardstick}, the other {len(means)} values "
            f"{verb.replace('raises', 'raise').replace('lowers', 'lower').replace('moves', 'move')} {what}"
            f"{' ' + average if average else ''}: {extremes}; {every} change it{somewhere} ({source})."
        )
    still = len(means) - len(moved)
    unchanged = f"the other {still} do not change it" if still > 1 else "the other one does not change it"
    if len(moved) == 1:
        return (
            f"{yardstick}, of the other {len(means)} values only {named(high)} {verb} {what}"
            f"{somewhere}{' (' + average + ')' if average else ''}; {unchanged} ({source})."
        )
    return (
        f"{yardstick}, {len(moved)} of the other {len(means)} values "
        f"{verb.replace('raises', 'raise').replace('lowers', 'lower').replace('moves', 'move')} {what}"
        f"{somewhere}{', ' + average if average else ''}: {extremes}; {unchanged} ({source})."
    )


def _range(metric: str, part: pl.DataFrame, grid: list[str], who: str, chance: bool) -> str:
    """``metric`` (in words) ranges from its lowest to its highest value, with their setups: the
    exact values when every setup has one (as the heat maps show them), else the estimates."""
    exact = "exact" in part.columns and part["exact"].fill_nan(None).null_count() == 0
    by, how = ("exact", " exactly") if exact else ("estimate", "")
    if exact:  # an exact 0.9999999999999998 rounds is 1 round, the same as the 1.0 beside it
        part = part.with_columns(settled_column(pl.col("exact")))
    low = part.sort(by).row(0, named=True)
    high = part.sort(by, descending=True).row(0, named=True)
    if low[by] == high[by]:
        return f"{metric}{who} is{how} {_value(low[by])} in every setup."
    return (
        f"{metric}{who} ranges{how} from {_value(low[by])} ({_end(part, low, grid, chance, by)}) "
        f"to {_value(high[by])} ({_end(part, high, grid, chance, by)})."
    )


def _value(x: float) -> str:
    """``fmt``'s three decimals, or as many more as it takes for a value below 1 not to read 1.000
    (0.99995: one trial of 20,000 went the other way).

    >>> _value(0.99995), _value(0.9996), _value(0.4123), _value(1.0), _value(12.9999)
    ('0.99995', '0.9996', '0.412', '1.000', '13.000')
    >>> _value(1 - 1e-11)  # as many decimals as it takes, twelve at most
    '0.99999999999'
    >>> _value(1 - 1e-13), _value(2 - 1e-14)  # within 1e-12 of a whole number: an exact solver's rounding
    ('1.000', '2.000')
    """
    x = settled(x)
    # the first of 3..11 decimals that does not read 1, or 12 (a bounded search: no edit loops)
    digits = next((d for d in range(3, 12) if not (0 < 1 - x and round(x, d) == 1)), 12)
    return fmt(x, digits)


def _end(
    part: pl.DataFrame, row: dict[str, Any], grid: list[str], chance: bool, by: str = "estimate"
) -> str:
    """The setup of a range's end, and how many more share its value (the first of a tie is
    not the extreme alone: 1 against 8, 9 and 10 defenders all win 0.000); a chance estimated
    from none or all of the trials says so, with its exact value when that is not 0 or 1.

    >>> row = {"g": 1, "estimate": 0.0, "exact": 3.2e-5, "trials": 20000}
    >>> _end(pl.DataFrame([row]), row, ["g"], chance=True)
    'g = 1; none of 20,000 trials, exact 3.2e-5'
    >>> _end(pl.DataFrame([row]), row, ["g"], chance=True, by="exact")
    'g = 1'
    """
    alike = part.filter(pl.col(by) == row[by])
    tied = alike.height
    more = f", and {tied - 1} more setup{'s' if tied > 2 else ''}" if tied > 1 else ""
    text = [_setup_text(row, grid) + more]
    estimate, trials = row["estimate"], row.get("trials")
    if chance and trials and estimate in (0.0, 1.0) and by == "estimate":  # (exact: nothing to add)
        exact = [e for e in alike["exact"].to_list() if e is not None]
        off = [e for e in exact if abs(e - estimate) > 1e-12]  # the setups whose chance is not 0 (or 1)
        if off or not exact:
            seen = f"{'none' if estimate == 0 else 'all'} of {trials:,} trials"
            if off:  # the farthest of the setups alike, "up to" where there are several
                far = max(off, key=lambda e: abs(e - estimate))
                words = fmt(far) if estimate == 0 else "1 − " + fmt(1 - far)
                seen += f", exact {('up to ' if estimate == 0 else 'down to ') * (tied > 1)}{words}"
            text.append(seen)
    return "; ".join(t for t in text if t)


def _unit_field(sc, metric: str) -> str:
    """The swept grid field that sets ``metric``'s unit, if any (see ``Metric.unit_field``)."""
    field = sc.question.metric(metric).unit_field  # a scalar metric: no "=value" part
    return field if field in sc.grid else ""


def _ranges_by_unit(sc, metric: str, rows: pl.DataFrame) -> str:
    """The range of ``rows``' differences, one per value of the metric's unit field if swept:
    ``objective = win: +0.010 to +0.020; keep:10: +0.214``. The exact differences where every
    row has one ("exactly +0.155 to +0.440"), as the comparison table's min and max are: the
    estimates' +0.441 beside the table's +0.4400 read as two answers."""
    exact = rows["exact_difference"].is_not_null().all()
    column, said = ("exact_difference", "exactly ") if exact else ("difference", "")
    unit = _unit_field(sc, metric)
    if not unit:
        return said + number_range(rows[column].to_list())
    parts = [
        f"{_short(str(group[unit][0]))}: {said}{number_range(group[column].to_list())}"
        for group in rows.partition_by(unit)
    ]
    return f"{_field(unit)} = " + "; ".join(parts)


def _is_chance(sc, metric: str) -> bool:
    return sc.question.metric(metric).kind == "probability"


def _side(row: dict[str, Any]) -> int:
    """+1 above 50%, -1 below, 0 even: by the exact value where there is one, else by whether
    the 95% interval leaves 0.5 out (an estimate of 0.501 is not "above")."""
    if row.get("exact") is not None:
        return 0 if abs(row["exact"] - 0.5) < 1e-9 else (1 if row["exact"] > 0.5 else -1)
    return 1 if row["ci_low"] > 0.5 else (-1 if row["ci_high"] < 0.5 else 0)


def _crossing(
    result: ScenarioResult, metric: str, part: pl.DataFrame, row: str | None, col: str | None, who: str = ""
) -> list[str]:
    """Where a chance crosses 50%, per value of the fields outside the matrix that it crosses in
    (at most three sentences; values of one such field where it crosses alike share one)."""
    sc = result.scenario
    if row is None or col is None or not (part["estimate"] > 0.5).any() or not (part["estimate"] < 0.5).any():
        return []
    others = [f for f in sc.grid if f not in (row, col)]
    numeric = all(isinstance(v, (int, float)) for v in part[row].to_list() + part[col].to_list())
    said: dict[str, list[Any]] = {}  # a sentence with WHERE for its setup -> the setups it is true of
    more: list[dict[str, Any]] = []  # setups where it crosses beyond the three sentences
    groups = part.partition_by(others, maintain_order=True) if others else [part]
    for group in groups:
        sides = {(r[row], r[col]): _side(r) for r in group.iter_rows(named=True)}
        above = {cell for cell, side in sides.items() if side > 0}
        even = {cell for cell, side in sides.items() if side == 0}
        if not above or len(above) == len(sides):  # on one side of 50% throughout: no line to draw
            continue
        text = None
        if numeric:
            for k in sorted({r - c for r, c in sides}):
                if above == {(r, c) for r, c in sides if r - c >= k}:
                    text = (
                        f"{_cap(metric_words(sc, metric))} is above 50%{WHERE} exactly when "
                        f"{_field(row)} − {_field(col)} ≥ {k}"
                    )
                    if even and even == {(r, c) for r, c in sides if r - c == k - 1}:
                        text += f", even (50%) when it is {k - 1}"
                    elif even:
                        text += f"; even (50% within the interval) at {len(even)} setups"
                    break
        text = (text or _per_row(metric_words(sc, metric), group, row, col, WHERE, above)) + "."
        if text not in said and len(said) == 3:
            more.append(group.row(0, named=True))
            continue
        said.setdefault(text, []).append(group.row(0, named=True))
    out = [text.replace(WHERE, who + _where(setups, others)) for text, setups in said.items()]
    if more:  # never a silence that reads as "it never crosses there"
        out.append(f"{_cap(metric_words(sc, metric))} crosses 50% as well{who}{_where(more, others)} (its "
                   "table below shows where).")
    return out


WHERE = "\x00"  # where a 50% sentence names the setup of the fields outside the matrix


def _where(setups: list[dict[str, Any]], fields: Sequence[str]) -> str:
    """`` with payout = 2, 4 or 6``: the setups a sentence holds for (one field's values
    together), or nothing where no field is outside the matrix."""
    if not fields:
        return ""
    if len(fields) == 1 and len(setups) > 1:
        values = [_quoted(_short(str(s[fields[0]]))) for s in setups]
        return f" with {_field(fields[0])} = {', '.join(values[:-1])} or {values[-1]}"
    return " with " + "; ".join(_setup_text(s, fields) for s in setups)


def _per_row(metric: str, group: pl.DataFrame, row: str, col: str, where: str, above: set) -> str:
    """Which values of one field are above 50%, for each value of the field with fewer values
    (neighbours alike listed together: ``attacker 2, 3, 4: none``)."""
    rows, cols = (group[f].unique(maintain_order=True).to_list() for f in (row, col))
    if len(rows) > len(cols):  # describe along the shorter field
        row, col, rows, cols, above = col, row, cols, rows, {(c, r) for r, c in above}
    runs: list[tuple[str, list[Any]]] = []  # what is above, and the neighbouring values of row where
    for value in rows[:MAX_ROWS_DESCRIBED]:
        hits = [v for v in cols if (value, v) in above]
        text = "all" if len(hits) == len(cols) else ", ".join(map(_quoted, hits)) or "none"
        if runs and runs[-1][0] == text:
            runs[-1][1].append(value)
        else:
            runs.append((text, [value]))
    head = f"{_cap(metric)} is above 50%{where} at these values of {_field(col)}"
    if 1 < len(rows) <= MAX_ROWS_DESCRIBED and len(runs) == 1:  # the same at each: once
        return f"{head}, whatever the {_field(row)}: {runs[0][0]}"
    listed = (f"{_field(row)} {', '.join(map(_quoted, values))}: {text}" for text, values in runs)
    return f"{head}: " + "; ".join(listed)


def _quoted(value: Any) -> str:
    """A value in a list of values, quoted where its own commas or colons would run into the
    list's (an investment's sums "5,9", a label "seat 1: 4 troops").

    >>> _quoted(4), _quoted([5, 9]), _quoted("seat 1: 4 troops")
    ('4', '“5,9”', '“seat 1: 4 troops”')
    """
    text = str(show_value(value))
    return f"“{text}”" if "," in text or ":" in text else text


def _asymmetry(
    result: ScenarioResult, metric: str, part: pl.DataFrame, row: str | None, col: str | None
) -> list[str]:
    """Swapping the two sides: p(a, b) + p(b, a) is 1 when neither side is favoured; at equal
    values p is 0.5. One sentence per value of the other fields (at most three)."""
    sc = result.scenario
    if row is None or col is None or set(part[row].to_list()) != set(part[col].to_list()):
        return []
    others = [f for f in sc.grid if f not in (row, col)]
    out = []
    for group in (part.partition_by(others, maintain_order=True) if others else [part])[:3]:
        label = _setup_text(group.row(0, named=True), others)
        cells = {(r[row], r[col]): r for r in group.iter_rows(named=True)}
        value = {k: (r["exact"] if r["exact"] is not None else r["estimate"]) for k, r in cells.items()}
        noise = {k: 0.0 if r["exact"] is not None else 4.5 * (r["se"] or 0.0) for k, r in cells.items()}
        diagonal = [k for k in cells if k[0] == k[1]]
        pairs = [
            (value[a, b] + value[b, a] - 1, a, b, math.hypot(noise[a, b], noise[b, a]))
            for a, b in cells
            if _less(a, b) and (b, a) in cells
        ]
        parts = []
        sided = _one_sided(result, group.row(0, named=True), others, row, col)
        if diagonal:
            lo, hi = min(value[k] for k in diagonal), max(value[k] for k in diagonal)
            span = fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}"
            sides = {_side(cells[k]) for k in diagonal}
            verdict = (
                "even"
                if sides == {0}
                else (
                    f"favouring the {_field(row)} side"
                    if sides <= {0, 1}
                    else f"favouring the {_field(col)} side" if sides <= {0, -1} else "either side"
                )
            )
            if sided:  # the two sides are not alike: the gap is the setup's, not a seat's
                verdict = f"{_join(sided)} is one side's only: this is its effect, not a seat advantage"
            equal = f"at equal {_field(row)} and {_field(col)}, {metric_words(sc, metric, code=False)}"
            exact = all(cells[k]["exact"] is not None for k in diagonal)  # not the heat map's estimates
            parts.append(f"{equal} is {span} ({'exact; ' if exact else ''}{verdict})")
        if pairs and not sided:
            size, a, b, pair_noise = max(pairs, key=lambda t: abs(t[0]))
            if abs(size) <= max(pair_noise, 1e-9):
                parts.append("swapping the two sides changes nothing beyond noise")
            else:
                favoured = row if size > 0 else col
                parts.append(
                    f"the largest asymmetry is {_field(row)} {a} against {_field(col)} {b}: with the "
                    f"sides swapped the two chances sum to {fmt(size + 1)} instead of 1, the "
                    f"{_field(favoured)} side favoured by {fmt(abs(size) * 100, 1)} points"
                )
        if parts:
            out.append(("With " + label + ": " if label else "") + "; ".join(parts) + ".")
    return [s[0].upper() + s[1:] for s in out]


def _one_sided(
    result: ScenarioResult, row: dict[str, Any], others: Sequence[str], a: str, b: str
) -> list[str]:
    """Setup fields of one side that the other side does not match (``attacker_equipment =
    sword`` against no ``defender_equipment``), in words: with them, swapping the values of the
    two sides' fields ``a`` and ``b`` does not swap the sides, so a gap is not a seat's.

    >>> from types import SimpleNamespace as N
    >>> r = N(scenario=N(setup={"defender_equipment": []}))
    >>> _one_sided(r, {"attacker_equipment": "sword"}, ["attacker_equipment"], "attacker", "defender")
    ['attacker equipment = sword']
    >>> _one_sided(r, {"attacker_equipment": "none"}, ["attacker_equipment"], "attacker", "defender")
    []
    >>> alike = N(scenario=N(setup={"defender_equipment": ["sword"]}))  # both sides have it: no side's own
    >>> _one_sided(alike, {"attacker_equipment": "sword"}, ["attacker_equipment"], "attacker", "defender")
    []
    >>> fixed = N(scenario=N(setup={"attacker_equipment": ["sword", "poison"]}))  # fixed, not swept
    >>> _one_sided(fixed, {}, [], "attacker", "defender")
    ['attacker equipment = sword+poison']
    """
    values = {k: str(show_value(v)) for k, v in result.scenario.setup.items()}
    labels = getattr(result.scenario, "labels", {})  # a labelled value read as the value it names
    unlabel = {f: {label: value for value, label in labels.get(f, {}).items()} for f in others}
    values.update({f: unlabel[f].get(str(row[f]), str(row[f])) for f in others})
    out = []
    for name, value in values.items():
        for side, other in ((a, b), (b, a)):
            if name.startswith(f"{side}_"):
                twin = values.get(other + name[len(side) :], "none")
                if not _empty(value) and value != twin:  # listed once, on the side that has it
                    out.append(f"{_field(name)} = {labels.get(name, {}).get(value, value)}")
    return out


def _empty(value: str) -> bool:
    """A setup value that gives a side nothing: none, an empty list, false, zero."""
    try:
        return value in _EMPTY or float(value) == 0
    except ValueError:
        return False


def _seat_groups(result: ScenarioResult) -> dict[str, list[str]]:
    """Metrics ``seatN_<what>`` grouped by ``<what>`` (two seats or more)."""
    by_what: dict[str, list[str]] = defaultdict(list)
    for name in result.scenario.metrics:
        match = _SEAT.match(name)
        if match and result.scenario.question.metric(name).kind != "distribution":
            by_what[match.group(2)].append(name)
    return {what: names for what, names in by_what.items() if len(names) >= 2}


def _stand_ins(result: ScenarioResult) -> dict[tuple[str, ...], set[str]]:
    """Per setup (its grid values as text), the ``seatN_`` prefixes of seats that stand for no
    player (``Question.stand_ins``: House Hagal), whose gaps are no seat advantage."""
    sc = result.scenario
    if sc.question.stand_ins is None:
        return {}
    seats = sc.question.stand_ins
    return {tuple(str(sc.shown(f, p.values[f])) for f in sc.grid): {f"seat{s}_" for s in seats(p.setup)}
            for p in sc.points}


def _seat_gap(
    rows: pl.DataFrame,
    names: Sequence[str],
    grid: Sequence[str],
    stand_ins: Mapping[tuple[str, ...], set[str]] | None = None,
):
    """(gap, higher row, lower row, noise) of the setup where two seats differ most, or None;
    seats in ``stand_ins`` (per setup) left out."""
    best = None
    part = rows.filter(pl.col("metric").is_in(list(names)), pl.col("estimate").is_not_null())
    for group in (part.partition_by(list(grid), maintain_order=True) if grid else [part]):
        skip = (stand_ins or {}).get(tuple(str(group[f][0]) for f in grid), set())
        for prefix in skip:
            group = group.filter(~pl.col("metric").str.starts_with(prefix))
        if group.height < 2:
            continue
        hi, lo = group.sort("estimate", descending=True).row(0, named=True), group.sort("estimate").row(
            0, named=True
        )
        gap = hi["estimate"] - lo["estimate"]
        if best is None or gap > best[0]:
            best = (gap, hi, lo, 4.5 * math.hypot(hi["se"] or 0, lo["se"] or 0))
    return best


def _seats(result: ScenarioResult, rows: pl.DataFrame) -> list[str]:
    """One rule set: the largest gap between seats in one setup, per ``seat*_<what>``."""
    out = []
    grid = list(result.scenario.grid)
    stand_ins = _stand_ins(result)  # once: every setup's question asked, not once per seat group
    for names in _seat_groups(result).values():
        best = _seat_gap(rows, names, grid, stand_ins)
        if best is None:
            continue
        gap, hi, lo, noise = best
        where = _setup_text(hi, grid)
        verdict = "" if gap > noise else " (within noise)"
        seat_hi, seat_lo = (_seat(r["metric"]) for r in (hi, lo))
        out.append(
            f"Seats: the largest gap in {_seat_words(result, names)} is {fmt(gap)}{verdict}, seat {seat_hi} "
            f"{fmt(hi['estimate'])} against seat {seat_lo} {fmt(lo['estimate'])}"
            + (f" at {where}." if where else ".")
        )
    return out


def seat_findings_by_variant(result: ScenarioResult, long: pl.DataFrame) -> list[str]:
    """Several rule sets: per ``seat*_<what>`` (at most two), each variant's largest gap
    between seats in one setup — how fair each rule set is to the seats."""
    out = []
    grid = list(result.scenario.grid)
    stand_ins = _stand_ins(result)  # once, not per seat group and variant
    for names in list(_seat_groups(result).values())[:2]:
        parts = []
        for variant in (v.name for v in result.variants):
            best = _seat_gap(long.filter(pl.col("variant") == variant), names, grid, stand_ins)
            if best is None:
                continue
            gap, hi, lo, noise = best
            if gap <= noise:
                parts.append(f"{_variant(result, variant)} {fmt(gap)} (within noise)")
            else:
                seat_hi, seat_lo = (_seat(r["metric"]) for r in (hi, lo))
                where = _setup_text(hi, grid)
                parts.append(
                    f"{_variant(result, variant)} {fmt(gap)} (seat {seat_hi} over seat {seat_lo}"
                    + (f" at {where})" if where else ")")
                )
        if parts:
            seats = _seat_words(result, names)
            out.append(f"Largest gap between seats in {seats}: " + "; ".join(parts) + ".")
    return out


# ---------------------------------------------------------------- words


def number_range(values: Sequence[float]) -> str:
    """``+0.100 to +0.250`` (signed, four digits below 0.01 for small effects).

    >>> number_range([0.1, 0.25]), number_range([0.009, -0.002]), number_range([0.01, 0.005])
    ('+0.100 to +0.250', '-0.0020 to +0.0090', '+0.005 to +0.010')
    >>> number_range([0.2, 0.2]), number_range([1 / 6, 0.16666666666666652])  # one value as shown
    ('+0.200', '+0.167')
    """
    lo, hi = min(values), max(values)
    digits = 4 if max(abs(lo), abs(hi)) < 0.01 else 3
    low, high = fmt(lo, digits, True), fmt(hi, digits, True)
    return low if low == high else f"{low} to {high}"


def _setup_text(row: dict[str, Any], fields: Sequence[str]) -> str:
    """``flips = 2, need = 1``: a setup's grid values, fields in words; a long value (a list of
    areas) cut to its first :data:`MAX_VALUE_CHARS` characters, the tables holding it whole.

    >>> _setup_text({"areas": "deep_desert: 2 regular, harvester+desert: 2 regular, harvester",
    ...              "wild_maker": False}, ["areas", "wild_maker"])
    'areas = deep_desert: 2 regular, harvester+desert: 2 …, wild maker = False'
    """
    return ", ".join(f"{_field(f)} = {_short(str(row[f]))}" for f in fields)


def _short(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """``text`` cut at a word before ``limit`` characters, "…" marking the cut."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit), text.rfind("+", 0, limit))
    return text[: cut if cut > 0 else limit].rstrip(",;+ ") + " …"


def _few(items: Sequence[str], limit: int = MAX_METRICS_NAMED) -> str:
    """At most ``limit`` items joined, the rest counted ("a, b and 2 more metrics")."""
    items = list(items)
    if len(items) <= limit:
        return _join(items)
    more = len(items) - limit
    return ", ".join(items[:limit]) + f" and {more} more metric{'s' * (more > 1)}"


def _field(name: str) -> str:
    return name.replace("_", " ")


def _cap(text: str) -> str:
    """The first letter upper case, also after an opening quote (a sentence's first word)."""
    quote = 1 if text.startswith("“") else 0
    return text[: quote + 1].upper() + text[quote + 1 :]


def metric_words(sc, name: str, code: bool = True, chance: bool = True) -> str:
    """A metric in words, from its description (a probability as "the chance that ..."), its
    code name after it in backticks; a distribution's value (``total=3``) as the chance of it.

    >>> from montecarlo.games.base import Metric
    >>> from types import SimpleNamespace as N
    >>> sc = N(question=N(metric=lambda name: Metric(name, "probability", "the attacker wins (note)")))
    >>> metric_words(sc, "attacker_win"), metric_words(sc, "attacker_win", code=False)
    ('the chance that the attacker wins (`attacker_win`)', 'the chance that the attacker wins')
    >>> sc = N(question=N(metric=lambda name: Metric(name, "distribution", "the total of the dice")))
    >>> metric_words(sc, "total=3")
    'the chance that the total of the dice is 3 (`total=3`)'
    """
    base, _, value = name.partition("=")
    metric = sc.question.metric(base)
    text = metric_text(metric)
    if value:
        text = f"the chance that {text} is {value}"
    elif metric.kind == "probability" and chance:
        text = f"the chance that {text}"
    return f"{text} (`{name}`)" if code else text


def _variant(result: ScenarioResult, name: str) -> str:
    """A variant in words: the first clause of its description in quotes (asides in parentheses
    left out), its name after it (just the name when the description is no more than the name)."""
    described = next(v.description for v in result.variants if v.name == name).replace("`", "")
    # an aside in parentheses goes, the words after it stay ("the tie rules (and X) never apply")
    described = re.sub(r" \([^()]*\)", "", described)
    clause = re.split(r"; | \(", described, maxsplit=1)[0].strip()
    head = clause.split(": ", 1)[0]
    if head != clause and len(head.split()) >= 3:  # "the rules as printed: a tie for first ..."
        clause = head
    if len(clause) > MAX_VARIANT_WORDS:
        clause = clause[: clause.rfind(" ", 0, MAX_VARIANT_WORDS)] + " …"
    if not clause or clause.replace(" ", "_") == name:
        return f"`{name}`"
    return f"“{clause}” (`{name}`)"


def _seat(name: str) -> str:
    match = _SEAT.match(name)
    return match.group(1) if match else name


def _seat_words(
    result: ScenarioResult, names: Sequence[str], code: bool = True, but: Sequence[str] = ()
) -> str:
    """``seat1_first``, ``seat2_first``, ... in words: "the chance that each seat takes the first
    reward (`seat*_first`)"; with ``but`` (some of ``names``), "each seat but seat 4"."""
    text = metric_words(result.scenario, names[0], code=False)
    if but:
        numbers = [_SEAT.sub(r"\1", n) for n in but]
        everyone = f"each seat but seat{'s' * (len(numbers) > 1)} {_join(numbers)}"
    else:
        everyone = "each seat"
    words = re.sub(r"\bseat \d+(\b|'s)", lambda m: everyone + m.group(1), text)
    name = _SEAT.sub(r"seat*_\2", names[0])  # every name of a seat group matches _SEAT
    return f"{words} (`{name}`)" if code else words


def _join(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _less(a: Any, b: Any) -> bool:
    try:
        return a < b
    except TypeError:
        return str(a) < str(b)
