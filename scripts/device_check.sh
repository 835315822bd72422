#!/usr/bin/env bash
# Builds lucid with CUDA on the GPU machine (no package registry there) and runs the Python suite
# and the demo. OpenBLAS comes as Debian packages carried in .devdeps/ (fetch them here with
# `scripts/fetch_devdeps.sh`). Output goes to $OUT when set.
set -uo pipefail
OUT=${OUT:-/tmp/lucid-out}; mkdir -p "$OUT"
R=$(cd "$(dirname "$0")/.." && pwd)
B=/tmp/blas; mkdir -p $B; for f in "$R"/.devdeps/*.deb; do dpkg -x "$f" $B; done
export LD_LIBRARY_PATH=$B/usr/lib/x86_64-linux-gnu:$B/usr/lib/x86_64-linux-gnu/openblas-openmp:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps -v --config-settings=cmake.define.LUCID_BLAS_ROOT=$B/usr \
  --config-settings=cmake.define.LUCID_CUDA=ON "$R" > "$OUT/build.log" 2>&1
echo "build rc=$? in $(( $(date +%s) - start ))s"; grep -E "lucid:" "$OUT/build.log"
cd /tmp
python3 -c "import lucid; print('cuda available:', lucid.cuda.is_available(), lucid._C._blas_info()['corename'])"
python3 -m pytest -q -p no:cacheprovider "$R/tests/python" ${PYTEST_ARGS:-} 2>&1 | tee "$OUT/pytest.log" | tail -25
python3 "$R/examples/demo.py" 2>&1 | tail -12
