#include "backend/kernels/special.h"

namespace lucid {

LUCID_DEFINE_KERNEL(special_kernel)
LUCID_DEFINE_KERNEL(special_binary_kernel)

}  // namespace lucid
