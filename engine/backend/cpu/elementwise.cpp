// CPU elementwise kernels: fill, copy/cast, binary arithmetic (mirrors cuda/elementwise.cu).
#include <cstring>

#include "backend/common/iter.h"
#include "backend/cpu/copy.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/elementwise.h"

namespace lucid::cpu {

namespace {

template <int N, typename F>
void run(const Iter<N>& it, F&& f) {
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) { it.for_range(b, e, f); });
}

void fill(const TensorImpl& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  dispatch_dtype(dst.dtype(), [&]<typename T>() {
    const T v = value.to<T>();
    auto it = Iter<1>::make({&dst});
    run(it, [&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

void copy(const TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel() == 0) return;
  auto it = Iter<2>::make({&dst, &src});
  if (it.contiguous && dst.dtype() == src.dtype()) {
    char* d = it.base[0];
    const char* s = it.base[1];
    const int64_t isz = dst.element_size();
    parallel_for(0, it.numel, kGrainSize * 4, [&](int64_t b, int64_t e) {
      std::memcpy(d + b * isz, s + b * isz, size_t((e - b) * isz));
    });
    return;
  }
  if (dst.dtype() == src.dtype() && copy_transposed(it, dst.element_size())) return;
  const CastLoop loop = cast_loop_for(dst.dtype(), src.dtype());
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n); });
}

void binary(BinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, const Scalar& alpha) {
  if (out.numel() == 0) return;
  auto it = Iter<3>::make({&out, &a, &b});
  const BinaryLoop loop = binary_loop_for(op, out.dtype());
  LUCID_CHECK(loop, NotImplemented, "[binary] dtype " << dtype_name(out.dtype()) << " is not supported by this op");
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n, alpha); });
}

void unary(UnaryOp op, const TensorImpl& out, const TensorImpl& in) {
  if (out.numel() == 0) return;
  auto it = Iter<2>::make({&out, &in});
  const UnaryLoop loop = unary_loop_for(op, out.dtype());
  LUCID_CHECK(loop, NotImplemented, "[unary] dtype " << dtype_name(out.dtype()) << " is not supported");
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n); });
}

}  // namespace

LUCID_REGISTER_KERNEL(unary_kernel, CPU, &unary)
LUCID_REGISTER_KERNEL(fill_kernel, CPU, &fill)
LUCID_REGISTER_KERNEL(copy_kernel, CPU, &copy)
LUCID_REGISTER_KERNEL(binary_kernel, CPU, &binary)

}  // namespace lucid::cpu
