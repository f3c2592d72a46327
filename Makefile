# Two commands on a fresh machine: `make demo` and `make check`.
# Every target bootstraps the virtualenv it needs by itself.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-dev
HYPOTHESIS_PROFILE ?= default

.PHONY: demo dev check lint typecheck test test-bare test-extras property evidence evidence-check bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

dev: $(STAMP)

demo: | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	$(PY) examples/quickstart.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP)
	$(PY) -m pytest -q --hypothesis-profile=$(HYPOTHESIS_PROFILE)

property: $(STAMP)
	$(PY) -m pytest -q -m property --hypothesis-profile=ci

evidence: $(STAMP)
	$(PY) evidence/make_corpus.py
	$(PY) evidence/recompute.py

evidence-check: $(STAMP)
	$(PY) evidence/make_corpus.py --check
	$(PY) evidence/recompute.py --check

bench: $(STAMP)
	$(PY) bench/run.py

check: lint typecheck test

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .hypothesis
