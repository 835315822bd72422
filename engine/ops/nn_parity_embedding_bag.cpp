// embedding_bag (ops/nn_parity.h): the bags' sums / means / maxes in one fused kernel
// (backend/kernels/parity.h); the backward gathers the output gradient per kept entry and index_adds it
// into the weight's rows (lucid ops, so double backward and create_graph work).
#include <unordered_map>
#include <vector>

#include "backend/kernels/parity.h"
#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/graph.h"
#include "ops/indexing.h"
#include "ops/nn_parity.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

Tensor host_i64(const std::vector<int64_t>& v, Device dev) {
  return from_host(v.data(), {int64_t(v.size())}, Dtype::I64, dev);
}

// (K) int64 index lists to (K, 1)-broadcastable float scale, in weight's dtype.
Tensor host_scale(const std::vector<double>& v, Dtype dt, Device dev) {
  return cast(from_host(v.data(), {int64_t(v.size()), 1}, Dtype::F64, dev), dt);
}

Tensor flat_i64(const Tensor& t) {
  Tensor f = contiguous(reshape(t, {-1}));
  return f->dtype() == Dtype::I64 ? f : cast(f, Dtype::I64);
}

// The weight gradient of sum/mean bags without per-sample weights, in one kernel: gw[rows[k]] += g[bags[k]] *
// scale[k]. Linear in g; its own vjp (for double backward) gathers the incoming gradient back into the bags.
Tensor weight_grad(const Tensor& g_in, const Tensor& rows, const Tensor& bags, const std::optional<Tensor>& scale,
                   int64_t V) {
  Tensor g = contiguous(g_in);
  const int64_t D = g->shape()[1];
  Tensor gw = empty({V, D}, g->dtype(), g->device());
  std::optional<Tensor> sc;
  if (scale) sc = contiguous(reshape(*scale, {-1}));
  if (V * D > 0) embedding_bag_backward_kernel(g->device())(*gw, *g, *rows, *bags, sc ? sc->get() : nullptr);
  const int64_t B = g->shape()[0];
  record("EmbeddingBagBackwardBackward0", {&g}, {&gw}, {SavedTensor(rows, false), SavedTensor(bags, false)},
         [B, D, scale](Node&, std::vector<Tensor>& gg, std::vector<Tensor>& s) {
           Tensor src = index_select(gg[0], 0, s[0]);
           if (scale) src = mul(src, *scale);
           return std::vector<Tensor>{index_add(zeros({B, D}, src->dtype(), src->device()), 0, s[1], src)};
         });
  return gw;
}

}  // namespace

Tensor embedding_bag(const Tensor& weight_in, const Tensor& indices, const Tensor& offsets, int64_t mode_i,
                     const std::optional<Tensor>& psw_in, bool include_last_offset, int64_t padding_idx,
                     bool scale_grad_by_freq) {
  const char* op = "embedding_bag";
  LUCID_CHECK(weight_in->device().type == DeviceType::CPU && indices->device().type == DeviceType::CPU &&
                  offsets->device().type == DeviceType::CPU && (!psw_in || (*psw_in)->device().type == DeviceType::CPU),
              NotImplemented, "[" << op << "] runs on CPU only (got weight on " << weight_in->device() << ")");
  LUCID_CHECK(weight_in->dim() == 2, ShapeMismatch,
              "[" << op << "] expected a 2-D weight, got shape " << shape_str(weight_in->shape()));
  const Dtype wdt = weight_in->dtype();
  LUCID_CHECK(wdt == Dtype::F32 || wdt == Dtype::F64 || wdt == Dtype::F16 || wdt == Dtype::BF16, DtypeMismatch,
              "[" << op << "] expected a floating-point weight, got " << dtype_name(wdt));
  LUCID_CHECK(indices->dtype() == Dtype::I64 || indices->dtype() == Dtype::I32, DtypeMismatch,
              "[" << op << "] expected indices of dtype int64 or int32, got " << dtype_name(indices->dtype()));
  LUCID_CHECK(offsets->dtype() == Dtype::I64 || offsets->dtype() == Dtype::I32, DtypeMismatch,
              "[" << op << "] expected offsets of dtype int64 or int32, got " << dtype_name(offsets->dtype()));
  LUCID_CHECK(indices->dim() == 1, ShapeMismatch,
              "[" << op << "] expected 1-D indices, got shape " << shape_str(indices->shape()));
  LUCID_CHECK(offsets->dim() == 1, ShapeMismatch,
              "[" << op << "] offsets has to be a 1-D tensor, got shape " << shape_str(offsets->shape()));
  LUCID_CHECK(mode_i >= 0 && mode_i <= 2, Value, "[" << op << "] mode must be 0 (sum), 1 (mean) or 2 (max), got " << mode_i);
  const auto mode = EmbeddingBagMode(mode_i);
  const int64_t V = weight_in->shape()[0], D = weight_in->shape()[1], M = indices->numel();
  if (psw_in) {
    LUCID_CHECK(mode == EmbeddingBagMode::Sum, NotImplemented,
                "[" << op << "] per_sample_weights is only supported for mode='sum'");
    LUCID_CHECK((*psw_in)->numel() == M && (*psw_in)->dim() == 1, ShapeMismatch,
                "[" << op << "] per_sample_weights (shape " << shape_str((*psw_in)->shape())
                    << ") must have the same shape as the indices (" << shape_str(indices->shape()) << ")");
    LUCID_CHECK((*psw_in)->dtype() == wdt, DtypeMismatch,
                "[" << op << "] per_sample_weights (" << dtype_name((*psw_in)->dtype()) << ") must have the weight's dtype ("
                    << dtype_name(wdt) << ")");
  }

  // bag boundaries
  Tensor off = flat_i64(offsets);
  const int64_t* op_ = off->data<int64_t>();
  const int64_t n_off = off->numel();
  LUCID_CHECK(!include_last_offset || n_off >= 1, Value,
              "[" << op << "] include_last_offset needs at least one offset (the end of the last bag)");
  const int64_t B = include_last_offset ? n_off - 1 : n_off;
  std::vector<int64_t> bounds(size_t(B + 1));
  for (int64_t b = 0; b < B; ++b) bounds[size_t(b)] = op_[b];
  bounds[size_t(B)] = include_last_offset ? op_[n_off - 1] : M;
  if (n_off > 0) {
    LUCID_CHECK(op_[0] == 0, Value,
                "[" << op << "] offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                       "position 0. However, got " << op_[0]);
    LUCID_CHECK(op_[n_off - 1] <= M, Value,
                "[" << op << "] offsets[-1] can not be greater than input's length " << M << " but got offsets[-1] of "
                    << op_[n_off - 1]);
    for (int64_t b = 0; b + 1 < n_off; ++b)
      LUCID_CHECK(op_[b] <= op_[b + 1], Value,
                  "[" << op << "] offsets must be non-decreasing, got offsets[" << b << "] = " << op_[b] << " > offsets["
                      << b + 1 << "] = " << op_[b + 1]);
  }

  Tensor idx = flat_i64(indices);
  const int64_t* ip = idx->data<int64_t>();
  for (int64_t i = 0; i < M; ++i)
    LUCID_CHECK(ip[i] >= 0 && ip[i] < V, Index,
                "[" << op << "] index " << ip[i] << " (at position " << i << ") is out of range for an embedding of "
                    << V << " rows");

  // half dtypes compute in float32 (a recorded cast, so gradients flow back through it)
  const bool half = wdt == Dtype::F16 || wdt == Dtype::BF16;
  Tensor weight = half ? cast(weight_in, Dtype::F32) : weight_in;
  std::optional<Tensor> psw;
  if (psw_in) psw = half ? cast(*psw_in, Dtype::F32) : *psw_in;
  Tensor wc = contiguous(alias(weight));
  std::optional<Tensor> pc;
  if (psw) pc = contiguous(alias(*psw));

  const Device dev = weight->device();
  Tensor out = empty({B, D}, weight->dtype(), dev);
  std::optional<Tensor> arg;
  if (mode == EmbeddingBagMode::Max) arg = empty({B, D}, Dtype::I64, dev);
  if (B > 0 && D > 0)
    embedding_bag_kernel(dev)(*out, arg ? arg->get() : nullptr, *wc, *idx, bounds.data(), B, pc ? pc->get() : nullptr,
                              mode, padding_idx);

  const bool wg = should_record({&weight}), pg = psw && should_record({&*psw});
  if (wg || pg) {
    const Dtype cdt = weight->dtype();
    if (mode == EmbeddingBagMode::Max) {
      // one (weight element, output element) pair per reached maximum
      std::vector<int64_t> src, dst;
      const int64_t* a = (*arg)->data<int64_t>();
      for (int64_t k = 0; k < B * D; ++k)
        if (a[k] >= 0) dst.push_back(a[k] * D + k % D), src.push_back(k);
      Tensor srct = host_i64(src, dev), dstt = host_i64(dst, dev);
      record("EmbeddingBagBackward0", {&weight}, {&out}, {SavedTensor(srct, false), SavedTensor(dstt, false)},
             [V, D](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
               Tensor gf = index_select(reshape(contiguous(g[0]), {-1}), 0, s[0]);
               Tensor gw = index_add(zeros({V * D}, gf->dtype(), gf->device()), 0, s[1], gf);
               return std::vector<Tensor>{reshape(gw, {V, D})};
             });
    } else {
      // the kept entries (inside a bag, not padding): their weight row, bag and position
      std::vector<int64_t> rows, bags, pos;
      std::vector<int64_t> count(size_t(B), 0);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = bounds[size_t(b)]; i < bounds[size_t(b + 1)]; ++i) {
          if (ip[i] == padding_idx) continue;
          rows.push_back(ip[i]), bags.push_back(b), pos.push_back(i);
          ++count[size_t(b)];
        }
      const size_t K = rows.size();
      std::optional<Tensor> scale;
      if (mode == EmbeddingBagMode::Mean || scale_grad_by_freq) {
        std::vector<double> sc(K, 1.0);
        std::unordered_map<int64_t, int64_t> freq;
        if (scale_grad_by_freq)
          for (int64_t r : rows) ++freq[r];
        for (size_t k = 0; k < K; ++k) {
          if (mode == EmbeddingBagMode::Mean) sc[k] /= double(count[size_t(bags[k])]);
          if (scale_grad_by_freq) sc[k] /= double(freq[rows[k]]);
        }
        scale = host_scale(sc, cdt, dev);
      }
      Tensor rt = host_i64(rows, dev), bt = host_i64(bags, dev), pt = host_i64(pos, dev);
      std::vector<SavedTensor> saved{SavedTensor(rt, false), SavedTensor(bt, false), SavedTensor(pt, false)};
      if (psw) saved.push_back(SavedTensor(weight, false)), saved.push_back(SavedTensor(*psw, false));
      const bool has_psw = bool(psw);
      auto vjp = [V, D, M, scale, has_psw, wg, pg](Node&, std::vector<Tensor>& g, std::vector<Tensor>& s) {
        std::vector<Tensor> grads{Tensor{}, Tensor{}};
        if (wg && !has_psw) {  // the fused scatter (no per-sample weights to differentiate through)
          grads[0] = weight_grad(g[0], s[0], s[1], scale, V);
          return grads;
        }
        Tensor gsel = index_select(g[0], 0, s[1]);  // (K, D): each kept entry's bag gradient
        if (wg) {
          Tensor src = scale ? mul(gsel, *scale) : gsel;
          if (has_psw) src = mul(src, unsqueeze(index_select(s[4], 0, s[2]), 1));
          grads[0] = index_add(zeros({V, D}, src->dtype(), src->device()), 0, s[0], src);
        }
        if (pg) {
          Tensor dots = sum(mul(gsel, index_select(s[3], 0, s[0])), std::vector<int64_t>{1});
          grads[1] = index_add(zeros({M}, dots->dtype(), dots->device()), 0, s[2], dots);
        }
        return grads;
      };
      if (psw) record("EmbeddingBagBackward0", {&weight, &*psw}, {&out}, std::move(saved), vjp);
      else record("EmbeddingBagBackward0", {&weight}, {&out}, std::move(saved), vjp);
    }
  }
  return half ? cast(out, wdt) : out;
}

}  // namespace lucid
