# `make serve`, `make play` and `make test` set up .venv on first use, then run.
# Each installs only what it needs: playing the terminal game (typer, rich, click, numpy) needs neither
# the server's packages nor the test extra (pytest, mypy, open_spiel, babel, ...). `make serve` and
# `make play` also compile the rules engines where they can (`engines` below); `make test` does not.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
SERVER_STAMP := $(VENV)/.installed-server
TEST_STAMP := $(VENV)/.installed-test
FAST_STAMP := $(VENV)/.installed-fast
# What `make fast` writes: the engines' extension modules, mypyc's shared library, the manifest, C and objects.
ENGINES_MANIFEST := updown/games/_mypyc_manifest.json
ENGINE_SOURCES := $(addprefix updown/games/,euchre.py up_or_down.py updown.py updown_sueca.py)
COMPILED := updown/games/*.so updown/_engines__mypyc*.so $(ENGINES_MANIFEST) build
# `make serve PORT=8080 HOST=0.0.0.0`: passed to `updown serve` as --port and --host when given on
# make's command line (in the environment, `updown serve` reads UPDOWN_PORT and UPDOWN_HOST itself).
SERVE_FLAGS := $(if $(filter command line,$(origin PORT)), --port $(PORT))$(if $(filter command line,$(origin HOST)), --host $(HOST))

.PHONY: serve play engines test bench fast pure i18n clean

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

serve: $(SERVER_STAMP) engines
	$(BIN)/updown serve$(SERVE_FLAGS)

play: $(PLAY_STAMP) engines
	$(BIN)/updown play updown

# `make test`: pytest on TEST_JOBS (2) processes (pytest-xdist; TEST_JOBS=0 runs in this one), then mypy.
# `--dist loadfile`: a file's tests run on one process, in order, so a module-scoped fixture (one
# server, one browser) is set up once and its tests see it as in a serial run. (`loadgroup` with
# an `xdist_group` mark a module did this until pytest 9, whose node ids xdist 3.8 can no longer
# suffix with the group: it grouped nothing, and each process set up every such fixture again.)
# `.ci/services run` first starts PostgreSQL and Redis (free ports, a state directory of their own)
# and finds Chromium, installing them where it can (root, apt, network), and stops them after, also
# on a failure or Ctrl-C; UPDOWN_TEST_* already set are used as they are. Where a service cannot be
# had, its tests skip and pytest's last line names them and the one command that enables them.
# Bytecode goes to .venv/pycache, also where PYTHONDONTWRITEBYTECODE is set: every server the tests
# start is a new Python process, and compiling the sources each time costs about 0.2 s of CPU.
# Two workers for two cores: four were tried on them (30 November, load 6 to 9) and took 1,648 s
# against two's 1,565.
TEST_JOBS ?= 2

test: $(TEST_STAMP)
	PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache PYTHONDONTWRITEBYTECODE= \
		.ci/services run $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile
	$(BIN)/mypy

bench: $(PLAY_STAMP)
	$(BIN)/updown bench

# The four rules engines compiled with mypyc, in place (tools/mypyc_build.py; about 1.5 times as fast).
# `engines` (before `make serve` and `make play`): compiles them the first time and after an engine's
# source changed, where `python -m updown.core.compiled check` finds a C compiler and the Python
# headers (mypy and setuptools come with the fast extra); else that check prints one line saying the
# pure engines run, and why. UPDOWN_PURE=1 asks for the pure engines (it removes compiled ones).
# `make fast` compiles whatever the check says (and fails where it cannot); `make pure` removes
# them. `make test` compiles nothing and tests the engines there are. An engine edited since it was
# compiled refuses to load (ImportError naming it and the fix).
$(FAST_STAMP): pyproject.toml | $(PLAY_STAMP)
	@$(BIN)/python -c "import mypyc.build" 2>/dev/null || $(BIN)/pip install --progress-bar on -e ".[fast]"
	touch $(FAST_STAMP)

$(ENGINES_MANIFEST): $(ENGINE_SOURCES) tools/mypyc_build.py | $(FAST_STAMP)
	@if $(BIN)/python -m updown.core.compiled check; then \
		echo "Compiling the rules engines with mypyc (about a minute; UPDOWN_PURE=1 skips this)..."; \
		$(BIN)/python tools/mypyc_build.py; \
	else rm -rf $(COMPILED); fi

ifeq ($(filter-out 0,$(UPDOWN_PURE)),)
engines: $(ENGINES_MANIFEST)
else
engines: $(PLAY_STAMP)
	@rm -rf $(COMPILED)
	@$(BIN)/python -m updown.core.compiled check || true
endif

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
