#pragma once
// Fused optimizer updates: one pass over a parameter's elements updates it and its state in place.
// All operands contiguous, one shape, one dtype (float16/bfloat16 compute in float32).
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

struct SgdArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;  // first_step: the momentum buffer takes the gradient as it is
};
// buf may be null (momentum == 0).
LUCID_DECLARE_KERNEL(sgd_kernel, void (*)(const TensorImpl& param, const TensorImpl& grad, const TensorImpl* buf,
                                          const SgdArgs& a))

struct AdamArgs {
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;  // the step count after this update (>= 1)
  bool amsgrad, maximize, decoupled_weight_decay;
};
// max_exp_avg_sq may be null (amsgrad off).
LUCID_DECLARE_KERNEL(adam_kernel, void (*)(const TensorImpl& param, const TensorImpl& grad, const TensorImpl& exp_avg,
                                           const TensorImpl& exp_avg_sq, const TensorImpl* max_exp_avg_sq,
                                           const AdamArgs& a))

}  // namespace lucid
