# zmodel: two commands on a fresh machine with only Python 3.11+.
#   make test      build .venv from the lock if needed, run the tests (nbval notebooks included; the
#                  tests marked slow are deselected, see pyproject.toml) on WORKERS processes
#                  (pytest-xdist, one test file per worker at a time) -- what CI runs
#   make test-all  the same plus the slow tests
#   make report  build .venv if needed, calibrate the models, write the report
#   make browser install headless Chromium for the report's browser test (root + apt-get)
#   make mutation seeded mutation campaign over the model layers -> BENCHMARKS.md (~1 h)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# test processes (pytest-xdist): the machines have 2 cores; WORKERS=0 runs in this process
WORKERS ?= 2
XDIST  := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

.PHONY: all test test-all report venv lock bench notebooks browser mutation clean

all: test

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "zmodel needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(XDIST)

test-all: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "slow or not slow"

report: $(STAMP)
	$(BIN)/python -m zmodel.report

# Re-execute every notebook in place from a clean checkout: regenerates all committed outputs
# (those of the cells nbval checks included). No timing metadata, so a re-run diffs only where
# a number changed.
notebooks: $(STAMP)
	cd notebooks && for nb in *.ipynb; do \
	  ../$(BIN)/python -m jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=1200 --ExecutePreprocessor.record_timing=False "$$nb" || exit 1; \
	done

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# The report's browser test needs Debian's chromium; the tests never install packages.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { DEBIAN_FRONTEND=noninteractive apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

# Sampled mutation campaign (tools/mutation.py): one mutant at a time, single-threaded Numba.
mutation: $(STAMP)
	NUMBA_NUM_THREADS=1 $(BIN)/python tools/mutation.py run --label after
	$(BIN)/python tools/mutation.py report

# Re-resolve the pinned lock (needs the registry; not used by test or report).
lock: $(STAMP)
	$(BIN)/python -m uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
