#include "ops/host.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "core/device_interface.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace lucid {

Tensor to_host_contiguous(const Tensor& t) {
  Tensor h = to(t, std::nullopt, Device(DeviceType::CPU));
  return contiguous(h);
}

Scalar item(const Tensor& t) {
  LUCID_CHECK(t->numel() == 1, Generic,
              "[item] a Tensor with " << t->numel() << " elements cannot be converted to Scalar (shape "
                                      << shape_str(t->shape()) << ")");
  Tensor h = to_host_contiguous(t);
  return dispatch_dtype(h->dtype(), [&]<typename T>() {
    const T v = *h->data<T>();
    if constexpr (std::is_same_v<T, bool>) return Scalar::from_bool(v);
    else if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) return Scalar::from_complex(double(v.re), double(v.im));
    else if constexpr (std::is_integral_v<T>) return Scalar::from_int(int64_t(v));
    else return Scalar::from_double(double(v));
  });
}

std::string to_bytes(const Tensor& t) {
  Tensor h = to_host_contiguous(t);
  return std::string(static_cast<const char*>(h->data_ptr()), size_t(h->nbytes()));
}

namespace {

constexpr int64_t kSummarizeThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;

struct FloatFormat {
  bool int_mode = true, sci = false;
  int width = 1;
};

std::string fmt_float(double v, const FloatFormat& f) {
  char buf[64];
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (f.sci) std::snprintf(buf, sizeof buf, "%.4e", v);
  else if (f.int_mode) std::snprintf(buf, sizeof buf, "%.0f.", v);
  else std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

FloatFormat choose_format(const std::vector<double>& vals) {
  FloatFormat f;
  double mx = 0, mn = INFINITY;
  bool any = false;
  for (double v : vals) {
    if (!std::isfinite(v)) continue;
    any = true;
    if (v != std::nearbyint(v)) f.int_mode = false;
    const double a = std::fabs(v);
    mx = std::max(mx, a);
    if (a > 0) mn = std::min(mn, a);
  }
  if (!any) return f;
  if (f.int_mode) {
    f.sci = (mn != INFINITY && mx / mn > 1000.0) || mx > 1e8;
  } else {
    f.sci = (mn != INFINITY && mx / mn > 1000.0) || mx > 1e8 || (mn != INFINITY && mn < 1e-4);
  }
  return f;
}

// Walks the tensor, with summarisation, collecting the elements (as strings) that will print.
struct Printer {
  const TensorImpl& t;
  bool summarize;
  std::vector<std::string> cells;  // in print order
  int width = 1;

  std::vector<int64_t> shown(int64_t size) const {
    std::vector<int64_t> idx;
    if (summarize && size > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);  // ellipsis
      for (int64_t i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < size; ++i) idx.push_back(i);
    }
    return idx;
  }
};


}  // namespace

std::string format_data(const Tensor& t_in, int indent) {
  Tensor h = to_host_contiguous(t_in);
  const TensorImpl& t = *h;
  const bool summarize = t.numel() > kSummarizeThreshold;
  const Dtype dt = t.dtype();
  const int64_t nd = t.dim();
  const auto& shape = t.shape();
  const auto strides = contiguous_strides(shape);

  // Collect the flat indices of printed elements to choose a common format.
  Printer pr{t, summarize, {}, 1};
  std::vector<int64_t> flat;
  std::function<void(int64_t, int64_t)> collect = [&](int64_t d, int64_t base) {
    if (d == nd) { flat.push_back(base); return; }
    for (auto i : pr.shown(shape[size_t(d)]))
      if (i >= 0) collect(d + 1, base + i * strides[size_t(d)]);
  };
  collect(0, 0);

  std::vector<std::string> flat_str;
  dispatch_dtype(dt, [&]<typename T>() {
    const T* p = t.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (auto i : flat) flat_str.push_back(p[i] ? "True" : "False");
    } else if constexpr (std::is_integral_v<T>) {
      for (auto i : flat) flat_str.push_back(std::to_string(int64_t(p[i])));
    } else if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
      std::vector<double> re, im;
      for (auto i : flat) { re.push_back(double(p[i].re)); im.push_back(double(p[i].im)); }
      const FloatFormat fr = choose_format(re), fi = choose_format(im);
      for (size_t k = 0; k < re.size(); ++k) {
        const double iv = im[k];
        std::string s = fmt_float(re[k], fr);
        s += (std::signbit(iv) && !std::isnan(iv)) ? "-" : "+";
        s += fmt_float(std::fabs(iv), fi) + "j";
        flat_str.push_back(s);
      }
    } else {
      std::vector<double> vals;
      for (auto i : flat) vals.push_back(double(p[i]));
      const FloatFormat f = choose_format(vals);
      for (double v : vals) flat_str.push_back(fmt_float(v, f));
    }
  });
  // Column width: non-finite cells (nan, inf) do not widen floating columns, as in PyTorch.
  size_t width = 1;
  const bool floating = is_floating(dt) || is_complex(dt);
  for (auto& s : flat_str) {
    const bool nonfinite = floating && (s == "nan" || s == "inf" || s == "-inf");
    if (!nonfinite) width = std::max(width, s.size());
  }

  if (nd == 0) return flat_str.empty() ? "[]" : flat_str[0];
  if (t.numel() == 0) return "[]";

  size_t next = 0;
  std::string out;
  std::function<void(int64_t)> emit = [&](int64_t d) {
    out += "[";
    const auto idx = pr.shown(shape[size_t(d)]);
    const std::string pad(size_t(indent + d + 1), ' ');
    if (d == nd - 1) {
      int col = indent + int(d) + 1;
      for (size_t k = 0; k < idx.size(); ++k) {
        std::string cell;
        if (idx[k] < 0) cell = " ...";
        else cell = std::string(width > flat_str[next].size() ? width - flat_str[next].size() : 0, ' ') + flat_str[next];
        if (idx[k] >= 0) ++next;
        if (k > 0) {
          if (col + 2 + int(cell.size()) > kLineWidth) {
            out += ",\n" + pad;
            col = indent + int(d) + 1;
          } else {
            out += ", ";
            col += 2;
          }
        }
        out += cell;
        col += int(cell.size());
      }
    } else {
      for (size_t k = 0; k < idx.size(); ++k) {
        if (k > 0) out += "," + std::string(size_t(nd - d - 1), '\n') + pad;
        if (idx[k] < 0) out += "...";
        else emit(d + 1);
      }
    }
    out += "]";
  };
  emit(0);
  return out;
}

}  // namespace lucid
