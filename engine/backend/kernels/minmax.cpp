#include "backend/kernels/minmax.h"

namespace lucid {

LUCID_DEFINE_KERNEL(minmax_all_kernel)

}  // namespace lucid
