// lucid._C's attention op (engine/ops/nn_attention.h); lucid.nn.functional spells its arguments.
#include "bindings/common.h"
#include "ops/nn_attention.h"

namespace lucid::py {

namespace {

void init_attention(nb::module_& m) {
  m.def("scaled_dot_product_attention",
        [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<Tensor> mask, double dropout_p,
           bool is_causal, std::optional<double> scale, bool enable_gqa) {
          return scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale, enable_gqa);
        },
        nb::arg("query"), nb::arg("key"), nb::arg("value"), nb::arg("attn_mask").none() = nb::none(),
        nb::arg("dropout_p") = 0.0, nb::arg("is_causal") = false, nb::arg("scale").none() = nb::none(),
        nb::arg("enable_gqa") = false);
}

}  // namespace

LUCID_BINDINGS(init_attention)

}  // namespace lucid::py
