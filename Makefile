# Every target installs what it needs: on a fresh clone `make test` or `make report` alone works.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test report screenshots bench lint mutation mutation-sample mutation-check clean

# The package's bytecode is written here, once, as `pip install .` would: an editable install
# leaves it to the first import, which a PYTHONDONTWRITEBYTECODE environment (many containers, this
# project's build machines) never lets write it, so that every command and every worker process
# compiled the whole package again (measured: `montecarlo odds dune1984` 0.53 s -> 0.40 s, and
# 45 ms less in each worker process).
# compileall only rewrites what changed since.
install: $(STAMP)
	@$(PY) -m compileall -q montecarlo

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The suite on every core (pytest-xdist; at most 4 workers: each may hold a few hundred MB of
# exact solves). make test TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= auto
test: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses=4

DEV_STAMP := $(VENV)/.installed-dev

$(DEV_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check montecarlo tests
	$(VENV)/bin/mypy montecarlo

# Mutation testing (slow: not part of `make test`). MUTATE narrows it to mutant-name globs, e.g.
# make mutation MUTATE='montecarlo.engine.*'; default: every module listed under [tool.mutmut]
# in pyproject.toml (engine, games' rules, datagame, analysis, scenarios, reporting, CLI options).
# Survivors: .venv/bin/mutmut results; equivalent ones are listed in tests/MUTANTS.md.
# The last line printed is "killed K of N mutants (P%)".
MUTATE ?=
MUTATION_JOBS ?= 2
# one BLAS thread per mutant run: spinning BLAS threads would eat its CPU time limit
ONE_THREAD := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Interrupted (Ctrl-C, a crash), `make mutation` again resumes the run where it stopped as long as
# the package, tests, scenarios, pyproject.toml and MUTATE are unchanged; otherwise it starts afresh.
mutation: $(DEV_STAMP)
	$(ONE_THREAD) $(PY) tests/mutation_summary.py --whole --jobs=$(MUTATION_JOBS) $(MUTATE) > mutants.log 2>&1 || (tail -n 20 mutants.log; exit 1)
	$(PY) tests/mutation_summary.py $(MUTATE)

# The score of every mutant estimated from a uniform random sample (about an hour on 2 cores for
# the default 300: mutmut's test census of the whole selection, then the sample), with its 95%
# interval above the last line. make mutation-sample SAMPLE=600 SAMPLE_SEED=2 MUTATE='...'
SAMPLE ?= 300
SAMPLE_SEED ?= 1
mutation-sample: $(DEV_STAMP)
	$(ONE_THREAD) $(PY) tests/mutation_summary.py --sample=$(SAMPLE) --seed=$(SAMPLE_SEED) --jobs=$(MUTATION_JOBS) $(MUTATE) > mutants.log 2>&1 || (tail -n 20 mutants.log; exit 1)
	$(PY) tests/mutation_summary.py $(MUTATE)

# Re-run exactly the mutants tests/MUTANTS.md lists as equivalent; report the ones killed now
# (stale), the ones no longer generated, and entries whose function changed since they were judged.
mutation-check: $(DEV_STAMP)
	rm -rf mutants
	$(ONE_THREAD) $(PY) tests/mutation_summary.py --check --jobs=$(MUTATION_JOBS) $(MUTATE)

report: install
	$(VENV)/bin/montecarlo report-all scenarios --out reports

# PNGs of reports/index.html and every report (Chromium headless from the system's packages)
screenshots: install
	test -f reports/index.html || $(MAKE) report
	$(PY) tools/screenshots.py reports reports/screenshots

bench: install
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache mutants mutants.log
