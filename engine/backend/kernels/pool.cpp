// The generic pooling kernel stubs (backend/kernels/pool.h).
#include "backend/kernels/pool.h"

namespace lucid {
LUCID_DEFINE_KERNEL(pool_max_kernel)
LUCID_DEFINE_KERNEL(pool_avg_kernel)
LUCID_DEFINE_KERNEL(pool_avg_backward_kernel)
LUCID_DEFINE_KERNEL(pool_fractional_max_kernel)
}  // namespace lucid
