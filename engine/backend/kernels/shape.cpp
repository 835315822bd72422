// The shape family's kernel stubs; backends fill them in from their own files.
#include "backend/kernels/shape.h"

namespace lucid {
LUCID_DEFINE_KERNEL(flip_kernel)
LUCID_DEFINE_KERNEL(tri_mask_kernel)
LUCID_DEFINE_KERNEL(pad_gather_kernel)
LUCID_DEFINE_KERNEL(pad_scatter_add_kernel)
}  // namespace lucid
