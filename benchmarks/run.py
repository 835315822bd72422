"""lucid beside PyTorch: `python benchmarks/run.py [--quick] [--device cpu|cuda] [--json out.json]`.

One process imports both, checks each row's results agree (a mismatch skips the row, reported as
MISMATCH), times them interleaved, and prints lucid time, torch time, the ratio lucid/torch and
achieved GB/s or GFLOP/s against ceilings measured at the start (a STREAM-like triad and the best
float32 GEMM). Thread counts and denormal flushing are the same on both sides. The GPU mode
(`--device cuda`) runs every row on the GPU in float32 and again in bfloat16 (whole training steps in
float32 only); a row whose op has no CUDA kernel yet is listed as such, not timed."""
import argparse
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))

import lucid  # noqa: E402
import torch  # noqa: E402

from harness import measure, same  # noqa: E402
from rows import all_rows, set_dtype  # noqa: E402


def context(device, threads):
    ctx = {"lucid": lucid.__version__, "torch": torch.__version__, "python": platform.python_version(),
           "threads": threads, "device": device, "cpu_isa": lucid._C._cpu_isa(),
           "blas": lucid._C._blas_info()["corename"], "blas_config": lucid._C._blas_info()["config"],
           "lucid_flush_denormal": bool(lucid._C._flush_denormal()), "torch_flush_denormal": True}
    try:
        ctx["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    cwd=os.path.dirname(__file__)).stdout.strip()
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read().splitlines()
        ctx["cpu"] = next((l.split(":", 1)[1].strip() for l in info if l.startswith("model name")), "")
        flags = next((l.split(":", 1)[1].split() for l in info if l.startswith("flags")), [])
        ctx["cpu_flags"] = sorted(f for f in flags if f.startswith(("avx", "fma", "f16c", "amx", "sse4")))
    except OSError:
        pass
    if device == "cuda":
        ctx["gpu"] = torch.cuda.get_device_name(0)
        ctx["torch_cuda"] = torch.version.cuda
    return ctx


def _cuda_sync():
    """Waits for both libraries' queued GPU work (each has its own stream)."""
    lucid.cuda.synchronize()
    torch.cuda.synchronize()


def ceilings(device, quick, dtype="float32"):
    n = 1 << (22 if quick else 24)
    if device == "cuda":
        n <<= 4
    dev, ldt, tdt = device, getattr(lucid, dtype), getattr(torch, dtype)
    a, b, c = (lucid.rand(n, device=dev, dtype=ldt) for _ in range(3))
    ta, tb, tc = (torch.rand(n, device=dev, dtype=tdt) for _ in range(3))
    sync = _cuda_sync if device == "cuda" else None
    lt, tt = measure(lambda: lucid.add(b, c, alpha=3.0), lambda: torch.add(tb, tc, alpha=3.0), trials=3, sync=sync)
    triad = 3 * a.element_size() * n / min(lt, tt) / 1e9
    m = 2048 if not quick else 1024
    if device == "cuda":
        m = 8192
    x, y = lucid.randn(m, m, device=dev, dtype=ldt), lucid.randn(m, m, device=dev, dtype=ldt)
    tx, ty = torch.randn(m, m, device=dev, dtype=tdt), torch.randn(m, m, device=dev, dtype=tdt)
    lg, tg = measure(lambda: x @ y, lambda: tx @ ty, trials=3, sync=sync)
    gemm = 2 * m ** 3 / min(lg, tg) / 1e9
    return {"triad_GBps": triad, "gemm_GFLOPs": gemm}


def run_rows(args, threads, dtype, report, sync):
    """Checks and times every row at one thread count and element type; appends to the report."""
    half = dtype != "float32"
    scale = 0.5 if half else 1.0                # the rows' byte counts are for 4-byte elements
    for row in all_rows(args.device, args.quick, training=not half):
        label = f"{row.group}: {row.name}" + (f" [{dtype}]" if half else "")
        if args.rows and args.rows not in label:
            continue
        rtol, atol = (max(row.rtol, 2e-2), max(row.atol, 2e-2)) if half else (row.rtol, row.atol)
        try:
            ok = same(row.lucid_fn(), row.torch_fn(), rtol, atol) if row.check else row.lucid_fn() is not False
        except NotImplementedError as e:        # an op without a kernel on this device yet
            print(f"{label:<52}  not on {args.device} yet: {str(e).splitlines()[0][:60]}")
            report["rows"].append({"group": row.group, "name": row.name, "threads": threads, "dtype": dtype,
                                   "skipped": str(e).splitlines()[0]})
            continue
        except Exception as e:  # noqa: BLE001 - a row that cannot run is reported, not fatal
            print(f"{label:<52}  ERROR {type(e).__name__}: {e}")
            continue
        if not ok:
            print(f"{label:<52}  MISMATCH (row skipped)")
            continue
        lt, tt = measure(row.lucid_fn, row.torch_fn, trials=5, min_time=0.01 if args.quick else 0.05, sync=sync)
        ach = ""
        if row.flops:
            ach = f"{row.flops / lt / 1e9:8.1f} GFLOP/s"
        elif row.bytes_moved:
            ach = f"{row.bytes_moved * scale / lt / 1e9:8.1f} GB/s"
        print(f"{label:<52}{lt * 1e6:10.2f}us{tt * 1e6:10.2f}us{lt / tt:8.2f}{ach:>18}")
        report["rows"].append({"group": row.group, "name": row.name, "threads": threads, "dtype": dtype,
                               "lucid_s": lt, "torch_s": tt, "ratio": lt / tt, "flops": row.flops,
                               "bytes": row.bytes_moved * scale if row.bytes_moved else row.bytes_moved})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=0, help="0: one row set at 1 thread and one at all cores")
    ap.add_argument("--dtypes", default="", help="comma-separated; default float32 (cpu), float32,bfloat16 (cuda)")
    ap.add_argument("--json", default="")
    ap.add_argument("--rows", default="", help="only rows whose 'group: name' contains this text")
    args = ap.parse_args()
    torch.set_flush_denormal(True)
    lucid.set_flush_denormal(True)
    lucid_cores = os.cpu_count() or 1
    if args.device == "cuda":                   # host threads barely matter to a GPU row: one set
        thread_sets = [args.threads or min(lucid_cores, 8)]
    else:
        thread_sets = [args.threads] if args.threads else sorted({1, lucid_cores})
    dtypes = (args.dtypes or ("float32,bfloat16" if args.device == "cuda" else "float32")).split(",")
    report = {"rows": []}
    sync = _cuda_sync if args.device == "cuda" else None
    for threads in thread_sets:
        lucid.set_num_threads(threads)
        torch.set_num_threads(threads)
        report.setdefault("context", context(args.device, thread_sets))
        for dtype in dtypes:
            set_dtype(dtype)
            ceil = ceilings(args.device, args.quick, dtype)
            report.setdefault("ceilings", {})[f"{threads}" if dtype == "float32" else f"{threads} {dtype}"] = ceil
            print(f"\n== {args.device}, {dtype}, {threads} thread(s): triad {ceil['triad_GBps']:.1f} GB/s, "
                  f"gemm {ceil['gemm_GFLOPs']:.0f} GFLOP/s")
            print(f"{'row':<52}{'lucid':>12}{'torch':>12}{'ratio':>8}{'achieved':>18}")
            run_rows(args, threads, dtype, report, sync)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
