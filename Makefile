# Two entry points a new user needs: `make run` (the main job) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test test-cross test-sanitize mutants fuzz bench lint zoo native runner clean

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

# the runner built with ASan + UBSan and with TSan (Debug; a full compile each, ~10 min
# together on 2 cores), each running real slices, every policy, the simulated differential
# cases and the fuzz corpus (CI runs it after `make test`)
test-sanitize: $(STAMP)
	$(BIN)/python -m pytest -m slow -p no:randomly -rs tests/runner/test_runner_builds.py -k sanitizer

# one-line mutants of the runner's runtime core, decisions and trace reader, each built and
# run against the default runner tests; fails if one survives (runner/README.md has the score)
mutants: $(STAMP)
	$(BIN)/python -m tests.runner.mutants

# fuzz both trace readers: the C++ one with libFuzzer (needs clang: apt-get install clang
# libclang-rt-14-dev; skipped, saying so, without it) for FUZZ_SECONDS, the Python one with
# hypothesis (FUZZ_EXAMPLES per test); crashes found go to runner/fuzz/regressions by hand
FUZZ_SECONDS ?= 120
fuzz: $(STAMP)
	@if command -v clang++ >/dev/null; then \
	  CXX=clang++ cmake -S runner -B runner/build/fuzz -DPYTHON=$(abspath $(BIN))/python \
	    -DRUNNER_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && \
	  cmake --build runner/build/fuzz -j --target replay_fuzz && \
	  rm -rf runner/build/fuzz/corpus && cp -r runner/fuzz/corpus runner/build/fuzz/corpus && \
	  runner/build/fuzz/replay_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=20000 \
	    -timeout=10 -artifact_prefix=runner/build/fuzz/ runner/build/fuzz/corpus; \
	else echo "fuzz: clang++ not installed (apt-get install clang libclang-rt-14-dev): C++ reader skipped"; fi
	FUZZ_EXAMPLES=2000 $(BIN)/python -m pytest -p no:randomly -q -k never_crashes \
	  tests/harness/replay/test_trace_reader.py

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
