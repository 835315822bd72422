#pragma once
// Kernels of the fused recurrent cells (ops/nn_rnn.h). Gate pre-activations come in as two
// (B, G) arrays, gi = x W_ih^T + b_ih and gh = h W_hh^T + b_hh, each with unit stride along G and
// any row stride; every other array is contiguous. float32/float64. Optional biases bi, bh (G
// elements each, both given or both null) are added to every row of gi and gh.
#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// LSTM (G = 4H, gates i, f, g, o): c' = f c + i g, h' = o tanh(c').
LUCID_DECLARE_KERNEL(lstm_cell_kernel, void (*)(const TensorImpl& h_out, const TensorImpl& c_out, const TensorImpl& gi,
                                                const TensorImpl& gh, const TensorImpl* bi, const TensorImpl* bh,
                                                const TensorImpl& c))
// Its adjoint: d_gates (B, 4H) (the gradient of gi and of gh alike) and dc (B, H) from dh, dc_out; the
// gates are recomputed from gi + gh (no workspace is kept between forward and backward).
LUCID_DECLARE_KERNEL(lstm_cell_backward_kernel,
                     void (*)(const TensorImpl& d_gates, const TensorImpl& dc, const TensorImpl& dh,
                              const TensorImpl& dc_out, const TensorImpl& gi, const TensorImpl& gh,
                              const TensorImpl* bi, const TensorImpl* bh, const TensorImpl& c,
                              const TensorImpl& c_out))
// GRU (G = 3H, gates r, z, n; PyTorch's formula): r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z + gh_z),
// n = tanh(gi_n + r gh_n), h' = (1 - z) n + z h.
LUCID_DECLARE_KERNEL(gru_cell_kernel, void (*)(const TensorImpl& h_out, const TensorImpl& gi, const TensorImpl& gh,
                                               const TensorImpl* bi, const TensorImpl* bh, const TensorImpl& h))
// Its adjoint: dgi, dgh (B, 3H) and dh (B, H) from dh_out, the gates recomputed from gi and gh.
LUCID_DECLARE_KERNEL(gru_cell_backward_kernel,
                     void (*)(const TensorImpl& dgi, const TensorImpl& dgh, const TensorImpl& dh,
                              const TensorImpl& dh_out, const TensorImpl& gi, const TensorImpl& gh,
                              const TensorImpl* bi, const TensorImpl* bh, const TensorImpl& h))
// Elman cell (G = H): h' = tanh(gi + gh), or relu(gi + gh) when relu.
LUCID_DECLARE_KERNEL(rnn_cell_kernel, void (*)(const TensorImpl& h_out, const TensorImpl& gi, const TensorImpl& gh,
                                               const TensorImpl* bi, const TensorImpl* bh, bool relu))
// Its adjoint: d_pre (B, H) = dh_out * act'(pre), act' taken from h_out.
LUCID_DECLARE_KERNEL(rnn_cell_backward_kernel, void (*)(const TensorImpl& d_pre, const TensorImpl& dh_out,
                                                        const TensorImpl& h_out, bool relu))

}  // namespace lucid
