#!/usr/bin/env bash
# Downloads the Debian OpenBLAS packages that scripts/device_check.sh unpacks on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devdeps && cd .devdeps
apt-get download libopenblas-openmp-dev libopenblas0-openmp libopenblas-dev libopenblas0 libgfortran5 libquadmath0
