// The pointwise-loss kernel stubs (backend/kernels/loss.h).
#include "backend/kernels/loss.h"

namespace lucid {
LUCID_DEFINE_KERNEL(loss_kernel)
LUCID_DEFINE_KERNEL(ctc_loss_kernel)
LUCID_DEFINE_KERNEL(ctc_loss_backward_kernel)
}  // namespace lucid
