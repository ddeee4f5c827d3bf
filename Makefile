# Two entry points a new user needs: `make run` (the main job) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test bench lint zoo clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m harness $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy harness devices baselines adms tests

bench: $(STAMP)
	$(BIN)/python -m pytest -m benchmark --benchmark-enable -p no:randomly

zoo: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,zoo]'
	$(BIN)/python -m harness.zoo build

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
