# Every target creates .venv itself when missing: `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: test check lint demo bench docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,map]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check git_teddy testing tests benchmarks scripts
	$(BIN)/ruff format --check git_teddy testing tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/vulture

# The tiers (testing/tiers.py): `check` runs the tests that need no repository and no installed
# executable (git is replaced by a failing stand-in there, so a test that needs it says so);
# `test` runs every test, spread over the machine's cores, and names the 20 slowest.
check: lint
	TEDDY_TEST_TIER=check $(BIN)/pytest -q -n auto -m "not git and not slow and not process"

test: lint
	$(BIN)/pytest -q -n auto --dist loadfile --durations=20

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

# Every benchmark, then a summary of each goal with ok/MISS (scripts/bench.sh).
bench: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/bench.sh

# Regenerate the command reference in README.md and docs/, and the man page, from the CLI's help.
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
