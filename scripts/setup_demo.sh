#!/usr/bin/env bash
# What `make demo` needs beyond scripts/setup.sh: the Fashion-MNIST IDX files (Debian's
# dataset-fashion-mnist, in /usr/share/datasets/fashion-mnist) and, in the venv, tqdm for the progress
# bar and matplotlib for the training-curve PNG (the demo runs without them). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! dpkg -s dataset-fashion-mnist >/dev/null 2>&1; then
  echo "setup: installing dataset-fashion-mnist"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq dataset-fashion-mnist >/dev/null
fi
stamp=.venv/.lucid-demo-v1
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q tqdm matplotlib || echo "setup: tqdm/matplotlib not installable; the demo runs without them"
  touch "$stamp"
fi
