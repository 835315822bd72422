// The products family's kernel stubs, filled in by backend/cpu/products.cpp.
#include "backend/kernels/products.h"

namespace lucid {
LUCID_DEFINE_KERNEL(cross_kernel)
LUCID_DEFINE_KERNEL(cdist_kernel)
}  // namespace lucid
