# One entry point per job. `make play` and `make test` are the README's two commands.
# The venv's interpreter: the first of these that is Python 3.11+ with venv and ensurepip.
# Debian's /usr/bin/python3.11 comes first: it is built with profile-guided optimization and
# LTO into one executable, and runs the kernel faster than a build calling a shared libpython
# (pyenv's, which `python3` may name first on PATH); benchmarks/README.md has the figures.
PYTHON_CANDIDATES ?= /usr/bin/python3.13 /usr/bin/python3.12 /usr/bin/python3.11 python3
PYTHON ?= $(firstword $(foreach p,$(PYTHON_CANDIDATES),$(shell $(p) -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && echo $(p))) python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
PYTEST_WORKERS ?= 2

.PHONY: play serve test lint typecheck check test-live bench soak canon schemas clean-venv model

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[local]'
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

## Install, prepare the embedded local model, and start the server on the embedded defaults.
play: $(STAMP_RUN)
	$(BIN)/tavern model install
	$(BIN)/tavern serve

## Install dev extras; run ruff, mypy, the schema drift check, the whole pytest suite, and every
## notebook (notebooks/, cases/) under nbval with all outputs checked.
test: $(STAMP_DEV)
	$(BIN)/ruff check tavern harness tests benchmarks cases
	$(BIN)/ruff format --check tavern harness tests benchmarks cases
	$(BIN)/mypy
	$(BIN)/tavern schemas check
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests
	$(BIN)/pytest --nbval -p no:randomly notebooks cases

## Tests that need the real local model.
test-live: $(STAMP_DEV)
	$(BIN)/pip install --quiet -e '.[dev,local]'
	$(BIN)/tavern model install
	$(BIN)/pytest -m live --runlive tests

## The bundled 12-turn `soak` script on the embedded model, reporting every call (SCENARIO=...).
SCENARIO ?= the-vintners-wake
soak: $(STAMP_DEV)
	$(BIN)/pip install --quiet -e '.[dev,local]'
	$(BIN)/tavern model install
	$(BIN)/tavern-harness run soak --provider local --scenario $(SCENARIO) --report --verbose

## The counter-canon benchmark on the embedded model: slips counted per family per run, a monitor
## and never a gate (REPEATS=..., CANON_DIR=...).
REPEATS ?= 1
CANON_DIR ?= .tavern-data/canon
canon: $(STAMP_DEV)
	$(BIN)/pip install --quiet -e '.[dev,local]'
	$(BIN)/tavern model install
	$(BIN)/tavern-harness canon run --provider local --repeats $(REPEATS) --data-dir $(CANON_DIR)

## The four benchmarks (benchmarks/README.md): store, crash, contract, kernel.
bench: $(STAMP_DEV)
	$(BIN)/python -m benchmarks.store
	$(BIN)/python -m benchmarks.crash
	$(BIN)/python -m benchmarks.contract
	$(BIN)/python -m benchmarks.kernel
	$(BIN)/python -m benchmarks.harness

schemas: $(STAMP_DEV)
	$(BIN)/tavern schemas export

clean-venv:
	rm -rf $(VENV)
