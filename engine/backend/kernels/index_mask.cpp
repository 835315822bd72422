// The mask selection kernel stub; backends fill it in from their own files.
#include "backend/kernels/index_mask.h"

namespace lucid {
LUCID_DEFINE_KERNEL(masked_select_kernel)
}  // namespace lucid
