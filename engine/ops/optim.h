#pragma once
// Fused optimizer steps (lucid.optim's engine side). Each call updates a whole list of parameters
// (a param group) and their state in place, one kernel pass per parameter, outside autograd (as
// torch's fused/foreach optimizers), and bumps the versions of what it wrote. Every operand list
// has one entry per parameter; a state list that an option turns off is passed empty. `steps` are
// the per-parameter 0-d step-count tensors (PyTorch's state["step"]): each call adds one to them
// before the update, as PyTorch does. All lists are checked before anything is written.
#include <optional>
#include <vector>

#include "backend/kernels/optim.h"
#include "tensor/tensor_impl.h"

namespace lucid {

using TensorList = std::vector<Tensor>;
using OptTensorList = std::vector<std::optional<Tensor>>;

// Returns the momentum buffers: a None entry (the first step) gets a new buffer holding the gradient.
// (a.first_step is ignored.)
OptTensorList sgd_step_(const TensorList& params, const TensorList& grads, const OptTensorList& momentum_buffers,
                        const SgdArgs& a);
// a.step is ignored (each parameter's comes from `steps`).
void adam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                const OptTensorList& exp_avg_sqs, const OptTensorList& max_exp_avg_sqs, const TensorList& steps,
                const AdamArgs& a);
void rmsprop_step_(const TensorList& params, const TensorList& grads, const OptTensorList& square_avgs,
                   const OptTensorList& grad_avgs, const OptTensorList& momentum_buffers, const TensorList& steps,
                   const RmspropArgs& a);

struct AdagradOptions {
  double lr, lr_decay, eps, weight_decay;
  bool maximize;
};
void adagrad_step_(const TensorList& params, const TensorList& grads, const OptTensorList& sums,
                   const TensorList& steps, const AdagradOptions& o);
void adadelta_step_(const TensorList& params, const TensorList& grads, const OptTensorList& square_avgs,
                    const OptTensorList& acc_deltas, const TensorList& steps, const AdadeltaArgs& a);

struct AdamaxOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool maximize;
};
void adamax_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                  const OptTensorList& exp_infs, const TensorList& steps, const AdamaxOptions& o);

struct NadamOptions {
  double lr, beta1, beta2, eps, weight_decay, momentum_decay;
  bool decoupled_weight_decay, maximize;
};
// mu_products: the 0-d running products of the momentum schedule (PyTorch's float32 state).
void nadam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                 const OptTensorList& exp_avg_sqs, const TensorList& mu_products, const TensorList& steps,
                 const NadamOptions& o);

struct RadamOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled_weight_decay, maximize;
};
void radam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                 const OptTensorList& exp_avg_sqs, const TensorList& steps, const RadamOptions& o);

struct AsgdOptions {
  double lr, lambd, alpha, t0, weight_decay;
  bool maximize;
};
// etas, mus: the 0-d per-parameter eta and mu (read for this update, then set for the next one).
void asgd_step_(const TensorList& params, const TensorList& grads, const OptTensorList& axs, const TensorList& etas,
                const TensorList& mus, const TensorList& steps, const AsgdOptions& o);
void rprop_step_(const TensorList& params, const TensorList& grads, const OptTensorList& prevs,
                 const OptTensorList& step_sizes, const TensorList& steps, const RpropArgs& a);

struct SparseAdamOptions {
  double lr, beta1, beta2, eps;
  bool maximize;
};
// steps: each parameter's step count after this update (SparseAdam keeps Python ints, as PyTorch).
// A dense gradient stands for a sparse one: its all-zero rows are the rows absent (kernels/optim.h).
void sparse_adam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                       const OptTensorList& exp_avg_sqs, const std::vector<int64_t>& steps, const SparseAdamOptions& o);

}  // namespace lucid
