// engine/ops: views, copy/cast, binary arithmetic, sum, matmul, creation, random, host bridges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/host.h"
#include "ops/matmul.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/view.h"
#include "ops_prelude.h"

namespace lucid {
namespace {

using namespace test::ops;  // NOLINT: the shared test prelude (ops_prelude.h)
TEST(Copy, CastsWithPyTorchSemantics) {
  Tensor src = make<float>({1.5f, -2.7f, 3.9f, 0.0f});
  Tensor i = TensorImpl::empty({4}, Dtype::I32, cpu());
  copy_(i, src);
  EXPECT_EQ(values<int32_t>(i), (I32{1, -2, 3, 0}));  // truncation toward zero
  Tensor b = TensorImpl::empty({4}, Dtype::Bool, cpu());
  copy_(b, make<float>({0.0f, 0.5f, -1.0f, -0.0f}));
  EXPECT_EQ(bool_values(b), (std::vector<int>{0, 1, 1, 0}));
  Tensor h = cast(make<double>({1.0, 1.0 + 1.0 / 2048, 65520.0, 1e-8}), Dtype::F16);
  EXPECT_EQ(h->dtype(), Dtype::F16);
  const auto hv = values<Half>(h);
  EXPECT_EQ(hv[0].x, 0x3c00);
  EXPECT_EQ(hv[1].x, 0x3c00);  // ties to even
  EXPECT_EQ(hv[2].x, 0x7c00);  // overflows to inf
  EXPECT_EQ(hv[3].x, 0x0000);
  Tensor c = make<c64>({c64(1.5f, 2.0f), c64(-3.0f, 0.5f)});
  EXPECT_EQ(values<double>(cast(c, Dtype::F64)), (D{1.5, -3.0}));  // drops the imaginary part
  EXPECT_EQ(bool_values(cast(make<c64>({c64(0, 0), c64(0, 1)}), Dtype::Bool)), (std::vector<int>{0, 1}));
  EXPECT_EQ(values<c128>(cast(make<int64_t>({3, -4}), Dtype::C128)), (std::vector<c128>{c128(3, 0), c128(-4, 0)}));
  EXPECT_EQ(values<uint8_t>(cast(make<int32_t>({255, 256, -1}), Dtype::U8)), (std::vector<uint8_t>{255, 0, 255}));
  EXPECT_EQ(values<float>(cast(make_bool(), Dtype::F32)), (F{1, 0, 1}));
}

TEST(Copy, BroadcastsAndBumpsVersion) {
  Tensor dst = TensorImpl::empty({2, 3}, Dtype::F64, cpu());
  const int64_t v0 = dst->version();
  copy_(dst, make<float>({1, 2, 3}));
  EXPECT_EQ(dst->version(), v0 + 1);
  EXPECT_EQ(values<double>(dst), (D{1, 2, 3, 1, 2, 3}));
  copy_(dst, make<int64_t>({7}, {}));
  EXPECT_EQ(dst->version(), v0 + 2);
  EXPECT_EQ(values<double>(dst), (D{7, 7, 7, 7, 7, 7}));
  EXPECT_LUCID_ERROR(copy_(dst, make<float>({1, 2})), ShapeMismatch);
  EXPECT_LUCID_ERROR(copy_(dst, iota({3, 2, 3})), ShapeMismatch);
  EXPECT_EQ(dst->version(), v0 + 2);
}

TEST(Copy, IntoStridedViews) {
  Tensor t = TensorImpl::empty({3, 2}, Dtype::F32, cpu());
  copy_(transpose(t, 0, 1), make<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(values<float>(t), (F{1, 4, 2, 5, 3, 6}));
  Tensor z = test::iota({10});
  copy_(slice(z, 0, 0, std::nullopt, 3), make<float>({-1, -2, -3, -4}));
  EXPECT_EQ(values<float>(z), (F{-1, 1, 2, -2, 4, 5, -3, 7, 8, -4}));
}

TEST(Copy, IntoExpandedTensorIsRefused) {
  Tensor base = make<float>({1, 2, 3}, {1, 3});
  Tensor e = expand(base, {2, 3});
  const int64_t v0 = base->version();
  EXPECT_LUCID_ERROR_MSG(copy_(e, iota({2, 3})), Generic, "[copy_]");
  EXPECT_EQ(base->version(), v0);
  EXPECT_EQ(values<float>(base), (F{1, 2, 3}));
}

TEST(Copy, OverlappingSourceIsReadAsASnapshot) {
  Tensor t = iota({5});
  copy_(slice(t, 0, 1, std::nullopt, 1), slice(t, 0, 0, 4, 1));  // t[1:] = t[:-1]
  EXPECT_EQ(values<float>(t), (F{0, 0, 1, 2, 3}));
  Tensor u = iota({5});
  copy_(slice(u, 0, 0, 4, 1), slice(u, 0, 1, std::nullopt, 1));  // u[:-1] = u[1:]
  EXPECT_EQ(values<float>(u), (F{1, 2, 3, 4, 4}));
  Tensor m = iota({3, 3});
  copy_(m, transpose(m, 0, 1));  // in-place transpose through copy_
  EXPECT_EQ(values<float>(m), (F{0, 3, 6, 1, 4, 7, 2, 5, 8}));
}

TEST(Copy, ToCloneContiguous) {
  Tensor t = iota({2, 3});
  EXPECT_EQ(to(t, Dtype::F32, cpu()), t);  // nothing to do: the tensor itself
  Tensor c = to(t, Dtype::F32, cpu(), /*copy=*/true);
  EXPECT_NE(c->storage(), t->storage());
  EXPECT_EQ(values<float>(c), values<float>(t));
  Tensor d = to(t, Dtype::I64, std::nullopt);
  EXPECT_EQ(values<int64_t>(d), (I64{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(contiguous(t), t);
  Tensor tt = transpose(t, 0, 1);
  Tensor ct = contiguous(tt);
  EXPECT_NE(ct, tt);
  EXPECT_TRUE(ct->is_contiguous());
  EXPECT_EQ(ct->strides(), (Strides{2, 1}));
  EXPECT_EQ(values<float>(ct), (F{0, 3, 1, 4, 2, 5}));
  Tensor cl = clone(t);
  EXPECT_NE(cl->storage(), t->storage());
  fill_(cl, si(9));
  EXPECT_EQ(values<float>(t), (F{0, 1, 2, 3, 4, 5}));
  EXPECT_FALSE(is_pinned(t));
#ifndef LUCID_WITH_CUDA
  EXPECT_LUCID_ERROR(to(t, std::nullopt, Device(DeviceType::CUDA, 0)), Generic);
#endif
}

// =============================================================================================
// Binary arithmetic


TEST(Binary, BroadcastingAllOps) {
  Tensor a = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = make<float>({10, 20, 30});
  EXPECT_EQ(values<float>(add(a, b)), (F{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values<float>(binary(BinaryOp::Sub, a, b)), (F{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(values<float>(binary(BinaryOp::Mul, a, b)), (F{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ(values<float>(binary(BinaryOp::Div, b, a)), (F{10, 10, 10, 2.5, 4, 5}));
  Tensor col = make<float>({1, 2}, {2, 1});
  Tensor row = make<float>({10, 20, 30}, {1, 3});
  Tensor o = add(col, row);
  EXPECT_EQ(o->shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(o), (F{11, 21, 31, 12, 22, 32}));
  EXPECT_LUCID_ERROR_MSG(add(a, make<float>({1, 2})), ShapeMismatch, "[add]");
  Tensor e = add(TensorImpl::empty({0, 3}, Dtype::F32, cpu()), b);
  EXPECT_EQ(e->shape(), (Shape{0, 3}));
}

TEST(Binary, NonContiguousOperands) {
  Tensor a = iota({3, 4});
  Tensor at = transpose(a, 0, 1);  // (4, 3)
  Tensor b = slice(iota({4, 6}), 1, 0, std::nullopt, 2);  // (4, 3), stride (6, 2)
  const auto av = values<float>(at), bv = values<float>(b);
  const auto ov = values<float>(binary(BinaryOp::Mul, at, b));
  ASSERT_EQ(ov.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(ov[i], av[i] * bv[i]) << i;
}

TEST(Binary, TypePromotion) {
  Tensor i32 = make<int32_t>({1, 2, 3});
  Tensor o = add(i32, make<double>({0.5, 0.5, 0.5}));
  EXPECT_EQ(o->dtype(), Dtype::F64);
  EXPECT_EQ(values<double>(o), (D{1.5, 2.5, 3.5}));
  o = add(i32, sf(2.5));  // Python float: default dtype
  EXPECT_EQ(o->dtype(), Dtype::F32);
  EXPECT_EQ(values<float>(o), (F{3.5, 4.5, 5.5}));
  o = binary(BinaryOp::Mul, i32, si(1000000));  // Python int: weak
  EXPECT_EQ(o->dtype(), Dtype::I32);
  EXPECT_EQ(values<int32_t>(o), (I32{1000000, 2000000, 3000000}));
  o = add(make<uint8_t>({1, 2, 3}), si(300));  // wraps like a uint8 cast of the scalar
  EXPECT_EQ(o->dtype(), Dtype::U8);
  EXPECT_EQ(values<uint8_t>(o), (std::vector<uint8_t>{45, 46, 47}));
  o = add(make<uint8_t>({200}), make<int8_t>({-100}));
  EXPECT_EQ(o->dtype(), Dtype::I16);
  EXPECT_EQ(values<int16_t>(o), (std::vector<int16_t>{100}));
  // Zero-dim tensors.
  o = add(make<float>({1, 2}), make<double>({0.25}, {}));
  EXPECT_EQ(o->dtype(), Dtype::F32);
  o = binary(BinaryOp::Mul, make<int64_t>({1, 2}), make<double>({2.5}, {}));
  EXPECT_EQ(o->dtype(), Dtype::F64);
  EXPECT_EQ(values<double>(o), (D{2.5, 5.0}));
  o = add(make_bool(), si(1));
  EXPECT_EQ(o->dtype(), Dtype::I64);
  EXPECT_EQ(values<int64_t>(o), (I64{2, 1, 2}));
  o = add(make<Half>({Half(1.0f), Half(2.0f), Half(3.0f)}), make<float>({0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(o->dtype(), Dtype::F32);
  EXPECT_FLOAT_EQ(values<float>(o)[2], 3.3f);
  o = binary(BinaryOp::Mul, make<c64>({c64(1, 2)}), make<c64>({c64(3, 4)}));
  EXPECT_EQ(values<c64>(o)[0], c64(-5, 10));
  o = add(make<float>({1}), Scalar::from_complex(0, 1));
  EXPECT_EQ(o->dtype(), Dtype::C64);
  EXPECT_EQ(values<c64>(o)[0], c64(1, 1));
  EXPECT_EQ(result_type(Operand(i32), Operand(sf(1.0))), Dtype::F32);
}

TEST(Binary, ScalarOperandsOnEitherSide) {
  Tensor t = make<int64_t>({1, 2});
  EXPECT_EQ(values<int64_t>(binary(BinaryOp::Sub, si(10), t)), (I64{9, 8}));
  EXPECT_EQ(values<float>(binary(BinaryOp::Div, sf(1.0), make<float>({4, 8}))), (F{0.25, 0.125}));
  EXPECT_LUCID_ERROR(binary(BinaryOp::Add, si(1), si(2)), Type);
}

TEST(Binary, DivisionIsTrueDivision) {
  Tensor o = binary(BinaryOp::Div, make<int32_t>({1, 2, 3}), si(2));
  EXPECT_EQ(o->dtype(), Dtype::F32);
  EXPECT_EQ(values<float>(o), (F{0.5, 1, 1.5}));
  o = binary(BinaryOp::Div, make<int32_t>({1, -1, 0}), make<int32_t>({0, 0, 0}));
  const auto v = values<float>(o);
  EXPECT_TRUE(std::isinf(v[0]) && v[0] > 0);
  EXPECT_TRUE(std::isinf(v[1]) && v[1] < 0);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(binary(BinaryOp::Div, make_bool(), make_bool())->dtype(), Dtype::F32);
}

TEST(Binary, AlphaAndBoolRules) {
  Tensor a = make<int32_t>({1, 2});
  Tensor b = make<int32_t>({1, 1});
  EXPECT_EQ(values<int32_t>(binary(BinaryOp::Sub, a, b, si(2))), (I32{-1, 0}));
  EXPECT_EQ(values<float>(binary(BinaryOp::Add, make<float>({1, 2}), make<float>({1, 1}), sf(0.5))), (F{1.5, 2.5}));
  EXPECT_LUCID_ERROR_MSG(binary(BinaryOp::Add, a, b, sf(0.5)), Type, "alpha");
  Tensor t = make_bool(), f = make_bool({0, 0, 1});
  EXPECT_EQ(bool_values(add(t, f)), (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(bool_values(binary(BinaryOp::Mul, t, f)), (std::vector<int>{0, 0, 1}));
  EXPECT_LUCID_ERROR_MSG(binary(BinaryOp::Sub, t, f), Type, "logical_xor");
  EXPECT_LUCID_ERROR_MSG(binary(BinaryOp::Sub, t, Operand(Scalar::from_int(1))), Type, "logical_not");
  EXPECT_LUCID_ERROR_MSG(binary(BinaryOp::Add, make<float>({1}), make<float>({1}), Scalar::from_complex(0, 1)), Type,
                         "complex");
}

TEST(Binary, InPlace) {
  Tensor t = make<float>({1, 2, 3});
  const int64_t v0 = t->version();
  Tensor r = binary_(BinaryOp::Add, t, make<int32_t>({10, 20, 30}));
  EXPECT_EQ(r, t);
  EXPECT_EQ(t->version(), v0 + 1);
  EXPECT_EQ(values<float>(t), (F{11, 22, 33}));
  binary_(BinaryOp::Mul, t, sf(0.5));
  EXPECT_EQ(values<float>(t), (F{5.5, 11, 16.5}));
  EXPECT_EQ(t->version(), v0 + 2);
  binary_(BinaryOp::Sub, t, make<float>({0.5}, {}), sf(3.0));
  EXPECT_EQ(values<float>(t), (F{4, 9.5, 15}));

  // Result types the destination can't hold: same-kind casting, as in PyTorch.
  Tensor i = make<int32_t>({1, 2});
  EXPECT_LUCID_ERROR_MSG(binary_(BinaryOp::Add, i, sf(1.5)), DtypeMismatch, "can't be cast");
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Add, i, make<float>({1, 1})), DtypeMismatch);
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Div, i, make<int32_t>({1, 1})), DtypeMismatch);
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Add, make_bool(), si(1)), DtypeMismatch);
  EXPECT_EQ(values<int32_t>(i), (I32{1, 2}));
  binary_(BinaryOp::Mul, i, si(3));
  EXPECT_EQ(values<int32_t>(i), (I32{3, 6}));
  binary_(BinaryOp::Add, i, make<int64_t>({1, 1}));  // int64 result cast back to int32
  EXPECT_EQ(i->dtype(), Dtype::I32);
  EXPECT_EQ(values<int32_t>(i), (I32{4, 7}));

  // Narrower destination: computed in the promoted type, then cast.
  Tensor h = make<Half>({Half(1.0f)});
  binary_(BinaryOp::Add, h, make<float>({std::ldexp(1.0f, -11)}));
  EXPECT_EQ(values<Half>(h)[0].x, 0x3c00);

  // The destination's shape can't grow by broadcasting.
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Add, make<float>({1, 2}), iota({3, 2})), ShapeMismatch);
  // Writes into aliased elements are refused.
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Add, expand(make<float>({1}), {3}), si(1)), Generic);
}

TEST(Binary, InPlaceWithOverlappingOperand) {
  Tensor x = iota({5});
  binary_(BinaryOp::Add, slice(x, 0, 1, std::nullopt, 1), slice(x, 0, 0, 4, 1));  // x[1:] += x[:-1]
  EXPECT_EQ(values<float>(x), (F{0, 1, 3, 5, 7}));
  Tensor y = iota({3});
  binary_(BinaryOp::Mul, y, y);
  EXPECT_EQ(values<float>(y), (F{0, 1, 4}));
}

TEST(Binary, FillAndFactories) {
  Tensor t = full({2, 2}, sf(2.5), Dtype::F64, cpu());
  EXPECT_EQ(values<double>(t), (D{2.5, 2.5, 2.5, 2.5}));
  EXPECT_EQ(values<int64_t>(zeros({3}, Dtype::I64, cpu())), (I64{0, 0, 0}));
  EXPECT_EQ(values<c64>(ones({2}, Dtype::C64, cpu())), (std::vector<c64>{c64(1, 0), c64(1, 0)}));
  EXPECT_EQ(values<int32_t>(full({2}, sf(-2.9), Dtype::I32, cpu())), (I32{-2, -2}));
  const int64_t v0 = t->version();
  fill_(t, si(1));
  EXPECT_EQ(t->version(), v0 + 1);
  EXPECT_EQ(values<double>(t), (D{1, 1, 1, 1}));
}

// =============================================================================================
// sum

TEST(Sum, OverDimsWithKeepdim) {
  Tensor t = make<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor all = sum(t, std::nullopt);
  EXPECT_EQ(all->dim(), 0);
  EXPECT_EQ(all->dtype(), Dtype::F32);
  EXPECT_EQ(values<float>(all), (F{15}));
  EXPECT_EQ(values<float>(sum(t, std::vector<int64_t>{})), (F{15}));
  Tensor s0 = sum(t, std::vector<int64_t>{0});
  EXPECT_EQ(s0->shape(), (Shape{3}));
  EXPECT_EQ(values<float>(s0), (F{3, 5, 7}));
  Tensor s1 = sum(t, std::vector<int64_t>{1}, /*keepdim=*/true);
  EXPECT_EQ(s1->shape(), (Shape{2, 1}));
  EXPECT_EQ(values<float>(s1), (F{3, 12}));
  Tensor s01 = sum(t, std::vector<int64_t>{-1, 0}, true);
  EXPECT_EQ(s01->shape(), (Shape{1, 1}));
  EXPECT_EQ(values<float>(s01), (F{15}));
  EXPECT_LUCID_ERROR(sum(t, std::vector<int64_t>{1, -1}), Value);
  EXPECT_LUCID_ERROR(sum(t, std::vector<int64_t>{2}), Index);
}

TEST(Sum, MiddleDimsAndNonContiguous) {
  Tensor t = iota({2, 3, 4});
  EXPECT_EQ(values<float>(sum(t, std::vector<int64_t>{1})), (F{12, 15, 18, 21, 48, 51, 54, 57}));
  EXPECT_EQ(values<float>(sum(t, std::vector<int64_t>{0, 2})), (F{60, 92, 124}));
  Tensor p = permute(t, {2, 0, 1});  // (4, 2, 3)
  EXPECT_EQ(values<float>(sum(p, std::vector<int64_t>{0})), (F{6, 22, 38, 54, 70, 86}));
  Tensor e = expand(make<float>({1, 2, 3}), {1000, 3});
  EXPECT_EQ(values<float>(sum(e, std::vector<int64_t>{0})), (F{1000, 2000, 3000}));
  EXPECT_EQ(values<float>(sum(e, std::nullopt)), (F{6000}));
}

TEST(Sum, IntegerAndBoolSumToInt64) {
  Tensor i = make<int32_t>({2147483647, 2147483647, 2});
  Tensor s = sum(i, std::nullopt);
  EXPECT_EQ(s->dtype(), Dtype::I64);
  EXPECT_EQ(values<int64_t>(s), (I64{4294967296LL}));  // no int32 overflow
  Tensor b = sum(make_bool({1, 0, 1, 1}, {4}), std::nullopt);
  EXPECT_EQ(b->dtype(), Dtype::I64);
  EXPECT_EQ(values<int64_t>(b), (I64{3}));
  EXPECT_EQ(sum(make<uint8_t>({200, 100}), std::nullopt)->dtype(), Dtype::I64);
  EXPECT_EQ(values<int64_t>(sum(make<uint8_t>({200, 100}), std::nullopt)), (I64{300}));
  Tensor d = sum(i, std::nullopt, false, Dtype::F64);
  EXPECT_EQ(d->dtype(), Dtype::F64);
  EXPECT_EQ(values<double>(d), (D{4294967296.0}));
  EXPECT_EQ(sum(make<Half>({Half(1.0f), Half(2.0f)}), std::nullopt)->dtype(), Dtype::F16);
  Tensor c = sum(make<c64>({c64(1, 2), c64(3, -1)}), std::nullopt);
  EXPECT_EQ(values<c64>(c)[0], c64(4, 1));
}

TEST(Sum, Float32OfTenMillionOnesIsExact) {
  Tensor t = ones({10000000}, Dtype::F32, cpu());
  Tensor s = sum(t, std::nullopt);
  ASSERT_EQ(s->dtype(), Dtype::F32);
  EXPECT_EQ(values<float>(s)[0], 1e7f);
  // ... also when reduced along the last dim of a 2-D tensor, and via a strided view.
  Tensor r = sum(reshape(t, {2, 5000000}), std::vector<int64_t>{1});
  EXPECT_EQ(values<float>(r), (F{5e6f, 5e6f}));
  Tensor st = slice(t, 0, 0, std::nullopt, 2);
  EXPECT_EQ(values<float>(sum(st, std::nullopt))[0], 5e6f);
}

TEST(Sum, EmptyReductionsGiveZero) {
  EXPECT_EQ(values<float>(sum(zeros({0}, Dtype::F32, cpu()), std::nullopt)), (F{0}));
  Tensor e = sum(zeros({2, 0}, Dtype::F32, cpu()), std::vector<int64_t>{1});
  EXPECT_EQ(e->shape(), (Shape{2}));
  EXPECT_EQ(values<float>(e), (F{0, 0}));
  Tensor e0 = sum(zeros({0, 3}, Dtype::I32, cpu()), std::vector<int64_t>{0});
  EXPECT_EQ(values<int64_t>(e0), (I64{0, 0, 0}));
}

TEST(Sum, ZeroDimAndEmptyKeptDims) {
  Tensor z = make<float>({2.5f}, {});
  EXPECT_EQ(values<float>(sum(z, std::nullopt)), (F{2.5}));
  EXPECT_EQ(values<float>(sum(z, std::vector<int64_t>{0})), (F{2.5}));
  EXPECT_EQ(sum(z, std::vector<int64_t>{-1}, true)->dim(), 0);
  // Reducing a non-empty dim of an empty tensor: nothing to compute.
  Tensor e = sum(zeros({0, 3}, Dtype::F32, cpu()), std::vector<int64_t>{1});
  EXPECT_EQ(e->shape(), (Shape{0}));
  EXPECT_EQ(sum(zeros({0, 3}, Dtype::F32, cpu()), std::vector<int64_t>{1}, true)->shape(), (Shape{0, 1}));
}

TEST(Sum, ManyRowsInParallel) {
  const int64_t R = 3000, C = 700;
  Tensor t = iota({R, C}, Dtype::F64);
  const auto rows = values<double>(sum(t, std::vector<int64_t>{1}));
  ASSERT_EQ(int64_t(rows.size()), R);
  for (int64_t r = 0; r < R; ++r)
    ASSERT_EQ(rows[size_t(r)], double(r * C * C) + double(C * (C - 1) / 2)) << r;
  const auto cols = values<double>(sum(t, std::vector<int64_t>{0}));
  for (int64_t c = 0; c < C; ++c)
    ASSERT_EQ(cols[size_t(c)], double(C * (R * (R - 1) / 2) + R * c)) << c;
}

// =============================================================================================
// matmul

std::vector<double> naive_matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t M, int64_t K,
                                 int64_t N) {
  std::vector<double> o(size_t(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) o[size_t(i * N + j)] += a[size_t(i * K + k)] * b[size_t(k * N + j)];
  return o;
}

TEST(Matmul, TwoDAndOneD) {
  Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = make<float>({5, 6, 7, 8}, {2, 2});
  Tensor o = matmul(a, b);
  EXPECT_EQ(o->shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>(o), (F{19, 22, 43, 50}));
  Tensor v = make<float>({1, 2, 3});
  Tensor w = make<float>({4, 5, 6});
  Tensor dot = matmul(v, w);
  EXPECT_EQ(dot->dim(), 0);
  EXPECT_EQ(values<float>(dot), (F{32}));
  Tensor m = iota({3, 2});  // 0 1 / 2 3 / 4 5
  Tensor vm = matmul(v, m);  // (3,) @ (3, 2) -> (2,)
  EXPECT_EQ(vm->shape(), (Shape{2}));
  EXPECT_EQ(values<float>(vm), (F{16, 22}));
  Tensor mv = matmul(transpose(m, 0, 1), v);  // (2, 3) @ (3,) -> (2,)
  EXPECT_EQ(mv->shape(), (Shape{2}));
  EXPECT_EQ(values<float>(mv), (F{16, 22}));
}

TEST(Matmul, BatchedBroadcasting) {
  // (2, 1, 2, 3) @ (3, 3, 4) -> (2, 3, 2, 4)
  Tensor a = iota({2, 1, 2, 3}, Dtype::F64);
  Tensor b = iota({3, 3, 4}, Dtype::F64);
  Tensor o = matmul(a, b);
  ASSERT_EQ(o->shape(), (Shape{2, 3, 2, 4}));
  const auto av = values<double>(a), bv = values<double>(b), ov = values<double>(o);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      std::vector<double> am(av.begin() + i * 6, av.begin() + i * 6 + 6);
      std::vector<double> bm(bv.begin() + j * 12, bv.begin() + j * 12 + 12);
      const auto ref = naive_matmul(am, bm, 2, 3, 4);
      for (int64_t k = 0; k < 8; ++k) EXPECT_EQ(ov[size_t((i * 3 + j) * 8 + k)], ref[size_t(k)]) << i << j << k;
    }
  // 1-D against a batch: (3,) @ (2, 3, 4) -> (2, 4); (2, 3, 4) @ (4,) -> (2, 3).
  Tensor v = make<double>({1, -1, 2});
  Tensor vb = matmul(v, iota({2, 3, 4}, Dtype::F64));
  EXPECT_EQ(vb->shape(), (Shape{2, 4}));
  EXPECT_EQ(values<double>(vb), (D{12, 14, 16, 18, 36, 38, 40, 42}));
  Tensor bv2 = matmul(iota({2, 3, 4}, Dtype::F64), make<double>({1, 0, 0, 1}));
  EXPECT_EQ(bv2->shape(), (Shape{2, 3}));
  EXPECT_EQ(values<double>(bv2), (D{3, 11, 19, 27, 35, 43}));
}

TEST(Matmul, Errors) {
  Tensor a = iota({2, 3}), b = iota({4, 5});
  EXPECT_LUCID_ERROR_MSG(matmul(a, b), ShapeMismatch, "[matmul] shapes (2, 3) and (4, 5): inner dimensions 3 and 4 differ");
  EXPECT_LUCID_ERROR(matmul(iota({3}), iota({4})), ShapeMismatch);
  EXPECT_LUCID_ERROR(matmul(make<float>({1.0f}, {}), a), ShapeMismatch);
  EXPECT_LUCID_ERROR(matmul(a, make<float>({1.0f}, {})), ShapeMismatch);
  EXPECT_LUCID_ERROR(matmul(iota({2, 2, 3}), iota({3, 3, 4})), ShapeMismatch);  // batch 2 vs 3
  EXPECT_LUCID_ERROR(matmul(a, iota({3, 2}, Dtype::F64)), DtypeMismatch);
}

TEST(Matmul, TransposedViewsAreBlasFlagsNotCopies) {
  Tensor a = iota({3, 2});            // a^T is (2, 3)
  Tensor b = make<float>({1, -1, 2, 0.5, 3, 1}, {3, 2});
  const std::vector<double> at{0, 2, 4, 1, 3, 5};
  const std::vector<double> bd{1, -1, 2, 0.5, 3, 1};
  const auto ref = naive_matmul(at, bd, 2, 3, 2);
  Tensor o;
  EXPECT_EQ(allocs_during([&] { o = matmul(transpose(a, 0, 1), b); }), 1);  // the output only
  auto ov = values<float>(o);
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(ov[i], float(ref[i])) << i;
  // Both operands transposed: (b^T)^T... i.e. a^T @ (b^T)^T with b^T stored transposed.
  Tensor bt = contiguous(transpose(b, 0, 1));  // (2, 3) dense
  EXPECT_EQ(allocs_during([&] { o = matmul(transpose(a, 0, 1), transpose(bt, 0, 1)); }), 1);
  ov = values<float>(o);
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(ov[i], float(ref[i])) << i;
  // Batched mT.
  Tensor ab = iota({2, 3, 2});
  Tensor ob = matmul(matrix_transpose(ab), ab);  // (2, 2, 2)
  const auto obv = values<float>(ob);
  EXPECT_EQ(obv[0], 0 * 0 + 2 * 2 + 4 * 4);
  EXPECT_EQ(obv[1], 0 * 1 + 2 * 3 + 4 * 5);
  EXPECT_EQ(obv[4], 6 * 6 + 8 * 8 + 10 * 10);
}

TEST(Matmul, StridedOperandsNeedingACopy) {
  Tensor big = iota({3, 8});
  Tensor a = slice(slice(big, 1, 0, std::nullopt, 2), 0, 0, 2, 1);  // (2, 4), strides (8, 2)
  Tensor b = slice(iota({8, 3}), 0, 0, std::nullopt, 2);            // (4, 3), strides (6, 1)
  const auto ad = values<float>(a), bd = values<float>(b);
  const auto ref = naive_matmul(std::vector<double>(ad.begin(), ad.end()), std::vector<double>(bd.begin(), bd.end()), 2, 4, 3);
  const auto ov = values<float>(matmul(a, b));
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(ov[i], float(ref[i])) << i;
  // Broadcast batch (stride 0) over a strided matrix.
  Tensor eb = expand(unsqueeze(a, 0), {3, 2, 4});
  const auto obv = values<float>(matmul(eb, b));
  for (int64_t k = 0; k < 3; ++k)
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(obv[size_t(k) * ref.size() + i], float(ref[i]));
}

TEST(Matmul, OtherDtypesAndEmptyInner) {
  Tensor a = make<int64_t>({1, 2, 3, 4}, {2, 2});
  Tensor b = make<int64_t>({5, 6, 7, 8}, {2, 2});
  EXPECT_EQ(values<int64_t>(matmul(a, b)), (I64{19, 22, 43, 50}));
  Tensor h = matmul(cast(a, Dtype::F16), cast(b, Dtype::F16));
  EXPECT_EQ(h->dtype(), Dtype::F16);
  EXPECT_EQ(values<float>(cast(h, Dtype::F32)), (F{19, 22, 43, 50}));
  Tensor c = matmul(make<c128>({c128(0, 1)}, {1, 1}), make<c128>({c128(0, 1)}, {1, 1}));
  EXPECT_EQ(values<c128>(c)[0], c128(-1, 0));
  Tensor z = matmul(TensorImpl::empty({2, 0}, Dtype::F32, cpu()), TensorImpl::empty({0, 3}, Dtype::F32, cpu()));
  EXPECT_EQ(z->shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(z), (F{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(matmul(TensorImpl::empty({0, 4}, Dtype::F32, cpu()), iota({4, 3}))->shape(), (Shape{0, 3}));
}

TEST(Matmul, LargerAgainstNaive) {
  const int64_t M = 37, K = 53, N = 29;
  Tensor a = iota({M, K}, Dtype::F64), b = iota({K, N}, Dtype::F64);
  Tensor a_s = binary(BinaryOp::Mul, binary(BinaryOp::Sub, a, sf(1000.0)), sf(0.01));
  Tensor b_s = binary(BinaryOp::Mul, binary(BinaryOp::Sub, b, sf(700.0)), sf(0.02));
  const auto ref = naive_matmul(values<double>(a_s), values<double>(b_s), M, K, N);
  const auto ov = values<double>(matmul(a_s, b_s));
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(ov[i], ref[i], 1e-9 * (1 + std::fabs(ref[i]))) << i;
  const auto of = values<float>(matmul(cast(a_s, Dtype::F32), cast(b_s, Dtype::F32)));
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(of[i], ref[i], 1e-3 * (1 + std::fabs(ref[i]))) << i;
}

// =============================================================================================
// Creation

TEST(Creation, Arange) {
  EXPECT_EQ(values<int64_t>(arange(si(0), si(5), si(1), Dtype::I64, cpu())), (I64{0, 1, 2, 3, 4}));
  EXPECT_EQ(values<int64_t>(arange(si(0), si(10), si(3), Dtype::I64, cpu())), (I64{0, 3, 6, 9}));
  EXPECT_EQ(values<int64_t>(arange(si(5), si(0), si(-2), Dtype::I64, cpu())), (I64{5, 3, 1}));
  EXPECT_EQ(values<float>(arange(si(0), si(1), sf(0.25), Dtype::F32, cpu())), (F{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange(sf(0), sf(1), sf(0.1), Dtype::F64, cpu())->numel(), 10);
  EXPECT_EQ(arange(si(3), si(3), si(1), Dtype::I64, cpu())->shape(), (Shape{0}));
  EXPECT_LUCID_ERROR(arange(si(0), si(5), si(0), Dtype::I64, cpu()), Value);
  EXPECT_LUCID_ERROR(arange(si(0), si(5), si(-1), Dtype::I64, cpu()), Value);
  EXPECT_LUCID_ERROR(arange(sf(0), sf(INFINITY), sf(1), Dtype::F32, cpu()), Value);
}

TEST(Creation, ArangeLengthOfLargeIntegerRangesIsExact) {
  // PyTorch computes end - start in int64 before converting to double for the length.
  const int64_t big = (int64_t(1) << 53) + 1;  // exact in int64, not in double
  EXPECT_EQ(values<int64_t>(arange(si(big), si(big + 2), si(1), Dtype::I64, cpu())), (I64{big, big + 1}));
}

TEST(Creation, Linspace) {
  EXPECT_EQ(values<float>(linspace(0, 1, 5, Dtype::F32, cpu())), (F{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values<double>(linspace(-1, 1, 2, Dtype::F64, cpu())), (D{-1, 1}));
  EXPECT_EQ(values<double>(linspace(3, 7, 1, Dtype::F64, cpu())), (D{3}));
  EXPECT_EQ(linspace(0, 1, 0, Dtype::F32, cpu())->shape(), (Shape{0}));
  const auto v = values<double>(linspace(0.1, 0.7, 7, Dtype::F64, cpu()));
  EXPECT_EQ(v.front(), 0.1);
  EXPECT_EQ(v.back(), 0.7);  // the end point is exact
  EXPECT_EQ(values<int64_t>(linspace(0, 10, 4, Dtype::I64, cpu())), (I64{0, 3, 6, 10}));
  EXPECT_LUCID_ERROR(linspace(0, 1, -1, Dtype::F32, cpu()), Value);
  const auto l = values<double>(logspace(0, 3, 4, 10.0, Dtype::F64, cpu()));
  EXPECT_EQ(l, (D{1, 10, 100, 1000}));
}

TEST(Creation, Eye) {
  EXPECT_EQ(values<float>(eye(3, 3, Dtype::F32, cpu())), (F{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(values<int64_t>(eye(2, 3, Dtype::I64, cpu())), (I64{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(bool_values(eye(3, 2, Dtype::Bool, cpu())), (std::vector<int>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(eye(0, 4, Dtype::F32, cpu())->shape(), (Shape{0, 4}));
  EXPECT_LUCID_ERROR(eye(-1, 2, Dtype::F32, cpu()), Value);
}

TEST(Creation, FromHostCopies) {
  std::vector<int16_t> src{1, 2, 3, 4, 5, 6};
  Tensor t = from_host(src.data(), {3, 2}, Dtype::I16, cpu());
  src[0] = 100;
  EXPECT_EQ(values<int16_t>(t), (std::vector<int16_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t->shape(), (Shape{3, 2}));
}

// =============================================================================================
// Random

std::string draw(const GeneratorPtr& g, RandomDist dist, int64_t n, double a = 0, double b = 1, Dtype dt = Dtype::F32) {
  Tensor t = TensorImpl::empty({n}, dt, cpu());
  random_(t, dist, a, b, g);
  return to_bytes(t);
}

TEST(Random, SameSeedSameNumbersThenDifferent) {
  auto g1 = std::make_shared<Generator>(1234), g2 = std::make_shared<Generator>(1234);
  const std::string a1 = draw(g1, RandomDist::Uniform, 1000), a2 = draw(g2, RandomDist::Uniform, 1000);
  EXPECT_EQ(a1, a2);
  const std::string b1 = draw(g1, RandomDist::Uniform, 1000);
  EXPECT_NE(a1, b1);  // the generator advanced
  g1->manual_seed(1234);
  EXPECT_EQ(draw(g1, RandomDist::Uniform, 1000), a1);
  auto g3 = std::make_shared<Generator>(4321);
  EXPECT_NE(draw(g3, RandomDist::Uniform, 1000), a1);
  EXPECT_EQ(g3->initial_seed(), 4321u);
  // Distinct values within one draw.
  Tensor t = TensorImpl::empty({1000}, Dtype::F64, cpu());
  random_(t, RandomDist::Uniform, 0, 1, g3);
  const auto v = values<double>(t);
  EXPECT_EQ(std::set<double>(v.begin(), v.end()).size(), v.size());
}

TEST(Random, StateRoundTrip) {
  auto g = std::make_shared<Generator>(7);
  draw(g, RandomDist::Normal, 10);
  const std::string st = g->get_state();
  ASSERT_EQ(st.size(), 16u);
  const std::string x = draw(g, RandomDist::Normal, 100);
  g->set_state(st);
  EXPECT_EQ(draw(g, RandomDist::Normal, 100), x);
  EXPECT_LUCID_ERROR(g->set_state("short"), Value);
  // The first draw after a seed reserves exactly numel counter blocks.
  g->manual_seed(7);
  const std::string first = draw(g, RandomDist::Uniform, 3, 0, 1, Dtype::F64);
  const std::string rest = draw(g, RandomDist::Uniform, 2, 0, 1, Dtype::F64);
  g->manual_seed(7);
  EXPECT_EQ(draw(g, RandomDist::Uniform, 5, 0, 1, Dtype::F64), first + rest);
}

TEST(Random, DistributionsHaveTheRightRangeAndMoments) {
  auto g = std::make_shared<Generator>(2024);
  const int64_t n = 200000;
  Tensor u = TensorImpl::empty({n}, Dtype::F64, cpu());
  random_(u, RandomDist::Uniform, -2, 3, g);
  const auto uv = values<double>(u);
  double mean = 0;
  for (double x : uv) {
    ASSERT_GE(x, -2.0);
    ASSERT_LT(x, 3.0);
    mean += x / double(n);
  }
  EXPECT_NEAR(mean, 0.5, 0.02);

  Tensor nrm = TensorImpl::empty({n}, Dtype::F32, cpu());
  random_(nrm, RandomDist::Normal, 1.0, 2.0, g);
  double m = 0, m2 = 0;
  for (float x : values<float>(nrm)) { m += x; m2 += double(x) * x; }
  m /= double(n);
  const double var = m2 / double(n) - m * m;
  EXPECT_NEAR(m, 1.0, 0.03);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.03);

  Tensor be = TensorImpl::empty({n}, Dtype::F32, cpu());
  random_(be, RandomDist::Bernoulli, 0.3, 0, g);
  double ones_frac = 0;
  for (float x : values<float>(be)) {
    ASSERT_TRUE(x == 0.0f || x == 1.0f);
    ones_frac += x / double(n);
  }
  EXPECT_NEAR(ones_frac, 0.3, 0.01);

  Tensor ri = TensorImpl::empty({10000}, Dtype::I64, cpu());
  random_(ri, RandomDist::Integer, 3, 10, g);
  std::set<int64_t> seen;
  for (int64_t x : values<int64_t>(ri)) {
    ASSERT_GE(x, 3);
    ASSERT_LT(x, 10);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u);

  // Narrow types never reach the (exclusive) upper bound after rounding.
  Tensor h = TensorImpl::empty({n}, Dtype::BF16, cpu());
  random_(h, RandomDist::Uniform, 0, 1, g);
  for (BFloat16 x : values<BFloat16>(h)) ASSERT_LT(float(x), 1.0f);

  EXPECT_LUCID_ERROR(random_(u, RandomDist::Uniform, 2, 1, g), Value);
  EXPECT_LUCID_ERROR(random_(u, RandomDist::Normal, 0, -1, g), Value);
  EXPECT_LUCID_ERROR(random_(u, RandomDist::Bernoulli, 1.5, 0, g), Value);
  EXPECT_LUCID_ERROR(random_(u, RandomDist::Integer, 5, 5, g), Value);
}

TEST(Random, NonContiguousOutputGetsTheSameLogicalNumbers) {
  auto g = std::make_shared<Generator>(99);
  Tensor dense = TensorImpl::empty({4, 5}, Dtype::F32, cpu());
  random_(dense, RandomDist::Uniform, 0, 1, g);
  g->manual_seed(99);
  Tensor base = TensorImpl::empty({5, 4}, Dtype::F32, cpu());
  Tensor tv = transpose(base, 0, 1);  // (4, 5), not contiguous
  const int64_t v0 = tv->version();
  random_(tv, RandomDist::Uniform, 0, 1, g);
  EXPECT_EQ(tv->version(), v0 + 1);
  EXPECT_EQ(to_bytes(tv), to_bytes(dense));
  EXPECT_LUCID_ERROR(random_(expand(make<float>({0}), {3}), RandomDist::Uniform, 0, 1, g), Generic);
}

TEST(Random, Randperm) {
  auto g = std::make_shared<Generator>(5);
  const auto p = values<int64_t>(randperm(100, Dtype::I64, cpu(), g));
  std::set<int64_t> s(p.begin(), p.end());
  EXPECT_EQ(s.size(), 100u);
  EXPECT_EQ(*s.begin(), 0);
  EXPECT_EQ(*s.rbegin(), 99);
  I64 identity(100);
  for (int64_t i = 0; i < 100; ++i) identity[size_t(i)] = i;
  EXPECT_NE(p, identity);
  g->manual_seed(5);
  EXPECT_EQ(values<int64_t>(randperm(100, Dtype::I64, cpu(), g)), p);
  EXPECT_EQ(randperm(0, Dtype::I64, cpu(), g)->numel(), 0);
  EXPECT_LUCID_ERROR(randperm(-1, Dtype::I64, cpu(), g), Value);
}

// =============================================================================================
// Host bridges

TEST(Host, Item) {
  Scalar s = item(make<float>({3.5f}, {}));
  EXPECT_EQ(s.kind, DtypeCategory::Floating);
  EXPECT_EQ(s.re, 3.5);
  s = item(make<int64_t>({-7}, {1, 1}));
  EXPECT_EQ(s.kind, DtypeCategory::Integral);
  EXPECT_EQ(s.i, -7);
  s = item(make_bool({1}, {}));
  EXPECT_EQ(s.kind, DtypeCategory::Bool);
  EXPECT_TRUE(s.b);
  s = item(make<c64>({c64(1.5f, -2.0f)}));
  EXPECT_EQ(s.kind, DtypeCategory::Complex);
  EXPECT_EQ(s.re, 1.5);
  EXPECT_EQ(s.im, -2.0);
  s = item(make<Half>({Half(0.1f)}));
  EXPECT_EQ(s.re, double(float(Half(0.1f))));
  s = item(select(iota({4}), 0, 2));  // a view with an offset
  EXPECT_EQ(s.re, 2.0);
  EXPECT_LUCID_ERROR_MSG(item(iota({2})), Generic, "2 elements");  // RuntimeError, as PyTorch
  EXPECT_LUCID_ERROR(item(iota({0})), Generic);
}

TEST(Host, ToBytesIsRowMajorOfTheLogicalTensor) {
  Tensor t = make<int16_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor tt = transpose(t, 0, 1);
  const std::string b = to_bytes(tt);
  ASSERT_EQ(b.size(), 12u);
  std::vector<int16_t> v(6);
  std::memcpy(v.data(), b.data(), 12);
  EXPECT_EQ(v, (std::vector<int16_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(to_bytes(iota({0})), "");
}

// Expected strings: PyTorch 2.13's repr with the leading "tensor(" and the trailing ")" removed.
std::string fmt(const Tensor& t) { return format_data(t, 7); }

TEST(Host, FormatDataMatchesPyTorch) {
  EXPECT_EQ(fmt(make<float>({1.5f, 2.25f})), "[1.5000, 2.2500]");
  EXPECT_EQ(fmt(make<int64_t>({1, -2, 30})), "[ 1, -2, 30]");
  EXPECT_EQ(fmt(make_bool({1, 0}, {2})), "[ True, False]");
  EXPECT_EQ(fmt(make<float>({3.5f}, {})), "3.5000");
  EXPECT_EQ(fmt(make<float>({1e-5f, 1.0f})), "[1.0000e-05, 1.0000e+00]");
  EXPECT_EQ(fmt(ones({2, 2}, Dtype::F32, cpu())), "[[1., 1.],\n        [1., 1.]]");
  EXPECT_EQ(fmt(make<c64>({c64(1, 2), c64(-3.5f, -1)})), "[ 1.0000+2.j, -3.5000-1.j]");
  EXPECT_EQ(fmt(zeros({0}, Dtype::F32, cpu())), "[]");
  EXPECT_EQ(fmt(make<float>({-1.5f, 100.0f})), "[ -1.5000, 100.0000]");
  EXPECT_EQ(fmt(make<float>({1e9f, 1.0f})), "[1.0000e+09, 1.0000e+00]");
  EXPECT_EQ(fmt(iota({2, 3, 4}, Dtype::I64)),
            "[[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n"
            "        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]]");
}

TEST(Host, FormatDataNonFiniteCellsDoNotWidenColumns) {
  // PyTorch's _Formatter takes its width from the finite values only.
  EXPECT_EQ(fmt(make<float>({NAN, INFINITY, -INFINITY, 1.0f})), "[nan, inf, -inf, 1.]");
  EXPECT_EQ(fmt(make<float>({NAN, 1.5f})), "[   nan, 1.5000]");
}

TEST(Host, FormatDataWrapsLinesLikePyTorch) {
  Tensor f = binary(BinaryOp::Mul, iota({30}), sf(1.5));
  EXPECT_EQ(fmt(f),
            "[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
            "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
            "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
            "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]");
  EXPECT_EQ(fmt(iota({100}, Dtype::I64)),
            "[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
            "        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n"
            "        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n"
            "        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n"
            "        90, 91, 92, 93, 94, 95, 96, 97, 98, 99]");
}

TEST(Host, FormatDataSummarizesLikePyTorch) {
  EXPECT_EQ(fmt(iota({2000}, Dtype::I64)), "[   0,    1,    2,  ..., 1997, 1998, 1999]");
  EXPECT_EQ(fmt(iota({40, 50}, Dtype::I64)),
            "[[   0,    1,    2,  ...,   47,   48,   49],\n"
            "        [  50,   51,   52,  ...,   97,   98,   99],\n"
            "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
            "        ...,\n"
            "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
            "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
            "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]]");
}

TEST(Host, FormatDataIntegerValuedFloatsUseSciForWideRanges) {
  // PyTorch's _Formatter: in int mode, max/min > 1000 (or max > 1e8) switches to scientific.
  EXPECT_EQ(fmt(make<float>({1.0f, 2000.0f})), "[1.0000e+00, 2.0000e+03]");
}

}  // namespace
}  // namespace lucid
