"""Benchmark rows of the nn layer: small-op overhead, softmax and norms, convolution and pooling, and
whole training steps (the same model and weights on both sides)."""
import lucid
import lucid.nn as lnn
import lucid.nn.functional as LF
import torch

from harness import Row
from rows import _pair, current_dtype


def _copy_weights(lmod, tmod):
    """Gives the torch module the lucid module's parameters (same architecture, same order)."""
    lp, tp = list(lmod.parameters()), list(tmod.parameters())
    assert len(lp) == len(tp)
    with torch.no_grad():
        for a, b in zip(lp, tp):
            assert tuple(a.shape) == tuple(b.shape)
            b.copy_(torch.from_numpy(a.detach().cpu().numpy().copy()))


def overhead_nn_rows(device):
    rows = []
    for n in (1, 16):
        a, ta = _pair((n,), device)
        rows.append(Row("overhead", f"relu(a), {n} elem", lambda a=a: lucid.relu(a), lambda ta=ta: torch.relu(ta)))
    lucid.manual_seed(0)
    lin = lnn.Linear(64, 64).to(device)
    tlin = torch.nn.Linear(64, 64).to(device)
    _copy_weights(lin, tlin)
    dtype = current_dtype()                  # the row's element type (bfloat16 in the GPU mode's second pass)
    lin, tlin = lin.to(dtype=getattr(lucid, dtype)), tlin.to(dtype=getattr(torch, dtype))
    x, tx = _pair((1, 64), device)
    with lucid.no_grad():
        rows.append(Row("overhead", "nn.Linear(64, 64), batch 1", lambda: lin(x), lambda: tlin(tx), rtol=1e-4,
                        atol=1e-5))
    return rows


def norm_rows(device, quick):
    m, n = (1024, 1024) if quick else (4096, 1024)
    a, ta = _pair((m, n), device)
    w, tw = _pair((n,), device, seed=2)
    b, tb = _pair((n,), device, seed=3)
    return [
        Row("reduce", f"softmax last dim ({m}x{n})", lambda: LF.softmax(a, -1), lambda: torch.softmax(ta, -1),
            bytes_moved=8 * m * n, rtol=1e-4, atol=1e-6),
        Row("reduce", f"log_softmax last dim ({m}x{n})", lambda: LF.log_softmax(a, -1),
            lambda: torch.log_softmax(ta, -1), bytes_moved=8 * m * n, rtol=1e-4, atol=1e-4),
        Row("reduce", f"layer_norm last dim ({m}x{n})", lambda: LF.layer_norm(a, (n,), w, b),
            lambda: torch.nn.functional.layer_norm(ta, (n,), tw, tb), bytes_moved=8 * m * n, rtol=1e-3, atol=1e-3),
    ]


def conv_rows(device, quick):
    rows = []
    x, tx = _pair((32, 64, 32, 32), device)
    w, tw = _pair((64, 64, 3, 3), device, seed=1)
    w = w * 0.05
    tw = tw * 0.05
    flops = 2 * 32 * 64 * 32 * 32 * 64 * 9
    rows.append(Row("conv", "conv3x3 N32 C64 32x32 fwd", lambda: LF.conv2d(x, w, padding=1),
                    lambda: torch.nn.functional.conv2d(tx, tw, padding=1), flops=flops, rtol=1e-3, atol=1e-3))
    gx, gtx = _pair((32, 64, 32, 32), device, requires_grad=True)
    gw, gtw = _pair((64, 64, 3, 3), device, seed=1, requires_grad=True)

    def fb_lucid():
        LF.conv2d(gx, gw, padding=1).sum().backward()
        gx.grad = gw.grad = None

    def fb_torch():
        torch.nn.functional.conv2d(gtx, gtw, padding=1).sum().backward()
        gtx.grad = gtw.grad = None

    rows.append(Row("conv", "conv3x3 N32 C64 32x32 fwd+bwd", fb_lucid, fb_torch, flops=3 * flops, check=False))
    rows.append(Row("conv", "max_pool2d 2x2 N32 C64 32x32", lambda: LF.max_pool2d(x, 2),
                    lambda: torch.nn.functional.max_pool2d(tx, 2), bytes_moved=4 * 32 * 64 * 32 * 32 * 5 // 4))
    rm, rv = lucid.zeros(64, device=device), lucid.ones(64, device=device)
    trm, trv = torch.zeros(64, device=device), torch.ones(64, device=device)
    rows.append(Row("conv", "batch_norm train N32 C64 32x32", lambda: LF.batch_norm(x, rm, rv, training=True),
                    lambda: torch.nn.functional.batch_norm(tx, trm, trv, training=True),
                    bytes_moved=4 * 32 * 64 * 32 * 32 * 3, check=False))
    return rows


def _train_row(name, lmodel, tmodel, lopt, topt, x, tx, y, ty):
    def step_lucid():
        loss = LF.cross_entropy(lmodel(x), y)
        lopt.zero_grad()
        loss.backward()
        lopt.step()

    def step_torch():
        loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
        topt.zero_grad()
        loss.backward()
        topt.step()

    return Row("train", name, step_lucid, step_torch, check=False)


def _mlp(nn, sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def _lenet(nn):
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


def _demo_cnn(nn):
    """examples/demo.py's Net: conv(1->16) relu pool, conv(16->32) relu pool, linear(1568->128) relu, linear(128->10)."""
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def _inputs(shape, classes, device, seed):
    x, tx = _pair(shape, device, seed=seed)
    lucid.manual_seed(seed + 1)
    y = lucid.randint(0, classes, (shape[0],), device=device)
    ty = torch.from_numpy(y.cpu().numpy().copy()).to(device)
    return x, tx, y, ty


def training_rows(device, quick):
    rows = []
    for batch in ((128,) if quick else (128, 1024)):
        lucid.manual_seed(0)
        lm, tm = _mlp(lnn, (784, 512, 512, 10)).to(device), _mlp(torch.nn, (784, 512, 512, 10)).to(device)
        _copy_weights(lm, tm)
        x, tx, y, ty = _inputs((batch, 784), 10, device, 5)
        rows.append(_train_row(f"MLP 784-512-512-10 SGD momentum, batch {batch}", lm, tm,
                               lucid.optim.SGD(lm.parameters(), lr=0.01, momentum=0.9),
                               torch.optim.SGD(tm.parameters(), lr=0.01, momentum=0.9), x, tx, y, ty))
    lucid.manual_seed(0)
    lm, tm = _lenet(lnn).to(device), _lenet(torch.nn).to(device)
    _copy_weights(lm, tm)
    x, tx, y, ty = _inputs((64, 1, 28, 28), 10, device, 6)
    rows.append(_train_row("LeNet-5 Adam, batch 64", lm, tm, lucid.optim.Adam(lm.parameters(), lr=1e-3),
                           torch.optim.Adam(tm.parameters(), lr=1e-3), x, tx, y, ty))
    lucid.manual_seed(0)
    lm, tm = _demo_cnn(lnn).to(device), _demo_cnn(torch.nn).to(device)
    _copy_weights(lm, tm)
    x, tx, y, ty = _inputs((128, 1, 28, 28), 10, device, 8)
    rows.append(_train_row("demo CNN Fashion-MNIST batch 128 SGD", lm, tm,
                           lucid.optim.SGD(lm.parameters(), lr=0.05, momentum=0.9, nesterov=True),
                           torch.optim.SGD(tm.parameters(), lr=0.05, momentum=0.9, nesterov=True), x, tx, y, ty))
    for width in ((128, 1024) if quick else (128, 256, 512, 1024)):
        lucid.manual_seed(0)
        lm, tm = _mlp(lnn, (width, width, width)).to(device), _mlp(torch.nn, (width, width, width)).to(device)
        _copy_weights(lm, tm)
        x, tx, y, ty = _inputs((128, width), width, device, 7)
        rows.append(_train_row(f"Linear-ReLU-Linear {width}, batch 128, Adam", lm, tm,
                               lucid.optim.Adam(lm.parameters(), lr=1e-3), torch.optim.Adam(tm.parameters(), lr=1e-3),
                               x, tx, y, ty))
    return rows


def activation_rows(device, quick):
    """Fused activation kernels (forward) on 1M (quick), 10M and 64M elements, and gelu forward+backward."""
    rows = []
    for n in ((1 << 20,) if quick else (1 << 20, 10_000_000, 64 << 20)):
        a, ta = _pair((n,), device)
        rows.append(Row("elementwise", f"relu {n}", lambda a=a: lucid.relu(a), lambda ta=ta: torch.relu(ta),
                        bytes_moved=8 * n))
        rows.append(Row("elementwise", f"gelu {n}", lambda a=a: LF.gelu(a), lambda ta=ta: torch.nn.functional.gelu(ta),
                        bytes_moved=8 * n, rtol=1e-5, atol=2e-6))
        rows.append(Row("elementwise", f"gelu tanh {n}", lambda a=a: LF.gelu(a, approximate="tanh"),
                        lambda ta=ta: torch.nn.functional.gelu(ta, approximate="tanh"), bytes_moved=8 * n,
                        rtol=1e-5, atol=1e-6))
        rows.append(Row("elementwise", f"silu {n}", lambda a=a: LF.silu(a), lambda ta=ta: torch.nn.functional.silu(ta),
                        bytes_moved=8 * n, rtol=1e-5, atol=1e-6))
    n = 1 << 20
    ga, gta = _pair((n,), device, requires_grad=True)

    def fb_lucid():
        LF.gelu(ga).sum().backward()
        ga.grad = None

    def fb_torch():
        torch.nn.functional.gelu(gta).sum().backward()
        gta.grad = None

    rows.append(Row("elementwise", f"gelu fwd+bwd {n}", fb_lucid, fb_torch, bytes_moved=20 * n, check=False))
    return rows
