// lucid._C's fused recurrent cells (engine/ops/nn_rnn.h); lucid.nn's RNN modules drive them.
#include "bindings/common.h"
#include "ops/nn_rnn.h"

namespace lucid::py {

void init_rnn(nb::module_& m) {
  using Opt = std::optional<Tensor>;
  m.def("fused_lstm_cell", [](const Tensor& gi, const Tensor& gh, const Tensor& c, Opt bi, Opt bh) {
    return fused_lstm_cell(gi, gh, c, bi, bh);
  }, nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("cx"), nb::arg("input_bias").none() = nb::none(),
     nb::arg("hidden_bias").none() = nb::none());
  m.def("fused_gru_cell", [](const Tensor& gi, const Tensor& gh, const Tensor& h, Opt bi, Opt bh) {
    return fused_gru_cell(gi, gh, h, bi, bh);
  }, nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("hx"), nb::arg("input_bias").none() = nb::none(),
     nb::arg("hidden_bias").none() = nb::none());
  m.def("fused_rnn_cell", [](const Tensor& gi, const Tensor& gh, const std::string& nl, Opt bi, Opt bh) {
    return fused_rnn_cell(gi, gh, nl, bi, bh);
  }, nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("nonlinearity") = "tanh",
     nb::arg("input_bias").none() = nb::none(), nb::arg("hidden_bias").none() = nb::none());
  m.def("rnn_time_steps", [](const Tensor& x, std::vector<int64_t> sizes) { return rnn_time_steps(x, sizes); },
        nb::arg("input"), nb::arg("sizes"));
}

LUCID_BINDINGS(init_rnn)

}  // namespace lucid::py
