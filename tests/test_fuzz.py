"""The front door, fuzzed: scenario files and command lines built at random (hypothesis).

Whatever comes in (random or malformed TOML, huge numbers, unicode, empty values, wrong types),
the scenario loader either returns a Scenario or raises ScenarioError/InputError with a one-line
message, and a command ends with exit 0, or with exit 2 and exactly one ``error: ...`` line on
stderr: never a traceback, never a hang. Runs use ``-n 50`` so each example costs milliseconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from montecarlo import cli
from montecarlo.errors import InputError
from montecarlo.scenarios import TOP_KEYS, Scenario, load_scenario, parse_scenario

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
FEW = settings(FUZZ, max_examples=25)

# --- values and TOML -------------------------------------------------------------------------------

HUGE = [2**63, 2**64 + 1, 10**30, -(10**30), 10**400]
text = st.text(max_size=12)  # any unicode, the empty string included
scalars = st.one_of(
    st.integers(-5, 8),
    st.sampled_from(HUGE),
    st.booleans(),
    text,
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " ", "é", "∞", "🐛", "\t", "0", "-1"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(text, st.sampled_from(TOP_KEYS)), inner, max_size=3),
    ),
    max_leaves=8,
)


def toml_value(v) -> str:
    """A value in TOML's inline syntax (strings through JSON escapes, which TOML shares)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml_document(data: dict) -> str:
    return "\n".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in data.items()) + "\n"


VALID = {
    "game": "dune1984",
    "question": "duel",
    "seed": 3,
    "trials": 50,
    "metrics": ["attacker_win", "rounds"],
    "setup": {"defender": 4},
    "grid": {"attacker": [2, 5], "attacker_equipment": [[], ["sword"]]},
    "variants": {"official": {}, "capped": {"builtin": ["gom_counts_toward_cap"]}},
    "plots": [{"kind": "heatmap", "metric": "attacker_win", "x": "attacker", "y": "attacker_equipment"}],
}
VALID_IMPERIUM = {
    "game": "imperium",
    "seed": 1,
    "trials": 50,
    "setup": {"revealed": 2},
    "grid": {"troops": ["3,2", "1-3,2,0:1/2|4:1/2"]},
    "variants": {"a": {}, "b": {"builtin": ["ties_split_up"]}},
}


def check_loaded(load, *args):
    """Call the loader: a Scenario, or an InputError (ScenarioError) whose message is one line."""
    try:
        result = load(*args)
    except InputError as exc:
        message = str(exc)
        assert message.strip() and "\n" not in message, message
        return None
    assert isinstance(result, Scenario)
    return result


@st.composite
def mutated(draw, base=VALID):
    """A valid scenario with one to three keys (top-level or nested) replaced, deleted or added."""
    data = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        table = data
        for _ in range(draw(st.integers(0, 2))):
            inner = [k for k, v in table.items() if isinstance(v, dict)]
            if not inner:
                break
            table = table[draw(st.sampled_from(sorted(inner)))]
        key = draw(st.one_of(st.sampled_from(sorted(table) or ["x"]), st.sampled_from(TOP_KEYS), text))
        if draw(st.integers(0, 4)) == 0:
            table.pop(key, None)
        else:
            table[key] = draw(values)
    return data


@FUZZ
@given(st.one_of(mutated(), mutated(VALID_IMPERIUM)))
def test_parse_scenario_of_mutated_data(data):
    check_loaded(parse_scenario, data)


@FUZZ
@given(st.dictionaries(st.one_of(st.sampled_from(TOP_KEYS), text), values, max_size=6))
def test_parse_scenario_of_random_data(data):
    check_loaded(parse_scenario, data)


@FUZZ
@given(st.one_of(mutated(), mutated(VALID_IMPERIUM)).map(toml_document))
def test_load_scenario_of_mutated_files(tmp_path_factory, document):
    path = tmp_path_factory.mktemp("fuzz") / "s.toml"
    path.write_text(document, encoding="utf-8", errors="surrogatepass")
    check_loaded(load_scenario, path)


@FUZZ
@given(
    st.one_of(
        st.text(max_size=200),
        st.binary(max_size=200),
        st.builds(
            lambda doc, cut, junk: doc[:cut] + junk + doc[cut:],
            st.just(toml_document(VALID)),
            st.integers(0, 400),
            st.text(max_size=5),
        ),
    )
)
def test_load_scenario_of_malformed_files(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("fuzz") / "s.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    check_loaded(load_scenario, path)


def test_valid_scenarios_load():
    assert check_loaded(parse_scenario, VALID) is not None
    assert check_loaded(parse_scenario, VALID_IMPERIUM) is not None
    assert check_loaded(load_scenario, Path("/nonexistent/x.toml")) is None


def test_a_huge_grid_is_refused_before_it_is_built():
    grid = {f"k{i}": list(range(100)) for i in range(12)}  # 10^24 points
    data = {**VALID, "grid": {"attacker": [1, 2], **grid}, "plots": []}
    with pytest.raises(InputError, match="grid of .* points") as info:
        parse_scenario(data)
    assert "\n" not in str(info.value)


# --- the command line -----------------------------------------------------------------------------


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``montecarlo ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["montecarlo", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli.main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


def check_cli(args: list[str]) -> int:
    code, out, err = run_cli(args)
    assert code in (0, 2), (args, code, err[-2000:])
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
    return code


GOOD = {
    "strength": ["4", "6", "1", "Paul Atreides", "gurney halleck"],
    "kit": ["sword", "gom-jabbar,poison", "sword, poison", ""],
    "list": ["3,2", "4,3,1", "Chani,2"],
    "troops": ["3,2,2,1", "1-3,2", "0:1/4|2:3/4,2", "deploy:2+1,3", "2,deploy:1+3:uniform"],
    "int": ["0", "3", "5", "12"],
}
fuzz_value = st.one_of(
    text,
    st.sampled_from(
        ["", "-1", "0", "7", "1e9", str(10**30), "-" + str(10**30), "nan", "∞", "3,,2", ",", "a,b"]
    ),
    st.integers(-3, 20).map(str),
    st.sampled_from(
        [
            "1e999",
            "0:1e999|1:1,2",
            "0:-1|1:2,2",
            "0:1/3|1:2/3,2",
            "deploy:1+1:zzz,2",
            "1-0,2",
            "deploy:99+1,2",
            "Paul,,Chani",
            "６",
            "sword,sword",
            "1/0",
        ]
    ),
)
COMMANDS = {  # command path -> {option: the kind of good value it takes}
    ("odds", "dune1984"): {
        "-a": "strength",
        "-d": "strength",
        "--attacker-equipment": "kit",
        "--defender-equipment": "kit",
        "--attacker-guile": "int",
        "--defender-guile": "int",
    },
    ("dune1984", "fight"): {
        "-a": "list",
        "-d": "list",
        "--attacker-equipment": "kit",
        "--defender-equipment": "kit",
        "--attacker-guile": "list",
        "--defender-guile": "list",
    },
    ("dune1984", "guile"): {"-g": "strength", "--spice": "int"},
    ("dune1984", "reach"): {"-d": "int", "-e": "int"},
    ("dune1984", "invest"): {"--sums": "list", "-x": "int", "-p": "int", "--stake": "int"},
    ("odds", "imperium"): {"-t": "troops", "-r": "int", "-i": "int", "-d": "kit", "-c": "kit"},
}
COMMON = {
    "-v": st.sampled_from(["no_strength_gain", "ties_split_up", "nope", "", "é"]),
    "--precision": st.sampled_from(["0.05", "0", "0.7", "-1", "nan", "x"]),
    "--max-trials": st.sampled_from(["100", "0", "-1", str(10**30)]),
    "-s": st.sampled_from(["0", "1", "-1", str(2**64), str(10**30), "x"]),
    "--backend": st.sampled_from(["loky", "threading", "mpi", ""]),
    "--bogus": st.just("1"),
}


@st.composite
def command_lines(draw):
    path = draw(st.sampled_from(sorted(COMMANDS)))
    options = COMMANDS[path]
    args = list(path)
    for option, kind in options.items():
        if draw(st.integers(0, 3)):  # most options given; required ones sometimes missing
            value = draw(
                st.one_of(st.sampled_from(GOOD[kind]), fuzz_value)
                if draw(st.booleans())
                else st.sampled_from(GOOD[kind])
            )
            args += [option, value]
    for option in draw(st.lists(st.sampled_from(sorted(COMMON)), unique=True, max_size=2)):
        args += [option, draw(COMMON[option])]
    if draw(st.integers(0, 5)) == 0:
        args.append(draw(st.sampled_from(["--json", "--help", "extra-argument", "-n", "--"])))
    return args + ["-n", "50", "-j", "1", "-q"]


@FUZZ
@given(command_lines())
def test_commands_end_in_success_or_one_line(args):
    check_cli(args)


HOSTILE = [
    "",
    " ",
    "-1",
    "0",
    "1e999",
    "nan",
    str(10**30),
    "é",
    "🐛",
    "a\nb",
    "3,,2",
    ",",
    "0:1e999|1:1,2",
    "0:-1|1:2,2",
    "deploy:1+1:zzz,2",
    "1-0,2",
    "６",
    "sword,sword",
    "1/0",
    "x:1",
]


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_option_with_every_hostile_value(path):
    """Each option in turn gets each hostile value, the other options good ones."""
    options = COMMANDS[path]
    good = [arg for option, kind in options.items() for arg in (option, GOOD[kind][0])]
    bad = []
    for option in options:
        for value in HOSTILE:
            args = [*path, *good, option, value, "-n", "50", "-j", "1", "-q"]  # the last value given wins
            try:
                check_cli(args)
            except AssertionError as exc:
                bad.append(f"{option} {value!r}: {str(exc)[-300:]}")
    assert not bad, "\n".join(bad)


@FEW
@given(
    st.lists(
        st.one_of(
            text,
            st.sampled_from(
                [
                    "odds",
                    "dune1984",
                    "imperium",
                    "table",
                    "fight",
                    "-n",
                    "--json",
                    "--out",
                    "report",
                    "compare",
                    "games",
                ]
            ),
        ),
        max_size=5,
    )
)
def test_random_words_end_in_success_or_one_line(words):
    assume(not ({"report", "compare", "--out"} & set(words)))  # those write files: below, in tmp_path
    check_cli([*words, "-n", "50"])  # a command that runs at all runs 50 trials


@FEW
@given(st.one_of(mutated(), mutated(VALID_IMPERIUM)))
def test_compare_and_report_of_fuzzed_scenarios(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("cli")
    data["trials"] = 50
    data.pop("precision", None)
    path = folder / "s.toml"
    path.write_text(toml_document(data), encoding="utf-8", errors="surrogatepass")
    sc = check_loaded(load_scenario, path)
    assume(sc is None or len(sc.points) * len(sc.variants) <= 8)
    check_cli(["compare", str(path), "-j", "1", "-q"])
    check_cli(["report", str(path), "--out", str(folder / "out"), "-j", "1", "-q"])
    assert {p.name for p in folder.iterdir()} <= {"s.toml", "out"}  # nothing written elsewhere


@pytest.mark.parametrize(
    "args",
    [
        ["odds", "dune1984", "-a", "4", "-d", "5", "-n", str(10**30)],
        [
            "odds",
            "dune1984",
            "-a",
            "4",
            "-d",
            "5",
            "-n",
            "50",
            "--precision",
            "0.01",
            "--max-trials",
            str(10**30),
        ],
    ],
)
def test_huge_trial_counts_are_refused_up_front(args):
    code, _, err = run_cli(args)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
