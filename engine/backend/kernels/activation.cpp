// The activation kernel stubs (backend/kernels/activation.h).
#include "backend/kernels/activation.h"

namespace lucid {
LUCID_DEFINE_KERNEL(activation_kernel)
LUCID_DEFINE_KERNEL(activation_backward_kernel)
LUCID_DEFINE_KERNEL(rrelu_kernel)
}  // namespace lucid
