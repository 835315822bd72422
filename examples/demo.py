"""lucid's demo (until the training demo exists): tensors, views and matmul on CPU and, where
present, CUDA."""
import time

import lucid


def show(title, value):
    print(f"--- {title}\n{value}")


def main():
    lucid.manual_seed(0)
    print(f"lucid {lucid.__version__}: CPU kernels '{lucid._C._cpu_isa()}', "
          f"BLAS {lucid._C._blas_info()['corename']}, {lucid.get_num_threads()} threads, "
          f"CUDA {'available' if lucid.cuda.is_available() else 'not available'}")

    x = lucid.arange(12.0).reshape(3, 4)
    show("x = arange(12.).reshape(3, 4)", x)
    show("x.T (a view: same storage, strides swapped)", x.T)
    print("x.T.stride() =", x.T.stride(), " shares storage:", x.T._is_view_of(x))
    col = x[:, 1]
    col[0] = 100.0
    show("after x[:, 1][0] = 100 (a write through a view reaches x)", x)
    print("version counter shared by views:", x._version, col._version)

    w = lucid.randn(4, 2, dtype=lucid.float64)
    show("x.double() @ w (float64 GEMM through OpenBLAS)", x.double() @ w)
    show("broadcasting: x + tensor([10, 20, 30, 40])", x + lucid.tensor([10, 20, 30, 40]))
    show("dtype promotion: int64 tensor / 2 -> float32", lucid.tensor([1, 2, 3]) / 2)
    show("x.sum(dim=0)", x.sum(dim=0))

    wg = lucid.randn(4, 3, requires_grad=True)
    loss = ((x @ wg) * (x @ wg)).sum() / 100
    loss.backward()
    show(f"autograd: loss = sum((x @ w)^2) / 100 = {loss.item():.3f}; grad_fn {loss.grad_fn.name()}; w.grad", wg.grad)

    n = 1024
    a, b = lucid.randn(n, n), lucid.randn(n, n)
    a @ b
    t0 = time.perf_counter()
    reps = 5
    for _ in range(reps):
        a @ b
    dt = (time.perf_counter() - t0) / reps
    print(f"--- float32 {n}x{n} matmul on CPU: {dt * 1e3:.1f} ms ({2 * n ** 3 / dt / 1e9:.0f} GFLOP/s)")

    if lucid.cuda.is_available():
        xc = x.cuda()
        show("on CUDA: (x.cuda() @ x.cuda().T).cpu()", (xc @ xc.T).cpu())
        ac, bc = a.cuda(), b.cuda()
        diff = ((ac @ bc).cpu() - a @ b)
        print("CUDA matmul vs CPU, max |diff| =", max(abs(v) for v in diff.flatten().tolist()))
        print("CUDA memory allocated:", lucid.cuda.memory_allocated(), "bytes")


if __name__ == "__main__":
    main()
