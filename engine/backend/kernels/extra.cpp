// The kernel stubs of lucid's own fused layers (backend/kernels/extra.h).
#include "backend/kernels/extra.h"

namespace lucid {
LUCID_DEFINE_KERNEL(rope_kernel)
LUCID_DEFINE_KERNEL(linear_act_epilogue_kernel)
}  // namespace lucid
