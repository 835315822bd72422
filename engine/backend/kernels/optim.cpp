// The optimizer kernel stubs (backend/kernels/optim.h).
#include "backend/kernels/optim.h"

namespace lucid {
LUCID_DEFINE_KERNEL(sgd_kernel)
LUCID_DEFINE_KERNEL(adam_kernel)
}  // namespace lucid
