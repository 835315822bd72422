"""The demo CNN's epoch (469 SGD steps, batch 128, 8 rotating random batches) in lucid and in PyTorch with
the same weights, alternated, at 2 threads: the wall-time ratio issue 5 asks for beside `make demo`
(data loading excluded on both sides). Run: .venv/bin/python benchmarks/demo_epoch.py"""
import os
import sys
import time

import numpy as np
import torch

import lucid
import lucid.nn as lnn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows_nn import _copy_weights, _demo_cnn  # noqa: E402

STEPS = 469


def main():
    torch.set_num_threads(2)
    lucid.set_num_threads(2)
    lm, tm = _demo_cnn(lnn), _demo_cnn(torch.nn)
    _copy_weights(lm, tm)
    lo = lucid.optim.SGD(lm.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    to = torch.optim.SGD(tm.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((8, 128, 1, 28, 28)).astype(np.float32)
    ys = rng.integers(0, 10, (8, 128))
    sides = {"lucid": (lucid, lm, lo, [lucid.tensor(x) for x in xs], [lucid.tensor(y) for y in ys]),
             "torch": (torch, tm, to, [torch.tensor(x) for x in xs], [torch.tensor(y) for y in ys])}

    def epoch(name):
        lib, model, opt, X, Y = sides[name]
        t = time.perf_counter()
        for i in range(STEPS):
            loss = lib.nn.functional.cross_entropy(model(X[i % 8]), Y[i % 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
        return time.perf_counter() - t

    for _ in range(2):
        lt, tt = epoch("lucid"), epoch("torch")
        print(f"epoch ({STEPS} steps): lucid {lt:.2f} s, torch {tt:.2f} s, ratio {lt / tt:.2f}")


if __name__ == "__main__":
    main()
