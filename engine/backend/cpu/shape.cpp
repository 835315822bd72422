// CPU kernels of the shape family (mirrors a later cuda/shape.cu): flip and triangle masks.
#include <cstring>

#include "backend/common/iter.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/shape.h"

namespace lucid::cpu {

namespace {

struct alignas(16) B16 { uint64_t a, b; };

template <typename T>
void copy_run(char** p, const int64_t* s, int64_t n) {
  T* o = reinterpret_cast<T*>(p[0]);
  const char* in = p[1];
  const int64_t is = s[1];
  if (is == -int64_t(sizeof(T))) {  // reversed innermost dim: a plain backwards read
    const T* src = reinterpret_cast<const T*>(in);
    for (int64_t i = 0; i < n; ++i) o[i] = src[-i];
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = *reinterpret_cast<const T*>(in + i * is);
  }
}

// Lucid views have no negative strides, so the reversed reads live in this kernel's own iterator:
// flipped dims start at their last element and step backwards.
void flip(const TensorImpl& out, const TensorImpl& in, const std::vector<bool>& flipped) {
  if (out.numel() == 0) return;
  const int64_t isz = out.element_size();
  const int64_t nd = out.dim();
  LUCID_CHECK(nd <= kMaxIterDims, NotImplemented, "[flip] tensors of rank above " << kMaxIterDims << " are not supported");
  Iter<2> it;
  it.numel = out.numel();
  it.base[0] = static_cast<char*>(out.data_ptr());
  char* ib = static_cast<char*>(in.data_ptr());
  const Strides ost = out.strides();
  int d = 0;
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t n = out.shape()[size_t(i)];
    if (n == 1) continue;
    int64_t s = in.strides()[size_t(i)] * isz;
    if (flipped[size_t(i)]) { ib += (n - 1) * s; s = -s; }
    it.shape[d] = n;
    it.strides[0][d] = ost[size_t(i)] * isz;
    it.strides[1][d] = s;
    ++d;
  }
  it.base[1] = ib;
  if (d == 0) { it.shape[0] = 1; it.strides[0][0] = isz; it.strides[1][0] = isz; d = 1; }
  int w = 0;
  for (int j = 1; j < d; ++j) {
    bool ok = true;
    for (int k = 0; k < 2; ++k) ok = ok && it.strides[k][j] == it.strides[k][w] * it.shape[w];
    if (ok) {
      it.shape[w] *= it.shape[j];
    } else {
      ++w;
      it.shape[w] = it.shape[j];
      for (int k = 0; k < 2; ++k) it.strides[k][w] = it.strides[k][j];
    }
  }
  it.ndim = w + 1;
  auto go = [&]<typename T>() {
    parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) { it.for_range(b, e, copy_run<T>); });
  };
  switch (isz) {
    case 1: go.template operator()<uint8_t>(); break;
    case 2: go.template operator()<uint16_t>(); break;
    case 4: go.template operator()<uint32_t>(); break;
    case 8: go.template operator()<uint64_t>(); break;
    case 16: go.template operator()<B16>(); break;
    default: LUCID_FAIL(NotImplemented, "[flip] element size " << isz << " is not supported");
  }
}

void tri_mask(const TensorImpl& t, int64_t k, bool upper) {
  if (t.numel() == 0) return;
  const int64_t m = t.shape()[size_t(t.dim() - 2)], n = t.shape()[size_t(t.dim() - 1)];
  const int64_t rows = t.numel() / n;
  const int64_t isz = t.element_size();
  char* base = static_cast<char*>(t.data_ptr());
  // every dtype's zero is all-bits-zero (bool, integers, IEEE floats, complex)
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % m;
      char* row = base + r * n * isz;
      if (upper) {
        const int64_t stop = std::clamp<int64_t>(i + k, 0, n);  // zero [0, i + k)
        if (stop > 0) std::memset(row, 0, size_t(stop * isz));
      } else {
        const int64_t start = std::clamp<int64_t>(i + k + 1, 0, n);  // zero [i + k + 1, n)
        if (start < n) std::memset(row + start * isz, 0, size_t((n - start) * isz));
      }
    }
  });
}

template <typename F>
void by_size(int64_t isz, const char* op, F&& f) {
  switch (isz) {
    case 1: f.template operator()<uint8_t>(); break;
    case 2: f.template operator()<uint16_t>(); break;
    case 4: f.template operator()<uint32_t>(); break;
    case 8: f.template operator()<uint64_t>(); break;
    case 16: f.template operator()<B16>(); break;
    default: LUCID_FAIL(NotImplemented, "[" << op << "] element size " << isz << " is not supported");
  }
}

// Element offset of the row `r` (all dims but the last) of a tensor of `shape`, read through the
// maps into a tensor of `strides`.
int64_t mapped_row_offset(int64_t r, const Shape& shape, const Strides& strides, const PadMaps& maps) {
  int64_t off = 0;
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) {
    const int64_t n = shape[size_t(d)];
    const int64_t o = r % n;
    r /= n;
    off += (maps[size_t(d)].empty() ? o : maps[size_t(d)][size_t(o)]) * strides[size_t(d)];
  }
  return off;
}

std::vector<int64_t> last_offsets(const Shape& shape, const Strides& strides, const PadMaps& maps) {
  const size_t l = shape.size() - 1;
  std::vector<int64_t> off(static_cast<size_t>(shape[l]));
  for (int64_t j = 0; j < shape[l]; ++j) off[size_t(j)] = (maps[l].empty() ? j : maps[l][size_t(j)]) * strides[l];
  return off;
}

void pad_gather(const TensorImpl& out, const TensorImpl& in, const PadMaps& maps) {
  if (out.numel() == 0) return;
  const Shape& s = out.shape();
  const int64_t inner = s.back(), rows = out.numel() / inner;
  const std::vector<int64_t> lo = last_offsets(s, in.strides(), maps);
  by_size(out.element_size(), "pad", [&]<typename T>() {
    T* o = static_cast<T*>(out.data_ptr());
    const T* src = static_cast<const T*>(in.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / inner), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* row = src + mapped_row_offset(r, s, in.strides(), maps);
        T* dst = o + r * inner;
        for (int64_t j = 0; j < inner; ++j) dst[j] = row[lo[size_t(j)]];
      }
    });
  });
}

template <typename T>
inline void acc(T& o, const T& v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) o = T(float(o) + float(v));
  else if constexpr (std::is_same_v<T, bool>) o = o || v;
  else o = T(o + v);
}

void pad_scatter_add(const TensorImpl& gi, const TensorImpl& g, const PadMaps& maps) {
  if (g.numel() == 0 || gi.numel() == 0) return;
  const Shape& s = g.shape();
  const int64_t inner = s.back(), rows = g.numel() / inner;
  const std::vector<int64_t> lo = last_offsets(s, gi.strides(), maps);
  // Leading dims that are not padded map one to one: blocks over them write disjoint rows of
  // grad_in and run in parallel; rows inside a block may collide, so each block runs serially.
  int64_t lead = 0;
  while (lead < int64_t(s.size()) - 1 && maps[size_t(lead)].empty()) ++lead;
  int64_t blocks = 1;
  for (int64_t d = 0; d < lead; ++d) blocks *= s[size_t(d)];
  const int64_t per = rows / blocks;
  dispatch_dtype(g.dtype(), [&]<typename T>() {
    T* o = static_cast<T*>(gi.data_ptr());
    const T* src = static_cast<const T*>(g.data_ptr());
    parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per * inner, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b * per; r < e * per; ++r) {
        T* row = o + mapped_row_offset(r, s, gi.strides(), maps);
        const T* in = src + r * inner;
        for (int64_t j = 0; j < inner; ++j) acc(row[lo[size_t(j)]], in[j]);
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(pad_gather_kernel, CPU, &pad_gather)
LUCID_REGISTER_KERNEL(pad_scatter_add_kernel, CPU, &pad_scatter_add)
LUCID_REGISTER_KERNEL(flip_kernel, CPU, &flip)
LUCID_REGISTER_KERNEL(tri_mask_kernel, CPU, &tri_mask)

}  // namespace lucid::cpu
