// The attention kernel stubs (backend/kernels/attention.h).
#include "backend/kernels/attention.h"

namespace lucid {
LUCID_DEFINE_KERNEL(attention_forward_kernel)
LUCID_DEFINE_KERNEL(attention_backward_kernel)
LUCID_DEFINE_KERNEL(attention_dropout_mask_kernel)
LUCID_DEFINE_KERNEL(softmax_backward_kernel)
LUCID_DEFINE_KERNEL(layer_norm_backward_kernel)
}  // namespace lucid
