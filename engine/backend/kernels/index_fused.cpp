// The fused indexing kernel stubs; backends fill them in from their own files.
#include "backend/kernels/index_fused.h"

namespace lucid {
LUCID_DEFINE_KERNEL(masked_select_kernel)
LUCID_DEFINE_KERNEL(index_read_checked_kernel)
LUCID_DEFINE_KERNEL(index_add_rows_kernel)
}  // namespace lucid
