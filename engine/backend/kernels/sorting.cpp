// The sorting family's kernel stubs; backends fill them in from their own files.
#include "backend/kernels/sorting.h"

namespace lucid {
LUCID_DEFINE_KERNEL(sort_kernel)
LUCID_DEFINE_KERNEL(topk_kernel)
LUCID_DEFINE_KERNEL(select_kernel)
LUCID_DEFINE_KERNEL(mode_kernel)
LUCID_DEFINE_KERNEL(searchsorted_kernel)
LUCID_DEFINE_KERNEL(histc_kernel)
LUCID_DEFINE_KERNEL(histogram_edges_kernel)
LUCID_DEFINE_KERNEL(bincount_kernel)
LUCID_DEFINE_KERNEL(unique_kernel)
LUCID_DEFINE_KERNEL(isin_kernel)
LUCID_DEFINE_KERNEL(quantile_kernel)
}  // namespace lucid
