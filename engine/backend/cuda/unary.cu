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
    if constexpr (is_complex_v<T>) {
      LUCID_FAIL(NotImplemented, "[unary] dtype " << dtype_name(out.dtype()) << " is not supported");
    } else if constexpr (std::is_same_v<T, bool>) {  // sign and bitwise_not only
      if (op == UnaryOp::Sign) launch_elementwise<T, T>(it, UnaryFn<UnaryOp::Sign, T>{}, dev);
      else if (op == UnaryOp::BitwiseNot) launch_elementwise<T, T>(it, UnaryFn<UnaryOp::BitwiseNot, T>{}, dev);
      else LUCID_FAIL(NotImplemented, "[unary] dtype bool is not supported");
    } else {
      dispatch_unary(op, [&]<UnaryOp Op>() { launch_elementwise<T, T>(it, UnaryFn<Op, T>{}, dev); });
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(unary_kernel, CUDA, &unary)

}  // namespace lucid::cuda
