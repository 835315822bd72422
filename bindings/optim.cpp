// lucid._C's fused optimizer steps (engine/ops/optim.h), called by lucid.optim: each takes a whole
// param group as lists (a state list an option turns off may be None) and updates it in one call.
#include "bindings/common.h"
#include "ops/optim.h"

namespace lucid::py {

namespace {

OptTensorList opt_list(const std::optional<OptTensorList>& l) { return l ? *l : OptTensorList{}; }

}  // namespace

void init_optim(nb::module_& m) {
  using TL = TensorList;
  using OL = std::optional<OptTensorList>;
  m.def("_sgd_step_", [](const TL& p, const TL& g, OL bufs, double lr, double momentum, double dampening,
                         double weight_decay, bool nesterov, bool maximize) {
    return sgd_step_(p, g, opt_list(bufs), SgdArgs{lr, momentum, dampening, weight_decay, nesterov, maximize, false});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("momentum_buffers").none(), nb::kw_only(), nb::arg("lr"),
     nb::arg("momentum"), nb::arg("dampening"), nb::arg("weight_decay"), nb::arg("nesterov"), nb::arg("maximize"));
  m.def("_adam_step_", [](const TL& p, const TL& g, const OptTensorList& m1, const OptTensorList& m2, OL vmax,
                          const TL& steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                          bool amsgrad, bool maximize, bool decoupled) {
    adam_step_(p, g, m1, m2, opt_list(vmax), steps,
               AdamArgs{lr, beta1, beta2, eps, weight_decay, 0, amsgrad, maximize, decoupled});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"),
     nb::arg("max_exp_avg_sqs").none(), nb::arg("steps"), nb::kw_only(), nb::arg("lr"), nb::arg("beta1"),
     nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("amsgrad"), nb::arg("maximize"),
     nb::arg("decoupled_weight_decay"));
  m.def("_rmsprop_step_", [](const TL& p, const TL& g, const OptTensorList& sq, OL gavg, OL bufs, const TL& steps,
                             double lr, double alpha, double eps, double weight_decay, double momentum, bool centered,
                             bool maximize) {
    rmsprop_step_(p, g, sq, opt_list(gavg), opt_list(bufs), steps,
                  RmspropArgs{lr, alpha, eps, weight_decay, momentum, centered, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"), nb::arg("grad_avgs").none(),
     nb::arg("momentum_buffers").none(), nb::arg("steps"), nb::kw_only(), nb::arg("lr"), nb::arg("alpha"),
     nb::arg("eps"), nb::arg("weight_decay"), nb::arg("momentum"), nb::arg("centered"), nb::arg("maximize"));
  m.def("_adagrad_step_", [](const TL& p, const TL& g, const OptTensorList& sums, const TL& steps, double lr,
                             double lr_decay, double eps, double weight_decay, bool maximize) {
    adagrad_step_(p, g, sums, steps, AdagradOptions{lr, lr_decay, eps, weight_decay, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("sums"), nb::arg("steps"), nb::kw_only(), nb::arg("lr"),
     nb::arg("lr_decay"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"));
  m.def("_adadelta_step_", [](const TL& p, const TL& g, const OptTensorList& sq, const OptTensorList& acc,
                              const TL& steps, double lr, double rho, double eps, double weight_decay, bool maximize) {
    adadelta_step_(p, g, sq, acc, steps, AdadeltaArgs{lr, rho, eps, weight_decay, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"), nb::arg("acc_deltas"), nb::arg("steps"),
     nb::kw_only(), nb::arg("lr"), nb::arg("rho"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"));
  m.def("_adamax_step_", [](const TL& p, const TL& g, const OptTensorList& m1, const OptTensorList& inf,
                            const TL& steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                            bool maximize) {
    adamax_step_(p, g, m1, inf, steps, AdamaxOptions{lr, beta1, beta2, eps, weight_decay, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_infs"), nb::arg("steps"), nb::kw_only(),
     nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"));
  m.def("_nadam_step_", [](const TL& p, const TL& g, const OptTensorList& m1, const OptTensorList& m2,
                           const TL& mu_products, const TL& steps, double lr, double beta1, double beta2, double eps,
                           double weight_decay, double momentum_decay, bool decoupled, bool maximize) {
    nadam_step_(p, g, m1, m2, mu_products, steps,
                NadamOptions{lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("mu_products"),
     nb::arg("steps"), nb::kw_only(), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"),
     nb::arg("weight_decay"), nb::arg("momentum_decay"), nb::arg("decoupled_weight_decay"), nb::arg("maximize"));
  m.def("_radam_step_", [](const TL& p, const TL& g, const OptTensorList& m1, const OptTensorList& m2,
                           const TL& steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                           bool decoupled, bool maximize) {
    radam_step_(p, g, m1, m2, steps, RadamOptions{lr, beta1, beta2, eps, weight_decay, decoupled, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("steps"),
     nb::kw_only(), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"),
     nb::arg("decoupled_weight_decay"), nb::arg("maximize"));
  m.def("_asgd_step_", [](const TL& p, const TL& g, const OptTensorList& axs, const TL& etas, const TL& mus,
                          const TL& steps, double lr, double lambd, double alpha, double t0, double weight_decay,
                          bool maximize) {
    asgd_step_(p, g, axs, etas, mus, steps, AsgdOptions{lr, lambd, alpha, t0, weight_decay, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("axs"), nb::arg("etas"), nb::arg("mus"), nb::arg("steps"),
     nb::kw_only(), nb::arg("lr"), nb::arg("lambd"), nb::arg("alpha"), nb::arg("t0"), nb::arg("weight_decay"),
     nb::arg("maximize"));
  m.def("_rprop_step_", [](const TL& p, const TL& g, const OptTensorList& prevs, const OptTensorList& sizes,
                           const TL& steps, double etaminus, double etaplus, double step_size_min,
                           double step_size_max, bool maximize) {
    rprop_step_(p, g, prevs, sizes, steps, RpropArgs{etaminus, etaplus, step_size_min, step_size_max, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("prevs"), nb::arg("step_sizes"), nb::arg("steps"), nb::kw_only(),
     nb::arg("etaminus"), nb::arg("etaplus"), nb::arg("step_size_min"), nb::arg("step_size_max"),
     nb::arg("maximize"));
  m.def("_sparse_adam_step_", [](const TL& p, const TL& g, const OptTensorList& m1, const OptTensorList& m2,
                                 const std::vector<int64_t>& steps, double lr, double beta1, double beta2, double eps,
                                 bool maximize) {
    sparse_adam_step_(p, g, m1, m2, steps, SparseAdamOptions{lr, beta1, beta2, eps, maximize});
  }, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("steps"),
     nb::kw_only(), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("maximize"));
}

LUCID_BINDINGS(init_optim)

}  // namespace lucid::py
