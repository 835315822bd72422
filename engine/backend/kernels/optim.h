#pragma once
// Fused optimizer updates: one pass over a parameter's elements updates it and its state in place.
// All operands contiguous, one shape, one dtype (float16/bfloat16 compute in float32). The scalars
// that depend on the step count (bias corrections, decayed learning rates, ...) are computed by the
// op layer (ops/optim.h) and handed in the argument structs.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// One parameter's operands: the parameter, its gradient, then the optimizer's state tensors in the
// order each kernel lists (null where an option leaves one out).
struct OptimOperands {
  static constexpr int kMax = 6;
  const TensorImpl* t[kMax] = {};
  const TensorImpl& param() const { return *t[0]; }
};

struct SgdArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;  // first_step: the momentum buffer takes the gradient as it is
};
// state: momentum_buffer (null when momentum == 0).
LUCID_DECLARE_KERNEL(sgd_kernel, void (*)(const OptimOperands& o, const SgdArgs& a))

struct AdamArgs {
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;  // the step count after this update (>= 1)
  bool amsgrad, maximize, decoupled_weight_decay;
};
// state: exp_avg, exp_avg_sq, max_exp_avg_sq (null without amsgrad).
LUCID_DECLARE_KERNEL(adam_kernel, void (*)(const OptimOperands& o, const AdamArgs& a))

struct RmspropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
// state: square_avg, grad_avg (centered), momentum_buffer (momentum > 0).
LUCID_DECLARE_KERNEL(rmsprop_kernel, void (*)(const OptimOperands& o, const RmspropArgs& a))

struct AdagradArgs {
  double clr, eps, weight_decay;  // clr = lr / (1 + (step - 1) * lr_decay)
  bool maximize;
};
// state: sum.
LUCID_DECLARE_KERNEL(adagrad_kernel, void (*)(const OptimOperands& o, const AdagradArgs& a))

struct AdadeltaArgs {
  double lr, rho, eps, weight_decay;
  bool maximize;
};
// state: square_avg, acc_delta.
LUCID_DECLARE_KERNEL(adadelta_kernel, void (*)(const OptimOperands& o, const AdadeltaArgs& a))

struct AdamaxArgs {
  double clr, beta1, beta2, eps, weight_decay;  // clr = lr / (1 - beta1^step)
  bool maximize;
};
// state: exp_avg, exp_inf.
LUCID_DECLARE_KERNEL(adamax_kernel, void (*)(const OptimOperands& o, const AdamaxArgs& a))

struct NadamArgs {
  double lr, beta1, beta2, eps, weight_decay, bias_correction2;
  double grad_coef, avg_coef;  // the two addcdiv values: -lr (1 - mu) / (1 - mu_prod), -lr mu_next / (1 - mu_prod_next)
  bool decoupled_weight_decay, maximize;
};
// state: exp_avg, exp_avg_sq.
LUCID_DECLARE_KERNEL(nadam_kernel, void (*)(const OptimOperands& o, const NadamArgs& a))

struct RadamArgs {
  double lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2_sqrt, rect;
  bool rectified, decoupled_weight_decay, maximize;  // rectified: rho_t > 5 (rect and the adaptive lr apply)
};
// state: exp_avg, exp_avg_sq.
LUCID_DECLARE_KERNEL(radam_kernel, void (*)(const OptimOperands& o, const RadamArgs& a))

struct AsgdArgs {
  double eta, lambd, mu, weight_decay;  // eta and mu: the values before this step's update
  bool maximize;
};
// state: ax.
LUCID_DECLARE_KERNEL(asgd_kernel, void (*)(const OptimOperands& o, const AsgdArgs& a))

struct RpropArgs {
  double etaminus, etaplus, step_size_min, step_size_max;
  bool maximize;
};
// state: prev, step_size.
LUCID_DECLARE_KERNEL(rprop_kernel, void (*)(const OptimOperands& o, const RpropArgs& a))

struct SparseAdamArgs {
  double beta1, beta2, eps, step_size;  // step_size = lr * sqrt(1 - beta2^step) / (1 - beta1^step)
  bool maximize;
};
// state: exp_avg, exp_avg_sq. Rows (slices along dim 0; the elements of a 1-d parameter, the one
// element of a 0-d one) whose gradient is entirely zero count as absent from a sparse gradient: they
// and their state are left as they are.
LUCID_DECLARE_KERNEL(sparse_adam_kernel, void (*)(const OptimOperands& o, const SparseAdamArgs& a))

}  // namespace lucid
