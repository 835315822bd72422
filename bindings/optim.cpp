// lucid._C's fused optimizer steps (engine/ops/optim.h), called by lucid.optim.
#include "bindings/common.h"
#include "ops/optim.h"

namespace lucid::py {

void init_optim(nb::module_& m) {
  m.def("_sgd_step_", [](const Tensor& p, const Tensor& g, std::optional<Tensor> buf, double lr, double momentum,
                         double dampening, double weight_decay, bool nesterov, bool maximize, bool first_step) {
    sgd_step_(p, g, buf, SgdArgs{lr, momentum, dampening, weight_decay, nesterov, maximize, first_step});
  }, nb::arg("param"), nb::arg("grad"), nb::arg("momentum_buffer").none(), nb::kw_only(), nb::arg("lr"),
     nb::arg("momentum"), nb::arg("dampening"), nb::arg("weight_decay"), nb::arg("nesterov"), nb::arg("maximize"),
     nb::arg("first_step"));
  m.def("_adam_step_", [](const Tensor& p, const Tensor& g, const Tensor& m1, const Tensor& m2,
                          std::optional<Tensor> vmax, int64_t step, double lr, double beta1, double beta2, double eps,
                          double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
    adam_step_(p, g, m1, m2, vmax, AdamArgs{lr, beta1, beta2, eps, weight_decay, step, amsgrad, maximize, decoupled});
  }, nb::arg("param"), nb::arg("grad"), nb::arg("exp_avg"), nb::arg("exp_avg_sq"), nb::arg("max_exp_avg_sq").none(),
     nb::kw_only(), nb::arg("step"), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"),
     nb::arg("weight_decay"), nb::arg("amsgrad"), nb::arg("maximize"), nb::arg("decoupled_weight_decay"));
}

LUCID_BINDINGS(init_optim)

}  // namespace lucid::py
