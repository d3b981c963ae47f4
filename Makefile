# Every target installs what it needs: on a fresh clone `make test` or `make report` alone works.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test report screenshots bench lint clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: install
	$(PY) -m pytest -q

report: install
	$(VENV)/bin/montecarlo report-all scenarios --out reports

# PNGs of reports/index.html and every report (Chromium headless from the system's packages)
screenshots: install
	test -f reports/index.html || $(MAKE) report
	$(PY) tools/screenshots.py reports reports/screenshots

bench: install
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
