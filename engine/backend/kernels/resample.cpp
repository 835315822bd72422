// The resampling kernel stubs (backend/kernels/resample.h).
#include "backend/kernels/resample.h"

namespace lucid {
LUCID_DEFINE_KERNEL(resample_interp_kernel)
LUCID_DEFINE_KERNEL(resample_interp_backward_kernel)
LUCID_DEFINE_KERNEL(grid_sample_kernel)
LUCID_DEFINE_KERNEL(grid_sample_backward_kernel)
LUCID_DEFINE_KERNEL(grid_sample_double_backward_kernel)
}  // namespace lucid
