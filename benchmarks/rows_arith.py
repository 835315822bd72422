"""Arithmetic elementwise rows (engine/backend/cpu/arith_simd.h): clamp, pow's special scalar
exponents, remainder / fmod / floor_divide, hypot, the float32 <-> float16 / bfloat16 casts, and the
binary math of engine/backend/cpu/vmath_binary.h (pow, x ** 2.5, atan2, logaddexp, logaddexp2), on
1M (quick) and 10M elements."""
import lucid
import torch

from harness import Row
from rows import _pair


def arith_rows(device, quick):
    rows = []
    for n in ((1 << 20,) if quick else (1 << 20, 10_000_000)):
        a, ta = _pair((n,), device)
        b, tb = _pair((n,), device, seed=1)
        p, tp = a.abs(), ta.abs()
        h, th = a.half(), ta.half()
        r = [("clamp", lambda: lucid.clamp(a, -0.5, 0.5), lambda: torch.clamp(ta, -0.5, 0.5), 2),
             ("x ** 2", lambda: a ** 2, lambda: ta ** 2, 2),
             ("x ** 0.5", lambda: p ** 0.5, lambda: tp ** 0.5, 2),
             ("remainder", lambda: lucid.remainder(a, b), lambda: torch.remainder(ta, tb), 3),
             ("fmod", lambda: lucid.fmod(a, b), lambda: torch.fmod(ta, tb), 3),
             ("floor_divide", lambda: lucid.floor_divide(a, b), lambda: torch.floor_divide(ta, tb), 3),
             ("hypot", lambda: lucid.hypot(a, b), lambda: torch.hypot(ta, tb), 3),
             ("pow", lambda: lucid.pow(p, b), lambda: torch.pow(tp, tb), 3),
             ("pow x ** 2.5", lambda: p ** 2.5, lambda: tp ** 2.5, 2),
             ("atan2", lambda: lucid.atan2(a, b), lambda: torch.atan2(ta, tb), 3),
             ("logaddexp", lambda: lucid.logaddexp(a, b), lambda: torch.logaddexp(ta, tb), 3),
             ("logaddexp2", lambda: lucid.logaddexp2(a, b), lambda: torch.logaddexp2(ta, tb), 3),
             ("to float16", lambda: a.half(), lambda: ta.half(), 1.5),
             ("to bfloat16", lambda: a.bfloat16(), lambda: ta.bfloat16(), 1.5),
             ("float16 to float32", lambda: h.float(), lambda: th.float(), 1.5)]
        for name, lf, tf, words in r:
            rows.append(Row("elementwise", f"{name} {n}", lf, tf, bytes_moved=int(4 * words * n)))
    return rows
