#include "backend/kernels/unary_ext.h"

namespace lucid {

LUCID_DEFINE_KERNEL(unary_pred_kernel)
LUCID_DEFINE_KERNEL(unary_complex_kernel)
LUCID_DEFINE_KERNEL(unary_misc_kernel)
LUCID_DEFINE_KERNEL(clamp_kernel)
LUCID_DEFINE_KERNEL(nan_to_num_kernel)
LUCID_DEFINE_KERNEL(logit_kernel)
LUCID_DEFINE_KERNEL(round_decimals_kernel)
LUCID_DEFINE_KERNEL(polygamma_kernel)

}  // namespace lucid
