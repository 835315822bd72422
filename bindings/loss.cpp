// lucid._C's pointwise losses (engine/ops/loss.h); lucid.nn.functional spells their arguments
// (legacy reduction flags, shape warnings, pos_weight).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "bindings/common.h"
#include "ops/loss.h"

namespace lucid::py {

void init_loss(nb::module_& m) {
  static const struct { const char* name; LossOp op; } losses[] = {
      {"mse_loss", LossOp::Mse},   {"l1_loss", LossOp::L1},   {"smooth_l1_loss", LossOp::SmoothL1},
      {"huber_loss", LossOp::Huber}, {"binary_cross_entropy", LossOp::Bce},
      {"binary_cross_entropy_with_logits", LossOp::BceWithLogits}, {"soft_margin_loss", LossOp::SoftMargin},
  };
  for (const auto& l : losses) {
    const LossOp op = l.op;
    m.def(l.name, [op](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                       const std::string& reduction, double a) {
      return pointwise_loss(op, input, target, weight, reduction, {a});
    }, nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(), nb::arg("reduction") = "mean",
          nb::arg("a") = 0.0);
  }
  m.def("ctc_loss", [](const Tensor& lp, const Tensor& targets, const Tensor& il, const Tensor& tl, int64_t blank,
                       const std::string& reduction, bool zero_infinity) {
    return ctc_loss(lp, targets, il, tl, blank, reduction, zero_infinity);
  }, nb::arg("log_probs"), nb::arg("targets"), nb::arg("input_lengths"), nb::arg("target_lengths"),
        nb::arg("blank") = 0, nb::arg("reduction") = "mean", nb::arg("zero_infinity") = false);
}

LUCID_BINDINGS(init_loss)

}  // namespace lucid::py
