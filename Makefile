# `make serve`, `make play` and `make test` set up .venv on first use, then run.
# Each installs only what it needs: playing the terminal game (typer, rich, click, numpy) needs neither
# the server's packages nor the test extra (pytest, mypy, open_spiel, babel, ...).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
SERVER_STAMP := $(VENV)/.installed-server
TEST_STAMP := $(VENV)/.installed-test
FAST_STAMP := $(VENV)/.installed-fast
# What `make fast` writes: the engines' extension modules, mypyc's shared library, the manifest, C and objects.
COMPILED := updown/games/*.so updown/_engines__mypyc*.so updown/games/_mypyc_manifest.json build

.PHONY: serve play test bench fast pure i18n clean

$(BIN)/python:
	@echo "Setting up $(VENV) (first run only)..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --progress-bar on --upgrade pip

$(PLAY_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing updown and what playing needs (typer, rich, click, numpy)..."
	$(BIN)/pip install --progress-bar on -e .
	touch $(PLAY_STAMP)

$(SERVER_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing updown with the server (FastAPI, uvicorn, SQLAlchemy, ...)..."
	$(BIN)/pip install --progress-bar on -e ".[server]"
	touch $(PLAY_STAMP) $(SERVER_STAMP)

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing updown with the test extra (pytest, mypy, open_spiel, playwright, ...)..."
	$(BIN)/pip install --progress-bar on -e ".[test]"
	touch $(PLAY_STAMP) $(SERVER_STAMP) $(TEST_STAMP)

serve: $(SERVER_STAMP)
	$(BIN)/updown serve

play: $(PLAY_STAMP)
	$(BIN)/updown play updown

# `make test`: pytest on TEST_JOBS (2) processes (pytest-xdist; TEST_JOBS=0 runs in this one), then mypy.
# `.ci/services run` first starts PostgreSQL and Redis (free ports, a state directory of their own)
# and finds Chromium, installing them where it can (root, apt, network), and stops them after, also
# on a failure or Ctrl-C; UPDOWN_TEST_* already set are used as they are. Where a service cannot be
# had, its tests skip and pytest's last line names them and the one command that enables them.
# Bytecode goes to .venv/pycache, also where PYTHONDONTWRITEBYTECODE is set: every server the tests
# start is a new Python process, and compiling the sources each time costs about 0.2 s of CPU.
TEST_JOBS ?= 2

test: $(TEST_STAMP)
	PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache PYTHONDONTWRITEBYTECODE= \
		.ci/services run $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadgroup
	$(BIN)/mypy

bench: $(PLAY_STAMP)
	$(BIN)/updown bench

# Optional: compile the four rules engines with mypyc, in place (a C compiler and the Python headers
# needed; mypy comes with the test extra, or alone with the fast extra). Nothing else compiles them;
# `make pure` goes back to the pure-Python engines. An engine edited since refuses to load.
$(FAST_STAMP): pyproject.toml | $(PLAY_STAMP)
	@$(BIN)/python -c "import mypyc, setuptools" 2>/dev/null || $(BIN)/pip install --progress-bar on -e ".[fast]"
	touch $(FAST_STAMP)

fast: $(FAST_STAMP)
	$(BIN)/python tools/mypyc_build.py

pure:
	rm -rf $(COMPILED)

# Re-extract the messages, merge them into the German and Portuguese catalogues, compile the .mo files.
i18n: $(TEST_STAMP)
	$(BIN)/pybabel extract -k _ -k n:1,2 --no-default-keywords --no-location --sort-output \
		--project updown --copyright-holder "the updown authors" -o updown/i18n/updown.pot updown
	$(BIN)/pybabel update -i updown/i18n/updown.pot -d updown/i18n/locales -D updown \
		--no-fuzzy-matching --ignore-obsolete --width 100
	$(BIN)/pybabel compile -d updown/i18n/locales -D updown --statistics

clean:
	rm -rf $(VENV)
