#!/usr/bin/env bash
# Builds lucid with CUDA on the GPU machine and runs the Python suite and the demo.
# Output goes to $OUT when set; PYTEST_ARGS narrows the suite (e.g. "-k cuda -x").
set -uo pipefail
OUT=${OUT:-/tmp/lucid-out}; mkdir -p "$OUT"
R=$(cd "$(dirname "$0")/.." && pwd)
source "$R/scripts/device_build.sh"
cd /tmp
python3 -c "import lucid; print('cuda available:', lucid.cuda.is_available(), lucid._C._blas_info()['corename'])"
python3 -m pytest -q -p no:cacheprovider "$R/tests/python" ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.log" | tail -25
python3 "$R/examples/demo.py" 2>&1 | tail -12
