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
ZSH_STAMP := $(TOOLS)/.installed-zsh
# bash-completion, so that Tab's test of git's own completion runs (it skips without it).
BASH_COMPLETION_STAMP := $(TOOLS)/.installed-bash-completion
# man and the pages of tar, ls, grep, find for `aish explain`'s tests (they skip without them;
# a slim image that excludes /usr/share/man from packages keeps skipping them, and says so).
MAN_STAMP := $(TOOLS)/.installed-man

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

# Debian packages some tests need: installed with apt-get when we are root; otherwise (or when
# apt fails) those tests skip and say why. A stamp is made only once the commands are there.
# $(1): a shell condition that holds once they are there, $(2): the Debian packages, $(3): who
# needs them.
define apt_tools
	@if ! { $(1); } >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing $(2) for $(3) (apt-get)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends $(2); } >/dev/null 2>&1 \
				|| echo "apt-get could not install $(2): $(3) will skip"; \
		else \
			echo "$(2) missing and not root: $(3) will skip"; \
		fi; \
	fi
	@if { $(1); } >/dev/null 2>&1; then \
		mkdir -p $(TOOLS) && touch $@; fi
endef

$(SANDBOX_STAMP):
	$(call apt_tools,command -v bwrap && command -v strace,bubblewrap strace,the safe oracle (tests/oracle))

# zsh is a supported shell: its tests run in both shells.
$(ZSH_STAMP):
	$(call apt_tools,command -v zsh,zsh,the zsh tests)

$(BASH_COMPLETION_STAMP):
	$(call apt_tools,test -r /usr/share/bash-completion/bash_completion,bash-completion,git's completion test)

$(MAN_STAMP):
	$(call apt_tools,command -v man && man -w tar && man -w grep,man-db manpages,the explain tests)

run: $(STAMP)
	$(BIN)/aish $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(TOOLS_STAMP) $(SANDBOX_STAMP) $(ZSH_STAMP) $(BASH_COMPLETION_STAMP) $(MAN_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/ask_overhead.py
	$(BIN)/python bench/first_prompt.py
	$(BIN)/python bench/shell_overhead.py
	$(BIN)/python bench/classify.py
	$(BIN)/python bench/gate_facts.py
	$(BIN)/python bench/scrub.py
	$(BIN)/python bench/input_wait.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/peers.py
	$(BIN)/python bench/snapshot.py
	$(BIN)/python bench/routing_corpus.py

# The soak in its long form (the short one runs with `make test`): AISH_SOAK_TURNS=2000 for more.
soak: $(STAMP) $(TOOLS_STAMP)
	AISH_SOAK_TURNS=$${AISH_SOAK_TURNS:-600} $(BIN)/python -m pytest tests/soak/test_soak.py -s $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
