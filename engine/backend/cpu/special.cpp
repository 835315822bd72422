// CPU kernels of the special functions (kernels/special.h): each element through the double-precision
// scalar functions of special_math.h, rounded once to the tensor's dtype.
#include <type_traits>

#include "backend/common/iter.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/special_math.h"
#include "backend/kernels/special.h"

namespace lucid::cpu {

namespace {

template <typename T>
double in_double(T v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else return double(float(v));
}
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return T(v);
  else return T(float(v));
}

// The special functions are long scalar code: a small grain still splits a few thousand elements.
constexpr int64_t kGrain = 1024;

template <SpecialOp Op>
double special_fn(double x) {
  if constexpr (Op == SpecialOp::I0) return sm::i0(x);
  else if constexpr (Op == SpecialOp::I0e) return sm::i0e(x);
  else if constexpr (Op == SpecialOp::I1) return sm::i1(x);
  else if constexpr (Op == SpecialOp::I1e) return sm::i1e(x);
  else if constexpr (Op == SpecialOp::Erfcx) return sm::erfcx(x);
  else if constexpr (Op == SpecialOp::Ndtri) return sm::ndtri(x);
  else return sm::log_ndtr(x);
}

template <SpecialOp Op>
void special_run(const TensorImpl& out, const TensorImpl& in) {
  dispatch_floating(in.dtype(), special_name(Op), [&]<typename T>() {
    auto it = Iter<2>::make({&out, &in});
    parallel_for(0, it.numel, kGrain, [&](int64_t b, int64_t e) {
      it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              from_double<T>(special_fn<Op>(in_double(*reinterpret_cast<const T*>(p[1] + i * s[1]))));
      });
    });
  });
}

void special(SpecialOp op, const TensorImpl& out, const TensorImpl& in) {
  if (out.numel() == 0) return;
  switch (op) {
    case SpecialOp::I0: return special_run<SpecialOp::I0>(out, in);
    case SpecialOp::I0e: return special_run<SpecialOp::I0e>(out, in);
    case SpecialOp::I1: return special_run<SpecialOp::I1>(out, in);
    case SpecialOp::I1e: return special_run<SpecialOp::I1e>(out, in);
    case SpecialOp::Erfcx: return special_run<SpecialOp::Erfcx>(out, in);
    case SpecialOp::Ndtri: return special_run<SpecialOp::Ndtri>(out, in);
    case SpecialOp::LogNdtr: return special_run<SpecialOp::LogNdtr>(out, in);
  }
}

template <SpecialBinaryOp Op>
void special_binary_run(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  dispatch_floating(a.dtype(), special_name(Op), [&]<typename T>() {
    auto it = Iter<3>::make({&out, &a, &b});
    parallel_for(0, it.numel, kGrain, [&](int64_t lo, int64_t hi) {
      it.for_range(lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const double x = in_double(*reinterpret_cast<const T*>(p[1] + i * s[1]));
          const double y = in_double(*reinterpret_cast<const T*>(p[2] + i * s[2]));
          double r;
          if constexpr (Op == SpecialBinaryOp::Igamma) r = sm::igamma(x, y);
          else if constexpr (Op == SpecialBinaryOp::Igammac) r = sm::igammac(x, y);
          else r = sm::zeta(x, y);
          *reinterpret_cast<T*>(p[0] + i * s[0]) = from_double<T>(r);
        }
      });
    });
  });
}

void special_binary(SpecialBinaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel() == 0) return;
  switch (op) {
    case SpecialBinaryOp::Igamma: return special_binary_run<SpecialBinaryOp::Igamma>(out, a, b);
    case SpecialBinaryOp::Igammac: return special_binary_run<SpecialBinaryOp::Igammac>(out, a, b);
    case SpecialBinaryOp::Zeta: return special_binary_run<SpecialBinaryOp::Zeta>(out, a, b);
  }
}

}  // namespace

LUCID_REGISTER_KERNEL(special_kernel, CPU, &special)
LUCID_REGISTER_KERNEL(special_binary_kernel, CPU, &special_binary)

}  // namespace lucid::cpu
