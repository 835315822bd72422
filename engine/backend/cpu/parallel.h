#pragma once
// parallel_for over [begin, end) in chunks of at least `grain` (OpenMP underneath). Small work
// runs inline on the calling thread: threads cost more than they save below the grain.
#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace lucid::cpu {

int get_num_threads();
void set_num_threads(int n);  // also sets OpenBLAS's thread count
bool in_parallel_region();
// Flush-to-zero and denormals-are-zero for float math on this thread and every worker thread (as
// torch.set_flush_denormal). Returns false, changing nothing, where the CPU lacks the modes.
bool set_flush_denormal(bool on);
bool flush_denormal();

constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, F&& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
#ifdef _OPENMP
  const int nt = get_num_threads();
  if (nt > 1 && n > grain && !in_parallel_region()) {
    int64_t chunks = std::min<int64_t>(nt, (n + grain - 1) / grain);
#pragma omp parallel num_threads(int(chunks))
    {
      // OpenMP may grant fewer threads than asked (OMP_THREAD_LIMIT, OMP_DYNAMIC): split by what we got.
      const int64_t nth = omp_get_num_threads();
      const int64_t tid = omp_get_thread_num();
      const int64_t per = (n + nth - 1) / nth;
      const int64_t b = begin + tid * per;
      const int64_t e = std::min(end, b + per);
      if (b < e) f(b, e);
    }
    return;
  }
#endif
  f(begin, end);
}

}  // namespace lucid::cpu
