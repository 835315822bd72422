#pragma once
// Kernels of scaled_dot_product_attention (ops/nn_attention.cpp): a flash-style forward (query blocks
// against key blocks with an online softmax; the (L, S) score matrix of a head never exists whole)
// that saves the per-row logsumexp, and a fused backward that recomputes the scores block by block.
#include <cstdint>
#include <vector>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class AttnMask : uint8_t { None, Bool, Float };

// Where the rows of one operand live: head n's row i starts at data + off[n] + i * sl, its elements
// contiguous (strided views such as the heads of a (B, T, H, D) projection need no copy).
struct AttnLayout {
  std::vector<int64_t> off;
  int64_t sl = 0;
};

// Geometry and options of one attention call. q is (N, L, E) with N = batch * Hq heads; k (Nkv, S, E)
// and v (Nkv, S, Ev) with Nkv = batch * Hk; query head n reads key/value head
// (n / Hq) * Hk + (n % Hq) / (Hq / Hk). Each operand is addressed through its AttnLayout (q, k, v, out,
// the output gradient g, and the input gradients dq, dk, dv). The mask (when given) is read at
// mask + mask_off[n] + i * mask_sl + j * mask_ss (bool: 1 byte, true = attend; float: q's dtype, added).
struct AttnParams {
  int64_t N = 0, L = 0, S = 0, E = 0, Ev = 0, Hq = 1, Hk = 1;
  double scale = 1.0;
  bool causal = false;  // key j visible to query i when j <= i (top-left alignment)
  AttnMask mask_kind = AttnMask::None;
  const void* mask = nullptr;
  std::vector<int64_t> mask_off;
  int64_t mask_sl = 0, mask_ss = 0;
  double dropout_p = 0.0;  // > 0: element (n, i, j) kept when its Philox uniform is >= p, scaled 1/(1-p)
  uint64_t seed = 0, offset = 0;
  AttnLayout lq, lk, lv, lo, lg, ldq, ldk, ldv;
  int64_t kv_of(int64_t n) const { return (n / Hq) * Hk + (n % Hq) / (Hq / Hk); }
};

// out (laid out by p.lo) and lse (N, L) contiguous, written. A row with no visible key gives zeros and
// lse +inf.
LUCID_DECLARE_KERNEL(attention_forward_kernel, void (*)(const TensorImpl& out, const TensorImpl& lse,
                                                        const TensorImpl& q, const TensorImpl& k, const TensorImpl& v,
                                                        const AttnParams& p))
// dq, dk, dv (laid out by p.ldq, p.ldk, p.ldv) overwritten; g by p.lg, out by p.lo.
LUCID_DECLARE_KERNEL(attention_backward_kernel,
                     void (*)(const TensorImpl& dq, const TensorImpl& dk, const TensorImpl& dv, const TensorImpl& g,
                              const TensorImpl& q, const TensorImpl& k, const TensorImpl& v, const TensorImpl& out,
                              const TensorImpl& lse, const AttnParams& p))
// keep (N, L, S) contiguous: the forward's dropout factors (0 or 1/(1-p)), for the create_graph path.
LUCID_DECLARE_KERNEL(attention_dropout_mask_kernel, void (*)(const TensorImpl& keep, const AttnParams& p))

// The backward of softmax over the rows of contiguous (rows, D) arrays, in one pass per row (the
// attention math path and nn_softmax.cpp's vjp use it when no graph is recorded):
// log: dx = g - exp(y) * sum(g); otherwise dx = y * (g - sum(g * y)). float32/float64.
LUCID_DECLARE_KERNEL(softmax_backward_kernel, void (*)(const TensorImpl& dx, const TensorImpl& g, const TensorImpl& y,
                                                       int64_t rows, int64_t D, bool log))

// The backward of layer norm over the rows of contiguous (R, D) g, x and dx, given the forward's mean and
// rstd (R): dx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)) with gh = g * w and xhat = (x - mean) *
// rstd; dw = sum over rows of g * xhat; db = sum of g. Null outputs are skipped; w null means ones.
// Used by the transformer layers' norms through nn_norm.cpp's vjp when no graph is recorded.
LUCID_DECLARE_KERNEL(layer_norm_backward_kernel,
                     void (*)(const TensorImpl* dx, const TensorImpl* dw, const TensorImpl* db, const TensorImpl& g,
                              const TensorImpl& x, const TensorImpl& mean, const TensorImpl& rstd, const TensorImpl* w))

}  // namespace lucid
