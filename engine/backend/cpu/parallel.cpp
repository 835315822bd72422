#include "backend/cpu/parallel.h"

#include <atomic>
#include <thread>

#include "core/error.h"

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

}  // namespace lucid::cpu
