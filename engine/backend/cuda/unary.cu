// CUDA unary math kernels (mirrors the unary loops of cpu/loops.h); the functions themselves are
// shared with the CPU in backend/common/unary_math.h.
#include "backend/common/unary_math.h"
#include "backend/cuda/loops.cuh"
#include "backend/kernels/elementwise.h"

namespace lucid::cuda {

namespace {

template <UnaryOp Op, typename T>
struct UnaryFn {
  using M = typename OpMath<T>::type;
  __device__ __forceinline__ T operator()(T x) const { return T(apply_unary<Op, M>(M(x))); }
};

void unary(UnaryOp op, const TensorImpl& out, const TensorImpl& in) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  DeviceGuard guard(dev);
  auto it = Iter<2>::make({&out, &in});
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    if constexpr (is_complex_v<T> || std::is_same_v<T, bool>) {
      LUCID_FAIL(NotImplemented, "[unary] dtype " << dtype_name(out.dtype()) << " is not supported");
    } else {
      dispatch_unary(op, [&]<UnaryOp Op>() { launch_elementwise<T, T>(it, UnaryFn<Op, T>{}, dev); });
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(unary_kernel, CUDA, &unary)

}  // namespace lucid::cuda
