# Every target creates .venv itself when missing: `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: test lint demo bench docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check git_teddy testing tests benchmarks scripts
	$(BIN)/ruff format --check git_teddy testing tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/vulture

test: lint
	$(BIN)/pytest -q

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

bench: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_snapshot.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_execute.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_context.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_hooks.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_index.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_session_log.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_scale.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bench_repomap.py
	$(BIN)/python benchmarks/bench_plan.py
	$(BIN)/python benchmarks/bench_redact.py

# Regenerate the command reference in README.md and docs/, and the man page, from the CLI's help.
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
