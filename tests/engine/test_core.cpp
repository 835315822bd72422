// engine/core: dtypes and promotion, devices, shape/stride math, half/bfloat16, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "test_util.h"

namespace lucid {
namespace {

constexpr Dtype kAll[] = {Dtype::Bool, Dtype::U8,  Dtype::I8,  Dtype::I16, Dtype::I32, Dtype::I64,
                          Dtype::F16,  Dtype::BF16, Dtype::F32, Dtype::F64, Dtype::C64, Dtype::C128};

// ---------------------------------------------------------------------------------------------
// dtype properties

TEST(Dtype, ItemsizeAndNames) {
  struct Row { Dtype d; int64_t size; const char* name; DtypeCategory cat; bool sgn; };
  const Row rows[] = {
      {Dtype::Bool, 1, "bool", DtypeCategory::Bool, false},
      {Dtype::U8, 1, "uint8", DtypeCategory::Integral, false},
      {Dtype::I8, 1, "int8", DtypeCategory::Integral, true},
      {Dtype::I16, 2, "int16", DtypeCategory::Integral, true},
      {Dtype::I32, 4, "int32", DtypeCategory::Integral, true},
      {Dtype::I64, 8, "int64", DtypeCategory::Integral, true},
      {Dtype::F16, 2, "float16", DtypeCategory::Floating, true},
      {Dtype::BF16, 2, "bfloat16", DtypeCategory::Floating, true},
      {Dtype::F32, 4, "float32", DtypeCategory::Floating, true},
      {Dtype::F64, 8, "float64", DtypeCategory::Floating, true},
      {Dtype::C64, 8, "complex64", DtypeCategory::Complex, true},
      {Dtype::C128, 16, "complex128", DtypeCategory::Complex, true},
  };
  ASSERT_EQ(std::size(rows), size_t(kNumDtypes));
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(itemsize(r.d), r.size);
    EXPECT_STREQ(dtype_name(r.d), r.name);
    EXPECT_EQ(category(r.d), r.cat);
    EXPECT_EQ(is_signed(r.d), r.sgn);
    Dtype parsed = Dtype::Bool;
    ASSERT_TRUE(dtype_from_name(r.name, &parsed));
    EXPECT_EQ(parsed, r.d);
  }
  Dtype untouched = Dtype::I16;
  EXPECT_FALSE(dtype_from_name("float", &untouched));
  EXPECT_FALSE(dtype_from_name("Float32", &untouched));
  EXPECT_FALSE(dtype_from_name("", &untouched));
  EXPECT_EQ(untouched, Dtype::I16);
}

TEST(Dtype, CppTypesMatchItemsize) {
  for (Dtype d : kAll) {
    dispatch_dtype(d, [&]<typename T>() {
      EXPECT_EQ(int64_t(sizeof(T)), itemsize(d)) << dtype_name(d);
      EXPECT_EQ(DtypeOf<T>::value, d);
    });
  }
  EXPECT_EQ(alignof(c64), 8u);
  EXPECT_EQ(alignof(c128), 16u);
}

TEST(Dtype, CategoryPredicatesAndComplexMapping) {
  EXPECT_TRUE(is_integral(Dtype::Bool, true));
  EXPECT_FALSE(is_integral(Dtype::Bool, false));
  EXPECT_TRUE(is_integral(Dtype::U8, false));
  EXPECT_FALSE(is_integral(Dtype::F16, true));
  EXPECT_TRUE(is_floating(Dtype::BF16));
  EXPECT_FALSE(is_floating(Dtype::C64));
  EXPECT_TRUE(is_complex(Dtype::C128));
  EXPECT_EQ(to_complex(Dtype::F32), Dtype::C64);
  EXPECT_EQ(to_complex(Dtype::F64), Dtype::C128);
  EXPECT_EQ(to_complex(Dtype::C128), Dtype::C128);
  EXPECT_EQ(to_real(Dtype::C64), Dtype::F32);
  EXPECT_EQ(to_real(Dtype::C128), Dtype::F64);
  EXPECT_EQ(to_real(Dtype::I32), Dtype::I32);
}

// ---------------------------------------------------------------------------------------------
// promote_types: PyTorch's table (c10/core/ScalarType.cpp), restricted to lucid's dtypes.

TEST(Dtype, PromoteTypesMatchesPyTorchTable) {
  using D = Dtype;
  constexpr D b1 = D::Bool, u1 = D::U8, i1 = D::I8, i2 = D::I16, i4 = D::I32, i8 = D::I64, f2 = D::F16,
              bf = D::BF16, f4 = D::F32, f8 = D::F64, c4 = D::C64, c8 = D::C128;
  // Rows and columns in lucid's enum order: b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8.
  const D table[kNumDtypes][kNumDtypes] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  for (int i = 0; i < kNumDtypes; ++i)
    for (int j = 0; j < kNumDtypes; ++j)
      EXPECT_EQ(promote_types(Dtype(i), Dtype(j)), table[i][j])
          << dtype_name(Dtype(i)) << " + " << dtype_name(Dtype(j));
}

TEST(Dtype, PromoteTypesSpotChecks) {
  EXPECT_EQ(promote_types(Dtype::U8, Dtype::I8), Dtype::I16);
  EXPECT_EQ(promote_types(Dtype::Bool, Dtype::F16), Dtype::F16);
  EXPECT_EQ(promote_types(Dtype::I64, Dtype::F16), Dtype::F16);
  EXPECT_EQ(promote_types(Dtype::F16, Dtype::BF16), Dtype::F32);
  EXPECT_EQ(promote_types(Dtype::C64, Dtype::F64), Dtype::C128);
  EXPECT_EQ(promote_types(Dtype::F64, Dtype::C64), Dtype::C128);
  EXPECT_EQ(promote_types(Dtype::BF16, Dtype::C64), Dtype::C64);
}

TEST(Dtype, CanCastSameKind) {
  // torch.can_cast
  EXPECT_TRUE(can_cast(Dtype::I32, Dtype::F32));
  EXPECT_TRUE(can_cast(Dtype::F64, Dtype::F16));
  EXPECT_TRUE(can_cast(Dtype::I64, Dtype::I8));
  EXPECT_TRUE(can_cast(Dtype::U8, Dtype::I8));
  EXPECT_TRUE(can_cast(Dtype::Bool, Dtype::I32));
  EXPECT_TRUE(can_cast(Dtype::Bool, Dtype::Bool));
  EXPECT_TRUE(can_cast(Dtype::F32, Dtype::C64));
  EXPECT_TRUE(can_cast(Dtype::C128, Dtype::C64));
  EXPECT_FALSE(can_cast(Dtype::F64, Dtype::I32));
  EXPECT_FALSE(can_cast(Dtype::F16, Dtype::U8));
  EXPECT_FALSE(can_cast(Dtype::C64, Dtype::F64));
  EXPECT_FALSE(can_cast(Dtype::C64, Dtype::I64));
  EXPECT_FALSE(can_cast(Dtype::I32, Dtype::Bool));
  EXPECT_FALSE(can_cast(Dtype::F32, Dtype::Bool));
  for (Dtype d : kAll) EXPECT_TRUE(can_cast(d, d)) << dtype_name(d);
}

// ---------------------------------------------------------------------------------------------
// ResultTypeState: dimensioned tensors, zero-dim tensors and Python scalars (PyTorch's
// update_result_type_state + combine_categories).

struct RtOperand {
  enum Kind { Dim, ZeroDim, Scalar } kind;
  Dtype d = Dtype::Bool;
  DtypeCategory c = DtypeCategory::Bool;
};
RtOperand dim(Dtype d) { return {RtOperand::Dim, d, category(d)}; }
RtOperand zd(Dtype d) { return {RtOperand::ZeroDim, d, category(d)}; }
RtOperand py(DtypeCategory c) { return {RtOperand::Scalar, Dtype::Bool, c}; }

Dtype result_of(std::initializer_list<RtOperand> ops) {
  ResultTypeState st;
  for (const auto& o : ops) {
    if (o.kind == RtOperand::Scalar) st.add_scalar(o.c);
    else st.add_tensor(o.d, o.kind == RtOperand::ZeroDim);
  }
  return st.result();
}

constexpr auto kBoolS = DtypeCategory::Bool;
constexpr auto kIntS = DtypeCategory::Integral;
constexpr auto kFloatS = DtypeCategory::Floating;
constexpr auto kComplexS = DtypeCategory::Complex;

TEST(ResultType, PythonScalarsAreWeak) {
  EXPECT_EQ(result_of({dim(Dtype::I32), py(kFloatS)}), Dtype::F32);  // default dtype
  EXPECT_EQ(result_of({dim(Dtype::I32), py(kIntS)}), Dtype::I32);
  EXPECT_EQ(result_of({dim(Dtype::U8), py(kIntS)}), Dtype::U8);
  EXPECT_EQ(result_of({dim(Dtype::I8), py(kBoolS)}), Dtype::I8);
  EXPECT_EQ(result_of({dim(Dtype::Bool), py(kIntS)}), Dtype::I64);
  EXPECT_EQ(result_of({dim(Dtype::Bool), py(kBoolS)}), Dtype::Bool);
  EXPECT_EQ(result_of({dim(Dtype::Bool), py(kFloatS)}), Dtype::F32);
  EXPECT_EQ(result_of({dim(Dtype::F16), py(kFloatS)}), Dtype::F16);
  EXPECT_EQ(result_of({dim(Dtype::BF16), py(kIntS)}), Dtype::BF16);
  EXPECT_EQ(result_of({dim(Dtype::F64), py(kFloatS)}), Dtype::F64);
  EXPECT_EQ(result_of({dim(Dtype::F32), py(kComplexS)}), Dtype::C64);
  EXPECT_EQ(result_of({dim(Dtype::F64), py(kComplexS)}), Dtype::C128);
  EXPECT_EQ(result_of({dim(Dtype::I64), py(kComplexS)}), Dtype::C64);
  EXPECT_EQ(result_of({dim(Dtype::C128), py(kFloatS)}), Dtype::C128);
}

TEST(ResultType, ZeroDimTensorsYieldWithinTheirCategory) {
  EXPECT_EQ(result_of({dim(Dtype::F32), zd(Dtype::F64)}), Dtype::F32);
  EXPECT_EQ(result_of({dim(Dtype::F16), zd(Dtype::F64)}), Dtype::F16);
  EXPECT_EQ(result_of({dim(Dtype::I32), zd(Dtype::I64)}), Dtype::I32);
  EXPECT_EQ(result_of({dim(Dtype::U8), zd(Dtype::I8)}), Dtype::U8);
  EXPECT_EQ(result_of({zd(Dtype::F64), dim(Dtype::BF16)}), Dtype::BF16);
}

TEST(ResultType, ZeroDimTensorOfHigherCategoryKeepsItsDtype) {
  // combine_categories(int64, float64): the lower (zero-dim) operand is floating, so
  // promote_types(int64, float64) = float64, not the default dtype.
  EXPECT_EQ(result_of({dim(Dtype::I64), zd(Dtype::F64)}), Dtype::F64);
  EXPECT_EQ(result_of({dim(Dtype::I32), zd(Dtype::F16)}), Dtype::F16);
  EXPECT_EQ(result_of({dim(Dtype::Bool), zd(Dtype::I32)}), Dtype::I32);
  // Complex zero-dim over a floating dimensioned tensor keeps the tensor's precision.
  EXPECT_EQ(result_of({dim(Dtype::F32), zd(Dtype::C128)}), Dtype::C64);
  EXPECT_EQ(result_of({dim(Dtype::F64), zd(Dtype::C64)}), Dtype::C128);
  // ... and over an integral one takes the zero-dim complex dtype.
  EXPECT_EQ(result_of({dim(Dtype::I32), zd(Dtype::C128)}), Dtype::C128);
}

TEST(ResultType, ZeroDimAndScalarsOnly) {
  EXPECT_EQ(result_of({zd(Dtype::I32), py(kFloatS)}), Dtype::F32);
  EXPECT_EQ(result_of({zd(Dtype::I32), py(kIntS)}), Dtype::I32);
  EXPECT_EQ(result_of({zd(Dtype::F64), py(kIntS)}), Dtype::F64);
  EXPECT_EQ(result_of({zd(Dtype::I64), zd(Dtype::I32)}), Dtype::I64);
  EXPECT_EQ(result_of({zd(Dtype::F16), zd(Dtype::BF16)}), Dtype::F32);
  EXPECT_EQ(result_of({py(kIntS), py(kIntS)}), Dtype::I64);
  EXPECT_EQ(result_of({py(kIntS), py(kFloatS)}), Dtype::F32);
  EXPECT_EQ(result_of({}), Dtype::F32);
  EXPECT_EQ(result_of({dim(Dtype::I32), dim(Dtype::F16)}), Dtype::F16);
  EXPECT_EQ(result_of({dim(Dtype::U8), dim(Dtype::I8)}), Dtype::I16);
}

TEST(ResultType, FollowsDefaultDtype) {
  ASSERT_EQ(default_dtype(), Dtype::F32);
  EXPECT_EQ(default_complex_dtype(), Dtype::C64);
  set_default_dtype(Dtype::F64);
  EXPECT_EQ(default_complex_dtype(), Dtype::C128);
  EXPECT_EQ(result_of({dim(Dtype::I32), py(kFloatS)}), Dtype::F64);
  EXPECT_EQ(result_of({dim(Dtype::I32), py(kComplexS)}), Dtype::C128);
  EXPECT_EQ(result_of({dim(Dtype::F32), py(kFloatS)}), Dtype::F32);
  EXPECT_EQ(result_of({}), Dtype::F64);
  set_default_dtype(Dtype::F32);
  EXPECT_EQ(default_dtype(), Dtype::F32);
}

TEST(ResultType, DefaultDtypeMustBeFloating) {
  EXPECT_LUCID_ERROR(set_default_dtype(Dtype::I32), Type);
  EXPECT_LUCID_ERROR(set_default_dtype(Dtype::C64), Type);
  EXPECT_EQ(default_dtype(), Dtype::F32);
}

// ---------------------------------------------------------------------------------------------
// Scalar

TEST(Scalar, ConversionsFollowCastRules) {
  const Scalar f = Scalar::from_double(-2.75);
  EXPECT_EQ(f.kind, DtypeCategory::Floating);
  EXPECT_EQ(f.to<int32_t>(), -2);  // truncation toward zero
  EXPECT_EQ(f.to<double>(), -2.75);
  EXPECT_TRUE(f.to<bool>());
  EXPECT_EQ(float(f.to<Half>()), -2.75f);
  const Scalar i = Scalar::from_int(int64_t(1) << 40);
  EXPECT_EQ(i.to<int64_t>(), int64_t(1) << 40);
  EXPECT_EQ(i.to<double>(), std::ldexp(1.0, 40));
  const Scalar z = Scalar::from_complex(1.5, -2);
  EXPECT_EQ(z.to<c128>(), c128(1.5, -2));
  EXPECT_EQ(z.to<double>(), 1.5);
  EXPECT_FALSE(Scalar::from_int(0).to<bool>());
  EXPECT_EQ(Scalar::from_bool(true).to<int8_t>(), 1);
}

// ---------------------------------------------------------------------------------------------
// Device

TEST(Device, ParsesValidStrings) {
  const Device c("cpu");
  EXPECT_TRUE(c.is_cpu());
  EXPECT_EQ(c.index, -1);
  EXPECT_EQ(c.str(), "cpu");
  EXPECT_EQ(Device("cpu:0"), c);
  EXPECT_EQ(c, Device(DeviceType::CPU));
  EXPECT_EQ(Device(DeviceType::CPU, 3).index, -1);

  const Device g("cuda");
  EXPECT_TRUE(g.is_cuda());
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.str(), "cuda:0");
  EXPECT_EQ(Device("cuda:0"), g);
  EXPECT_EQ(Device("gpu"), g);
  EXPECT_EQ(Device("cuda:3").index, 3);
  EXPECT_EQ(Device("gpu:2"), Device(DeviceType::CUDA, 2));
  EXPECT_EQ(Device("cuda:1023").index, 1023);
  EXPECT_NE(Device("cuda:1"), Device("cuda:0"));
  EXPECT_NE(Device("cpu"), Device("cuda"));
  std::ostringstream os;
  os << Device("gpu:5");
  EXPECT_EQ(os.str(), "cuda:5");
}

TEST(Device, BadStringsAreValueErrors) {
  for (const char* bad : {"", "tpu", "metal", "CPU", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "cuda:0:1",
                          "cuda:1024", "cpu:1", "cpu:", " cpu", "cpu ", ":0"}) {
    SCOPED_TRACE(bad);
    EXPECT_LUCID_ERROR_MSG(Device(std::string(bad)), Value, "invalid device string");
  }
}

TEST(Device, IndexMustBePlainDigits) {
  // PyTorch accepts only digits after the colon (and no leading zeros); strtol is laxer.
  for (const char* bad : {"cuda: 1", "cuda:+1", "cuda:-0", "cuda:01"}) {
    SCOPED_TRACE(bad);
    EXPECT_LUCID_ERROR(Device(std::string(bad)), Value);
  }
}

// ---------------------------------------------------------------------------------------------
// Shape helpers

TEST(Shape, NumelContiguousStridesAndStr) {
  EXPECT_EQ(numel_of({}), 1);
  EXPECT_EQ(numel_of({2, 3, 4}), 24);
  EXPECT_EQ(numel_of({2, 0, 4}), 0);
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({}), Strides{});
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (Strides{3, 3, 1}));  // as PyTorch: size 0 counts as 1
  EXPECT_EQ(contiguous_strides({5, 1, 1}), (Strides{1, 1, 1}));
  EXPECT_EQ(shape_str({}), "()");
  EXPECT_EQ(shape_str({3}), "(3,)");
  EXPECT_EQ(shape_str({2, 3}), "(2, 3)");
}

TEST(Shape, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}, "add"), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {5}, "add"), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({5}, {}, "add"), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({}, {}, "add"), Shape{});
  EXPECT_EQ(broadcast_shapes({0}, {1}, "add"), (Shape{0}));
  EXPECT_EQ(broadcast_shapes({1, 0}, {3, 1}, "add"), (Shape{3, 0}));
  EXPECT_EQ(broadcast_shapes({8, 1, 6, 1}, {7, 1, 5}, "add"), (Shape{8, 7, 6, 5}));
  EXPECT_LUCID_ERROR_MSG(broadcast_shapes({2}, {3}, "mul"), ShapeMismatch, "[mul]");
  EXPECT_LUCID_ERROR_MSG(broadcast_shapes({2, 3}, {4, 3}, "add"), ShapeMismatch, "(2, 3)");
  EXPECT_LUCID_ERROR(broadcast_shapes({0}, {2}, "add"), ShapeMismatch);
}

TEST(Shape, ComputeViewStrides) {
  Strides st;
  ASSERT_TRUE(compute_view_strides({2, 3, 4}, {12, 4, 1}, {6, 4}, &st));
  EXPECT_EQ(st, (Strides{4, 1}));
  ASSERT_TRUE(compute_view_strides({2, 3, 4}, {12, 4, 1}, {24}, &st));
  EXPECT_EQ(st, (Strides{1}));
  ASSERT_TRUE(compute_view_strides({2, 3, 4}, {12, 4, 1}, {2, 1, 12}, &st));
  EXPECT_EQ(st[0], 12);
  EXPECT_EQ(st[2], 1);
  // Transposed (3, 2) with strides (1, 3): flattening needs a copy, adding a unit dim does not.
  EXPECT_FALSE(compute_view_strides({3, 2}, {1, 3}, {6}, &st));
  ASSERT_TRUE(compute_view_strides({3, 2}, {1, 3}, {3, 2, 1}, &st));
  EXPECT_EQ(st, (Strides{1, 3, 3}));
  // Column slice (4, 3) of a (4, 6) tensor: a dim can be split but not merged across rows.
  EXPECT_FALSE(compute_view_strides({4, 3}, {6, 1}, {12}, &st));
  ASSERT_TRUE(compute_view_strides({4, 3}, {6, 1}, {2, 2, 3}, &st));
  EXPECT_EQ(st, (Strides{12, 6, 1}));
  // Expanded (stride 0) dims can be merged with each other.
  ASSERT_TRUE(compute_view_strides({2, 3}, {0, 0}, {6}, &st));
  EXPECT_EQ(st, (Strides{0}));
  // 0-d and empty tensors.
  ASSERT_TRUE(compute_view_strides({}, {}, {1, 1}, &st));
  EXPECT_EQ(st, (Strides{1, 1}));
  ASSERT_TRUE(compute_view_strides({2, 0}, {1, 2}, {0, 5}, &st));
  EXPECT_EQ(st, (Strides{5, 1}));
}

TEST(Shape, InferSize) {
  EXPECT_EQ(infer_size({-1, 4}, 12, "view"), (Shape{3, 4}));
  EXPECT_EQ(infer_size({2, -1, 2}, 12, "view"), (Shape{2, 3, 2}));
  EXPECT_EQ(infer_size({3, 4}, 12, "view"), (Shape{3, 4}));
  EXPECT_EQ(infer_size({}, 1, "view"), Shape{});
  EXPECT_EQ(infer_size({-1}, 0, "view"), (Shape{0}));
  EXPECT_EQ(infer_size({2, -1}, 0, "view"), (Shape{2, 0}));
  EXPECT_LUCID_ERROR_MSG(infer_size({-1, -1}, 12, "view"), ShapeMismatch, "only one dimension");
  EXPECT_LUCID_ERROR_MSG(infer_size({5, -1}, 12, "reshape"), ShapeMismatch, "[reshape]");
  EXPECT_LUCID_ERROR(infer_size({3, 5}, 12, "view"), ShapeMismatch);
  EXPECT_LUCID_ERROR(infer_size({0, -1}, 0, "view"), ShapeMismatch);  // ambiguous
  EXPECT_LUCID_ERROR(infer_size({-2, 6}, 12, "view"), ShapeMismatch);
  EXPECT_LUCID_ERROR(infer_size({}, 2, "view"), ShapeMismatch);
}

TEST(Shape, WrapDim) {
  EXPECT_EQ(wrap_dim(0, 3, "op"), 0);
  EXPECT_EQ(wrap_dim(2, 3, "op"), 2);
  EXPECT_EQ(wrap_dim(-1, 3, "op"), 2);
  EXPECT_EQ(wrap_dim(-3, 3, "op"), 0);
  EXPECT_EQ(wrap_dim(0, 0, "op"), 0);  // a 0-d tensor accepts 0 and -1
  EXPECT_EQ(wrap_dim(-1, 0, "op"), 0);
  EXPECT_LUCID_ERROR_MSG(wrap_dim(3, 3, "sum"), Index, "[sum] dimension out of range");
  EXPECT_LUCID_ERROR_MSG(wrap_dim(-4, 3, "sum"), Index, "[-3, 2]");
  EXPECT_LUCID_ERROR(wrap_dim(1, 0, "op"), Index);
  EXPECT_LUCID_ERROR(wrap_dim(-2, 0, "op"), Index);
}

// ---------------------------------------------------------------------------------------------
// Half and BFloat16

uint16_t h_bits(float f) { return Half(f).x; }
float h_val(uint16_t b) { return float(Half::from_bits(b)); }
uint16_t b_bits(float f) { return BFloat16(f).x; }
float b_val(uint16_t b) { return float(BFloat16::from_bits(b)); }
bool h_is_nan(uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0; }
bool b_is_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }
float f_from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

TEST(Half, KnownValues) {
  EXPECT_EQ(h_bits(0.0f), 0x0000);
  EXPECT_EQ(h_bits(-0.0f), 0x8000);
  EXPECT_EQ(h_bits(1.0f), 0x3c00);
  EXPECT_EQ(h_bits(-2.0f), 0xc000);
  EXPECT_EQ(h_bits(0.5f), 0x3800);
  EXPECT_EQ(h_bits(65504.0f), 0x7bff);  // max finite
  EXPECT_EQ(h_bits(std::ldexp(1.0f, -14)), 0x0400);  // min normal
  EXPECT_EQ(h_val(0x3555), 0.333251953125f);
  EXPECT_EQ(h_val(0x7bff), 65504.0f);
  EXPECT_EQ(h_val(0xfbff), -65504.0f);
}

TEST(Half, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);  // spacing of halves in [1, 2)
  EXPECT_EQ(h_bits(1.0f + ulp / 2), 0x3c00);                       // tie -> even (down)
  EXPECT_EQ(h_bits(1.0f + 3 * ulp / 2), 0x3c02);                   // tie -> even (up)
  EXPECT_EQ(h_bits(1.0f + ulp / 2 + std::ldexp(1.0f, -20)), 0x3c01);  // just above the tie
  EXPECT_EQ(h_bits(1.0f + ulp / 2 - std::ldexp(1.0f, -20)), 0x3c00);  // just below
  EXPECT_EQ(h_bits(2047.0f + 0.5f), 0x6800);  // 2047.5 -> 2048 (mantissa carries into exponent)
  EXPECT_EQ(h_bits(65519.0f), 0x7bff);        // below the midpoint to 65536
  EXPECT_EQ(h_bits(65520.0f), 0x7c00);        // midpoint: ties to even = inf
  EXPECT_EQ(h_bits(1e6f), 0x7c00);
  EXPECT_EQ(h_bits(-1e6f), 0xfc00);
}

TEST(Half, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest subnormal half
  EXPECT_EQ(h_bits(tiny), 0x0001);
  EXPECT_EQ(h_val(0x0001), tiny);
  EXPECT_EQ(h_val(0x03ff), 1023 * tiny);  // largest subnormal
  EXPECT_EQ(h_bits(1023 * tiny), 0x03ff);
  EXPECT_EQ(h_val(0x8001), -tiny);
  EXPECT_EQ(h_bits(tiny / 2), 0x0000);                 // tie between 0 and tiny -> 0 (even)
  EXPECT_EQ(h_bits(-tiny / 2), 0x8000);
  EXPECT_EQ(h_bits(tiny / 2 * 1.0001f), 0x0001);       // just above the tie
  EXPECT_EQ(h_bits(3 * tiny / 2), 0x0002);             // tie between 1 and 2 -> 2
  EXPECT_EQ(h_bits(5 * tiny / 2), 0x0002);             // tie between 2 and 3 -> 2
  EXPECT_EQ(h_bits(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(h_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(h_bits(1023.5f * tiny), 0x0400);           // rounds up into the normals
}

TEST(Half, InfAndNan) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(h_bits(inf), 0x7c00);
  EXPECT_EQ(h_bits(-inf), 0xfc00);
  EXPECT_TRUE(std::isinf(h_val(0x7c00)) && h_val(0x7c00) > 0);
  EXPECT_TRUE(std::isinf(h_val(0xfc00)) && h_val(0xfc00) < 0);
  EXPECT_TRUE(h_is_nan(h_bits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(h_is_nan(h_bits(f_from_bits(0x7f800001u))));  // payload only in the low bits
  EXPECT_TRUE(h_is_nan(h_bits(f_from_bits(0xffc00000u))));
  EXPECT_TRUE(std::isnan(h_val(0x7e00)));
  EXPECT_TRUE(std::isnan(h_val(0x7c01)));
  EXPECT_TRUE(std::signbit(h_val(0x8000)));
}

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float f = h_val(uint16_t(b));
    const uint16_t back = h_bits(f);
    if (h_is_nan(uint16_t(b))) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_TRUE(h_is_nan(back)) << std::hex << b;
    } else {
      ASSERT_EQ(back, b) << std::hex << "half 0x" << b << " -> " << f;
    }
  }
}

#if defined(__FLT16_MAX__)
TEST(Half, MatchesCompilerFloat16OnAFloatSweep) {
  // GCC's _Float16 conversion is IEEE round-to-nearest-even: a reference for every exponent.
  for (uint64_t u = 0; u <= 0xffffffffull; u += 509) {
    const float f = f_from_bits(uint32_t(u));
    const _Float16 ref = static_cast<_Float16>(f);
    uint16_t rb;
    std::memcpy(&rb, &ref, 2);
    const uint16_t got = h_bits(f);
    if (std::isnan(f)) ASSERT_TRUE(h_is_nan(got)) << std::hex << u;
    else ASSERT_EQ(got, rb) << std::hex << "float bits 0x" << u << " (" << f << ")";
  }
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    if (h_is_nan(uint16_t(b))) continue;
    _Float16 h;
    const uint16_t bb = uint16_t(b);
    std::memcpy(&h, &bb, 2);
    ASSERT_EQ(h_val(uint16_t(b)), static_cast<float>(h)) << std::hex << b;
  }
}
#endif

// Reference bfloat16 rounding computed in double: nearest of the two neighbouring bfloat16s,
// ties to the even bit pattern; past the largest finite value the upper neighbour is 2^128.
uint16_t bf16_reference(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t lo = uint16_t(u >> 16), hi = uint16_t(lo + 1);
  if ((u & 0xffffu) == 0) return lo;
  const double x = std::fabs(double(f));
  const double a = std::fabs(double(b_val(lo)));
  const double b = (hi & 0x7fffu) == 0x7f80u ? std::ldexp(1.0, 128) : std::fabs(double(b_val(hi)));
  if (x - a < b - x) return lo;
  if (x - a > b - x) return hi;
  return (lo & 1u) ? hi : lo;
}

TEST(BFloat16, KnownValuesAndRounding) {
  EXPECT_EQ(b_bits(1.0f), 0x3f80);
  EXPECT_EQ(b_bits(-2.0f), 0xc000);
  EXPECT_EQ(b_bits(0.0f), 0x0000);
  EXPECT_EQ(b_bits(-0.0f), 0x8000);
  const float ulp = std::ldexp(1.0f, -7);  // spacing in [1, 2)
  EXPECT_EQ(b_bits(1.0f + ulp / 2), 0x3f80);  // tie -> even
  EXPECT_EQ(b_bits(1.0f + 3 * ulp / 2), 0x3f82);
  EXPECT_EQ(b_bits(1.0f + ulp / 2 + std::ldexp(1.0f, -20)), 0x3f81);
  EXPECT_EQ(b_val(0x3f81), 1.0f + ulp);
  EXPECT_EQ(b_bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  EXPECT_EQ(b_bits(f_from_bits(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(b_bits(f_from_bits(0x00010000u)), 0x0001);  // subnormal stays subnormal
  EXPECT_EQ(b_bits(f_from_bits(0x00008000u)), 0x0000);  // tie -> even (0)
  EXPECT_EQ(b_bits(f_from_bits(0x00018000u)), 0x0002);  // tie -> even (2)
  EXPECT_EQ(b_bits(f_from_bits(0x00008001u)), 0x0001);
}

TEST(BFloat16, InfAndNan) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(b_bits(inf), 0x7f80);
  EXPECT_EQ(b_bits(-inf), 0xff80);
  EXPECT_TRUE(std::isinf(b_val(0x7f80)));
  EXPECT_TRUE(b_is_nan(b_bits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(b_is_nan(b_bits(f_from_bits(0x7f800001u))));  // must not round to inf
  EXPECT_TRUE(b_is_nan(b_bits(f_from_bits(0xff80ffffu))));
  EXPECT_TRUE(std::isnan(b_val(0x7fc0)));
}

TEST(BFloat16, EveryBFloat16RoundTripsAndSweepMatchesReference) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const float f = b_val(uint16_t(b));
    if (b_is_nan(uint16_t(b))) {
      ASSERT_TRUE(std::isnan(f));
      ASSERT_TRUE(b_is_nan(b_bits(f))) << std::hex << b;
    } else {
      ASSERT_EQ(b_bits(f), b) << std::hex << b;
    }
  }
  for (uint64_t u = 0; u <= 0xffffffffull; u += 509) {
    const float f = f_from_bits(uint32_t(u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(b_bits(f), bf16_reference(f)) << std::hex << "float bits 0x" << u;
  }
}

// ---------------------------------------------------------------------------------------------
// Complex

TEST(Complex, Arithmetic) {
  const c128 a(1, 2), b(3, 4);
  EXPECT_EQ(a + b, c128(4, 6));
  EXPECT_EQ(a - b, c128(-2, -2));
  EXPECT_EQ(a * b, c128(-5, 10));
  const c128 q = a / b;  // (1+2i)/(3+4i) = (11 + 2i) / 25
  EXPECT_DOUBLE_EQ(q.re, 0.44);
  EXPECT_DOUBLE_EQ(q.im, 0.08);
  const c128 big = c128(1e300, 1e300) / c128(1e300, 1e300);  // Smith's algorithm: no overflow
  EXPECT_DOUBLE_EQ(big.re, 1.0);
  EXPECT_DOUBLE_EQ(big.im, 0.0);
  EXPECT_EQ(c64(c128(1.5, -0.25)), c64(1.5f, -0.25f));
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(Error, CheckThrowsTypedErrorWithStreamedMessage) {
  try {
    LUCID_CHECK(1 + 1 == 3, ShapeMismatch, "[op] shapes " << shape_str({2, 3}) << " and " << 4);
    FAIL() << "LUCID_CHECK did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ShapeMismatch);
    EXPECT_STREQ(e.what(), "[op] shapes (2, 3) and 4");
  }
  // lucid::Error is a std::runtime_error.
  EXPECT_THROW(LUCID_FAIL(Value, "x"), std::runtime_error);
}

TEST(Error, MessageIsOnlyBuiltOnFailure) {
  int evaluated = 0;
  auto side = [&] { ++evaluated; return "msg"; };
  LUCID_CHECK(true, Generic, side());
  EXPECT_EQ(evaluated, 0);
  EXPECT_LUCID_ERROR([&] { LUCID_CHECK(false, Generic, side()); }(), Generic);
  EXPECT_EQ(evaluated, 1);
}

TEST(Error, EveryKindRoundTripsAndHasAName) {
  struct Row { ErrorKind k; const char* name; };
  const Row rows[] = {
      {ErrorKind::Generic, "LucidError"},         {ErrorKind::ShapeMismatch, "ShapeMismatch"},
      {ErrorKind::DtypeMismatch, "DtypeMismatch"}, {ErrorKind::DeviceMismatch, "DeviceMismatch"},
      {ErrorKind::VersionMismatch, "VersionMismatch"}, {ErrorKind::OutOfMemory, "OutOfMemory"},
      {ErrorKind::Index, "IndexError"},           {ErrorKind::NotImplemented, "NotImplementedError"},
      {ErrorKind::Value, "ValueError"},           {ErrorKind::Type, "TypeError"},
  };
  for (const auto& r : rows) {
    EXPECT_STREQ(error_kind_name(r.k), r.name);
    try {
      throw_error(r.k, r.name);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), r.k);
      EXPECT_STREQ(e.what(), r.name);
    }
  }
}

}  // namespace
}  // namespace lucid
