#pragma once
// scaled_dot_product_attention: a fused engine op (flash-style CPU kernel, backend/kernels/attention.h).
#include <optional>

#include "tensor/tensor_impl.h"

namespace lucid {

// query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); batch dims broadcast.
// attn_mask: bool (true = attend) or float (added to the scores), broadcastable to (..., L, S).
// is_causal: query i sees keys j <= i. enable_gqa: dim -3 of key/value (Hk heads) divides query's (Hq).
// dropout_p > 0 drops attention weights with lucid's default generator. A row with no visible key
// gives zeros (and zero gradients), as PyTorch 2.13's CPU kernels.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa);

}  // namespace lucid
