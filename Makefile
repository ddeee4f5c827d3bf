# Two entry points a new user needs: `make run` (the main job) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test test-cross bench lint zoo native runner clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

# the compiled simulation core (harness/native): rebuilt when its sources change, in ~1 min;
# HARNESS_NATIVE=0 skips it and runs every module interpreted
native: $(STAMP)
ifneq ($(HARNESS_NATIVE),0)
	$(BIN)/python -m harness.native build
endif

# the native runner (runner/, C++17 on LiteRT's C API; needs cmake and g++), built in
# runner/build against the libLiteRt.so of the venv's ai-edge-litert wheel
runner: $(STAMP)
	cmake -S runner -B runner/build -DPYTHON=$(abspath $(BIN))/python
	cmake --build runner/build -j

run: native
	$(BIN)/python -m harness $(ARGS)

# the suite on every core (pytest-xdist: each test file whole on one worker, so a file's
# module fixtures are made once); `.venv/bin/python -m pytest <path>` runs one part serially
test: native
	$(BIN)/python -m pytest -n auto --dist loadfile

# the runner's aarch64 build run under qemu-user on a tiny model (needs g++-aarch64-linux-gnu,
# qemu-user and root; skipped with the reason where they are missing)
test-cross: $(STAMP)
	$(BIN)/python -m pytest -m cross -p no:randomly -rs tests/runner/test_runner_builds.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy harness devices baselines adms tests

bench: native
	$(BIN)/python -m pytest -m benchmark --benchmark-enable -p no:randomly

zoo: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,zoo]'
	$(BIN)/python -m harness.zoo build --keras

clean:
	rm -rf $(VENV) .native build *.egg-info .pytest_cache .mypy_cache .ruff_cache
