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
# bubblewrap and strace for the `safe` oracle (tests/oracle): from apt when we are root; without
# them the oracle's tests skip and say why. The stamp is made only once both are there.
SANDBOX_STAMP := $(TOOLS)/.installed-sandbox
# bash-completion, so that Tab's test of git's own completion runs (it skips without it).
BASH_COMPLETION_STAMP := $(TOOLS)/.installed-bash-completion

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

$(SANDBOX_STAMP):
	@if ! command -v bwrap >/dev/null || ! command -v strace >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing bubblewrap and strace for the safe oracle (apt-get)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends bubblewrap strace; } >/dev/null 2>&1 \
				|| echo "apt-get could not install bubblewrap/strace: the safe oracle will skip"; \
		else \
			echo "bubblewrap/strace missing and not root: the safe oracle (tests/oracle) will skip"; \
		fi; \
	fi
	@if command -v bwrap >/dev/null && command -v strace >/dev/null; then \
		mkdir -p $(TOOLS) && touch $@; fi

$(BASH_COMPLETION_STAMP):
	@if [ ! -r /usr/share/bash-completion/bash_completion ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing bash-completion for the completion tests (apt-get)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends bash-completion; } >/dev/null 2>&1 \
				|| echo "apt-get could not install bash-completion: git's completion test will skip"; \
		else \
			echo "bash-completion missing and not root: git's completion test will skip"; \
		fi; \
	fi
	@if [ -r /usr/share/bash-completion/bash_completion ]; then mkdir -p $(TOOLS) && touch $@; fi

run: $(STAMP)
	$(BIN)/aish $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(TOOLS_STAMP) $(SANDBOX_STAMP) $(BASH_COMPLETION_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/ask_overhead.py
	$(BIN)/python bench/first_prompt.py
	$(BIN)/python bench/shell_overhead.py
	$(BIN)/python bench/classify.py
	$(BIN)/python bench/gate_facts.py
	$(BIN)/python bench/scrub.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/peers.py

# The soak in its long form (the short one runs with `make test`): AISH_SOAK_TURNS=2000 for more.
soak: $(STAMP) $(TOOLS_STAMP)
	AISH_SOAK_TURNS=$${AISH_SOAK_TURNS:-600} $(BIN)/python -m pytest tests/soak/test_soak.py -s $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache
