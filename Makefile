# Two entry points: `make run` starts aish, `make test` runs everything CI runs.
# Both create and update .venv on demand and are safe to repeat.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project metadata changed; the editable install tracks the sources.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/aish $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/ask_overhead.py
	$(BIN)/python bench/first_prompt.py
	$(BIN)/python bench/shell_overhead.py
	$(BIN)/python bench/classify.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
