// The umbrella header (engine/lucid.h) compiles on its own, and its tour runs as written.
#include "lucid.h"

#include <gtest/gtest.h>

namespace lucid {

TEST(Umbrella, TourRuns) {
  Tensor x = reshape(arange(Scalar::from_int(0), Scalar::from_int(6), Scalar::from_int(1), Dtype::F32, Device()), {2, 3});
  Tensor y = matmul(x, transpose(x, 0, 1));
  Tensor z = sum(add(y, Scalar::from_double(1.0)), std::nullopt);
  ASSERT_EQ(z->numel(), 1);
  // x x^T = [[5, 14], [14, 50]]; plus one each: 87
  EXPECT_FLOAT_EQ(*z->data<float>(), 87.0f);
}

}  // namespace lucid
