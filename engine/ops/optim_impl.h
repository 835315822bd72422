#pragma once
// The op-layer pieces shared by the fused optimizer steps (ops/optim*.cpp): list checks, the 0-d
// scalar state (step counts, NAdam's mu_product, ASGD's eta and mu), and the per-parameter loop
// that hands each kernel contiguous operands and writes non-contiguous ones back.
#include <array>
#include <functional>
#include <initializer_list>
#include <optional>

#include "ops/optim.h"

namespace lucid::optim_impl {

// A state list of the step: its name (for errors), the list, and whether every entry must be present.
struct StateList {
  const char* name;
  const OptTensorList* list;
  bool required;
};

// Checks params/grads/states/scalar lists (lengths, shapes, dtypes, devices) before anything is written.
void check(const char* op, const TensorList& params, const TensorList& grads, std::initializer_list<StateList> states,
           std::initializer_list<std::pair<const char*, const TensorList*>> scalars);

double scalar_get(const Tensor& t);
void scalar_set(const Tensor& t, double v);  // writes in the tensor's dtype and bumps its version
double advance_step(const Tensor& step);     // step += 1; returns the new count

// Calls f(i, operands) for each parameter i, with operands [param, grad, states...] (null where a state
// list is empty or its entry None), then writes back and bumps versions.
void for_each_param(const TensorList& params, const TensorList& grads,
                    std::initializer_list<const OptTensorList*> states,
                    const std::function<void(size_t, const OptimOperands&)>& f);

}  // namespace lucid::optim_impl
