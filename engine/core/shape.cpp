#include "core/shape.h"

#include <sstream>

#include "core/error.h"

namespace lucid {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (auto v : s) n *= v;
  return n;
}

int64_t checked_nbytes(const Shape& s, int64_t itemsize, const char* op) {
  int64_t n = 1;
  bool overflow = false, empty = false;
  for (auto v : s) {
    LUCID_CHECK(v >= 0, Value, "[" << op << "] negative dimension " << v << " in shape " << shape_str(s));
    empty = empty || v == 0;
    overflow = overflow || __builtin_mul_overflow(n, v, &n);
  }
  if (empty) return 0;  // a zero-size dim makes any other size harmless
  int64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(n, itemsize, &bytes);
  LUCID_CHECK(!overflow, Generic, "[" << op << "] storage size calculation overflowed with sizes=" << shape_str(s));
  return bytes;
}

Strides contiguous_strides(const Shape& s) {
  Strides st(s.size());
  int64_t acc = 1;
  for (int64_t i = int64_t(s.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i] > 1 ? s[i] : 1;
  }
  return st;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  if (s.size() == 1) os << ",";
  os << ")";
  return os.str();
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* op) {
  const int64_t r = rank == 0 ? 1 : rank;  // a 0-d tensor accepts dim 0 and -1, as in PyTorch
  LUCID_CHECK(dim >= -r && dim < r, Index,
              "[" << op << "] dimension out of range (expected to be in range of [" << -r << ", " << r - 1
                  << "], but got " << dim << ")");
  return dim < 0 ? dim + r : dim;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    LUCID_CHECK(da == db || da == 1 || db == 1, ShapeMismatch,
                "[" << op << "] shapes " << shape_str(a) << " and " << shape_str(b)
                    << " cannot be broadcast: dimension " << i << " has sizes " << da << " and " << db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool compute_view_strides(const Shape& oldshape, const Strides& oldstride, const Shape& newshape, Strides* out) {
  // Port of PyTorch's at::detail::computeStride.
  Strides newstride(newshape.size());
  if (oldshape.empty()) {
    for (auto& s : newstride) s = 1;
    *out = newstride;
    return true;
  }
  const int64_t numel = numel_of(oldshape);
  if (numel == 0 && oldshape == newshape) return *out = oldstride, true;
  if (numel == 0) {
    *out = contiguous_strides(newshape);
    return true;
  }
  int64_t view_d = int64_t(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = int64_t(oldshape.size()) - 1; tensor_d >= 0; tensor_d--) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = newstride;
  return true;
}

Shape infer_size(const Shape& req, int64_t numel, const char* op) {
  Shape out = req;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < req.size(); ++i) {
    if (req[i] == -1) {
      LUCID_CHECK(infer < 0, ShapeMismatch, "[" << op << "] only one dimension can be inferred");
      infer = int64_t(i);
    } else {
      LUCID_CHECK(req[i] >= 0, ShapeMismatch, "[" << op << "] invalid shape dimension " << req[i]);
      known *= req[i];
    }
  }
  if (infer >= 0) {
    LUCID_CHECK(known != 0 && numel % known == 0, ShapeMismatch,
                "[" << op << "] shape '" << shape_str(req) << "' is invalid for input of size " << numel);
    out[infer] = numel / known;
  } else {
    LUCID_CHECK(known == numel, ShapeMismatch,
                "[" << op << "] shape '" << shape_str(req) << "' is invalid for input of size " << numel);
  }
  return out;
}

}  // namespace lucid
