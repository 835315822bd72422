// lucid._C's fused recurrent cells (engine/ops/nn_rnn.h); lucid.nn's RNN modules drive them.
#include "bindings/common.h"
#include "ops/nn_rnn.h"

namespace lucid::py {

void init_rnn(nb::module_& m) {
  m.def("fused_lstm_cell", [](const Tensor& gi, const Tensor& gh, const Tensor& c) { return fused_lstm_cell(gi, gh, c); },
        nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("cx"));
  m.def("fused_gru_cell", [](const Tensor& gi, const Tensor& gh, const Tensor& h) { return fused_gru_cell(gi, gh, h); },
        nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("hx"));
  m.def("fused_rnn_cell", [](const Tensor& gi, const Tensor& gh, const std::string& nl) { return fused_rnn_cell(gi, gh, nl); },
        nb::arg("input_gates"), nb::arg("hidden_gates"), nb::arg("nonlinearity") = "tanh");
  m.def("rnn_time_steps", [](const Tensor& x, std::vector<int64_t> sizes) { return rnn_time_steps(x, sizes); },
        nb::arg("input"), nb::arg("sizes"));
}

LUCID_BINDINGS(init_rnn)

}  // namespace lucid::py
