#pragma once
// Fused recurrent cells (lucid.nn's RNN/LSTM/GRU and their cells). The caller computes the gate
// pre-activations with GEMMs, gi = x W_ih^T + b_ih and gh = h W_hh^T + b_hh, both (B, G); one kernel
// then applies the gates. The vjps run a fused backward kernel, or, under create_graph, the same
// formulas in lucid ops (so second derivatives are exact).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor_impl.h"

namespace lucid {

// Each cell takes optional biases bi, bh (G,), added in the kernel to every row of gi and gh (so
// the GEMMs need no bias pass of their own): PyTorch's _thnn_fused_*_cell(input_gates, hidden_gates,
// state, input_bias, hidden_bias).
//
// gi, gh (B, 4H) with gates in PyTorch's order i, f, g, o; c (B, H). Returns (h', c').
std::pair<Tensor, Tensor> fused_lstm_cell(const Tensor& gi, const Tensor& gh, const Tensor& c,
                                          const std::optional<Tensor>& bi = std::nullopt,
                                          const std::optional<Tensor>& bh = std::nullopt);
// gi, gh (B, 3H) with gates r, z, n (n = tanh(gi_n + bi_n + r * (gh_n + bh_n))); h (B, H). Returns h'.
Tensor fused_gru_cell(const Tensor& gi, const Tensor& gh, const Tensor& h, const std::optional<Tensor>& bi = std::nullopt,
                      const std::optional<Tensor>& bh = std::nullopt);
// gi, gh (B, H); nonlinearity "tanh" or "relu". Returns h' = act(gi + bi + gh + bh).
Tensor fused_rnn_cell(const Tensor& gi, const Tensor& gh, const std::string& nonlinearity,
                      const std::optional<Tensor>& bi = std::nullopt, const std::optional<Tensor>& bh = std::nullopt);

// The time steps of a sequence's input projection x (N, G), packed step after step: views of rows
// [off_t, off_t + sizes[t]). One autograd node for all of them, whose vjp is a single cat (a split
// into narrows would give each step's gradient as a zero-filled (N, G) tensor: quadratic in T).
std::vector<Tensor> rnn_time_steps(const Tensor& x, const std::vector<int64_t>& sizes);

}  // namespace lucid
