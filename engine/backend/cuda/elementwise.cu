// CUDA elementwise kernels: fill, copy/cast, binary arithmetic (mirrors cpu/elementwise.cpp).
#include <cstring>

#include "backend/cuda/loops.cuh"
#include "backend/kernels/elementwise.h"

namespace lucid::cuda {

namespace {

template <typename T>
struct FillFn {
  T v;
  __device__ __forceinline__ T operator()() const { return v; }
};

template <typename To, typename From>
struct CastFn {
  __device__ __forceinline__ To operator()(From v) const { return convert<To>(v); }
};

template <BinaryOp Op, typename T>
struct BinaryFn {
  using M = typename OpMath<T>::type;
  M alpha;
  __device__ __forceinline__ T operator()(T a, T b) const { return T(apply_binary<Op, M>(M(a), M(b), alpha)); }
};

template <typename T>
bool all_zero_bytes(const T& v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char c : bytes)
    if (c) return false;
  return true;
}

void fill(const TensorImpl& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  const int dev = dst.device().index;
  DeviceGuard guard(dev);
  auto it = Iter<1>::make({&dst});
  dispatch_dtype(dst.dtype(), [&]<typename T>() {
    const T v = value.to<T>();
    if (it.contiguous && all_zero_bytes(v)) {  // zeros, false: a memset
      LUCID_CUDA_CHECK(cudaMemsetAsync(it.base[0], 0, size_t(it.numel) * sizeof(T), stream(dev)));
      return;
    }
    launch_elementwise<T>(it, FillFn<T>{v}, dev);
  });
}

void copy(const TensorImpl& dst, const TensorImpl& src) {
  if (dst.numel() == 0) return;
  const int dev = dst.device().index;
  DeviceGuard guard(dev);
  auto it = Iter<2>::make({&dst, &src});
  if (it.contiguous && dst.dtype() == src.dtype()) {
    LUCID_CUDA_CHECK(cudaMemcpyAsync(it.base[0], it.base[1], size_t(it.numel * dst.element_size()),
                                     cudaMemcpyDeviceToDevice, stream(dev)));
    return;
  }
  dispatch_dtype(dst.dtype(), [&]<typename To>() {
    dispatch_dtype(src.dtype(), [&]<typename From>() { launch_elementwise<To, From>(it, CastFn<To, From>{}, dev); });
  });
}

void binary(BinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, const Scalar& alpha) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  DeviceGuard guard(dev);
  auto it = Iter<3>::make({&out, &a, &b});
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    using M = typename OpMath<T>::type;
    const M al = alpha.to<M>();
    switch (op) {
      case BinaryOp::Add: launch_elementwise<T, T, T>(it, BinaryFn<BinaryOp::Add, T>{al}, dev); break;
      case BinaryOp::Sub: launch_elementwise<T, T, T>(it, BinaryFn<BinaryOp::Sub, T>{al}, dev); break;
      case BinaryOp::Mul: launch_elementwise<T, T, T>(it, BinaryFn<BinaryOp::Mul, T>{al}, dev); break;
      case BinaryOp::Div: launch_elementwise<T, T, T>(it, BinaryFn<BinaryOp::Div, T>{al}, dev); break;
      default:  // the rest of the binary family runs on the CPU only for now
        LUCID_FAIL(NotImplemented, "[binary] this op has no CUDA kernel yet");
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(fill_kernel, CUDA, &fill)
LUCID_REGISTER_KERNEL(copy_kernel, CUDA, &copy)
LUCID_REGISTER_KERNEL(binary_kernel, CUDA, &binary)

}  // namespace lucid::cuda
