# The README's two commands: `make run` (the table against simulated devices) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/tabled settle tabled/examples/round.json

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_ranking.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
