// A gather (out[p] = *(src[p] + idx[p] * mult)) that checks its indices while it reads them: one
// pass over the index instead of a range check and then the read (each block of indices is checked
// first, vectorised, and read while in L1). A block holding an index outside [0, size) is not read
// (nothing out of bounds) and marks the result failed; the op layer then finds the first bad index
// and raises.
#include <algorithm>
#include <atomic>

#include "backend/common/iter.h"
#include "backend/cpu/index_util.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/index_fused.h"

namespace lucid::cpu {

namespace {

constexpr int64_t kBlock = 256;  // indices checked (vectorised, then in L1 for the reads) per block

// Reads n elements; returns a value with its top bit set when some index was outside [0, size)
// (then the block holding it is not read: the result is thrown away).
template <typename U>
inline uint64_t read_run(char* o, int64_t so, const char* sp, int64_t ss, const char* ip, int64_t si, int64_t n,
                         int64_t mult, uint64_t size) {
  const uint64_t top = size - 1;
  uint64_t acc = 0;
  if (so == int64_t(sizeof(U)) && si == int64_t(sizeof(int64_t))) {
    U* op = reinterpret_cast<U*>(o);
    const uint64_t* ix = reinterpret_cast<const uint64_t*>(ip);
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      uint64_t bad = 0;
      for (int64_t i = b; i < b + m; ++i) bad |= ix[i] | (top - ix[i]);  // negative exactly when out of range
      if (bad >> 63) {
        acc |= bad;
        continue;
      }
      if (ss == 0 && mult == int64_t(sizeof(U))) {  // along the last dim of a contiguous row
        const U* row = reinterpret_cast<const U*>(sp);
        for (int64_t i = b; i < b + m; ++i) op[i] = row[ix[i]];
      } else {
        for (int64_t i = b; i < b + m; ++i) op[i] = *reinterpret_cast<const U*>(sp + i * ss + int64_t(ix[i]) * mult);
      }
    }
    return acc;
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = *reinterpret_cast<const uint64_t*>(ip + i * si);
    acc |= k | (top - k);
    *reinterpret_cast<U*>(o + i * so) = *reinterpret_cast<const U*>(sp + i * ss + int64_t(k < size ? k : 0) * mult);
  }
  return acc;
}

bool index_read_checked(const TensorImpl& out, const TensorImpl& src, const TensorImpl& idx, int64_t mult, int64_t size) {
  if (out.numel() == 0) return true;
  if (size <= 0) return false;  // every index is out of range (and there is nothing to read)
  auto it = Iter<3>::make({&out, &src, &idx});
  std::atomic<bool> ok{true};
  dispatch_width(out.element_size(), "gather", [&]<typename U>() {
    parallel_for(0, it.numel, kGrainSize / 4, [&](int64_t b, int64_t e) {
      uint64_t acc = 0;
      it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
        acc |= read_run<U>(p[0], s[0], p[1], s[1], p[2], s[2], n, mult, uint64_t(size));
      });
      if (acc >> 63) ok = false;
    });
  });
  return ok;
}

}  // namespace

LUCID_REGISTER_KERNEL(index_read_checked_kernel, CPU, &index_read_checked)

}  // namespace lucid::cpu
