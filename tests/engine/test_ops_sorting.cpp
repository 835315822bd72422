// engine/ops/sorting: the C++ API other families build on (sort, topk) and the order rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/sorting.h"
#include "ops/view.h"
#include "ops_prelude.h"

namespace lucid {
namespace {

using namespace test::ops;  // NOLINT: the shared test prelude (ops_prelude.h)
const float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(Sort, StableWithNaNLargest) {
  auto [v, i] = sort(make<float>({3, kNan, 1, 3, -1}), -1, false, true);
  EXPECT_EQ(values<int64_t>(i), (I64{4, 2, 0, 3, 1}));
  auto [vd, id] = sort(make<float>({3, kNan, 1, 3, -1}), 0, true, true);
  EXPECT_EQ(values<int64_t>(id), (I64{1, 0, 3, 2, 4}));
  EXPECT_TRUE(std::isnan(values<float>(vd)[0]));
}

TEST(Sort, AlongAStridedDim) {
  Tensor t = transpose(make<int32_t>({5, 1, 4, 2, 6, 0}, {2, 3}), 0, 1);  // (3, 2), non-contiguous
  auto [v, i] = sort(t, 0, false, false);
  EXPECT_EQ(values<int32_t>(v), (I32{1, 0, 4, 2, 5, 6}));
  EXPECT_EQ(values<int64_t>(i), (I64{1, 2, 2, 0, 0, 1}));
  EXPECT_TRUE(v->is_contiguous());
}

TEST(Topk, LargestAndSmallestInSortedOrder) {
  Tensor t = make<double>({1, 7, 3, 7, 5}, {1, 5});
  auto [v, i] = topk(t, 3, -1, true, true);
  EXPECT_EQ(values<double>(v), (D{7, 7, 5}));
  EXPECT_EQ(values<int64_t>(i), (I64{1, 3, 4}));
  auto [vs, is] = topk(t, 2, 1, false, true);
  EXPECT_EQ(values<double>(vs), (D{1, 3}));
  EXPECT_EQ(values<int64_t>(is), (I64{0, 2}));
}

TEST(Topk, KOutOfRangeIsAnIndexError) {
  auto e = test::catch_error([] { topk(make<float>({1, 2}), 3); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), ErrorKind::Index);
}

TEST(Median, LowerMiddleAndNaN) {
  EXPECT_EQ(values<float>(median(make<float>({4, 1, 3, 2}))), (F{2}));
  EXPECT_TRUE(std::isnan(values<float>(median(make<float>({4, kNan, 3})))[0]));
  EXPECT_EQ(values<float>(nanmedian(make<float>({4, kNan, 3}))), (F{3}));
}

}  // namespace
}  // namespace lucid
