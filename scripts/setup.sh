#!/usr/bin/env bash
# Installs what lucid needs on a fresh Debian/Ubuntu machine: system packages (OpenBLAS, GoogleTest,
# ccache) and a virtual environment with the build and test tools. Safe to re-run: it skips what is
# already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in libopenblas-openmp-dev libgtest-dev ccache pkg-config; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.lucid-deps-v1
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" cmake ninja numpy pytest hypothesis
  # PyTorch is an optional reference for the tests (never a dependency of lucid).
  .venv/bin/python -m pip install -q torch==2.13.0 || echo "setup: torch 2.13.0 not installable here; torch-based checks will skip"
  touch "$stamp"
fi
