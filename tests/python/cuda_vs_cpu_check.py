"""CUDA-vs-CPU checks of the engine's first slice (casts, fill, binary, sum, matmul, copies, random,
memory stats), plus a few timings. Run by test_cuda_backend.py on a GPU machine, or by hand:
    python tests/python/cuda_vs_cpu_check.py [device]
"""
import cmath, glob, importlib.util, math, os, sys, time

import lucid._C as C  # noqa: E402

DEV = sys.argv[1] if len(sys.argv) > 1 else "cuda"
print("built:", C._cuda_built(), "count:", C._cuda_device_count())
cpu, gpu = C.device("cpu"), C.device(DEV)
names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64",
         "complex128"]
DT = {n: getattr(C, n) for n in names}
fails = []
nchecks = 0


def check(cond, what):
    global nchecks
    nchecks += 1
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def flat(x):
    if isinstance(x, list):
        return [z for y in x for z in flat(y)]
    return [x]


def close(a, b, rtol, atol=0.0):
    a, b = flat(a), flat(b)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, complex) or isinstance(y, complex):
            if abs(complex(x) - complex(y)) > atol + rtol * abs(complex(y)):
                return False
        elif isinstance(x, float) and math.isnan(x):
            if not (isinstance(y, float) and math.isnan(y)):
                return False
        elif x != y and not (abs(x - y) <= atol + rtol * abs(y)):
            return False
    return True


def G(t):
    return t._to(None, gpu, False)


def H(t):
    return t._to(None, cpu, False)


def rand(shape, dt=C.float32, seed=0, dist=None, a=-2.0, b=2.0):
    g = C.Generator()
    g.manual_seed(seed)
    t = C.empty(shape, dt, cpu)
    C._random_(t, dist or C._RandomDist.uniform, a, b, g)
    return t


# ---- casts: every pair, contiguous and transposed
vals = [0, 1, -1, 2.5, -3.7, 100, 300, -129, 1e5, 0.1, 65504.0, -0.0]
base = C._from_data(vals, C.float64, cpu)
cbase = C._from_data([complex(v, -v / 3) for v in vals], C.complex128, cpu)
for sn in names:
    src = (cbase if sn.startswith("complex") else base)._to(DT[sn], None, False)
    src_g = G(src)
    check(src_g.to_bytes() == src.to_bytes(), f"H2D/D2H roundtrip {sn}")
    for dn in names:
        a = src._to(DT[dn], None, False).to_bytes()
        b = src_g._to(DT[dn], None, False).to_bytes()
        check(a == b, f"cast {sn}->{dn}: {H(src_g._to(DT[dn], None, False)).tolist()} vs {src._to(DT[dn], None, False).tolist()}")
    m = src.reshape([3, 4]).transpose(0, 1)
    mg = src_g.reshape([3, 4]).transpose(0, 1)
    for dn in ["float32", "int64", "complex64", "bfloat16"]:
        check(m._to(DT[dn], None, True).to_bytes() == mg._to(DT[dn], None, True).to_bytes(), f"strided cast {sn}->{dn}")

# ---- fill / zeros / full
for n in names:
    for v in [0, 1, 2.5, -3]:
        if n == "bool" or (n.startswith("u") and v < 0):
            v = abs(int(v))
        check(C.full([5, 7], v, DT[n], gpu).to_bytes() == C.full([5, 7], v, DT[n], cpu).to_bytes(), f"full {n} {v}")
    check(C.zeros([1000], DT[n], gpu).to_bytes() == C.zeros([1000], DT[n], cpu).to_bytes(), f"zeros {n}")
t = C.zeros([6, 8], C.float32, gpu)
t.transpose(0, 1).narrow(0, 1, 3).fill_(7.5)
tc = C.zeros([6, 8], C.float32, cpu)
tc.transpose(0, 1).narrow(0, 1, 3).fill_(7.5)
check(t.to_bytes() == tc.to_bytes(), "strided fill_")

# ---- binary with broadcasting and promotion
pairs = [([3, 4], C.float32, [4], C.float64), ([5, 1, 3], C.int64, [4, 1], C.int32), ([2, 3], C.float16, [3], C.float16),
         ([2, 3], C.bfloat16, [2, 1], C.float32), ([4, 4], C.complex64, [4], C.float32), ([8], C.bool, [8], C.bool),
         ([1000, 33], C.float32, [33], C.float32), ([7, 3], C.int8, [3], C.int8), ([4, 5], C.uint8, [1], C.int16),
         ([3, 3], C.complex128, [3, 3], C.complex128), ([100003], C.float64, [100003], C.float64)]
for i, (sa, da, sb, db) in enumerate(pairs):
    a = rand(sa, C.float64, seed=i, a=-50, b=50)._to(da, None, False)
    b = rand(sb, C.float64, seed=100 + i, a=-50, b=50)._to(db, None, False)
    ag, bg = G(a), G(b)
    ops = [("add", lambda x, y: x + y), ("mul", lambda x, y: x * y), ("add_alpha", lambda x, y: C.add(x, y, alpha=2))]
    if da != C.bool:
        ops += [("sub", lambda x, y: x - y), ("div", lambda x, y: x / y), ("sub_alpha", lambda x, y: C.sub(x, y, alpha=3))]
    for name, f in ops:
        try:
            rc = f(a, b)
        except Exception as e:
            continue
        rg = f(ag, bg)
        check(rg.device == gpu and rc.dtype == rg.dtype, f"binary {name} device/dtype")
        check(rg.to_bytes() == rc.to_bytes(), f"binary {name} {sa}{da} {sb}{db}: {flat(rg.tolist())[:4]} vs {flat(rc.tolist())[:4]}")
    # transposed / scalar operands
    if len(sa) == 2:
        rc = a.transpose(0, 1) * 2.5 + 1
        rg = ag.transpose(0, 1) * 2.5 + 1
        check(rg.to_bytes() == rc.to_bytes(), f"binary strided scalar {sa}{da}")
x = G(C.full([5], 7, C.int32, cpu))
check(H(x / 2).tolist() == (C.full([5], 7, C.int32, cpu) / 2).tolist(), "int true-div")
x += 3
check(x.tolist() == [10] * 5, "in-place add")

# ---- sum
sum_cases = [([10], None), ([4, 5], [1]), ([4, 5], [0]), ([3, 4, 5], [0, 2]), ([1000, 1000], [0]), ([1000, 1000], [1]),
             ([7, 300, 9], [1]), ([3, 0], [1]), ([3, 0], [0]), ([2, 3, 100000], [2]), ([100000, 3], [0]), ([64, 64], None),
             ([5, 1, 1], [1, 2]), ([33, 17, 65], [0, 2]), ([], None)]
for i, (shape, dims) in enumerate(sum_cases):
    for dn in ["float32", "float64", "int64", "int32", "bool", "float16", "bfloat16", "complex64", "uint8"]:
        if shape == [1000, 1000] and dn not in ("float32", "int64"):
            continue
        a = rand(shape, C.float64, seed=i, a=-3, b=3)._to(DT[dn], None, False)
        ag = G(a)
        if shape == [3, 0] and dims == [1]:  # cpu/reduce.cpp divides by zero here (reported)
            if DEV != "cpu":
                check(close(ag._sum(dims, False, None).tolist(), [0] * 3, 0), f"empty sum {dn}")
            continue
        rg = ag._sum(dims, False, None)
        rc = a._sum(dims, False, None)
        tol = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2, "complex64": 1e-6}.get(dn, 1e-12)
        # Floating sums: the GPU accumulates in double, so compare with a float64 reference (the CPU
        # float32 path accumulates in float lanes and is itself a little off).
        wide = {"float32": C.float64, "float16": C.float64, "bfloat16": C.float64, "complex64": C.complex128}.get(dn)
        ref = (a._to(wide, None, False)._sum(dims, False, None)._to(rc.dtype, None, False) if wide else rc)
        check(rc.dtype == rg.dtype and close(rg.tolist(), ref.tolist(), tol, 1e-5 if tol < 1e-3 else 1e-2), f"sum {shape} {dims} {dn}")
        if len(shape) >= 2 and 0 not in shape:
            at, agt = a.transpose(0, 1), ag.transpose(0, 1)
            ref = at._to(wide, None, False)._sum([0], True, None)._to(rc.dtype, None, False) if wide else at._sum([0], True, None)
            check(close(agt._sum([0], True, None).tolist(), ref.tolist(), tol, 1e-5 if tol < 1e-3 else 1e-2),
                  f"sum transposed {shape} {dn}")
    a = rand(shape, C.float64, seed=i)
    if 0 in shape:
        continue
    ref = a._to(C.float32, None, False)._to(C.float64, None, False)._sum(dims, False, None)._to(C.float32, None, False)
    check(close(G(a)._sum(dims, False, C.float32).tolist(), ref.tolist(), 1e-6, 1e-6), f"sum dtype= {shape}")
ones = C.full([10 ** 7], 1.0, C.float32, gpu)
check(ones._sum(None, False, None).item() == 1e7, "sum 1e7 ones exact")
check(C.full([3 * 10 ** 6], 1, C.int8, gpu)._sum(None, False, None).item() == 3 * 10 ** 6, "int8 sum to int64")

# ---- matmul
mm_cases = [([64, 128], [128, 32]), ([4, 8, 16], [16, 5]), ([2, 1, 3, 4], [5, 4, 6]), ([7], [7, 3]), ([3, 7], [7]),
            ([1, 1], [1, 1]), ([3, 0], [0, 4]), ([513, 257], [257, 129]), ([9, 1], [1, 9])]
for i, (sa, sb) in enumerate(mm_cases):
    for dn in ["float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int64", "int32", "int8", "bool"]:
        lo, hi = (-1, 1) if not dn.startswith("int") else (-5, 5)
        a = rand(sa, C.float64, seed=i, a=lo, b=hi)._to(DT[dn], None, False)
        b = rand(sb, C.float64, seed=50 + i, a=lo, b=hi)._to(DT[dn], None, False)
        rc, rg = a @ b, G(a) @ G(b)
        tol = {"float32": 2e-5, "float16": 2e-2, "bfloat16": 5e-2, "complex64": 2e-5}.get(dn, 1e-12)
        check(rc.dtype == rg.dtype and list(rc.shape) == list(rg.shape) and close(rg.tolist(), rc.tolist(), tol, tol),
              f"matmul {sa}@{sb} {dn}")
        if len(sa) == 2 and len(sb) == 2:
            # transposed views: a^T^T etc.
            at = a.transpose(0, 1).contiguous().transpose(0, 1)
            bt = b.transpose(0, 1).contiguous().transpose(0, 1)
            for (x, y, nm) in [(at, b, "aT"), (a, bt, "bT"), (at, bt, "aTbT")]:
                check(close((G(x) @ G(y)).tolist(), (x @ y).tolist(), tol, tol), f"matmul {nm} {sa}@{sb} {dn}")
            # non-BLAS layout (every other column)
            if sb[1] > 2:
                bs = b.reshape([sb[0], sb[1]]).narrow(1, 0, sb[1] - 1)
                bs2 = C.empty([sb[0], 2 * (sb[1] - 1)], DT[dn], cpu)
                v = bs2.as_strided([sb[0], sb[1] - 1], [2 * (sb[1] - 1), 2], 0)
                v.copy_(bs)
                check(close((G(a) @ G(bs2).as_strided([sb[0], sb[1] - 1], [2 * (sb[1] - 1), 2], 0)).tolist(), (a @ v).tolist(), tol, tol),
                      f"matmul strided-copy {dn}")
# expanded batch (stride 0)
a = rand([1, 6, 5], seed=1)
b = rand([4, 5, 3], seed=2)
check(close((G(a).expand([4, 6, 5]) @ G(b)).tolist(), (a.expand([4, 6, 5]) @ b).tolist(), 2e-5, 2e-5), "matmul expanded batch")

# ---- copies across devices
src = rand([6, 5], seed=3)
dst = C.zeros([5, 6], C.float32, gpu)
dst.transpose(0, 1).copy_(src)
check(H(dst).to_bytes() == src.transpose(0, 1).contiguous().to_bytes(), "copy_ cpu->gpu strided dst")
hd = C.zeros([5, 6], C.float64, cpu)
hd.transpose(0, 1).copy_(G(src))
check(hd.to_bytes() == src.transpose(0, 1)._to(C.float64, None, False).contiguous().to_bytes(), "copy_ gpu->cpu strided+cast")
if DEV != "cpu":
    p = src.pin_memory()
    check(p.is_pinned() and G(p).to_bytes() == src.to_bytes(), "pinned H2D")
if C._cuda_device_count() > 1:
    g1 = C.device("cuda:1")
    x1 = G(src)._to(None, g1, False)
    check(x1.device == g1 and H(x1).to_bytes() == src.to_bytes(), "cuda:0 -> cuda:1")

# ---- random: same seed, same numbers
for dn, dist, a_, b_ in [("float32", "uniform", 0, 1), ("float64", "uniform", -3, 5), ("float16", "uniform", 0, 1),
                         ("bfloat16", "uniform", 0, 1), ("float32", "normal", 1, 2), ("float64", "normal", 0, 1),
                         ("int64", "integer", -10, 10), ("uint8", "integer", 0, 256), ("float32", "bernoulli", 0.3, 0),
                         ("bool", "bernoulli", 0.5, 0), ("complex64", "normal", 0, 1)]:
    n = 100003
    tc, tg = C.empty([n], DT[dn], cpu), C.empty([n], DT[dn], gpu)
    for t in (tc, tg):
        g = C.Generator()
        g.manual_seed(1234)
        C._random_(t, getattr(C._RandomDist, dist), a_, b_, g)
    if dist == "normal":
        check(close(tg.tolist(), tc.tolist(), 1e-6 if dn != "float64" else 1e-13, 1e-6 if dn != "float64" else 1e-13), f"random {dn} {dist}")
    else:
        check(tg.to_bytes() == tc.to_bytes(), f"random {dn} {dist} bit-identical")
m = C.empty([8, 8], C.float32, gpu)
g = C.Generator(); g.manual_seed(7)
C._random_(m.transpose(0, 1), C._RandomDist.uniform, 0, 1, g)
mc = C.empty([8, 8], C.float32, cpu)
g = C.Generator(); g.manual_seed(7)
C._random_(mc.transpose(0, 1), C._RandomDist.uniform, 0, 1, g)
check(m.to_bytes() == mc.to_bytes(), "random non-contiguous")

# ---- memory stats and the caching allocator
if DEV.startswith("cuda"):
    AL, RS, NS = "allocated_bytes.all.current", "reserved_bytes.all.current", "num_device_alloc"
    C._synchronize(gpu)
    C._empty_cache(gpu)
    s0 = C._memory_stats(gpu)
    x = C.empty([1000], C.float32, gpu)
    s1 = C._memory_stats(gpu)
    check(s1[AL] - s0[AL] == 4000, f"allocated counts requested bytes {s0} {s1}")
    del x
    s2 = C._memory_stats(gpu)
    check(s2[AL] == s0[AL] and s2[RS] >= s1[RS], f"free keeps block cached {s2}")
    y = C.empty([1000], C.float32, gpu)
    s3 = C._memory_stats(gpu)
    check(s3[NS] == s2[NS], f"reuse without cudaMalloc {s3}")
    del y
    sysa = C._memory_stats(gpu)[NS]
    for _ in range(200):
        z = C.full([256, 1024], 1.0, C.float32, gpu) * 2 + 1
    C._synchronize(gpu)
    check(C._memory_stats(gpu)[NS] - sysa <= 4, f"loop does not cudaMalloc per op {C._memory_stats(gpu)}")
    del z
    C._empty_cache(gpu)
    s4 = C._memory_stats(gpu)
    check(s4[RS] <= s4[AL] + (4 << 20), f"empty_cache releases {s4}")
    C._reset_peak_memory_stats(gpu)
    check(C._max_memory_allocated(gpu) == C._memory_allocated(gpu), "reset peak")
    try:
        C.empty([1 << 46], C.uint8, gpu)
        check(False, "OOM expected")
    except Exception as e:
        print("OOM message:", type(e).__name__, str(e)[:300])
        check("out of memory" in str(e), "OOM message")
    check(C.full([10], 2.0, C.float32, gpu)._sum(None, False, None).item() == 20.0, "works after OOM")
    print("stats:", C._memory_stats(gpu))
    # rough speed sanity (not asserted)
    big = C.full([1 << 26], 1.0, C.float32, gpu)
    C._synchronize(gpu)
    t0 = time.perf_counter()
    for _ in range(20):
        r = big + big
    C._synchronize(gpu)
    dt = (time.perf_counter() - t0) / 20
    print(f"add 2^26 f32: {dt * 1e3:.3f} ms, {3 * 4 * (1 << 26) / dt / 1e9:.0f} GB/s")
    t0 = time.perf_counter()
    for _ in range(20):
        r = big._sum(None, False, None)
    C._synchronize(gpu)
    dt = (time.perf_counter() - t0) / 20
    print(f"sum 2^26 f32: {dt * 1e3:.3f} ms, {4 * (1 << 26) / dt / 1e9:.0f} GB/s")
    bm = C.full([4096, 4096], 0.5, C.float32, gpu)
    r = bm @ bm
    C._synchronize(gpu)
    t0 = time.perf_counter()
    for _ in range(10):
        r = bm @ bm
    C._synchronize(gpu)
    dt = (time.perf_counter() - t0) / 10
    print(f"sgemm 4096: {dt * 1e3:.3f} ms, {2 * 4096 ** 3 / dt / 1e12:.1f} TFLOP/s")
    t0 = time.perf_counter()
    for _ in range(1000):
        r = x1 = C.full([4], 1.0, C.float32, gpu) + 1
    C._synchronize(gpu)
    print(f"per-op overhead (full + add, small): {(time.perf_counter() - t0) / 1000 * 1e6:.1f} us")
    sa, sb = C.full([4], 1.0, C.float32, gpu), C.full([4], 2.0, C.float32, gpu)
    t0 = time.perf_counter()
    for _ in range(2000):
        r = sa + sb
    C._synchronize(gpu)
    print(f"per-op overhead (tensor + tensor, small): {(time.perf_counter() - t0) / 2000 * 1e6:.1f} us")
    big2 = C.full([4096, 16384], 1.0, C.float32, gpu)
    for dims in ([1], [0]):
        r = big2._sum(dims, False, None)
        C._synchronize(gpu)
        t0 = time.perf_counter()
        for _ in range(10):
            r = big2._sum(dims, False, None)
        C._synchronize(gpu)
        dt = (time.perf_counter() - t0) / 10
        print(f"sum [4096,16384] dim {dims}: {dt * 1e3:.3f} ms, {4 * 4096 * 16384 / dt / 1e9:.0f} GB/s")

print(f"{nchecks - len(fails)}/{nchecks} checks passed")
sys.exit(1 if fails else 0)
