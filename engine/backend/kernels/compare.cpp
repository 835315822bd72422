// The binary family's bool-result and selection kernel stubs (backend/kernels/compare.h).
#include "backend/kernels/compare.h"

namespace lucid {
LUCID_DEFINE_KERNEL(compare_kernel)
LUCID_DEFINE_KERNEL(isclose_kernel)
LUCID_DEFINE_KERNEL(where_kernel)
LUCID_DEFINE_KERNEL(ternary_kernel)
}  // namespace lucid
