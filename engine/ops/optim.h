#pragma once
// Fused optimizer steps (lucid.optim's engine side): each updates one parameter and its state in
// place in a single pass, outside autograd (as torch's fused optimizers), and bumps the versions of
// what it wrote.
#include <optional>

#include "backend/kernels/optim.h"
#include "tensor/tensor_impl.h"

namespace lucid {

void sgd_step_(const Tensor& param, const Tensor& grad, const std::optional<Tensor>& momentum_buffer, const SgdArgs& a);
void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                const std::optional<Tensor>& max_exp_avg_sq, const AdamArgs& a);

}  // namespace lucid
