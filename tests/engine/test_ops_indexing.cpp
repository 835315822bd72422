// engine/ops/indexing: the C++ API other families build on (gather, scatter_add, index_select,
// index_add, masked_fill, index, index_put) and its errors.
#include <gtest/gtest.h>

#include "ops/indexing.h"
#include "ops/view.h"
#include "ops_prelude.h"

namespace lucid {
namespace {

using namespace test::ops;  // NOLINT: the shared test prelude (ops_prelude.h)

TEST(Gather, AlongEachDim) {
  Tensor t = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values<float>(gather(t, 1, make<int64_t>({2, 0, 1, 1}, {2, 2}))), (F{3, 1, 5, 5}));
  EXPECT_EQ(values<float>(gather(t, 0, make<int64_t>({1, 0, 1}, {1, 3}))), (F{4, 2, 6}));
}

TEST(ScatterAdd, DuplicatesAccumulate) {
  Tensor z = make<float>({0, 0, 0});
  Tensor r = scatter_add(z, 0, make<int64_t>({0, 2, 0, 0}), make<float>({1, 2, 3, 4}));
  EXPECT_EQ(values<float>(r), (F{8, 0, 2}));
  EXPECT_EQ(values<float>(z), (F{0, 0, 0}));  // out of place
}

TEST(IndexSelectAndIndexAdd, OnAStridedInput) {
  Tensor t = transpose(make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 1);  // (3, 2)
  EXPECT_EQ(values<int32_t>(index_select(t, 0, make<int64_t>({2, 0}))), (I32{3, 6, 1, 4}));
  Tensor r = index_add(t, 1, make<int64_t>({1, 1}), make<int32_t>({1, 1, 1, 1, 1, 1}, {3, 2}), si(10));
  EXPECT_EQ(values<int32_t>(r), (I32{1, 24, 2, 25, 3, 26}));
}

TEST(MaskedFill, BroadcastMaskAndScalar) {
  Tensor t = make<double>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(values<double>(masked_fill(t, make_bool({1, 0}), sf(-1))), (D{-1, 2, -1, 4}));
}

TEST(Index, SeparatedIndicesGoFirst) {
  Tensor t = iota({2, 3, 4});
  Tensor r = index(t, {make<int64_t>({0, 1}), nullptr, make<int64_t>({1, -1})});
  EXPECT_EQ(r->shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(r), (F{1, 5, 9, 15, 19, 23}));
}

TEST(IndexPut, AccumulateAndAssign) {
  Tensor z = make<float>({0, 0, 0, 0});
  EXPECT_EQ(values<float>(index_put(z, {make<int64_t>({1, 1, -1})}, make<float>({1}), true)), (F{0, 2, 0, 1}));
  EXPECT_EQ(values<float>(index_put(z, {make_bool({1, 0, 0, 1}, {4})}, make<float>({5, 6}), false)), (F{5, 0, 0, 6}));
}

TEST(Indexing, OutOfRangeIsAnIndexErrorAndWritesNothing) {
  Tensor z = make<float>({0, 0, 0});
  for (auto f : {+[](const Tensor& z) { index_put_(z, {make<int64_t>({0, 3})}, make<float>({1}), false); },
                 +[](const Tensor& z) { scatter_add_(z, 0, make<int64_t>({0, -1}), make<float>({1, 1})); },
                 +[](const Tensor& z) { index_add_(z, 0, make<int64_t>({0, 5}), make<float>({1, 1})); },
                 +[](const Tensor& z) { gather(z, 0, make<int64_t>({3})); }}) {
    auto e = test::catch_error([&] { f(z); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::Index);
  }
  EXPECT_EQ(values<float>(z), (F{0, 0, 0}));
}

}  // namespace
}  // namespace lucid
