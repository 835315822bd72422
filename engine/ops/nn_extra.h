#pragma once
// Lucid's own fused layers (spec 002): rotary position embedding (rope_forward/rope_backward) and
// fused linear + activation (fused_linear_relu_forward and its gelu twin). Each is one engine op
// with a fused CPU kernel; the vjps are written in lucid ops (RoPE's is RoPE itself, rotating by
// -theta), so double backward is exact. float32/float64 (float16/bfloat16 compute in float32).
#include <string>

#include "tensor/tensor_impl.h"

namespace lucid {

// Rotary position embedding of x (..., T, D), D even: each pair of features (x_a, x_b) at position p
// is rotated by theta_i = p * base^(-2i/D), i < D/2. interleaved: pairs (2i, 2i+1) (spec 002 calls it
// the GPT-NeoX layout; it is GPT-J's and Meta's original Llama's complex pairs); otherwise half-split
// pairs (i, i + D/2) (spec 002's Llama layout: Hugging Face's rotate_half, also GPT-NeoX's own code).
// positions: optional, any real dtype, broadcastable to x.shape[:-1]; null means p = 0..T-1 along
// dim -2. No gradient flows to positions.
Tensor rope(const Tensor& x, const Tensor* positions, double base, bool interleaved);

// act(x @ w^T + b) with one GEMM and one fused bias + activation pass. x (..., in), w (out, in),
// b (out) or null. act: "none", "relu", "gelu" (erf form) or "gelu_tanh".
Tensor fused_linear_act(const Tensor& x, const Tensor& w, const Tensor* b, const std::string& act);

// F.linear: x @ w^T + b. One GEMM with the bias epilogue and one autograd node (fused_linear_act with
// "none") for floating CPU tensors of one dtype; otherwise matmul + add (CUDA, integers, mixed dtypes,
// a 1-D weight), which also raise the typed errors of bad shapes.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b);

}  // namespace lucid
