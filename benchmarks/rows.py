"""The benchmark rows that exist today (issue 6 lists the full set; rows join as their ops land)."""
import lucid
import torch

from harness import Row


# The element type of the rows' tensors: float32, and in the GPU mode a second pass in bfloat16
# (`set_dtype`). The data is drawn once in float32 on the CPU, so both sides get the same values.
_DTYPE = "float32"


def set_dtype(name):
    global _DTYPE
    _DTYPE = name


def current_dtype():
    return _DTYPE


def _pair(shape, device, dtype=None, requires_grad=False, seed=0):
    dtype = dtype or _DTYPE
    lucid.manual_seed(seed)
    a = lucid.randn(*shape)
    t = torch.from_numpy(a.numpy().copy())
    a = a.to(device=device, dtype=getattr(lucid, dtype))
    t = t.to(device=device, dtype=getattr(torch, dtype))
    if requires_grad:
        a.requires_grad = True
        t.requires_grad = True
    return a, t


def overhead_rows(device):
    rows = []
    for n in (1, 16):
        a, ta = _pair((n,), device)
        b, tb = _pair((n,), device, seed=1)
        rows.append(Row("overhead", f"a + b, {n} elem", lambda a=a, b=b: a + b, lambda ta=ta, tb=tb: ta + tb))
        rows.append(Row("overhead", f"a * 2.0, {n} elem", lambda a=a: a * 2.0, lambda ta=ta: ta * 2.0))
        ga, gta = _pair((n,), device, requires_grad=True)
        rows.append(Row("overhead", f"a + b with grad, {n} elem", lambda ga=ga, b=b: ga + b,
                        lambda gta=gta, tb=tb: gta + tb, check=False))

    x, tx = _pair((16,), device, requires_grad=True)

    def graph_lucid():
        y = ((x * 2.0 + 1.0) * x).sum()
        y.backward()
        x.grad = None

    def graph_torch():
        y = ((tx * 2.0 + 1.0) * tx).sum()
        y.backward()
        tx.grad = None

    rows.append(Row("overhead", "4-op graph + backward", graph_lucid, graph_torch, check=False))
    return rows


def elementwise_rows(device, quick):
    """add, mul and exp on 1M (quick), 10M and 64M elements, into a fresh output and with `out=`."""
    rows = []
    for n in ((1 << 20,) if quick else (1 << 20, 10_000_000, 64 << 20)):
        a, ta = _pair((n,), device)
        b, tb = _pair((n,), device, seed=1)
        o, to = _pair((n,), device, seed=2)
        for name, lf, tf, nin in (("add", lucid.add, torch.add, 2), ("mul", lucid.mul, torch.mul, 2),
                                  ("exp", lucid.exp, torch.exp, 1)):
            la, lt = ((a, b), (ta, tb)) if nin == 2 else ((a,), (ta,))
            moved = 4 * (nin + 1) * n
            rows.append(Row("elementwise", f"{name} {n}", lambda lf=lf, la=la: lf(*la),
                            lambda tf=tf, lt=lt: tf(*lt), bytes_moved=moved))
            rows.append(Row("elementwise", f"{name} {n} out=", lambda lf=lf, la=la, o=o: lf(*la, out=o),
                            lambda tf=tf, lt=lt, to=to: tf(*lt, out=to), bytes_moved=moved))
    # copy: the tiled transpose path of the copy kernel (gradients of transposed weights, permutes).
    a, ta = _pair((1024, 1024), device)
    rows.append(Row("elementwise", "copy: transpose 1024x1024 contiguous", lambda a=a: a.mT.contiguous(),
                    lambda ta=ta: ta.mT.contiguous(), bytes_moved=8 * 1024 * 1024))
    p, tp = _pair((32, 64, 32, 32), device)
    rows.append(Row("elementwise", "copy: permute (32,64,32,32) to (0,2,3,1) contiguous",
                    lambda p=p: p.permute(0, 2, 3, 1).contiguous(),
                    lambda tp=tp: tp.permute(0, 2, 3, 1).contiguous(), bytes_moved=8 * p.numel()))
    return rows


def reduction_rows(device, quick):
    m, n = (1024, 1024) if quick else (4096, 1024)
    a, ta = _pair((m, n), device)
    return [
        Row("reduce", f"sum all ({m}x{n})", lambda: a.sum(), lambda: ta.sum(), bytes_moved=4 * m * n, rtol=1e-3),
        Row("reduce", f"sum last dim ({m}x{n})", lambda: a.sum(-1), lambda: ta.sum(-1), bytes_moved=4 * m * n,
            rtol=1e-3, atol=1e-3),
        Row("reduce", f"sum first dim ({m}x{n})", lambda: a.sum(0), lambda: ta.sum(0), bytes_moved=4 * m * n,
            rtol=1e-3, atol=1e-3),
    ]


def gemm_rows(device, quick):
    rows = []
    sizes = (64, 256, 1024) if quick else (64, 128, 256, 512, 1024, 2048)
    for s in sizes:
        a, ta = _pair((s, s), device)
        b, tb = _pair((s, s), device, seed=1)
        rows.append(Row("gemm", f"{s}x{s}x{s}", lambda a=a, b=b: a @ b, lambda ta=ta, tb=tb: ta @ tb,
                        flops=2 * s ** 3, rtol=1e-3, atol=1e-3))
    shapes = ((128, 512, 512),) if quick else ((128, 512, 512), (128, 2048, 2048), (4096, 768, 3072))
    for m, k, n in shapes:
        a, ta = _pair((m, k), device)
        b, tb = _pair((k, n), device, seed=1)
        rows.append(Row("gemm", f"{m}x{k}x{n}", lambda a=a, b=b: a @ b, lambda ta=ta, tb=tb: ta @ tb,
                        flops=2 * m * k * n, rtol=1e-3, atol=1e-2))
    return rows


def all_rows(device, quick, training=True):
    """Every row; `training=False` leaves out the whole training steps (the bfloat16 pass). A group
    whose setup needs an op that has no kernel on `device` yet is listed as such and left out."""
    from rows_nn import overhead_nn_rows, activation_rows, norm_rows, conv_rows, training_rows
    from rows_sorting import all_sorting_rows
    from rows_reduce import all_reduce_rows
    from rows_indexing import all_indexing_rows
    from rows_attn import sdpa_rows, transformer_rows
    from rows_arith import arith_rows
    from rows_unary import unary_rows
    groups = [overhead_rows, elementwise_rows, arith_rows, unary_rows, reduction_rows, all_reduce_rows, gemm_rows, overhead_nn_rows,
              activation_rows, norm_rows, conv_rows, all_sorting_rows, all_indexing_rows, sdpa_rows]
    if training:
        groups += [training_rows, transformer_rows]
    rows = []
    for build in groups:
        try:
            rows += build(device) if build in (overhead_rows, overhead_nn_rows) else build(device, quick)
        except NotImplementedError as e:
            print(f"  ({build.__name__} not on {device} yet: {str(e).splitlines()[0][:70]})")
    return rows
