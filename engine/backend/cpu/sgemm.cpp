// lucid's float32 GEMM (backend/cpu/sgemm.h), BLIS-style. The inner dimension in even blocks of at most
// KC; B packed once per call into k-major panels of NR = 16 * NV columns (zero-padded), shared by the
// threads, or read in place when it is row-major and fits L2; A packed per unit of rows into k-major
// panels of MR rows; then the micro-kernel (sgemm_kernel.h) over MR x NR tiles of C: MR rows of A
// broadcast against NV zmm vectors of a row of B, MR * NV accumulators. Threads: the rows of C split
// into equal shares taken unit by unit, a finished thread taking units left in the others' shares;
// B packed in chunks, one per thread, by whichever thread needs a chunk first (no barriers).
#include "backend/cpu/sgemm.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sched.h>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend/cpu/isa.h"
#include "backend/cpu/sgemm_kernel.h"

namespace lucid::cpu {

namespace {

#ifndef SG_MR
#define SG_MR 14
#endif
#ifndef SG_NV
#define SG_NV 2
#endif
#ifndef SG_KC
#define SG_KC 256
#endif
#ifndef SG_MC
#define SG_MC 168
#endif

constexpr int MR = SG_MR, NV = SG_NV, NR = 16 * NV;
constexpr int64_t KC = SG_KC, MC = SG_MC;
static_assert(MR <= 16 && MC % MR == 0, "sgemm blocking");
constexpr int64_t kL2Floats = int64_t(1) << 18;  // 1 MiB of packed B: half the L2 of the CPUs measured

// A 64-byte aligned scratch buffer per thread, grown on demand.
struct Buf {
  float* p = nullptr;
  size_t n = 0;
  ~Buf() { std::free(p); }
  float* get(size_t want) {
    if (want > n) {
      std::free(p);
      n = (want + 15) / 16 * 16;
      p = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
      if (!p) {
        n = 0;
        throw std::bad_alloc();
      }
    }
    return p;
  }
};
thread_local Buf t_apack, t_bpack, t_bpanel;

inline __mmask16 lanes(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1); }

// In-register 16 x 16 transpose: r[i] lane j -> r[j] lane i.
LUCID_AVX512 inline void transpose16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[4 + i], 0x88);
    t[4 + i] = _mm512_shuffle_f32x4(r[i], r[4 + i], 0xDD);
    t[8 + i] = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0x88);
    t[12 + i] = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0xDD);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
    r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
  }
}

// Pack rows [i0, i0 + mc) x inner [k0, k0 + kc) of A into MR-row panels (Ap + p * MR * kc, MR floats per k).
LUCID_AVX512 void pack_a(const float* A, int64_t lda, bool at, int64_t i0, int64_t mc, int64_t k0, int64_t kc,
                         float* Ap) {
  const __mmask16 mmr = lanes(MR);
  for (int64_t p = 0; p < mc; p += MR) {
    const int64_t R = std::min<int64_t>(MR, mc - p);
    float* dst = Ap + p * kc;
    if (at) {
      const float* src = A + k0 * lda + i0 + p;
      const __mmask16 mr = lanes(R);
      for (int64_t k = 0; k < kc; ++k)
        _mm512_mask_storeu_ps(dst + k * MR, mmr, _mm512_maskz_loadu_ps(mr, src + k * lda));
    } else {
      const float* src = A + (i0 + p) * lda + k0;
      for (int64_t kb = 0; kb < kc; kb += 16) {
        const int64_t nk = std::min<int64_t>(16, kc - kb);
        const __mmask16 mk = lanes(nk);
        __m512 r[16];
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) r[i] = i < R ? _mm512_maskz_loadu_ps(mk, src + i * lda + kb) : _mm512_setzero_ps();
        transpose16(r);
        if (nk == 16) {
#pragma GCC unroll 16
          for (int j = 0; j < 16; ++j) _mm512_mask_storeu_ps(dst + (kb + j) * MR, mmr, r[j]);
        } else {
          for (int j = 0; j < nk; ++j) _mm512_mask_storeu_ps(dst + (kb + j) * MR, mmr, r[j]);
        }
      }
    }
  }
}

// Pack columns [j0, j0 + nc) x inner [k0, k0 + kc) of B, panels [q0, q1) of NR columns
// (Bp + (q - qb) * NR * kc, NR floats per k, zero past the last column).
LUCID_AVX512 void pack_b(const float* B, int64_t ldb, bool bt, int64_t j0, int64_t nc, int64_t k0, int64_t kc,
                         float* Bp, int64_t q0, int64_t q1, int64_t qb = 0) {
  if (!bt) {  // rows of B read in order (the prefetchers stream them), each cut into its panels
    const int64_t nfull = std::min(q1, nc / NR), tail = nc - nfull * NR;
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = B + (k0 + k) * ldb + j0;
      int64_t q = q0;
      for (; q < nfull; ++q) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          _mm512_store_ps(Bp + (q - qb) * NR * kc + k * NR + 16 * v, _mm512_loadu_ps(src + q * NR + 16 * v));
      }
      if (q < q1) {  // the last, partial panel: zero past the last column
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          _mm512_store_ps(Bp + (q - qb) * NR * kc + k * NR + 16 * v,
                          _mm512_maskz_loadu_ps(lanes(std::max<int64_t>(0, tail - 16 * v)), src + q * NR + 16 * v));
      }
    }
    return;
  }
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t j = j0 + q * NR, n = std::min<int64_t>(NR, nc - q * NR);
    float* dst = Bp + (q - qb) * NR * kc;
    {  // B^T rows are contiguous in k: 16 x 16 blocks transposed
      for (int v = 0; v < NV; ++v) {
        const int64_t nv = std::max<int64_t>(0, std::min<int64_t>(16, n - 16 * v));
        const float* src = B + (j + 16 * v) * ldb + k0;
        for (int64_t kb = 0; kb < kc; kb += 16) {
          const int64_t nk = std::min<int64_t>(16, kc - kb);
          const __mmask16 mk = lanes(nk);
          __m512 r[16];
#pragma GCC unroll 16
          for (int i = 0; i < 16; ++i)
            r[i] = i < nv ? _mm512_maskz_loadu_ps(mk, src + i * ldb + kb) : _mm512_setzero_ps();
          transpose16(r);
          for (int t = 0; t < nk; ++t) _mm512_store_ps(dst + (kb + t) * NR + 16 * v, r[t]);
        }
      }
    }
  }
}

using Tiles = sgemm_kernel::Tiles<MR, NV, false, false>;  // packed A panels, B packed or in place

// Readiness of the packed B chunks (runs of panels) shared by the threads: 0 not packed, 1 being
// packed, 2 ready. Whichever thread first needs a chunk packs it (each starts with its own); no
// barrier, so a descheduled thread holds up the others only for a chunk it is packing.
struct Flags {
  std::atomic<uint8_t>* f = nullptr;
  size_t n = 0;
  ~Flags() { delete[] f; }
  std::atomic<uint8_t>* get(size_t want) {
    if (want > n) {
      delete[] f;
      n = want;
      f = new std::atomic<uint8_t>[n];
    }
    for (size_t i = 0; i < want; ++i) f[i].store(0, std::memory_order_relaxed);
    return f;
  }
};
thread_local Flags t_flags;

// The rows of C a thread starts with, taken unit by unit (`next` counts the units taken). A thread
// that has finished its own takes units from the others': balanced when every thread runs, and a
// descheduled thread's rows are done by the others instead of waited for.
struct alignas(64) Share {
  std::atomic<int64_t> next{0};
  int64_t r0 = 0, r1 = 0;
};

struct Job {
  int64_t M, N, K;
  const float* A;
  int64_t lda;
  bool at;
  const float* B;
  int64_t ldb;
  bool bt;
  float* C;
  int64_t ldc;
  float* Bp;                    // packed B (null when direct): block pc at Bp + pc * npad, panel q at + q * NR * kc
  int64_t npad;                 // N rounded up to NR
  std::atomic<uint8_t>* ready;  // per (pc block, chunk): whether that run of B panels is packed
  int64_t chunks;               // runs of B panels packed at once (one per thread)
  int64_t unit;                 // rows of C per unit of work (a multiple of MR, at most MC)
  bool direct;                  // B read in place (row-major, small enough to stay in L2), not packed
  bool panelwise;               // B packed one panel at a time into an L1 buffer (few rows of C, B large)
  int64_t kc;                   // depth of the blocks of the inner dimension: K split evenly, at most KC
};

// Rows [m0, m1) (at most MC) x columns [n0, n1) of C (n0, n1 multiples of NR, or n1 = N); chunk
// `cstart` first.
LUCID_AVX512 void run(const Job& j, int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t cstart) {
  float* Ap = t_apack.get(size_t(MC * KC));
  float* Bq = j.panelwise ? t_bpanel.get(size_t(NR * KC)) : nullptr;
  int64_t later[64];  // chunks another thread was packing: done after the others
  const int64_t q0 = n0 / NR, q1 = (n1 + NR - 1) / NR, nch = j.chunks, ic = m0, mc = m1 - m0;
  for (int64_t pc = 0; pc < j.K; pc += j.kc) {
    const int64_t kc = std::min(j.kc, j.K - pc);
    const bool acc = pc > 0;  // the first block of the inner dimension writes C, the others add to it
    pack_a(j.A, j.lda, j.at, ic, mc, pc, kc, Ap);
    float* Bpc = j.direct ? nullptr : j.Bp + pc * j.npad;
    // panels [qa, qb) of B against the rows of the A block: each A micro-panel held in L1 against
    // the B panels streamed from L2 when they fit there, else each B micro-panel held in L1 against
    // the A block streamed from L2
    auto compute = [&](int64_t qa, int64_t qb) {
      auto tile = [&](int64_t ir, int64_t q) {
        const int64_t rows = std::min<int64_t>(MR, mc - ir), jr = q * NR, n = std::min<int64_t>(NR, j.N - jr);
        const float* bp = j.direct ? j.B + pc * j.ldb + jr : j.panelwise ? Bq : Bpc + q * NR * kc;
        Tiles::get(rows, n)(kc, Ap + ir * kc, MR, bp, j.direct ? j.ldb : NR, nullptr, j.C + (ic + ir) * j.ldc + jr,
                            j.ldc, sgemm_kernel::last_lanes(n), acc, nullptr);
      };
      if (j.panelwise) {  // each B micro-panel packed into L1 and met by all the rows of the A block
        for (int64_t q = qa; q < qb; ++q) {
          pack_b(j.B, j.ldb, j.bt, 0, j.N, pc, kc, Bq, q, q + 1, q);
          for (int64_t ir = 0; ir < mc; ir += MR) tile(ir, q);
        }
      } else if ((qb - qa) * NR * kc <= kL2Floats) {
        for (int64_t ir = 0; ir < mc; ir += MR)
          for (int64_t q = qa; q < qb; ++q) tile(ir, q);
      } else {
        for (int64_t q = qa; q < qb; ++q)
          for (int64_t ir = 0; ir < mc; ir += MR) tile(ir, q);
      }
    };
    int64_t nlater = 0;
    for (int64_t ci = 0; ci < nch; ++ci) {
      const int64_t c = (cstart + ci) % nch, qa = q0 + (q1 - q0) * c / nch, qb = q0 + (q1 - q0) * (c + 1) / nch;
      std::atomic<uint8_t>& f = j.ready[(pc / j.kc) * nch + c];
      if (!j.direct && !j.panelwise && f.load(std::memory_order_acquire) != 2) {
        uint8_t expect = 0;
        if (!f.compare_exchange_strong(expect, 1, std::memory_order_acq_rel)) {
          later[nlater++] = c;
          continue;
        }
        pack_b(j.B, j.ldb, j.bt, 0, j.N, pc, kc, Bpc, qa, qb);
        f.store(2, std::memory_order_release);
      }
      compute(qa, qb);
    }
    for (int64_t li = 0; li < nlater; ++li) {
      const int64_t c = later[li];
      const std::atomic<uint8_t>& f = j.ready[(pc / j.kc) * nch + c];
      for (int spin = 0; f.load(std::memory_order_acquire) != 2; ++spin) {
        if (spin < 256) _mm_pause();
        else sched_yield();
      }
      compute(q0 + (q1 - q0) * c / nch, q0 + (q1 - q0) * (c + 1) / nch);
    }
  }
}

// Thread `tid` of `nth`: its own share of rows unit by unit, then (steal) units left in the others'.
LUCID_AVX512 void work(const Job& j, Share* shares, int64_t tid, int64_t nth, bool steal) {
  for (int64_t si = 0; si < (steal ? nth : 1); ++si) {
    Share& sh = shares[(tid + si) % nth];
    const int64_t units = (sh.r1 - sh.r0 + j.unit - 1) / j.unit;
    for (int64_t u; (u = sh.next.fetch_add(1, std::memory_order_relaxed)) < units;) {
      const int64_t r = sh.r0 + u * j.unit;
      run(j, r, std::min(sh.r1, r + j.unit), 0, j.N, tid);
    }
  }
}

}  // namespace

namespace {
std::atomic<int> g_mode{[] {
  const char* e = std::getenv("LUCID_SGEMM");
  return e && (e[0] == '0' || e[0] == '2') ? e[0] - '0' : 1;
}()};
}  // namespace

int sgemm_mode() { return g_mode.load(std::memory_order_relaxed); }
void set_sgemm_mode(int mode) { g_mode.store(std::clamp(mode, 0, 2), std::memory_order_relaxed); }

bool sgemm_available() { return sgemm_mode() != 0 && isa() == Isa::AVX512; }
int64_t sgemm_block_rows() { return MC; }

void sgemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool a_trans, const float* B,
               int64_t ldb, bool b_trans, float* C, int64_t ldc, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int64_t m = 0; m < M; ++m) std::memset(C + m * ldc, 0, size_t(N) * sizeof(float));
    return;
  }
  const int64_t nq = (N + NR - 1) / NR, npad = nq * NR, nk = (K + KC - 1) / KC, kc = (K + nk - 1) / nk;
  // Units of one MR panel of rows when all of packed B stays in L2 (each A micro-panel then meets
  // every B panel from L2), else of MC rows (each B micro-panel meets MC rows of A from L1).
  const int64_t unit = npad * K <= kL2Floats ? MR : MC;
  // B row-major and L2-sized: read in place, rows at its own stride (each B panel then meets each A
  // micro-panel from L2, as packed panels would): its packing cost more than it saved. When the rows
  // of C fit one block (M <= MC) and B is larger: each B micro-panel is packed into an L1 buffer just
  // before all of A's rows meet it (panelwise), instead of packing all of B first (a pass through
  // memory that was a large share of the time for so few rows) or reading it in place (rows a power
  // of two apart fall into few cache sets: 128x2048x2048 ran at 126 GFLOP/s on one thread).
  const bool direct = !b_trans && unit == MR, panelwise = unit == MC && M <= MC;
  t_apack.get(size_t(MC * KC));  // allocated here, where a failure can throw (the threads allocate theirs)
  if (panelwise) t_bpanel.get(size_t(NR * KC));
  Job j{M, N, K, A, lda, a_trans, B, ldb, b_trans, C, ldc,
        direct || panelwise ? nullptr : t_bpack.get(size_t(npad * K)), npad, nullptr, 1, unit, direct, panelwise, kc};
  int nt = std::max(1, std::min(threads, 64));
  const int64_t panels = (M + MR - 1) / MR;
#ifdef _OPENMP
  // Rows split among the threads (B packed once, shared), or columns when there are few rows (each
  // thread packs its own columns of B) or B is packed panel by panel (each thread its own panels).
  // B transposed (a linear layer's weight) goes by columns too when there are enough of them: each
  // thread packs (transposes) only its own columns and waits for no other's chunk (128x512x512 at 2
  // threads: 1.31 -> 1.01 of PyTorch's time; B row-major, shared chunks are as fast).
  const bool by_rows = (panels >= 4 * nt || panels >= nq) && !panelwise && !(b_trans && nq >= 4 * nt);
  nt = int(std::min<int64_t>(nt, by_rows ? panels : nq));
  if (nt > 1) {
    if (by_rows) {
      j.chunks = nt;
      j.ready = t_flags.get(size_t(nk * nt));
      Share shares[64];
      for (int t = 0; t < nt; ++t) {  // equal row counts (the short tail panel of each is cheap)
        shares[t].r0 = M * t / nt;
        shares[t].r1 = M * (t + 1) / nt;
      }
#pragma omp parallel num_threads(nt)
      work(j, shares, omp_get_thread_num(), nt, true);
      return;
    }
    std::atomic<uint8_t>* ready = t_flags.get(size_t(nk * nt));
#pragma omp parallel num_threads(nt)
    {
      const int64_t tid = omp_get_thread_num(), nth = omp_get_num_threads();
      Job jt = j;
      jt.ready = ready + tid * nk;
      const int64_t n0 = std::min(N, nq * tid / nth * NR), n1 = std::min(N, nq * (tid + 1) / nth * NR);
      for (int64_t r = 0; r < M && n0 < n1; r += unit) run(jt, r, std::min(M, r + unit), n0, n1, 0);
    }
    return;
  }
#endif
  j.ready = t_flags.get(size_t(nk));
  for (int64_t r = 0; r < M; r += unit) run(j, r, std::min(M, r + unit), 0, N, 0);
}

}  // namespace lucid::cpu
