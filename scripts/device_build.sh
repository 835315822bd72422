#!/usr/bin/env bash
# Sourced by the GPU-machine scripts: unpacks the Debian OpenBLAS packages carried in .devdeps/
# (fetch them here with `scripts/fetch_devdeps.sh`; that machine has no package registry) and
# builds and installs lucid with the CUDA backend (SKIP_BUILD=1 keeps the installed one, on a still-warm
# machine). Needs R (the repository root) and OUT.
B=/tmp/blas; mkdir -p $B; for f in "$R"/.devdeps/*.deb; do dpkg -x "$f" $B; done
export LD_LIBRARY_PATH=$B/usr/lib/x86_64-linux-gnu:$B/usr/lib/x86_64-linux-gnu/openblas-openmp:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -n "${SKIP_BUILD:-}" ]; then return 0; fi   # SKIP_BUILD=1: keep the lucid installed by the last build
start=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps -v --config-settings=cmake.define.LUCID_BLAS_ROOT=$B/usr \
  --config-settings=cmake.define.LUCID_CUDA=ON "$R" > "$OUT/build.log" 2>&1
echo "build rc=$? in $(( $(date +%s) - start ))s"; grep -E "lucid:" "$OUT/build.log"
