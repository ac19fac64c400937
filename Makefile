# Set-up is part of every target: a fresh machine needs only Python 3.11+.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/opus: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

run: $(BIN)/opus  ## the HTTP API on the embedded defaults (SQLite events and views)
	$(BIN)/opus serve

lint: $(BIN)/opus
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint  ## every tier (real SQLite, PostgreSQL, Redis, Chromium), a worker per core, a file to a worker
	$(BIN)/pytest -q -n auto --dist loadgroup

bench: $(BIN)/opus
	$(BIN)/python bench/commands.py

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis
