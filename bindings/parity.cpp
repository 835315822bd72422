// lucid._C's ops of the API-parity task (engine/ops/nn_parity.h); lucid.nn._functional_pool spells their
// arguments.
#include "bindings/common.h"
#include "ops/nn_parity.h"

namespace lucid::py {

namespace {

void init_parity(nb::module_& m) {
  m.def("embedding_bag", [](const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
                            std::optional<Tensor> per_sample_weights, bool include_last_offset, int64_t padding_idx,
                            bool scale_grad_by_freq) {
    return embedding_bag(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                         scale_grad_by_freq);
  }, nb::arg("weight"), nb::arg("indices"), nb::arg("offsets"), nb::arg("mode"),
     nb::arg("per_sample_weights").none() = nb::none(), nb::arg("include_last_offset") = false,
     nb::arg("padding_idx") = -1, nb::arg("scale_grad_by_freq") = false);
  m.def("rms_norm", [](const Tensor& x, std::vector<int64_t> normalized_shape, std::optional<Tensor> weight,
                       double eps) { return rms_norm(x, normalized_shape, weight, eps); },
        nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none() = nb::none(), nb::arg("eps"));
}

}  // namespace

LUCID_BINDINGS(init_parity)

}  // namespace lucid::py
