#include "core/dtype.h"

namespace lucid {

namespace {
struct Info {
  const char* name;
  int64_t size;
  DtypeCategory cat;
  bool is_signed;
};
constexpr Info kInfo[kNumDtypes] = {
    {"bool", 1, DtypeCategory::Bool, false},        {"uint8", 1, DtypeCategory::Integral, false},
    {"int8", 1, DtypeCategory::Integral, true},     {"int16", 2, DtypeCategory::Integral, true},
    {"int32", 4, DtypeCategory::Integral, true},    {"int64", 8, DtypeCategory::Integral, true},
    {"float16", 2, DtypeCategory::Floating, true},  {"bfloat16", 2, DtypeCategory::Floating, true},
    {"float32", 4, DtypeCategory::Floating, true},  {"float64", 8, DtypeCategory::Floating, true},
    {"complex64", 8, DtypeCategory::Complex, true}, {"complex128", 16, DtypeCategory::Complex, true},
};
Dtype g_default = Dtype::F32;
}  // namespace

int64_t itemsize(Dtype d) { return kInfo[int(d)].size; }
const char* dtype_name(Dtype d) { return kInfo[int(d)].name; }
DtypeCategory category(Dtype d) { return kInfo[int(d)].cat; }
bool is_signed(Dtype d) { return kInfo[int(d)].is_signed; }

bool dtype_from_name(const std::string& name, Dtype* out) {
  for (int i = 0; i < kNumDtypes; ++i)
    if (name == kInfo[i].name) return *out = Dtype(i), true;
  return false;
}

Dtype to_complex(Dtype d) {
  switch (d) {
    case Dtype::F64: case Dtype::C128: return Dtype::C128;
    default: return Dtype::C64;
  }
}
Dtype to_real(Dtype d) {
  if (d == Dtype::C64) return Dtype::F32;
  if (d == Dtype::C128) return Dtype::F64;
  return d;
}

Dtype promote_types(Dtype a, Dtype b) {
  if (a == b) return a;
  const auto ca = category(a), cb = category(b);
  if (ca != cb) {
    const Dtype hi = ca > cb ? a : b, lo = ca > cb ? b : a;
    // complex64 with float64 widens to complex128, as in PyTorch.
    if (hi == Dtype::C64 && lo == Dtype::F64) return Dtype::C128;
    return hi;
  }
  switch (ca) {
    case DtypeCategory::Bool: return a;
    case DtypeCategory::Integral: {
      if (a == Dtype::U8 || b == Dtype::U8) {
        const Dtype other = a == Dtype::U8 ? b : a;
        return other == Dtype::I8 ? Dtype::I16 : other;
      }
      return itemsize(a) >= itemsize(b) ? a : b;
    }
    case DtypeCategory::Floating:
      if ((a == Dtype::F16 && b == Dtype::BF16) || (a == Dtype::BF16 && b == Dtype::F16)) return Dtype::F32;
      return itemsize(a) >= itemsize(b) ? a : b;
    case DtypeCategory::Complex: return itemsize(a) >= itemsize(b) ? a : b;
  }
  return a;
}

bool can_cast(Dtype from, Dtype to) {
  // Same-kind casting: no float -> integral, no complex -> non-complex, no non-bool -> bool.
  const auto cf = category(from), ct = category(to);
  if (cf == DtypeCategory::Complex && ct != DtypeCategory::Complex) return false;
  if (cf == DtypeCategory::Floating && ct < DtypeCategory::Floating) return false;
  if (cf != DtypeCategory::Bool && ct == DtypeCategory::Bool) return false;
  return true;
}

Dtype default_dtype() { return g_default; }
void set_default_dtype(Dtype d) {
  LUCID_CHECK(is_floating(d), Type,
              "set_default_dtype: only floating-point types are supported as the default type, got "
                  << dtype_name(d));
  g_default = d;
}
Dtype default_complex_dtype() { return g_default == Dtype::F64 ? Dtype::C128 : Dtype::C64; }

namespace {
int promote_slot(int cur, Dtype d) { return cur < 0 ? int(d) : int(promote_types(Dtype(cur), d)); }

// PyTorch's combine_categories(higher, lower).
int combine(int higher, int lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  const Dtype h = Dtype(higher), l = Dtype(lower);
  if (is_complex(h)) return higher;
  if (is_complex(l)) return is_floating(h) ? int(to_complex(h)) : lower;
  if (is_floating(h)) return higher;
  if (h == Dtype::Bool || is_floating(l)) return int(promote_types(h, l));
  return higher;
}
}  // namespace

void ResultTypeState::add_tensor(Dtype d, bool zero_dim_tensor) {
  if (zero_dim_tensor) zero_dim = promote_slot(zero_dim, d);
  else dim = promote_slot(dim, d);
}

void ResultTypeState::add_scalar(DtypeCategory c) {
  Dtype d = Dtype::Bool;
  switch (c) {
    case DtypeCategory::Bool: d = Dtype::Bool; break;
    case DtypeCategory::Integral: d = Dtype::I64; break;
    case DtypeCategory::Floating: d = default_dtype(); break;
    case DtypeCategory::Complex: d = default_complex_dtype(); break;
  }
  wrapped = promote_slot(wrapped, d);
}

Dtype ResultTypeState::result() const {
  const int r = combine(dim, combine(zero_dim, wrapped));
  return r < 0 ? default_dtype() : Dtype(r);
}

}  // namespace lucid
