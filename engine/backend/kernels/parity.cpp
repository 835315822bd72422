// The API-parity task's kernel stubs (backend/kernels/parity.h).
#include "backend/kernels/parity.h"

namespace lucid {
LUCID_DEFINE_KERNEL(embedding_bag_kernel)
LUCID_DEFINE_KERNEL(rms_norm_kernel)
LUCID_DEFINE_KERNEL(embedding_bag_backward_kernel)
}  // namespace lucid
