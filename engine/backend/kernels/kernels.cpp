// The kernel stubs, defined once; backends fill them in from their own files.
#include "backend/kernels/blas.h"
#include "backend/kernels/elementwise.h"
#include "backend/kernels/random.h"
#include "backend/kernels/reduce.h"

namespace lucid {
LUCID_DEFINE_KERNEL(fill_kernel)
LUCID_DEFINE_KERNEL(copy_kernel)
LUCID_DEFINE_KERNEL(binary_kernel)
LUCID_DEFINE_KERNEL(unary_kernel)
LUCID_DEFINE_KERNEL(sum_kernel)
LUCID_DEFINE_KERNEL(gemm_kernel)
LUCID_DEFINE_KERNEL(random_kernel)
}  // namespace lucid
