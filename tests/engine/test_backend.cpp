// engine/backend: strided iteration and coalescing (common/iter.h), Philox (common/philox.h),
// kernel registration (kernels/stub.h), the CPU thread pool (cpu/parallel.h) and the per-ISA
// loops (cpu/isa.h): every ISA up to the detected one must agree with the baseline path.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <vector>

#include "backend/common/iter.h"
#include "backend/common/philox.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/blas.h"
#include "backend/kernels/elementwise.h"
#include "backend/kernels/random.h"
#include "backend/kernels/reduce.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/view.h"
#include "test_util.h"

namespace lucid {
namespace {

using test::cpu;
using test::iota;
using test::make;
using test::values;

// =============================================================================================
// Iter

TEST(Iter, ContiguousTensorCoalescesToOneDim) {
  Tensor t = iota({2, 3, 4});
  auto it = Iter<1>::make({t.get()});
  EXPECT_EQ(it.ndim, 1);
  EXPECT_EQ(it.numel, 24);
  EXPECT_EQ(it.shape[0], 24);
  EXPECT_EQ(it.strides[0][0], 4);
  EXPECT_TRUE(it.contiguous);
  EXPECT_EQ(it.base[0], static_cast<char*>(t->data_ptr()));

  Tensor a = iota({2, 3, 4}, Dtype::F64), b = iota({2, 3, 4}, Dtype::F64), o = iota({2, 3, 4}, Dtype::F64);
  auto it3 = Iter<3>::make({o.get(), a.get(), b.get()});
  EXPECT_EQ(it3.ndim, 1);
  EXPECT_TRUE(it3.contiguous);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(it3.strides[k][0], 8);

  Tensor s = make<float>({1.0f}, {});
  auto it0 = Iter<1>::make({s.get()});
  EXPECT_EQ(it0.ndim, 1);
  EXPECT_EQ(it0.shape[0], 1);
  EXPECT_TRUE(it0.contiguous);
}

TEST(Iter, TransposedTensorDoesNotCoalesce) {
  Tensor base = iota({3, 4});
  Tensor t = transpose(base, 0, 1);  // (4, 3), strides (1, 4)
  auto it = Iter<1>::make({t.get()});
  EXPECT_EQ(it.ndim, 2);
  EXPECT_FALSE(it.contiguous);
  EXPECT_EQ(it.shape[0], 3);  // innermost first
  EXPECT_EQ(it.shape[1], 4);
  EXPECT_EQ(it.strides[0][0], 16);
  EXPECT_EQ(it.strides[0][1], 4);

  // A contiguous output with a transposed input: the output alone would coalesce, the pair not.
  Tensor out = TensorImpl::empty({4, 3}, Dtype::F32, cpu());
  auto it2 = Iter<2>::make({out.get(), t.get()});
  EXPECT_EQ(it2.ndim, 2);
  EXPECT_FALSE(it2.contiguous);
  EXPECT_EQ(it2.strides[0][0], 4);
  EXPECT_EQ(it2.strides[0][1], 12);
  EXPECT_EQ(it2.strides[1][0], 16);
  EXPECT_EQ(it2.strides[1][1], 4);
}

TEST(Iter, PartialCoalescing) {
  // (2, 3, 4) taken with step 2 from (4, 3, 4): the inner two dims merge, the outer does not.
  Tensor big = iota({4, 3, 4});
  Tensor t = slice(big, 0, 0, std::nullopt, 2);
  ASSERT_EQ(t->strides(), (Strides{24, 4, 1}));
  auto it = Iter<1>::make({t.get()});
  EXPECT_EQ(it.ndim, 2);
  EXPECT_EQ(it.shape[0], 12);
  EXPECT_EQ(it.shape[1], 2);
  EXPECT_EQ(it.strides[0][0], 4);
  EXPECT_EQ(it.strides[0][1], 96);
  EXPECT_FALSE(it.contiguous);

  // Broadcast input (stride 0) blocks the merge for the pair.
  Tensor out = TensorImpl::empty({3, 4}, Dtype::F32, cpu());
  Tensor row = expand(iota({4}), {3, 4});
  auto it2 = Iter<2>::make({out.get(), row.get()});
  EXPECT_EQ(it2.ndim, 2);
  EXPECT_EQ(it2.strides[1][0], 4);
  EXPECT_EQ(it2.strides[1][1], 0);

  // Size-1 dims are dropped before coalescing.
  Tensor o3 = TensorImpl::empty({3, 1, 4}, Dtype::F32, cpu());
  Tensor in3 = as_strided(iota({24}), {3, 1, 4}, {8, 1, 1}, 0);
  auto it3 = Iter<2>::make({o3.get(), in3.get()});
  EXPECT_EQ(it3.ndim, 2);
  EXPECT_EQ(it3.shape[0], 4);
  EXPECT_EQ(it3.shape[1], 3);
  EXPECT_EQ(it3.strides[1][1], 32);

  // Fully dense after dropping size-1 dims with odd strides: one flat run.
  Tensor o4 = as_strided(iota({12}), {3, 1, 4}, {4, 100, 1}, 0);
  auto it4 = Iter<1>::make({o4.get()});
  EXPECT_EQ(it4.ndim, 1);
  EXPECT_TRUE(it4.contiguous);
}

// Elements visited by for_range over [b, e), as float values.
std::vector<float> visit(const Iter<1>& it, int64_t b, int64_t e) {
  std::vector<float> out;
  it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out.push_back(*reinterpret_cast<const float*>(p[0] + i * s[0]));
  });
  return out;
}

TEST(Iter, ForRangeWalksRowMajorOrderFromAnyStart) {
  Tensor t = permute(iota({3, 4, 5}), {2, 0, 1});  // (5, 3, 4)
  const auto expected = values<float>(t);
  auto it = Iter<1>::make({t.get()});
  ASSERT_EQ(it.numel, 60);
  EXPECT_EQ(visit(it, 0, 60), expected);
  for (int64_t cut : {1, 4, 7, 12, 13, 59}) {
    auto a = visit(it, 0, cut), b = visit(it, cut, 60);
    a.insert(a.end(), b.begin(), b.end());
    EXPECT_EQ(a, expected) << "split at " << cut;
  }
  EXPECT_TRUE(visit(it, 10, 10).empty());
  const auto mid = visit(it, 17, 23);
  EXPECT_EQ(mid, std::vector<float>(expected.begin() + 17, expected.begin() + 23));
}

// =============================================================================================
// Philox-4x32-10

TEST(Philox, MatchesRandom123KnownAnswers) {
  // Random123 kat_vectors: counter (0, 0, 0, 0), key (0, 0).
  const Philox4 r = philox4x32(0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
  // counter (5, 7, 0, 0), key (11, 13): the 64-bit counter and seed map low word first.
  const Philox4 q = philox4x32((uint64_t(7) << 32) | 5, (uint64_t(13) << 32) | 11);
  EXPECT_EQ(q.v[0], 0x4408135du);
  EXPECT_EQ(q.v[1], 0xb7556a55u);
  EXPECT_EQ(q.v[2], 0x79112fb8u);
  EXPECT_EQ(q.v[3], 0x99bbd3bfu);
}

TEST(Philox, UniformsAreInUnitInterval) {
  EXPECT_EQ(philox_u01f(0), 0.0f);
  EXPECT_LT(philox_u01f(0xffffffffu), 1.0f);
  EXPECT_EQ(philox_u01d(0, 0), 0.0);
  EXPECT_LT(philox_u01d(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(philox_u01d(0x80000000u, 0), 0.5);
  double u1, u2, w1, w2;
  philox_uniform2(42, 10, 5, &u1, &u2);
  philox_uniform2(42, 0, 15, &w1, &w2);  // offset + i is all that matters
  EXPECT_EQ(u1, w1);
  EXPECT_EQ(u2, w2);
  EXPECT_NE(u1, u2);
}

// =============================================================================================
// Kernel registration

TEST(Kernels, CpuKernelsAreRegistered) {
  EXPECT_NE(fill_kernel(cpu()).fn, nullptr);
  EXPECT_NE(copy_kernel(cpu()).fn, nullptr);
  EXPECT_NE(binary_kernel(cpu()).fn, nullptr);
  EXPECT_NE(sum_kernel(cpu()).fn, nullptr);
  EXPECT_NE(gemm_kernel(cpu()).fn, nullptr);
  EXPECT_NE(random_kernel(cpu()).fn, nullptr);
  EXPECT_STREQ(binary_kernel.family, "binary_kernel");
#ifndef LUCID_WITH_CUDA
  EXPECT_LUCID_ERROR_MSG(binary_kernel(Device(DeviceType::CUDA, 0)), NotImplemented, "[binary_kernel]");
#endif
}

TEST(Kernels, BinaryKernelTakesExpandedInputsAndAlpha) {
  Tensor out = TensorImpl::empty({2, 3}, Dtype::F32, cpu());
  Tensor a = iota({2, 3});
  Tensor b = expand(make<float>({1, 2, 3}), {2, 3});
  binary_kernel(cpu())(BinaryOp::Sub, *out, *a, *b, Scalar::from_double(2.0));
  EXPECT_EQ(values<float>(out), (std::vector<float>{-2, -3, -4, 1, 0, -1}));
  Tensor s = make<float>({10.0f}, {});
  binary_kernel(cpu())(BinaryOp::Div, *out, *expand(s, {2, 3}), *a, Scalar::from_int(1));
  const auto v = values<float>(out);
  EXPECT_TRUE(std::isinf(v[0]));
  EXPECT_EQ(v[5], 2.0f);
}

TEST(Kernels, SumOverMoreThanSixteenUnmergeableDims) {
  Shape s(17, 2);
  Tensor t = reshape(ones({int64_t(1) << 17}, Dtype::F32, cpu()), s);  // a view: no Iter involved
  std::vector<int64_t> perm;
  for (int64_t i = 16; i >= 0; --i) perm.push_back(i);
  Tensor r;
  auto err = test::catch_error([&] { r = sum(permute(t, perm), std::nullopt); });
  if (err) EXPECT_EQ(err->kind(), ErrorKind::NotImplemented) << err->what();
  else EXPECT_EQ(values<float>(r)[0], 131072.0f);
}

// =============================================================================================
// parallel_for

struct ThreadsGuard {
  int saved = cpu::get_num_threads();
  ~ThreadsGuard() { cpu::set_num_threads(saved); }
};

void check_covers_once(int64_t begin, int64_t end, int64_t grain) {
  const int64_t n = end - begin;
  std::vector<std::atomic<int>> hits(size_t(std::max<int64_t>(n, 0)));
  std::atomic<int> calls{0};
  bool out_of_range = false;
  std::mutex mu;
  cpu::parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    ++calls;
    if (b < begin || e > end || b >= e) {
      std::lock_guard<std::mutex> g(mu);
      out_of_range = true;
      return;
    }
    for (int64_t i = b; i < e; ++i) hits[size_t(i - begin)].fetch_add(1);
  });
  EXPECT_FALSE(out_of_range) << begin << ".." << end << " grain " << grain;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(hits[size_t(i)].load(), 1) << "index " << begin + i << " of " << begin << ".." << end << " grain " << grain;
  if (n <= 0) {
    EXPECT_EQ(calls.load(), 0);
  } else if (n <= grain) {
    EXPECT_EQ(calls.load(), 1);  // small work runs inline, in one piece
  }
  if (n > grain) {
    const int64_t expect = std::min<int64_t>(cpu::get_num_threads(), (n + grain - 1) / grain);
    EXPECT_LE(calls.load(), expect);
    EXPECT_GE(calls.load(), 1);
  }
}

TEST(ParallelFor, CoversRangeExactlyOnce) {
  ThreadsGuard guard;
  for (int threads : {1, 2, 3, 4, 7}) {
    cpu::set_num_threads(threads);
    EXPECT_EQ(cpu::get_num_threads(), threads);
    for (int64_t n : {0, 1, 2, 7, 100, 1000, 32768, 32769, 100003}) {
      for (int64_t grain : {int64_t(1), int64_t(10), int64_t(1000), cpu::kGrainSize}) {
        check_covers_once(0, n, grain);
        check_covers_once(1000, 1000 + n, grain);
      }
    }
  }
  check_covers_once(5, 3, 1);  // empty (reversed) range: no call
}

// Run by the ctest entry lucid_engine_tests.omp_thread_limit (OMP_THREAD_LIMIT=2): OpenMP may
// give a parallel region fewer threads than asked for (thread limit, OMP_DYNAMIC), and the
// chunks must still all run.
TEST(ParallelFor, CoversRangeWhenOpenMPGivesFewerThreads) {
#ifdef _OPENMP
  if (omp_get_thread_limit() >= 4) GTEST_SKIP() << "needs OMP_THREAD_LIMIT < 4 (see tests/engine/CMakeLists.txt)";
#endif
  ThreadsGuard guard;
  cpu::set_num_threads(4);
  for (int64_t n : {7, 100, 1000, 100003}) check_covers_once(0, n, 1);
  Tensor t = ones({1000000}, Dtype::F32, cpu());
  EXPECT_EQ(values<float>(sum(t, std::nullopt))[0], 1e6f);
}

TEST(ParallelFor, UsesSeveralThreadsAndRunsNestedCallsInline) {
  ThreadsGuard guard;
  cpu::set_num_threads(4);
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::atomic<int> nested_calls{0};
  std::atomic<bool> nested_ok{true};
  cpu::parallel_for(0, 4000, 100, [&](int64_t b, int64_t e) {
    {
      std::lock_guard<std::mutex> g(mu);
      chunks.emplace_back(b, e);
    }
    EXPECT_TRUE(cpu::in_parallel_region());
    // A nested parallel_for runs on this thread, in one piece.
    int inner = 0;
    cpu::parallel_for(0, 100000, 1, [&](int64_t ib, int64_t ie) {
      ++inner;
      if (ib != 0 || ie != 100000) nested_ok = false;
    });
    if (inner != 1) nested_ok = false;
    ++nested_calls;
  });
  EXPECT_EQ(chunks.size(), 4u);
  std::sort(chunks.begin(), chunks.end());
  EXPECT_EQ(chunks.front().first, 0);
  EXPECT_EQ(chunks.back().second, 4000);
  for (size_t i = 1; i < chunks.size(); ++i) EXPECT_EQ(chunks[i].first, chunks[i - 1].second);
  EXPECT_TRUE(nested_ok.load());
  EXPECT_EQ(nested_calls.load(), 4);
  EXPECT_FALSE(cpu::in_parallel_region());
  EXPECT_LUCID_ERROR(cpu::set_num_threads(0), Value);
}

TEST(ParallelFor, KernelResultsDoNotDependOnThreadCount) {
  ThreadsGuard guard;
  auto g = std::make_shared<Generator>(11);
  Tensor a = TensorImpl::empty({300001}, Dtype::F32, cpu());
  Tensor b = TensorImpl::empty({300001}, Dtype::F32, cpu());
  random_(a, RandomDist::Normal, 0, 1, g);
  random_(b, RandomDist::Normal, 0, 1, g);
  std::string ref_add, ref_cast, ref_rows;
  for (int threads : {1, 2, 4}) {
    cpu::set_num_threads(threads);
    const std::string s_add = to_bytes(mul(a, b));
    const std::string s_cast = to_bytes(cast(a, Dtype::BF16));
    const std::string s_rows = to_bytes(sum(reshape(a, {1, 300001}), std::vector<int64_t>{0}));
    if (ref_add.empty()) {
      ref_add = s_add, ref_cast = s_cast, ref_rows = s_rows;
    } else {
      EXPECT_EQ(s_add, ref_add) << threads << " threads";
      EXPECT_EQ(s_cast, ref_cast) << threads << " threads";
      EXPECT_EQ(s_rows, ref_rows) << threads << " threads";
    }
  }
}

// =============================================================================================
// Per-ISA loops

struct IsaGuard {
  cpu::Isa saved = cpu::isa();
  ~IsaGuard() { cpu::set_isa(saved); }
};

std::vector<cpu::Isa> isas_to_test() {
  std::vector<cpu::Isa> v;
  for (int i = 0; i <= int(cpu::detected_isa()); ++i) v.push_back(cpu::Isa(i));
  return v;
}

TEST(Isa, SelectionAndClamping) {
  IsaGuard guard;
  EXPECT_STREQ(cpu::isa_name(cpu::Isa::Baseline), "baseline");
  EXPECT_STREQ(cpu::isa_name(cpu::Isa::AVX2), "avx2");
  EXPECT_STREQ(cpu::isa_name(cpu::Isa::AVX512), "avx512");
  EXPECT_LE(int(cpu::isa()), int(cpu::detected_isa()));
  EXPECT_EQ(cpu::set_isa(cpu::Isa::Baseline), cpu::Isa::Baseline);
  EXPECT_EQ(cpu::isa(), cpu::Isa::Baseline);
  EXPECT_EQ(cpu::set_isa(cpu::Isa::AVX512), cpu::detected_isa());  // clamped to the CPU
  std::printf("[ info ] detected ISA: %s\n", cpu::isa_name(cpu::detected_isa()));
}

TEST(Isa, EnvironmentVariableForcesALowerPath) {
  IsaGuard guard;
  const char* old = std::getenv("LUCID_CPU_ISA");
  const std::string saved = old ? old : "";
  setenv("LUCID_CPU_ISA", "baseline", 1);
  EXPECT_EQ(cpu::reset_isa_from_env(), cpu::Isa::Baseline);
  setenv("LUCID_CPU_ISA", "avx512", 1);
  EXPECT_EQ(cpu::reset_isa_from_env(), cpu::detected_isa());
  setenv("LUCID_CPU_ISA", "sse9", 1);
  EXPECT_LUCID_ERROR(cpu::reset_isa_from_env(), Value);
  if (old) setenv("LUCID_CPU_ISA", saved.c_str(), 1);
  else unsetenv("LUCID_CPU_ISA");
}

// Inputs of each dtype with values that exercise rounding (floats) or wrap-around (integers).
Tensor random_input(Dtype dt, const Shape& shape, uint64_t seed) {
  auto g = std::make_shared<Generator>(seed);
  Tensor t = TensorImpl::empty(shape, dt, cpu());
  if (is_floating(dt) || is_complex(dt)) {
    Tensor f = TensorImpl::empty(shape, Dtype::F64, cpu());
    random_(f, RandomDist::Normal, 0, 100, g);
    copy_(t, f);
    if (is_complex(dt)) {  // give the imaginary parts values too
      Tensor im = TensorImpl::empty(shape, Dtype::F64, cpu());
      random_(im, RandomDist::Normal, 0, 100, g);
      copy_(t, add(t, mul(cast(im, dt), Scalar::from_complex(0, 1))));
    }
  } else if (dt == Dtype::Bool) {
    random_(t, RandomDist::Bernoulli, 0.5, 0, g);
  } else {
    const double lo = dt == Dtype::U8 ? 0 : -100, hi = dt == Dtype::U8 ? 256 : 100;
    random_(t, RandomDist::Integer, lo, hi, g);
  }
  return t;
}

// Every elementwise/reduction result of interest, as bytes, computed on the current ISA.
std::vector<std::string> isa_results(Dtype dt) {
  const Shape shape{317, 211};  // odd sizes: vector bodies and scalar tails
  Tensor a = random_input(dt, shape, 1), b = random_input(dt, shape, 2);
  Tensor row = random_input(dt, {211}, 3);
  std::vector<std::string> r;
  const bool is_bool = dt == Dtype::Bool;
  r.push_back(to_bytes(add(a, b)));                                  // contiguous
  r.push_back(to_bytes(add(a, row)));                                // broadcast inner (stride 0)
  r.push_back(to_bytes(add(transpose(a, 0, 1), transpose(b, 0, 1))));  // strided
  r.push_back(to_bytes(add(a, Scalar::from_int(3))));                // scalar
  r.push_back(to_bytes(mul(a, b)));
  if (!is_bool) {
    r.push_back(to_bytes(sub(a, b)));
    r.push_back(to_bytes(div(a, b)));
  }
  r.push_back(to_bytes(sum(a, std::nullopt)));                        // one output, split
  r.push_back(to_bytes(sum(a, std::vector<int64_t>{1})));             // contiguous rows
  r.push_back(to_bytes(sum(a, std::vector<int64_t>{0})));             // strided columns
  r.push_back(to_bytes(sum(slice(a, 1, 0, std::nullopt, 3), std::nullopt)));
  for (Dtype to : {Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::I32, Dtype::C64})
    if (to != dt) r.push_back(to_bytes(cast(a, to)));
  return r;
}

TEST(Isa, BinaryAndSumMatchBaselineOnEveryIsa) {
  IsaGuard guard;
  for (Dtype dt : {Dtype::F32, Dtype::F64, Dtype::F16, Dtype::BF16, Dtype::I32, Dtype::I64, Dtype::I8, Dtype::U8,
                   Dtype::Bool, Dtype::C64, Dtype::C128}) {
    SCOPED_TRACE(dtype_name(dt));
    ASSERT_EQ(cpu::set_isa(cpu::Isa::Baseline), cpu::Isa::Baseline);
    const auto ref = isa_results(dt);
    for (cpu::Isa i : isas_to_test()) {
      ASSERT_EQ(cpu::set_isa(i), i);
      const auto got = isa_results(dt);
      ASSERT_EQ(got.size(), ref.size());
      for (size_t k = 0; k < ref.size(); ++k) EXPECT_TRUE(got[k] == ref[k]) << cpu::isa_name(i) << ", result #" << k;
    }
  }
}

TEST(Isa, FloatSumIsExactOnEveryIsa) {
  IsaGuard guard;
  Tensor ones_ = ones({3000001}, Dtype::F32, cpu());
  Tensor quarters = full({4000}, Scalar::from_double(0.25), Dtype::F16, cpu());
  for (cpu::Isa i : isas_to_test()) {
    cpu::set_isa(i);
    EXPECT_EQ(values<float>(sum(ones_, std::nullopt))[0], 3000001.0f) << cpu::isa_name(i);
    EXPECT_EQ(float(values<Half>(sum(quarters, std::nullopt))[0]), 1000.0f) << cpu::isa_name(i);
  }
}

TEST(Isa, AddWithAlphaMatchesBaselineOnEveryIsa) {
  // out = a + alpha * b: a fused multiply-add in one ISA and not in another changes the rounding.
  IsaGuard guard;
  const Shape shape{1001};
  Tensor a = random_input(Dtype::F32, shape, 5), b = random_input(Dtype::F32, shape, 6);
  cpu::set_isa(cpu::Isa::Baseline);
  const std::string ref = to_bytes(add(a, b, Scalar::from_double(0.1)));
  const std::string ref_sub = to_bytes(sub(a, b, Scalar::from_double(0.3)));
  for (cpu::Isa i : isas_to_test()) {
    cpu::set_isa(i);
    EXPECT_TRUE(to_bytes(add(a, b, Scalar::from_double(0.1))) == ref) << cpu::isa_name(i);
    EXPECT_TRUE(to_bytes(sub(a, b, Scalar::from_double(0.3))) == ref_sub) << cpu::isa_name(i);
  }
}

}  // namespace
}  // namespace lucid
