#include "backend/cpu/parallel.h"

#include <atomic>
#include <thread>

#include "core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define LUCID_HAS_MXCSR 1
#endif

extern "C" void openblas_set_num_threads(int);

namespace lucid::cpu {

namespace {
std::atomic<int> g_threads{0};
}

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n <= 0) {
#ifdef _OPENMP
    n = omp_get_max_threads();
#else
    n = 1;
#endif
    g_threads.store(n);
  }
  return n;
}

void set_num_threads(int n) {
  LUCID_CHECK(n >= 1, Value, "set_num_threads: expected a positive number of threads, got " << n);
  g_threads.store(n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  openblas_set_num_threads(n);
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

namespace {
#ifdef LUCID_HAS_MXCSR
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bits: flush to zero (15), denormals are zero (6)
void set_csr(bool on) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
}
#endif
}  // namespace

bool set_flush_denormal(bool on) {
#ifdef LUCID_HAS_MXCSR
  set_csr(on);
#ifdef _OPENMP
  // every thread of the pool (ours and OpenBLAS's: one OpenMP runtime); threads made later are
  // cloned from one that has the mode, and inherit it
  const int n = omp_get_max_threads();
#pragma omp parallel num_threads(n)
  set_csr(on);
#endif
  return true;
#else
  return false;
#endif
}

bool flush_denormal() {
#ifdef LUCID_HAS_MXCSR
  return (_mm_getcsr() & kFtzDaz) == kFtzDaz;
#else
  return false;
#endif
}

}  // namespace lucid::cpu
