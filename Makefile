# The README's two commands: `make run` (the table against simulated devices) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# every extra: `make run` plays the simulated table (sim), `make test` tests everything
EXTRAS := linked,math,sim,plot,test,bench

.PHONY: run test bench clean

$(BIN)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(EXTRAS)]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/tabled run --config config/sim.toml

test: $(BIN)/.installed
	bash .ci/ensure-postgres.sh
	bash .ci/ensure-chromium.sh
	bash .ci/ensure-systemd.sh
	$(BIN)/python -m pytest -q

bench: $(BIN)/.installed
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
