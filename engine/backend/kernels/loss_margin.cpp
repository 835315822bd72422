// The margin-loss kernel stubs (backend/kernels/loss_margin.h).
#include "backend/kernels/loss_margin.h"

namespace lucid {
LUCID_DEFINE_KERNEL(multi_margin_kernel)
LUCID_DEFINE_KERNEL(multi_margin_backward_kernel)
LUCID_DEFINE_KERNEL(multilabel_margin_kernel)
LUCID_DEFINE_KERNEL(multilabel_margin_backward_kernel)
}  // namespace lucid
