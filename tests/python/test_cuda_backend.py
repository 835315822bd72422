"""Runs cuda_vs_cpu_check.py (every CUDA kernel against the CPU, ~900 checks) on a GPU machine."""
import os
import subprocess
import sys

import pytest

import lucid

pytestmark = pytest.mark.skipif(not lucid.cuda.is_available(), reason="no CUDA device")


def test_cuda_kernels_match_cpu():
    script = os.path.join(os.path.dirname(__file__), "cuda_vs_cpu_check.py")
    r = subprocess.run([sys.executable, script, "cuda"], capture_output=True, text=True, timeout=600)
    print(r.stdout[-4000:])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "checks passed" in r.stdout
