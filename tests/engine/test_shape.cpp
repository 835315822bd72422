// engine/ops/shape: the C++ API other op families call (cat, stack, flip, tril/triu) and the pad
// gather/scatter kernels, without Python.
#include <gtest/gtest.h>

#include "ops/copy.h"
#include "ops/creation.h"
#include "ops/shape.h"
#include "ops/view.h"
#include "ops_prelude.h"

namespace lucid {
namespace {

using namespace test::ops;  // NOLINT: the shared test prelude (ops_prelude.h)

TEST(Shape, CatPromotesAndSkipsLegacyEmpty) {
  Tensor a = iota({2, 2}, Dtype::I32);
  Tensor b = make<double>({0.5, 1.5}, {2, 1});
  Tensor r = cat({a, b}, 1);
  EXPECT_EQ(r->dtype(), Dtype::F64);
  EXPECT_EQ(r->shape(), (Shape{2, 3}));
  EXPECT_EQ(values<double>(r), (D{0, 1, 0.5, 2, 3, 1.5}));
  Tensor e = zeros({0}, Dtype::F32, cpu());
  EXPECT_EQ(cat({e, a}, 0)->shape(), (Shape{2, 2}));
  auto err = test::catch_error([&] { cat({a, iota({3, 3})}, 1); });
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind(), ErrorKind::ShapeMismatch);
}

TEST(Shape, StackInsertsTheNewDim) {
  Tensor a = iota({3}), b = iota({3});
  Tensor r = stack({a, b}, 1);
  EXPECT_EQ(r->shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>(r), (F{0, 0, 1, 1, 2, 2}));
  EXPECT_TRUE(test::catch_error([&] { stack({a, iota({2})}); }));
}

TEST(Shape, FlipReadsBackwardsThroughStridedViews) {
  Tensor x = iota({2, 3});
  EXPECT_EQ(values<float>(flip(x, {1})), (F{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(values<float>(flip(x, {0, 1})), (F{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values<float>(flip(transpose(x, 0, 1), {0})), (F{2, 5, 1, 4, 0, 3}));
  EXPECT_EQ(values<c128>(flip(make<c128>({c128(1, 2), c128(3, 4)}), {0})), (std::vector<c128>{c128(3, 4), c128(1, 2)}));
}

TEST(Shape, TrilTriuKeepTheirTriangle) {
  Tensor x = to(iota({2, 2, 3}), Dtype::I64, std::nullopt);
  EXPECT_EQ(values<int64_t>(tril(x)), (I64{0, 0, 0, 3, 4, 0, 6, 0, 0, 9, 10, 0}));
  EXPECT_EQ(values<int64_t>(triu(x, 1)), (I64{0, 1, 2, 0, 0, 5, 0, 7, 8, 0, 0, 11}));
  EXPECT_TRUE(test::catch_error([&] { tril(iota({3})); }));
}

TEST(Shape, PadModesMatchTheirDefinitions) {
  Tensor x = iota({1, 4});
  EXPECT_EQ(values<float>(pad(x, {2, 1}, "reflect")), (F{2, 1, 0, 1, 2, 3, 2}));
  EXPECT_EQ(values<float>(pad(x, {2, 1}, "replicate")), (F{0, 0, 0, 1, 2, 3, 3}));
  EXPECT_EQ(values<float>(pad(x, {2, 1}, "circular")), (F{2, 3, 0, 1, 2, 3, 0}));
  EXPECT_EQ(values<float>(pad(x, {1, -2}, "constant", sf(9))), (F{9, 0, 1}));
}

}  // namespace
}  // namespace lucid
