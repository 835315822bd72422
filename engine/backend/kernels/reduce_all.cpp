#include "backend/kernels/reduce_all.h"

namespace lucid {

LUCID_DEFINE_KERNEL(minmax_all_kernel)
LUCID_DEFINE_KERNEL(sqdev_all_kernel)

}  // namespace lucid
