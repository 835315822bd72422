// The optimizer kernel stubs (backend/kernels/optim.h).
#include "backend/kernels/optim.h"

namespace lucid {
LUCID_DEFINE_KERNEL(sgd_kernel)
LUCID_DEFINE_KERNEL(adam_kernel)
LUCID_DEFINE_KERNEL(rmsprop_kernel)
LUCID_DEFINE_KERNEL(adagrad_kernel)
LUCID_DEFINE_KERNEL(adadelta_kernel)
LUCID_DEFINE_KERNEL(adamax_kernel)
LUCID_DEFINE_KERNEL(nadam_kernel)
LUCID_DEFINE_KERNEL(radam_kernel)
LUCID_DEFINE_KERNEL(asgd_kernel)
LUCID_DEFINE_KERNEL(rprop_kernel)
LUCID_DEFINE_KERNEL(sparse_adam_kernel)
}  // namespace lucid
