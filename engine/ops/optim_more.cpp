// The fused RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD and Rprop steps (ops/optim.h):
// the per-parameter scalars (step counts, bias corrections, NAdam's mu_product, ASGD's eta and mu)
// are computed here in double precision exactly as PyTorch's single-tensor paths compute them.
#include <algorithm>
#include <cmath>

#include "ops/optim.h"
#include "ops/optim_impl.h"

namespace lucid {

using namespace optim_impl;

void rmsprop_step_(const TensorList& params, const TensorList& grads, const OptTensorList& square_avgs,
                   const OptTensorList& grad_avgs, const OptTensorList& bufs, const TensorList& steps,
                   const RmspropArgs& a) {
  check("rmsprop", params, grads,
        {{"square_avg", &square_avgs, true}, {"grad_avg", &grad_avgs, a.centered},
         {"momentum_buffer", &bufs, a.momentum > 0}},
        {{"step", &steps}});
  for_each_param(params, grads, {&square_avgs, a.centered ? &grad_avgs : nullptr, a.momentum > 0 ? &bufs : nullptr},
                 [&](size_t i, const OptimOperands& o) {
    advance_step(steps[i]);
    rmsprop_kernel(params[i]->device())(o, a);
  });
}

void adagrad_step_(const TensorList& params, const TensorList& grads, const OptTensorList& sums,
                   const TensorList& steps, const AdagradOptions& op) {
  check("adagrad", params, grads, {{"sum", &sums, true}}, {{"step", &steps}});
  for_each_param(params, grads, {&sums}, [&](size_t i, const OptimOperands& o) {
    const double step = advance_step(steps[i]);
    AdagradArgs a{op.lr / (1 + (step - 1) * op.lr_decay), op.eps, op.weight_decay, op.maximize};
    adagrad_kernel(params[i]->device())(o, a);
  });
}

void adadelta_step_(const TensorList& params, const TensorList& grads, const OptTensorList& square_avgs,
                    const OptTensorList& acc_deltas, const TensorList& steps, const AdadeltaArgs& a) {
  check("adadelta", params, grads, {{"square_avg", &square_avgs, true}, {"acc_delta", &acc_deltas, true}},
        {{"step", &steps}});
  for_each_param(params, grads, {&square_avgs, &acc_deltas}, [&](size_t i, const OptimOperands& o) {
    advance_step(steps[i]);
    adadelta_kernel(params[i]->device())(o, a);
  });
}

void adamax_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                  const OptTensorList& exp_infs, const TensorList& steps, const AdamaxOptions& op) {
  check("adamax", params, grads, {{"exp_avg", &exp_avgs, true}, {"exp_inf", &exp_infs, true}}, {{"step", &steps}});
  for_each_param(params, grads, {&exp_avgs, &exp_infs}, [&](size_t i, const OptimOperands& o) {
    const double step = advance_step(steps[i]);
    AdamaxArgs a{op.lr / (1 - std::pow(op.beta1, step)), op.beta1, op.beta2, op.eps, op.weight_decay, op.maximize};
    adamax_kernel(params[i]->device())(o, a);
  });
}

void nadam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                 const OptTensorList& exp_avg_sqs, const TensorList& mu_products, const TensorList& steps,
                 const NadamOptions& op) {
  check("nadam", params, grads, {{"exp_avg", &exp_avgs, true}, {"exp_avg_sq", &exp_avg_sqs, true}},
        {{"mu_product", &mu_products}, {"step", &steps}});
  for_each_param(params, grads, {&exp_avgs, &exp_avg_sqs}, [&](size_t i, const OptimOperands& o) {
    const double step = advance_step(steps[i]);
    const double mu = op.beta1 * (1.0 - 0.5 * std::pow(0.96, step * op.momentum_decay));
    const double mu_next = op.beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1) * op.momentum_decay));
    const Tensor& mp = mu_products[i];
    // mu_product *= mu, in the tensor's dtype (a float32 tensor times a Python float computes in float32)
    const double prod = mp->dtype() == Dtype::F32 ? double(float(scalar_get(mp)) * float(mu)) : scalar_get(mp) * mu;
    scalar_set(mp, prod);
    const double mu_product = scalar_get(mp), mu_product_next = mu_product * mu_next;
    NadamArgs a{op.lr, op.beta1, op.beta2, op.eps, op.weight_decay, 1 - std::pow(op.beta2, step),
                -op.lr * (1.0 - mu) / (1.0 - mu_product), (-op.lr * mu_next) / (1.0 - mu_product_next),
                op.decoupled_weight_decay, op.maximize};
    nadam_kernel(params[i]->device())(o, a);
  });
}

void radam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                 const OptTensorList& exp_avg_sqs, const TensorList& steps, const RadamOptions& op) {
  check("radam", params, grads, {{"exp_avg", &exp_avgs, true}, {"exp_avg_sq", &exp_avg_sqs, true}},
        {{"step", &steps}});
  for_each_param(params, grads, {&exp_avgs, &exp_avg_sqs}, [&](size_t i, const OptimOperands& o) {
    const double step = advance_step(steps[i]);
    const double bc1 = 1 - std::pow(op.beta1, step), bc2 = 1 - std::pow(op.beta2, step);
    const double rho_inf = 2 / (1 - op.beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(op.beta2, step) / bc2;
    const bool rectified = rho_t > 5.0;
    const double rect =
        rectified ? std::pow((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.5) : 1.0;
    RadamArgs a{op.lr, op.beta1, op.beta2, op.eps, op.weight_decay, bc1, std::pow(bc2, 0.5), rect, rectified,
                op.decoupled_weight_decay, op.maximize};
    radam_kernel(params[i]->device())(o, a);
  });
}

void asgd_step_(const TensorList& params, const TensorList& grads, const OptTensorList& axs, const TensorList& etas,
                const TensorList& mus, const TensorList& steps, const AsgdOptions& op) {
  check("asgd", params, grads, {{"ax", &axs, true}}, {{"eta", &etas}, {"mu", &mus}, {"step", &steps}});
  for_each_param(params, grads, {&axs}, [&](size_t i, const OptimOperands& o) {
    const double step = advance_step(steps[i]);
    AsgdArgs a{scalar_get(etas[i]), op.lambd, scalar_get(mus[i]), op.weight_decay, op.maximize};
    asgd_kernel(params[i]->device())(o, a);
    // (PyTorch makes the new values with torch.as_tensor: float32, whatever the state's dtype)
    scalar_set(etas[i], double(float(op.lr / std::pow(1 + op.lambd * op.lr * step, op.alpha))));
    scalar_set(mus[i], double(float(1 / std::max(1.0, step - op.t0))));
  });
}

void rprop_step_(const TensorList& params, const TensorList& grads, const OptTensorList& prevs,
                 const OptTensorList& step_sizes, const TensorList& steps, const RpropArgs& a) {
  check("rprop", params, grads, {{"prev", &prevs, true}, {"step_size", &step_sizes, true}}, {{"step", &steps}});
  for_each_param(params, grads, {&prevs, &step_sizes}, [&](size_t i, const OptimOperands& o) {
    advance_step(steps[i]);
    rprop_kernel(params[i]->device())(o, a);
  });
}

void sparse_adam_step_(const TensorList& params, const TensorList& grads, const OptTensorList& exp_avgs,
                       const OptTensorList& exp_avg_sqs, const std::vector<int64_t>& steps,
                       const SparseAdamOptions& op) {
  check("sparse_adam", params, grads, {{"exp_avg", &exp_avgs, true}, {"exp_avg_sq", &exp_avg_sqs, true}}, {});
  LUCID_CHECK(steps.size() == params.size(), Value,
              "[sparse_adam] got " << params.size() << " parameters but " << steps.size() << " steps");
  for (int64_t s : steps) LUCID_CHECK(s >= 1, Value, "[sparse_adam] step must be at least 1, got " << s);
  for_each_param(params, grads, {&exp_avgs, &exp_avg_sqs}, [&](size_t i, const OptimOperands& o) {
    const double step = double(steps[i]);
    const double bc1 = 1 - std::pow(op.beta1, step), bc2 = 1 - std::pow(op.beta2, step);
    SparseAdamArgs a{op.beta1, op.beta2, op.eps, op.lr * std::sqrt(bc2) / bc1, op.maximize};
    sparse_adam_kernel(params[i]->device())(o, a);
  });
}

}  // namespace lucid
