#!/usr/bin/env bash
# The benchmark's GPU mode on the GPU machine: builds lucid with CUDA, then runs every row on CUDA
# in float32 and bfloat16 beside the installed PyTorch (`make bench-gpu` there, after a build).
# SKIP_BUILD=1 reuses the lucid installed by the last build on a still-warm machine.
# BENCH_ARGS adds arguments (e.g. "--quick"); the table goes to $OUT/bench-gpu.txt, JSON beside it.
set -uo pipefail
OUT=${OUT:-/tmp/lucid-out}; mkdir -p "$OUT"
R=$(cd "$(dirname "$0")/.." && pwd)
source "$R/scripts/device_build.sh"
cd /tmp
python3 "$R/benchmarks/run.py" --device cuda ${BENCH_ARGS:-} --json "$OUT/bench-gpu.json" 2>&1 | tee "$OUT/bench-gpu.txt"
