"""Process settings that must be in place before the engine's libraries load.

Debian 12's OpenBLAS 0.3.21 does not recognise recent Xeons (Sapphire/Emerald Rapids) and falls
back to its generic Prescott kernel, about 4.5x slower for SGEMM than its AVX-512 (SkylakeX) kernel.
OpenBLAS reads OPENBLAS_CORETYPE once, when it loads; so when the user has not chosen a kernel and
the CPU has AVX-512, name SkylakeX before lucid._C (which links OpenBLAS) is imported.
See docs/notes/openblas-kernel.md.
"""
import os


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


if "OPENBLAS_CORETYPE" not in os.environ:
    _flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= _flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
