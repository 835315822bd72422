"""The minimax polynomials behind the AVX-512 float32 gelu (engine/backend/cpu/isa_rows.cpp):

  S(u) = exp(u^2 / 2) Phi(-u) = erfcx(u / sqrt 2) / 2, as a degree-8 polynomial in t = 1 / (1 + p u)
  over u in [0, 14.5], relative error minimised, times exp(u^2 / (2 ln 2) (ln 2 - ln2f)) (the
  kernel reduces exp(-u^2 / 2) by n ln2f with ln 2 rounded to float; that leaves a smooth factor the
  polynomial carries);
  exp(r) for |r| <= ln 2 / 2 (a little over), degree 6.

Remez exchange on a dense grid (mpmath references). Prints the float coefficients, highest last.

    .venv/bin/python scripts/fit_gelu_erfcx.py
"""
import mpmath as mp
import numpy as np
from numpy.polynomial import chebyshev as C
from numpy.polynomial import polynomial as P


def remez(x, f, deg, iters=60):
    """Minimax relative-error polynomial for f on the sorted grid x: (power coefficients, error)."""
    a, b = x.min(), x.max()
    s = (2 * x - a - b) / (b - a)
    V = C.chebvander(s, deg)
    n = deg + 2
    idx = np.unique(np.searchsorted(s, -np.cos(np.pi * np.arange(n) / (n - 1))).clip(0, len(x) - 1))
    best = None
    for _ in range(iters):
        A = np.zeros((n, n))
        A[:, :deg + 1] = V[idx]
        A[:, deg + 1] = (-1.0) ** np.arange(n) * np.abs(f[idx])
        c = np.linalg.solve(A, f[idx])[:deg + 1]
        e = (V @ c - f) / np.abs(f)
        if best is None or np.abs(e).max() < best[1]:
            best = (c, np.abs(e).max())
        sign = np.where(e >= 0, 1, -1)
        runs = np.split(np.arange(len(x)), np.flatnonzero(np.diff(sign)) + 1)
        cand = np.array([r[np.argmax(np.abs(e[r]))] for r in runs])
        while len(cand) > n:
            cand = cand[1:] if abs(e[cand[0]]) < abs(e[cand[-1]]) else cand[:-1]
        if len(cand) < n or np.array_equal(cand, idx):
            break
        idx = cand
    c, err = best
    # Chebyshev on [a, b] -> powers of x
    out, term = np.zeros(1), np.array([1.0])
    for ck in C.cheb2poly(c):
        out = P.polyadd(out, ck * term)
        term = P.polymul(term, [-(a + b) / (b - a), 2 / (b - a)])
    return out, err


def main():
    mp.mp.dps = 40
    p = float(np.float32(0.295))
    ln2f = mp.mpf(float(np.float32(np.log(2))))
    delta = mp.log(2) - ln2f
    u = np.unique(np.concatenate([np.linspace(0, 14.5, 12000), np.linspace(0, 2, 3000)]))
    S = np.array([float(0.5 * mp.exp(mp.mpf(v) ** 2 / 2) * mp.erfc(mp.mpf(v) / mp.sqrt(2))
                        * mp.exp(mp.mpf(v) ** 2 / (2 * mp.log(2)) * delta)) for v in u])
    t = 1 / (1 + p * u)
    o = np.argsort(t)
    c, err = remez(t[o], S[o], 8)
    print(f"S(u) in t = 1/(1 + {p:.9g}u): relative error {err:.3e}")
    print("  ", ", ".join(f"{v:.9g}f" for v in np.float32(c)))
    r = np.linspace(-0.3476, 0.3476, 20001)
    c, err = remez(r, np.exp(r), 6)
    print(f"exp(r), |r| <= 0.3476: relative error {err:.3e}")
    print("  ", ", ".join(f"{v:.9g}f" for v in np.float32(c)))


if __name__ == "__main__":
    main()
