# Two commands on a fresh machine: `make demo` and `make check`.
# Every target bootstraps the virtualenv it needs by itself.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-all
BARE    = .venv-bare
BARE_PY = $(BARE)/bin/python
BARE_STAMP = $(BARE)/.installed-dev
EXTRAS  = all
HYPOTHESIS_PROFILE ?= default
PIPFLAGS ?= --quiet

.PHONY: demo dev check lint typecheck test test-bare property evidence evidence-check bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIPFLAGS) --upgrade pip

# The development environment: the package editable, with every extra and the dev tools
# (the `dev` dependency group in pyproject.toml; needs pip >= 25.1, hence the upgrade).
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install $(PIPFLAGS) -e ".[$(EXTRAS)]" --group dev
	touch $(STAMP)

# The bare environment: the package and test tools only, no extra.
$(BARE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(BARE)
	$(BARE_PY) -m pip install $(PIPFLAGS) --upgrade pip
	$(BARE_PY) -m pip install $(PIPFLAGS) -e . --group dev
	touch $(BARE_STAMP)

dev: $(STAMP)

demo: | $(VENV)/bin/python
	$(PY) -m pip install $(PIPFLAGS) -e .
	$(PY) examples/quickstart.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP)
	$(PY) -m pytest -q --hypothesis-profile=$(HYPOTHESIS_PROFILE)

# The core suite with no extra installed: extras-dependent tests skip, the rest pass,
# and importing compaction_guard loads none of them.
test-bare: $(BARE_STAMP)
	$(BARE_PY) -m pytest -q --hypothesis-profile=default

property: $(STAMP)
	$(PY) -m pytest -q -m property --hypothesis-profile=ci

evidence: $(STAMP)
	$(PY) evidence/make_corpus.py
	$(PY) evidence/make_prose.py
	$(PY) evidence/recompute.py
	$(PY) docs/readme.py

evidence-check: $(STAMP)
	$(PY) evidence/make_corpus.py --check
	$(PY) evidence/make_prose.py --check
	$(PY) evidence/recompute.py --check

bench: $(STAMP)
	$(PY) bench/run.py

check: lint typecheck test test-bare evidence-check

clean:
	rm -rf $(VENV) $(BARE) .mypy_cache .ruff_cache .hypothesis
