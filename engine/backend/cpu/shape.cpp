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

}  // namespace

LUCID_REGISTER_KERNEL(flip_kernel, CPU, &flip)
LUCID_REGISTER_KERNEL(tri_mask_kernel, CPU, &tri_mask)

}  // namespace lucid::cpu
