# zmodel: two commands on a fresh machine with only Python 3.11+.
#   make test      build .venv from the lock if needed, run the tests (nbval notebooks included; the
#                  tests marked slow are deselected, see pyproject.toml) -- what CI runs
#   make test-all  the same plus the slow tests
#   make report  build .venv if needed, calibrate the models, write the report
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: all test test-all report venv lock bench clean

all: test

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "zmodel needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

test-all: $(STAMP)
	$(BIN)/python -m pytest -m "slow or not slow"

report: $(STAMP)
	$(BIN)/python -m zmodel.report

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Re-resolve the pinned lock (needs the registry; not used by test or report).
lock: $(STAMP)
	$(BIN)/python -m uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
