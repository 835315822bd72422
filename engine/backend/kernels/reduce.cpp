// The reduce family's kernel stubs beyond sum (sum_kernel is defined in kernels.cpp).
#include "backend/kernels/reduce.h"

namespace lucid {
LUCID_DEFINE_KERNEL(reduce_kernel)
LUCID_DEFINE_KERNEL(scan_kernel)
}  // namespace lucid
