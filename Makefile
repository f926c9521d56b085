# `make serve`, `make play` and `make test` set up .venv on first use, then run.
# Each installs only what it needs: playing the terminal game needs no server or test tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --progress-bar on --disable-pip-version-check

.PHONY: serve play test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.play: pyproject.toml | $(BIN)/python
	@echo "Installing updown (first run only)..."
	$(PIP) -e .
	touch $@

$(VENV)/.server: pyproject.toml | $(BIN)/python
	@echo "Installing updown with the server (first run only)..."
	$(PIP) -e ".[server]"
	touch $@ $(VENV)/.play

$(VENV)/.test: pyproject.toml | $(BIN)/python
	@echo "Installing updown with the test tools (first run only)..."
	$(PIP) -e ".[test]"
	touch $@ $(VENV)/.server $(VENV)/.play

serve: $(VENV)/.server
	$(BIN)/updown serve

play: $(VENV)/.play
	$(BIN)/updown play updown

test: $(VENV)/.test
	$(BIN)/python -m pytest
	$(BIN)/mypy

bench: $(VENV)/.test
	$(BIN)/updown bench

clean:
	rm -rf $(VENV)
