// The convolution kernel stubs (backend/kernels/conv.h).
#include "backend/kernels/conv.h"

namespace lucid {
LUCID_DEFINE_KERNEL(vol2col_kernel)
LUCID_DEFINE_KERNEL(col2vol_kernel)
LUCID_DEFINE_KERNEL(conv_kernel)
LUCID_DEFINE_KERNEL(conv_transpose_kernel)
LUCID_DEFINE_KERNEL(conv_weight_kernel)
}  // namespace lucid
