"""The per-interval polynomials behind the AVX-512 float32 table kernels:

  erfc (engine/backend/cpu/vmath_erfc_table.h): interval i holds the floats a in [0, 4.5) with
  int(a * (a + 2.5f)) == i. On each, erfc(c + u) = c0 + c1 u + ... + c6 u^6 is fitted for the least
  maximum relative error, c1 kept in two floats. The center c is a float near the middle of the
  interval where erfc(c) rounds to a float within 2^-33, so that c0 = float(erfc(c)) is almost
  exact; of a few such centers the one with the smallest error is kept (max 2^-28.3).

  tanh (engine/backend/cpu/vmath_tanh_table.h): interval i = int(fma(a, 3.93f, -0.98f * 3.93f)) of
  [0.98, 9.1]; on each, g(c + u) = 1 - tanh(c + u) = 2 / (e^{2 (c + u)} + 1) = c0 + ... + c5 u^5 for
  the least maximum absolute error (tanh = 1 - g is at least 0.75 there: its ulp is 2^-24 throughout;
  max 2^-28.4), c the float nearest the middle.

Lawson's iteration on a Chebyshev grid, float coefficients rounded one at a time and the rest
refitted. Prints the C++ tables; the fit errors go to stderr.

    .venv/bin/python scripts/fit_tables.py erfc > erfc_tables.h
    .venv/bin/python scripts/fit_tables.py tanh > tanh_tables.h
"""
import math
import struct
import sys

import numpy as np

f32 = np.float32


def bits(x):
    return struct.unpack("<i", struct.pack("<f", x))[0]


def from_bits(i):
    return struct.unpack("<f", struct.pack("<i", i))[0]


def lawson(f, lo, hi, c, deg, relative, fixed=(), split=(), npts=2000, iters=60):
    """Polynomial in u = a - c for f on [lo, hi]: coefficients fixed first (given), then each rounded to
    float in turn (those in `split` kept as the sum of two floats, returned as such) and the rest
    refitted; (coefficients, max error), the error relative or absolute."""
    u = (lo - c) + (hi - lo) * (1 - np.cos(np.pi * (np.arange(npts) + 0.5) / npts)) / 2
    fv = f(c + u)
    wt = 1 / np.abs(fv) if relative else np.ones(npts)
    coefs, parts = list(fixed), [[v] for v in fixed]
    while len(coefs) <= deg:
        k0 = len(coefs)
        resid = fv - sum(ck * u**k for k, ck in enumerate(coefs))
        basis = np.stack([u**k for k in range(k0, deg + 1)], 1)
        w = np.ones(npts) / npts
        for _ in range(iters):
            sw = np.sqrt(w) * wt
            cs, *_ = np.linalg.lstsq(basis * sw[:, None], resid * sw, rcond=None)
            e = np.abs(resid - basis @ cs) * wt
            w = w * e
            w /= w.sum()
        hi_part = float(f32(cs[0]))
        parts.append([hi_part, float(f32(cs[0] - hi_part))] if k0 in split else [hi_part])
        coefs.append(sum(parts[-1]))
    err = np.abs(fv - sum(ck * u**k for k, ck in enumerate(coefs))) * wt
    return [p for ps in parts for p in ps], float(err.max())


def bounds_of(index, limit, n):
    """The smallest float a >= 0 with index(a) >= k, for k < n (index monotone), and then limit."""
    def first_with(k):
        lo, hi = 0, bits(limit)
        if index(from_bits(lo)) >= k:
            return 0.0
        while hi - lo > 1:
            m = (lo + hi) // 2
            lo, hi = (lo, m) if index(from_bits(m)) >= k else (m, hi)
        return from_bits(hi)
    return [first_with(k) for k in range(n)] + [limit]


def erfc_rows():
    erfc = np.vectorize(math.erfc)

    def index(a):  # int(a * (a + 2.5f)) in float arithmetic
        return int(f32(f32(a) * f32(f32(a) + f32(2.5))))

    def centers(lo, hi, count=8):  # floats near the middle where erfc rounds to a float within 2^-33
        m, k, out = bits(float(f32((lo + hi) / 2))), 0, []
        while len(out) < count:
            c = from_bits(m + (k // 2 if k % 2 == 0 else -(k // 2 + 1)))
            k += 1
            e = math.erfc(c)
            if abs(float(f32(e)) - e) / e < 2.0**-33:
                out.append(c)
        return out

    n = index(float(np.nextafter(f32(4.5), f32(0)))) + 1
    b = bounds_of(index, 4.5, n)
    rows = []
    for i in range(n):
        fits = [(c, *lawson(erfc, b[i], b[i + 1], c, 6, True, fixed=(float(f32(math.erfc(c))),), split=(1,)))
                for c in centers(b[i], b[i + 1])]
        c, co, err = min(fits, key=lambda r: r[2])
        assert i == 0 or b[i] >= c / 2  # u = a - c exact (Sterbenz)
        rows.append((c, co, err, b[i], b[i + 1]))
    return "Erfc", ["c0", "c1 (high part)", "c1 (low part)", "c2", "c3", "c4", "c5", "c6"], rows


def tanh_rows():
    def g(a):
        return 2.0 / (np.exp(2.0 * a) + 1.0)

    k, a0 = 3.93, 0.98
    rows = []
    for i in range(32):
        lo, hi = a0 + i / k, a0 + (i + 1) / k
        c = float(f32((lo + hi) / 2))
        co, err = lawson(g, lo - 1e-6, hi + 1e-6, c, 5, False)  # a little over: the index rounds
        rows.append((c, co, err, lo, hi))
    return "Tanh", [f"c{k}" for k in range(6)], rows


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


def main():
    name, names, rows = {"erfc": erfc_rows, "tanh": tanh_rows}[sys.argv[1]]()
    for i, (c, _, err, lo, hi) in enumerate(rows):
        print(f"{i:2d} [{lo:.5f}, {hi:.5f}) c {c:.6f} error 2^{math.log2(err):.1f}", file=sys.stderr)
    print(f"max error 2^{math.log2(max(r[2] for r in rows)):.2f}", file=sys.stderr)
    print(f"alignas(64) constexpr float k{name}TabC[32] = {{\n" + lines([r[0] for r in rows], "    ") + "};")
    print(f"alignas(64) constexpr float k{name}TabP[{len(names)}][32] = {{")
    for k, cname in enumerate(names):
        print("    {  // " + cname + "\n" + lines([r[1][k] for r in rows], "     ") + "},")
    print("};")


if __name__ == "__main__":
    main()
