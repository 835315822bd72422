# lucid: `make demo` runs the main example, `make test` runs every test. Each does its own set-up.
PY := .venv/bin/python
export PATH := $(CURDIR)/.venv/bin:$(PATH)
JOBS ?= 2
export CCACHE_DIR ?= $(CURDIR)/build/ccache
export CMAKE_BUILD_PARALLEL_LEVEL := $(JOBS)

.PHONY: all setup build test test-cpp test-python demo demo-setup bench bench-quick bench-gpu clean

all: build

setup:
	@bash scripts/setup.sh

# Editable install of the package (incremental: scikit-build-core reuses build/<tag>, ccache the objects).
build: setup
	@$(PY) -m pip install -q --no-build-isolation --no-deps -e . 2>&1 | grep -v "^$$" || true
	@$(PY) -c "import lucid" || (echo "build failed"; exit 1)

# The engine's GoogleTest suite, built without Python and run through CTest.
test-cpp: setup
	@cmake -S . -B build/gtest -G Ninja -DCMAKE_BUILD_TYPE=Release -DLUCID_BUILD_TESTS=ON -DLUCID_BUILD_PYTHON=OFF >/dev/null
	@cmake --build build/gtest -j $(JOBS)
	@ctest --test-dir build/gtest --output-on-failure -j $(JOBS)

test-python: build
	@$(PY) -m pytest -q tests/python

test: test-cpp test-python

# The demo's data (Debian's dataset-fashion-mnist) and its optional extras (progress bar, plot).
demo-setup: setup
	@bash scripts/setup_demo.sh

demo: build demo-setup
	@$(PY) examples/demo.py

# lucid beside PyTorch in one process (benchmarks/run.py); JSON with the context in build/.
bench: build
	@$(PY) benchmarks/run.py --json build/bench.json

bench-quick: build
	@$(PY) benchmarks/run.py --quick --json build/bench-quick.json

# GPU mode: every row on CUDA, float32 and bfloat16 (on the GPU machine: scripts/device_bench.sh).
bench-gpu: build
	@$(PY) benchmarks/run.py --device cuda --json build/bench-gpu.json

clean:
	rm -rf build .venv
