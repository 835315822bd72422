#pragma once
// Element types, their properties, and PyTorch's type promotion.
#include <cstdint>
#include <string>

#include "core/complex.h"
#include "core/error.h"
#include "core/half.h"

namespace lucid {

// Order matters only for the tables in dtype.cpp.
enum class Dtype : uint8_t { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128 };
constexpr int kNumDtypes = 12;

enum class DtypeCategory : uint8_t { Bool = 0, Integral = 1, Floating = 2, Complex = 3 };

int64_t itemsize(Dtype d);
const char* dtype_name(Dtype d);  // "float32", ...
DtypeCategory category(Dtype d);
inline bool is_floating(Dtype d) { return category(d) == DtypeCategory::Floating; }
inline bool is_complex(Dtype d) { return category(d) == DtypeCategory::Complex; }
inline bool is_integral(Dtype d, bool include_bool) {
  auto c = category(d);
  return c == DtypeCategory::Integral || (include_bool && c == DtypeCategory::Bool);
}
bool is_signed(Dtype d);
Dtype to_complex(Dtype real);  // float32 -> complex64, float64 -> complex128, half -> complex64
Dtype to_real(Dtype d);        // complex64 -> float32; others unchanged
bool dtype_from_name(const std::string& name, Dtype* out);

// PyTorch's promote_types table.
Dtype promote_types(Dtype a, Dtype b);
// torch.can_cast: may `from` be cast to `to` under same-kind rules?
bool can_cast(Dtype from, Dtype to);

// Default floating dtype (set_default_dtype). Thread-unsafe by design, like PyTorch's.
Dtype default_dtype();
void set_default_dtype(Dtype d);
Dtype default_complex_dtype();

// result_type over a mix of dimensioned tensors, zero-dim tensors and Python scalars
// (wrapped numbers), exactly as PyTorch's ResultTypeState.
struct ResultTypeState {
  int dim = -1, zero_dim = -1, wrapped = -1;  // -1: none seen yet
  void add_tensor(Dtype d, bool zero_dim_tensor);
  void add_scalar(DtypeCategory c);  // Python bool/int/float/complex
  Dtype result() const;
};

// C++ type for each dtype.
template <Dtype D> struct DtypeTraits;
#define LUCID_DTYPE_TRAIT(D, T) \
  template <> struct DtypeTraits<Dtype::D> { using type = T; };
LUCID_DTYPE_TRAIT(Bool, bool)
LUCID_DTYPE_TRAIT(U8, uint8_t)
LUCID_DTYPE_TRAIT(I8, int8_t)
LUCID_DTYPE_TRAIT(I16, int16_t)
LUCID_DTYPE_TRAIT(I32, int32_t)
LUCID_DTYPE_TRAIT(I64, int64_t)
LUCID_DTYPE_TRAIT(F16, Half)
LUCID_DTYPE_TRAIT(BF16, BFloat16)
LUCID_DTYPE_TRAIT(F32, float)
LUCID_DTYPE_TRAIT(F64, double)
LUCID_DTYPE_TRAIT(C64, c64)
LUCID_DTYPE_TRAIT(C128, c128)
#undef LUCID_DTYPE_TRAIT

template <typename T> struct DtypeOf;
#define LUCID_DTYPE_OF(T, D) \
  template <> struct DtypeOf<T> { static constexpr Dtype value = Dtype::D; };
LUCID_DTYPE_OF(bool, Bool)
LUCID_DTYPE_OF(uint8_t, U8)
LUCID_DTYPE_OF(int8_t, I8)
LUCID_DTYPE_OF(int16_t, I16)
LUCID_DTYPE_OF(int32_t, I32)
LUCID_DTYPE_OF(int64_t, I64)
LUCID_DTYPE_OF(Half, F16)
LUCID_DTYPE_OF(BFloat16, BF16)
LUCID_DTYPE_OF(float, F32)
LUCID_DTYPE_OF(double, F64)
LUCID_DTYPE_OF(c64, C64)
LUCID_DTYPE_OF(c128, C128)
#undef LUCID_DTYPE_OF

// dispatch_dtype(d, "op", [&]<typename T>() { ... }) calls f with T = the C++ type of d.
template <typename F>
decltype(auto) dispatch_dtype(Dtype d, F&& f) {
  switch (d) {
    case Dtype::Bool: return f.template operator()<bool>();
    case Dtype::U8: return f.template operator()<uint8_t>();
    case Dtype::I8: return f.template operator()<int8_t>();
    case Dtype::I16: return f.template operator()<int16_t>();
    case Dtype::I32: return f.template operator()<int32_t>();
    case Dtype::I64: return f.template operator()<int64_t>();
    case Dtype::F16: return f.template operator()<Half>();
    case Dtype::BF16: return f.template operator()<BFloat16>();
    case Dtype::F32: return f.template operator()<float>();
    case Dtype::F64: return f.template operator()<double>();
    case Dtype::C64: return f.template operator()<c64>();
    case Dtype::C128: return f.template operator()<c128>();
  }
  LUCID_FAIL(Generic, "unknown dtype");
}

}  // namespace lucid
