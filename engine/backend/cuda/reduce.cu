// CUDA reductions (mirrors cpu/reduce.cpp). Floating sums accumulate in double, integers in
// int64, complex in complex<double>; the output dtype may differ and is converted on store.
//
// Three shapes of work, all deterministic (the split depends only on the shapes):
//  - thread per output: the reduced elements are strided (not adjacent in memory) and there are
//    many outputs, so neighbouring threads read neighbouring outputs (coalesced), or the
//    reduction is tiny;
//  - block per output: a block of threads walks the reduction, then reduces in shared memory;
//  - split: few outputs with long reductions: blocks (output, split) write partials, and a second
//    pass adds each output's partials in a fixed order.
#include <algorithm>

#include "backend/cuda/loops.cuh"
#include "backend/kernels/reduce.h"
#include "tensor/tensor_impl.h"

namespace lucid::cuda {

namespace {

template <typename T>
using SumAcc = std::conditional_t<is_complex_v<T>, c128,
                                  std::conditional_t<std::is_integral_v<T>, int64_t, double>>;

template <typename T>
__device__ __forceinline__ SumAcc<T> to_acc(T v) {
  if constexpr (is_complex_v<T>) return c128(double(v.re), double(v.im));
  else if constexpr (std::is_integral_v<T>) return int64_t(v);
  else return double(typename OpMath<T>::type(v));
}

// A floating sum divided by div as it is stored (mean: the count; 1 for a sum).
template <typename A>
__device__ __forceinline__ A divided(A acc, double div) {
  if constexpr (std::is_same_v<A, c128>) return c128(acc.re / div, acc.im / div);
  else if constexpr (std::is_integral_v<A>) return acc;
  else return acc / div;
}

// out[o] = acc converted to the output dtype (a runtime switch: one instantiation per input type).
template <typename A>
__device__ void store_as(uint8_t out_dtype, void* out, int64_t o, A acc) {
  switch (Dtype(out_dtype)) {
    case Dtype::Bool: static_cast<bool*>(out)[o] = convert<bool>(acc); break;
    case Dtype::U8: static_cast<uint8_t*>(out)[o] = convert<uint8_t>(acc); break;
    case Dtype::I8: static_cast<int8_t*>(out)[o] = convert<int8_t>(acc); break;
    case Dtype::I16: static_cast<int16_t*>(out)[o] = convert<int16_t>(acc); break;
    case Dtype::I32: static_cast<int32_t*>(out)[o] = convert<int32_t>(acc); break;
    case Dtype::I64: static_cast<int64_t*>(out)[o] = convert<int64_t>(acc); break;
    case Dtype::F16: static_cast<Half*>(out)[o] = convert<Half>(acc); break;
    case Dtype::BF16: static_cast<BFloat16*>(out)[o] = convert<BFloat16>(acc); break;
    case Dtype::F32: static_cast<float*>(out)[o] = convert<float>(acc); break;
    case Dtype::F64: static_cast<double*>(out)[o] = convert<double>(acc); break;
    case Dtype::C64: static_cast<c64*>(out)[o] = convert<c64>(acc); break;
    case Dtype::C128: static_cast<c128*>(out)[o] = convert<c128>(acc); break;
  }
}

__device__ __forceinline__ double shfl_down(double v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ int64_t shfl_down(int64_t v, int d) {
  return int64_t(__shfl_down_sync(0xffffffffu, static_cast<long long>(v), d));
}
__device__ __forceinline__ c128 shfl_down(c128 v, int d) {
  return c128(__shfl_down_sync(0xffffffffu, v.re, d), __shfl_down_sync(0xffffffffu, v.im, d));
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024); the result is valid in thread 0.
template <typename A>
__device__ A block_sum(A v) {
  __shared__ A warp_sums[32];
  for (int d = 16; d > 0; d >>= 1) v = v + shfl_down(v, d);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  if (nwarps == 1) return v;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? warp_sums[lane] : A(0);
    for (int d = 16; d > 0; d >>= 1) v = v + shfl_down(v, d);
  }
  __syncthreads();  // warp_sums may be reused by the next output of this block
  return v;
}

// Sums reduced positions first, first + step, ... below end into four independent accumulators
// (four loads in flight per thread), combined in a fixed order.
template <typename T, typename Index>
__device__ __forceinline__ SumAcc<T> sum_range(const char* p, const OffsetCalc<1, Index>& red, Index first, Index end,
                                               Index step) {
  using A = SumAcc<T>;
  A a0 = A(0), a1 = A(0), a2 = A(0), a3 = A(0);
  auto at = [&](Index k) {
    int64_t off[1];
    red.get(k, off);
    return to_acc(*reinterpret_cast<const T*>(p + off[0]));
  };
  Index k = first;
  for (; k < end && end - k > 3 * step; k += 4 * step) {
    const A v0 = at(k), v1 = at(k + step), v2 = at(k + 2 * step), v3 = at(k + 3 * step);
    a0 = a0 + v0;
    a1 = a1 + v1;
    a2 = a2 + v2;
    a3 = a3 + v3;
  }
  for (; k < end; k += step) a0 = a0 + at(k);
  return (a0 + a1) + (a2 + a3);
}

template <typename T, typename Index>
__global__ void sum_thread_kernel(OffsetCalc<1, Index> outer, OffsetCalc<1, Index> red, Index nout, Index count,
                                  const char* __restrict__ in, void* out, uint8_t out_dtype, double div) {
  using A = SumAcc<T>;
  const Index step = Index(gridDim.x) * blockDim.x;
  for (Index o = Index(blockIdx.x) * blockDim.x + threadIdx.x; o < nout; o += step) {
    int64_t base[1];
    outer.get(o, base);
    const char* p = in + base[0];
    const A acc = sum_range<T>(p, red, Index(0), count, Index(1));
    store_as(out_dtype, out, int64_t(o), divided(acc, div));
  }
}

// Block (x: outputs, y: split) sums reduced positions [y * per, (y + 1) * per). partials == nullptr:
// store the output directly.
template <typename T, typename Index>
__global__ void sum_block_kernel(OffsetCalc<1, Index> outer, OffsetCalc<1, Index> red, Index nout, Index count,
                                 Index per, const char* __restrict__ in, void* out, uint8_t out_dtype,
                                 SumAcc<T>* partials, double div) {
  using A = SumAcc<T>;
  const Index y0 = Index(blockIdx.y) * per;  // < 2 * count: no overflow
  const Index begin = y0 < count ? y0 : count;
  const Index end = count - begin < per ? count : begin + per;
  for (Index o = blockIdx.x; o < nout; o += gridDim.x) {
    int64_t base[1];
    outer.get(o, base);
    const char* p = in + base[0];
    A acc = sum_range<T>(p, red, Index(begin + threadIdx.x), end, Index(blockDim.x));
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
      if (partials) partials[int64_t(o) * gridDim.y + blockIdx.y] = acc;
      else store_as(out_dtype, out, int64_t(o), divided(acc, div));
    }
  }
}

// One block per output adds its splits' partials (a thread walking them alone took longer than the
// sum itself: a sum of 1M floats is 1024 partials).
template <typename A>
__global__ void sum_partials_kernel(const A* __restrict__ partials, int64_t nout, int splits, void* out,
                                    uint8_t out_dtype, double div) {
  for (int64_t o = blockIdx.x; o < nout; o += gridDim.x) {
    A acc = A(0);
    for (int s = threadIdx.x; s < splits; s += blockDim.x) acc = acc + partials[o * splits + s];
    acc = block_sum(acc);
    if (threadIdx.x == 0) store_as(out_dtype, out, o, divided(acc, div));
  }
}

// Coalesced dims (innermost first, byte strides) of in's dims [lo, hi), dropping size-1 dims.
struct Dims {
  int nd = 0;
  int64_t shape[kMaxIterDims];
  int64_t stride[1][kMaxIterDims];
  int64_t count = 1;
};

Dims coalesce(const TensorImpl& in, int64_t lo, int64_t hi) {
  Dims r;
  const int64_t isz = in.element_size();
  for (int64_t d = hi - 1; d >= lo; --d) {
    const int64_t sz = in.shape()[size_t(d)];
    r.count *= sz;
    if (sz == 1) continue;
    const int64_t st = in.strides()[size_t(d)] * isz;
    if (r.nd > 0 && st == r.stride[0][r.nd - 1] * r.shape[r.nd - 1]) {
      r.shape[r.nd - 1] *= sz;
    } else {
      LUCID_CHECK(r.nd < kMaxIterDims, NotImplemented,
                  "[sum] tensors with more than " << kMaxIterDims << " non-mergeable dims are not supported");
      r.shape[r.nd] = sz;
      r.stride[0][r.nd] = st;
      ++r.nd;
    }
  }
  if (r.nd == 0 || r.count == 0) {
    r.nd = 1;
    r.shape[0] = 1;
    r.stride[0][0] = isz;
  }
  return r;
}

constexpr int64_t kTargetBlocks = 1024;  // fixed, not per-GPU: results must not depend on the GPU model

template <typename T, typename Index>
void launch_sum(const TensorImpl& out, const TensorImpl& in, const Dims& od, const Dims& rd, int dev, double div) {
  using A = SumAcc<T>;
  cudaStream_t s = stream(dev);
  const OffsetCalc<1, Index> outer(od.nd, od.shape, od.stride), red(rd.nd, rd.shape, rd.stride);
  const int64_t nout = out.numel(), count = rd.count;
  const char* in_p = static_cast<const char*>(in.data_ptr());
  void* out_p = out.data_ptr();
  const uint8_t odt = uint8_t(out.dtype());
  // Neighbouring reduced elements adjacent in memory: threads of a block share one output.
  const bool inner_dense = rd.stride[0][0] == in.element_size();
  if (count <= 16 || (!inner_dense && nout >= 8 * kTargetBlocks)) {
    sum_thread_kernel<T, Index><<<blocks_for(nout), kThreads, 0, s>>>(outer, red, Index(nout), Index(count), in_p,
                                                                        out_p, odt, div);
    LUCID_CUDA_LAUNCH_CHECK();
    return;
  }
  int threads = 32;
  while (threads < 256 && threads < count) threads *= 2;
  int64_t splits = 1;
  if (nout < kTargetBlocks / 2) {
    splits = std::min<int64_t>((count + 4 * threads - 1) / (4 * threads), kTargetBlocks / nout);
    splits = std::clamp<int64_t>(splits, 1, 65535);
  }
  const int64_t per = (count + splits - 1) / splits;
  const dim3 grid(unsigned(std::min<int64_t>(nout, 1 << 20)), unsigned(splits));
  if (splits == 1) {
    sum_block_kernel<T, Index><<<grid, threads, 0, s>>>(outer, red, Index(nout), Index(count), Index(per), in_p, out_p,
                                                        odt, nullptr, div);
    LUCID_CUDA_LAUNCH_CHECK();
    return;
  }
  // Partials live in a scratch tensor from the caching allocator; freeing it right after the
  // launches is safe (Note [Caching allocator and the single stream] in cuda_device.cu).
  Tensor scratch = TensorImpl::empty({nout * splits * int64_t(sizeof(A))}, Dtype::U8, out.device());
  A* partials = static_cast<A*>(scratch->data_ptr());
  sum_block_kernel<T, Index><<<grid, threads, 0, s>>>(outer, red, Index(nout), Index(count), Index(per), in_p, out_p,
                                                      odt, partials, div);
  LUCID_CUDA_LAUNCH_CHECK();
  int pthreads = 32;
  while (pthreads < 256 && pthreads < splits) pthreads *= 2;
  sum_partials_kernel<A><<<unsigned(std::min<int64_t>(nout, 1 << 16)), pthreads, 0, s>>>(partials, nout, int(splits),
                                                                                      out_p, odt, div);
  LUCID_CUDA_LAUNCH_CHECK();
}

void sum(const TensorImpl& out, const TensorImpl& in, int nreduce, double div) {
  const int64_t nout = out.numel();
  if (nout == 0) return;
  const int dev = out.device().index;
  DeviceGuard guard(dev);
  const int64_t nouter = in.dim() - nreduce;
  const Dims od = coalesce(in, 0, nouter), rd = coalesce(in, nouter, in.dim());
  const bool small = nout < (int64_t(1) << 31) && rd.count < (int64_t(1) << 31);
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    if (small) launch_sum<T, uint32_t>(out, in, od, rd, dev, div);
    else launch_sum<T, uint64_t>(out, in, od, rd, dev, div);
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sum_kernel, CUDA, &sum)

}  // namespace lucid::cuda
