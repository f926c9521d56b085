# `make play` and `make test` set up .venv on first use, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/updown play updown

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/updown bench

clean:
	rm -rf $(VENV)
