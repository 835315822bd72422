// The neural-network kernel stubs (backend/kernels/nn.h).
#include "backend/kernels/nn.h"

namespace lucid {
LUCID_DEFINE_KERNEL(max_pool2d_kernel)
LUCID_DEFINE_KERNEL(max_pool2d_backward_kernel)
LUCID_DEFINE_KERNEL(softmax_kernel)
LUCID_DEFINE_KERNEL(nll_kernel)
LUCID_DEFINE_KERNEL(nll_backward_kernel)
}  // namespace lucid

namespace lucid {
LUCID_DEFINE_KERNEL(layer_norm_kernel)
LUCID_DEFINE_KERNEL(batch_norm_kernel)
}  // namespace lucid
