// The indexing family's kernel stubs; backends fill them in from their own files.
#include "backend/kernels/indexing.h"

namespace lucid {
LUCID_DEFINE_KERNEL(index_read_kernel)
LUCID_DEFINE_KERNEL(index_write_kernel)
LUCID_DEFINE_KERNEL(masked_fill_kernel)
LUCID_DEFINE_KERNEL(count_nonzero_kernel)
LUCID_DEFINE_KERNEL(nonzero_kernel)
LUCID_DEFINE_KERNEL(divide_by_count_kernel)
LUCID_DEFINE_KERNEL(find_out_of_range_kernel)
LUCID_DEFINE_KERNEL(index_offsets_kernel)
}  // namespace lucid
