# Two entry points: `make run` starts aish, `make test` runs everything CI runs.
# Both create and update .venv on demand and are safe to repeat.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Test peers that are not Python packages: installed once per pinned version, outside the venv.
TOOLS := .tools
EVERYTHING_VERSION := 2026.8.31
TOOLS_STAMP := $(TOOLS)/.installed-everything-$(EVERYTHING_VERSION)

.PHONY: run test lint typecheck unit bench soak clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall only when the project metadata changed; the editable install tracks the sources.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The reference MCP server (npm) the integration tests talk to over stdio and Streamable HTTP.
$(TOOLS_STAMP):
	npm install --prefix $(TOOLS) --no-audit --no-fund --loglevel=error \
		@modelcontextprotocol/server-everything@$(EVERYTHING_VERSION)
	touch $(TOOLS_STAMP)

run: $(STAMP)
	$(BIN)/aish $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(TOOLS_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/ask_overhead.py
	$(BIN)/python bench/first_prompt.py
	$(BIN)/python bench/shell_overhead.py
	$(BIN)/python bench/classify.py
	$(BIN)/python bench/scrub.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/peers.py

# The soak in its long form (the short one runs with `make test`): AISH_SOAK_TURNS=2000 for more.
soak: $(STAMP) $(TOOLS_STAMP)
	AISH_SOAK_TURNS=$${AISH_SOAK_TURNS:-600} $(BIN)/python -m pytest tests/soak/test_soak.py -s $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache
