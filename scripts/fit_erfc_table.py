"""The 32 polynomials behind the AVX-512 float32 erfc (engine/backend/cpu/vmath_erfc_table.h).

Interval i holds the floats a in [0, 4.5) with int(a * (a + 2.5f)) == i (the kernel's index, in float
arithmetic). On each, erfc(c + u) = c0 + c1 u + ... + c6 u^6 is fitted for the least maximum relative
error (Lawson's iteration on a Chebyshev grid) with float coefficients, rounded one at a time and the
rest refitted; c1 is kept in two floats. The center c is a float near the middle of the interval
where erfc(c) rounds to a float within 2^-33, so that c0 = float(erfc(c)) is almost exact; of a few
such centers the one with the smallest error is kept. Prints the C++ tables; the fit errors go to
stderr (max 2^-28.3).

    .venv/bin/python scripts/fit_erfc_table.py > tables.h
"""
import math
import struct
import sys

import numpy as np

f32 = np.float32
DEG, NCENTERS, LIMIT = 6, 8, 4.5


def bits(x):
    return struct.unpack("<i", struct.pack("<f", x))[0]


def from_bits(i):
    return struct.unpack("<f", struct.pack("<i", i))[0]


def index(a):  # int(a * (a + 2.5f)) in float arithmetic
    return int(f32(f32(a) * f32(f32(a) + f32(2.5))))


def first_with(k):  # the smallest float a >= 0 with index(a) >= k (index is monotone)
    lo, hi = 0, bits(LIMIT)
    if index(from_bits(lo)) >= k:
        return 0.0
    while hi - lo > 1:
        m = (lo + hi) // 2
        lo, hi = (lo, m) if index(from_bits(m)) >= k else (m, hi)
    return from_bits(hi)


erfc = np.vectorize(math.erfc)


def fit(lo, hi, c, c0, npts=2000, iters=60):
    """Coefficients (c0 given; c1 as the sum of two floats) and the max relative error on [lo, hi)."""
    u = (lo - c) + (hi - lo) * (1 - np.cos(np.pi * (np.arange(npts) + 0.5) / npts)) / 2
    fv = erfc(c + u)
    coefs, c1_lo = [c0], 0.0
    while len(coefs) <= DEG:
        k0 = len(coefs)
        resid = fv - sum(ck * u**k for k, ck in enumerate(coefs))
        basis = np.stack([u**k for k in range(k0, DEG + 1)], 1)
        w = np.ones(npts) / npts
        for _ in range(iters):
            sw = np.sqrt(w) / fv
            cs, *_ = np.linalg.lstsq(basis * sw[:, None], resid * sw, rcond=None)
            e = np.abs(resid - basis @ cs) / fv
            w = w * e
            w /= w.sum()
        if k0 == 1:
            c1_lo = float(f32(cs[0] - float(f32(cs[0]))))
            coefs.append(float(f32(cs[0])) + c1_lo)
        else:
            coefs.append(float(f32(cs[0])))
    err = np.abs(fv - sum(ck * u**k for k, ck in enumerate(coefs))) / fv
    c1_hi = float(f32(coefs[1]))
    return [coefs[0], c1_hi, c1_lo] + coefs[2:], float(err.max())


def centers(lo, hi):  # floats near the middle where erfc rounds to a float within 2^-33
    m, k, out = bits(float(f32((lo + hi) / 2))), 0, []
    while len(out) < NCENTERS:
        c = from_bits(m + (k // 2 if k % 2 == 0 else -(k // 2 + 1)))
        k += 1
        e = math.erfc(c)
        if abs(float(f32(e)) - e) / e < 2.0**-33:
            out.append(c)
    return out


def main():
    n = index(float(np.nextafter(f32(LIMIT), f32(0)))) + 1
    bounds = [first_with(k) for k in range(n)] + [LIMIT]
    rows, worst = [], 0.0
    for i in range(n):
        lo, hi = bounds[i], bounds[i + 1]
        best = min(((c, *fit(lo, hi, c, float(f32(math.erfc(c))))) for c in centers(lo, hi)),
                   key=lambda r: r[2])
        assert i == 0 or lo >= best[0] / 2  # u = a - c exact (Sterbenz)
        rows.append(best)
        worst = max(worst, best[2])
        print(f"{i:2d} [{lo:.5f}, {hi:.5f}) c {best[0]:.6f} error 2^{math.log2(best[2]):.1f}", file=sys.stderr)
    print(f"max error 2^{math.log2(worst):.2f}", file=sys.stderr)

    def fmt(v):
        for d in range(6, 12):
            t = f"{v:.{d}g}"
            if f32(float(t)) == f32(v):
                break
        return (t if "e" in t or "." in t else t + ".0") + "f"

    def lines(vals, indent):
        out, line = [], indent
        for k, v in enumerate(vals):
            piece = fmt(v) + (", " if k < len(vals) - 1 else "")
            if len(line) + len(piece.rstrip()) > 110:
                out.append(line.rstrip())
                line = indent
            line += piece
        return "\n".join(out + [line.rstrip()])

    print("alignas(64) constexpr float kErfcTabC[32] = {\n" + lines([r[0] for r in rows], "    ") + "};")
    print("alignas(64) constexpr float kErfcTabP[8][32] = {")
    names = ["c0", "c1 (high part)", "c1 (low part)", "c2", "c3", "c4", "c5", "c6"]
    for k, name in enumerate(names):
        print("    {  // " + name + "\n" + lines([r[1][k] for r in rows], "     ") + "},")
    print("};")


if __name__ == "__main__":
    main()
