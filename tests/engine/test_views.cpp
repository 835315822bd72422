// Engine tests of the view ops: no data allocated, storage shared, values as PyTorch.
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

// =============================================================================================
// Views: no data allocated, storage shared.

TEST(Views, ViewSharesStorageAndAllocatesNothing) {
  Tensor t = iota({2, 3, 4});
  Tensor v;
  EXPECT_EQ(allocs_during([&] { v = view(t, {6, -1}); }), 0);
  EXPECT_EQ(v->storage(), t->storage());
  EXPECT_EQ(v->shape(), (Shape{6, 4}));
  EXPECT_EQ(v->strides(), (Strides{4, 1}));
  EXPECT_EQ(values<float>(v), values<float>(t));
  Tensor tt = transpose(t, 0, 2);
  EXPECT_LUCID_ERROR_MSG(view(tt, {-1}), ShapeMismatch, "reshape");
  EXPECT_LUCID_ERROR(view(t, {5, -1}), ShapeMismatch);
  // A view of a view of a transposed tensor where strides allow it.
  Tensor u = view(tt, {4, 3, 2, 1});
  EXPECT_EQ(u->storage(), t->storage());
  EXPECT_EQ(values<float>(u), values<float>(tt));
}

TEST(Views, ViewDtypeReinterpretsBytes) {
  Tensor t = make<float>({1.0f, -2.0f});
  Tensor v = view_dtype(t, Dtype::I32);
  EXPECT_EQ(v->storage(), t->storage());
  EXPECT_EQ(values<int32_t>(v), (I32{0x3f800000, int32_t(0xc0000000u)}));
  EXPECT_LUCID_ERROR(view_dtype(t, Dtype::F64), DtypeMismatch);
}

TEST(Views, ReshapeCopiesOnlyWhenStridesForbidAView) {
  Tensor t = iota({2, 3});
  Tensor r;
  EXPECT_EQ(allocs_during([&] { r = reshape(t, {3, 2}); }), 0);
  EXPECT_EQ(r->storage(), t->storage());
  EXPECT_EQ(values<float>(r), (F{0, 1, 2, 3, 4, 5}));

  Tensor tt = transpose(t, 0, 1);  // (3, 2): 0 3 / 1 4 / 2 5
  EXPECT_EQ(allocs_during([&] { r = reshape(tt, {3, 2, 1}); }), 0);
  EXPECT_EQ(r->storage(), t->storage());
  EXPECT_EQ(allocs_during([&] { r = reshape(tt, {-1}); }), 1);
  EXPECT_NE(r->storage(), t->storage());
  EXPECT_TRUE(r->is_contiguous());
  EXPECT_EQ(values<float>(r), (F{0, 3, 1, 4, 2, 5}));

  Tensor f = flatten(iota({2, 3, 4}), 1, 2);
  EXPECT_EQ(f->shape(), (Shape{2, 12}));
  EXPECT_EQ(flatten(make<float>({5.0f}, {}))->shape(), (Shape{1}));
  EXPECT_LUCID_ERROR(reshape(t, {4, -1}), ShapeMismatch);
}

TEST(Views, PermuteAndTranspose) {
  Tensor t = iota({2, 3, 4});
  Tensor p;
  EXPECT_EQ(allocs_during([&] { p = permute(t, {2, 0, 1}); }), 0);
  EXPECT_EQ(p->storage(), t->storage());
  EXPECT_EQ(p->shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p->strides(), (Strides{1, 12, 4}));
  EXPECT_FALSE(p->is_contiguous());
  const auto pv = values<float>(p);
  EXPECT_EQ(pv[0], 0);
  EXPECT_EQ(pv[1], 4);   // p[0, 0, 1] = t[0, 1, 0]
  EXPECT_EQ(pv[3], 12);  // p[0, 1, 0] = t[1, 0, 0]
  EXPECT_EQ(pv[6], 1);   // p[1, 0, 0] = t[0, 0, 1]
  EXPECT_EQ(permute(t, {-1, 0, 1})->shape(), (Shape{4, 2, 3}));
  EXPECT_LUCID_ERROR(permute(t, {0, 0, 1}), Value);
  EXPECT_LUCID_ERROR(permute(t, {0, 1}), ShapeMismatch);
  EXPECT_LUCID_ERROR(permute(t, {0, 1, 3}), Index);

  Tensor m = iota({2, 3});
  Tensor tr = transpose(m, 0, 1);
  EXPECT_EQ(tr->shape(), (Shape{3, 2}));
  EXPECT_EQ(tr->strides(), (Strides{1, 3}));
  EXPECT_EQ(values<float>(tr), (F{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values<float>(t_(m)), (F{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(matrix_transpose(t)->shape(), (Shape{2, 4, 3}));
  EXPECT_LUCID_ERROR(matrix_transpose(iota({3})), ShapeMismatch);
  EXPECT_LUCID_ERROR(transpose(m, 0, 2), Index);
  Tensor z = make<float>({1.0f}, {});
  EXPECT_EQ(transpose(z, 0, -1)->dim(), 0);
}

TEST(Views, SqueezeUnsqueeze) {
  Tensor t = iota({2, 1, 3, 1});
  Tensor m23 = iota({2, 3});
  int64_t allocs = allocs_during([&] {
    EXPECT_EQ(squeeze(t, std::nullopt)->shape(), (Shape{2, 3}));
    EXPECT_EQ(squeeze(t, std::vector<int64_t>{1})->shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(squeeze(t, std::vector<int64_t>{0})->shape(), (Shape{2, 1, 3, 1}));  // size 2: kept
    EXPECT_EQ(squeeze(t, std::vector<int64_t>{-1, 1})->shape(), (Shape{2, 3}));
    Tensor u = unsqueeze(m23, 0);
    EXPECT_EQ(u->shape(), (Shape{1, 2, 3}));
    Tensor u2 = unsqueeze(t, -1);
    EXPECT_EQ(u2->shape(), (Shape{2, 1, 3, 1, 1}));
    EXPECT_EQ(u2->strides().back(), 1);
    Tensor u3 = unsqueeze(t, 2);
    EXPECT_EQ(u3->shape(), (Shape{2, 1, 1, 3, 1}));
    EXPECT_TRUE(u3->is_contiguous());
  });
  EXPECT_EQ(allocs, 0);
  EXPECT_EQ(squeeze(t, std::nullopt)->storage(), t->storage());
  EXPECT_LUCID_ERROR(squeeze(t, std::vector<int64_t>{4}), Index);
  EXPECT_LUCID_ERROR(unsqueeze(iota({2, 3}), 3), Index);
  Tensor s = unsqueeze(make<float>({4.0f}, {}), 0);
  EXPECT_EQ(s->shape(), (Shape{1}));
  EXPECT_EQ(squeeze(s, std::nullopt)->dim(), 0);
}

TEST(Views, Expand) {
  Tensor t = make<float>({1, 2, 3}, {3, 1});
  Tensor e;
  EXPECT_EQ(allocs_during([&] { e = expand(t, {2, 3, 4}); }), 0);
  EXPECT_EQ(e->storage(), t->storage());
  EXPECT_EQ(e->shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(e->strides(), (Strides{0, 1, 0}));
  EXPECT_TRUE(e->has_internal_overlap());
  const auto v = values<float>(e);
  EXPECT_EQ(v.size(), 24u);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[3], 1);
  EXPECT_EQ(v[4], 2);
  EXPECT_EQ(v[12 + 11], 3);
  EXPECT_EQ(expand(t, {-1, 5})->shape(), (Shape{3, 5}));
  EXPECT_EQ(expand(t, {3, 1}), t);  // same shape: the tensor itself
  EXPECT_LUCID_ERROR_MSG(expand(t, {4, 4}), ShapeMismatch, "non-singleton dimension");
  EXPECT_LUCID_ERROR(expand(t, {4}), ShapeMismatch);
  EXPECT_LUCID_ERROR(expand(t, {-1, 3, 1}), ShapeMismatch);
  EXPECT_EQ(expand(make<float>({7.0f}, {}), {2, 2})->strides(), (Strides{0, 0}));
}

TEST(Views, NarrowSelectSlice) {
  Tensor t = iota({4, 5});
  int64_t allocs = allocs_during([&] {
    Tensor n = narrow(t, 1, 1, 3);
    EXPECT_EQ(n->shape(), (Shape{4, 3}));
    EXPECT_EQ(n->storage_offset(), 1);
    EXPECT_EQ(n->storage(), t->storage());
    Tensor n2 = narrow(t, 0, -2, 2);
    EXPECT_EQ(n2->storage_offset(), 10);

    Tensor s = select(t, 1, -1);
    EXPECT_EQ(s->shape(), (Shape{4}));
    EXPECT_EQ(s->strides(), (Strides{5}));
    EXPECT_EQ(s->storage_offset(), 4);

    Tensor sl = slice(t, 1, 1, std::nullopt, 2);
    EXPECT_EQ(sl->shape(), (Shape{4, 2}));
    EXPECT_EQ(sl->strides(), (Strides{5, 2}));
    EXPECT_EQ(sl->storage_offset(), 1);
  });
  EXPECT_EQ(allocs, 0);
  EXPECT_EQ(values<float>(narrow(t, 1, 1, 3)), (F{1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18}));
  EXPECT_EQ(values<float>(select(t, 1, -1)), (F{4, 9, 14, 19}));
  EXPECT_EQ(values<float>(select(t, 0, 2)), (F{10, 11, 12, 13, 14}));
  EXPECT_EQ(values<float>(slice(t, 1, 1, std::nullopt, 2)), (F{1, 3, 6, 8, 11, 13, 16, 18}));

  Tensor a = iota({10});
  EXPECT_EQ(values<float>(slice(a, 0, 1, std::nullopt, 3)), (F{1, 4, 7}));
  EXPECT_EQ(values<float>(slice(a, 0, -3, std::nullopt, 1)), (F{7, 8, 9}));
  EXPECT_EQ(values<float>(slice(a, 0, std::nullopt, -8, 1)), (F{0, 1}));
  EXPECT_EQ(values<float>(slice(a, 0, -100, 100, 4)), (F{0, 4, 8}));
  EXPECT_EQ(slice(a, 0, 6, 2, 1)->shape(), (Shape{0}));  // stop before start: empty
  EXPECT_LUCID_ERROR(slice(a, 0, 0, 5, 0), Value);
  EXPECT_LUCID_ERROR(slice(make<float>({1.0f}, {}), 0, 0, 1, 1), Index);

  EXPECT_LUCID_ERROR(narrow(t, 1, 3, 3), Index);
  EXPECT_LUCID_ERROR(narrow(t, 2, 0, 1), Index);
  EXPECT_LUCID_ERROR(select(t, 0, 4), Index);
  EXPECT_LUCID_ERROR(select(t, 0, -5), Index);
  EXPECT_LUCID_ERROR(select(make<float>({1.0f}, {}), 0, 0), Index);
}

TEST(Views, UnfoldWindows) {
  Tensor t = iota({7});
  Tensor u;
  EXPECT_EQ(allocs_during([&] { u = unfold(t, 0, 3, 2); }), 0);
  EXPECT_EQ(u->storage(), t->storage());
  EXPECT_EQ(u->shape(), (Shape{3, 3}));
  EXPECT_EQ(u->strides(), (Strides{2, 1}));
  EXPECT_EQ(values<float>(u), (F{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  EXPECT_TRUE(u->has_internal_overlap());
  // Writing through overlapping windows is refused; disjoint windows may be written.
  EXPECT_LUCID_ERROR(fill_(u, si(0)), Generic);
  EXPECT_LUCID_ERROR(binary_(BinaryOp::Add, u, si(1)), Generic);
  EXPECT_EQ(values<float>(t), (F{0, 1, 2, 3, 4, 5, 6}));
  Tensor d = unfold(t, 0, 2, 3);  // windows [0 1] [3 4]
  EXPECT_EQ(values<float>(d), (F{0, 1, 3, 4}));
  EXPECT_FALSE(d->has_internal_overlap());
  fill_(d, si(-1));
  EXPECT_EQ(values<float>(t), (F{-1, -1, 2, -1, -1, 5, 6}));

  Tensor m = iota({2, 5});
  Tensor um = unfold(m, 1, 2, 2);  // (2, 2, 2)
  EXPECT_EQ(um->shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(values<float>(um), (F{0, 1, 2, 3, 5, 6, 7, 8}));
  EXPECT_LUCID_ERROR(unfold(t, 0, 8, 1), ShapeMismatch);
  EXPECT_LUCID_ERROR(unfold(t, 0, 2, 0), Value);
  Tensor z = unfold(make<float>({9.0f}, {}), 0, 1, 1);
  EXPECT_EQ(z->shape(), (Shape{1}));
  EXPECT_EQ(values<float>(z), (F{9}));
}

TEST(Views, Diagonal) {
  Tensor t = iota({3, 4});
  Tensor d;
  EXPECT_EQ(allocs_during([&] { d = diagonal(t); }), 0);
  EXPECT_EQ(d->storage(), t->storage());
  EXPECT_EQ(d->strides(), (Strides{5}));
  EXPECT_EQ(values<float>(d), (F{0, 5, 10}));
  EXPECT_EQ(values<float>(diagonal(t, 1)), (F{1, 6, 11}));
  EXPECT_EQ(values<float>(diagonal(t, 2)), (F{2, 7}));
  EXPECT_EQ(values<float>(diagonal(t, -1)), (F{4, 9}));
  EXPECT_EQ(diagonal(t, 4)->shape(), (Shape{0}));
  EXPECT_EQ(diagonal(t, -3)->shape(), (Shape{0}));
  EXPECT_EQ(values<float>(diagonal(t, 0, 1, 0)), (F{0, 5, 10}));
  Tensor b = iota({2, 2, 3});
  EXPECT_EQ(values<float>(diagonal(b, 0, 1, 2)), (F{0, 4, 6, 10}));  // batch of diagonals
  EXPECT_EQ(values<float>(diagonal(b, 0, 0, 2)), (F{0, 7, 3, 10}));  // shape (2 [dim1], 2 [diag])
  EXPECT_LUCID_ERROR(diagonal(iota({3})), ShapeMismatch);
  EXPECT_LUCID_ERROR(diagonal(t, 0, 1, 1), Value);
  // Writing through the diagonal writes the matrix.
  fill_(diagonal(t), si(-1));
  EXPECT_EQ(values<float>(t), (F{-1, 1, 2, 3, 4, -1, 6, 7, 8, 9, -1, 11}));
}

TEST(Views, AsStrided) {
  Tensor t = iota({9});
  Tensor a;
  EXPECT_EQ(allocs_during([&] { a = as_strided(t, {2, 2}, {3, 1}, 1); }), 0);
  EXPECT_EQ(a->storage(), t->storage());
  EXPECT_EQ(values<float>(a), (F{1, 2, 4, 5}));
  EXPECT_EQ(values<float>(as_strided(t, {3}, {0}, 4)), (F{4, 4, 4}));
  EXPECT_EQ(values<float>(as_strided(narrow(t, 0, 2, 3), {2}, {2}, std::nullopt)), (F{2, 4}));  // keeps offset
  EXPECT_EQ(values<float>(as_strided(t, {3, 3}, {1, 3}, 0)), (F{0, 3, 6, 1, 4, 7, 2, 5, 8}));
  EXPECT_LUCID_ERROR(as_strided(t, {2, 2}, {5, 1}, 3), Index);  // reaches element 9
  EXPECT_LUCID_ERROR(as_strided(t, {2}, {1, 1}, 0), ShapeMismatch);
  EXPECT_LUCID_ERROR(as_strided(t, {2}, {1}, -1), Value);
  EXPECT_EQ(as_strided(t, {0, 5}, {100, 100}, 0)->numel(), 0);  // empty: no bound check
}

// =============================================================================================
// copy_, to, clone, contiguous


}  // namespace
}  // namespace lucid
