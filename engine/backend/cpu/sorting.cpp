// CPU sorting, selection, searching and counting kernels (mirrors a future cuda/sorting.cu).
// Rows along a dim are copied into a (key, index) buffer, ordered there, and written back: the
// buffer makes strided inputs cost one gather, and ordering by (key, index) makes every result
// deterministic (ties in index order, as a stable sort).
#include <algorithm>
#include <cstring>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/common/iter.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/scratch.h"
#include "backend/cpu/vec_rows.h"
#include "backend/kernels/sorting.h"

namespace lucid::cpu {

namespace {

template <typename T> using Key = typename OpMath<T>::type;

template <typename K> inline bool is_nan(K v) {
  if constexpr (std::is_floating_point_v<K>) return std::isnan(v);
  else return false;
}
// Ascending order with NaN above everything (NaNs compare equal to each other).
template <typename K> inline bool key_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) return !std::isnan(a) && (std::isnan(b) || a < b);
  else return a < b;
}

template <typename T> constexpr bool sortable_v = !std::is_same_v<T, c64> && !std::is_same_v<T, c128>;

template <typename F> void dispatch_real(Dtype d, const char* op, F&& f) {
  dispatch_dtype(d, [&]<typename T>() {
    if constexpr (sortable_v<T>) f.template operator()<T>();
    else LUCID_FAIL(NotImplemented, "[" << op << "] is not implemented for complex tensors");
  });
}

// Element offsets of the rows of `t` along `dim`: row r enumerates the other dims in row-major order.
struct Rows {
  int nd = 0;
  int64_t shape[kMaxIterDims] = {}, stride[kMaxIterDims] = {};
  int64_t count = 1, n = 1, step = 1;  // rows, row length, element stride along dim
  Rows(const TensorImpl& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == dim) { n = t.shape()[size_t(d)]; step = t.strides()[size_t(d)]; continue; }
      shape[nd] = t.shape()[size_t(d)];
      stride[nd] = t.strides()[size_t(d)];
      count *= shape[nd];
      ++nd;
    }
  }
  int64_t offset(int64_t r) const {
    int64_t off = 0;
    for (int j = nd - 1; j >= 0; --j) { off += (r % shape[j]) * stride[j]; r /= shape[j]; }
    return off;
  }
};

template <typename K> using Buf = ScratchVec<std::pair<K, int64_t>>;

template <typename T> void load_row(Buf<Key<T>>& buf, const T* p, int64_t n, int64_t step) {
  buf.resize(size_t(n));
  for (int64_t j = 0; j < n; ++j) buf[size_t(j)] = {Key<T>(p[j * step]), j};
}

// Rows of n elements: enough of them per chunk to amortise a thread.
inline int64_t row_grain(int64_t n) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1) / 4); }

// Total orders on (key, index): ascending / descending by key, ties by index.
template <typename K> struct AscTotal {
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    if (key_less(a.first, b.first)) return true;
    if (key_less(b.first, a.first)) return false;
    return a.second < b.second;
  }
};
template <typename K> struct DescTotal {
  bool operator()(const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) const {
    if (key_less(b.first, a.first)) return true;
    if (key_less(a.first, b.first)) return false;
    return a.second < b.second;
  }
};

// A stable sort of one long buffer on several threads: chunks sorted in parallel, then merged
// pairwise (std::merge takes from the left run on ties, so the result stays stable).
template <typename V, typename Cmp> void big_stable_sort(ScratchVec<V>& buf, Cmp cmp) {
  const int64_t n = int64_t(buf.size());
  const int64_t nt = get_num_threads();
  if (nt < 2 || n < (int64_t(1) << 16) || in_parallel_region()) {
    std::stable_sort(buf.begin(), buf.end(), cmp);
    return;
  }
  std::vector<int64_t> cut;
  for (int64_t c = 0; c <= nt; ++c) cut.push_back(n * c / nt);
  parallel_for(0, nt, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) std::stable_sort(buf.begin() + cut[size_t(c)], buf.begin() + cut[size_t(c + 1)], cmp);
  });
  ScratchVec<V> tmp(buf.size());
  while (cut.size() > 2) {
    std::vector<int64_t> next{0};
    const int64_t pairs = int64_t(cut.size() - 1) / 2;
    parallel_for(0, pairs, 1, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const size_t l = size_t(2 * p);
        std::merge(buf.begin() + cut[l], buf.begin() + cut[l + 1], buf.begin() + cut[l + 1], buf.begin() + cut[l + 2],
                   tmp.begin() + cut[l], cmp);
      }
    });
    for (int64_t p = 0; p < pairs; ++p) next.push_back(cut[size_t(2 * p + 2)]);
    if ((cut.size() - 1) % 2) {  // an odd run out: carried over as it is
      std::copy(buf.begin() + cut[cut.size() - 2], buf.end(), tmp.begin() + cut[cut.size() - 2]);
      next.push_back(n);
    }
    buf.swap(tmp);
    cut.swap(next);
  }
}

// Order-preserving unsigned keys for LSD radix sort: NaN above +inf (all NaNs one key), -0.0 as
// +0.0 (they compare equal), so a stable radix sort orders exactly as key_less with ties by index.
template <typename K> struct RadixKey;
template <> struct RadixKey<bool> { using U = uint8_t; static U get(bool v) { return U(v); } };
template <> struct RadixKey<uint8_t> { using U = uint8_t; static U get(uint8_t v) { return v; } };
#define LUCID_SIGNED_KEY(T, UT) \
  template <> struct RadixKey<T> { using U = UT; static U get(T v) { return U(v) ^ (U(1) << (8 * sizeof(U) - 1)); } };
LUCID_SIGNED_KEY(int8_t, uint8_t)
LUCID_SIGNED_KEY(int16_t, uint16_t)
LUCID_SIGNED_KEY(int32_t, uint32_t)
LUCID_SIGNED_KEY(int64_t, uint64_t)
#undef LUCID_SIGNED_KEY
template <typename F, typename UT> struct FloatKey {
  using U = UT;
  static U get(F v) {
    if (std::isnan(v)) return ~U(0);
    if (v == 0) v = 0;  // -0.0 -> +0.0
    U u;
    std::memcpy(&u, &v, sizeof(U));
    const U sign = U(1) << (8 * sizeof(U) - 1);
    return (u & sign) ? ~u : (u | sign);
  }
};
template <> struct RadixKey<float> : FloatKey<float, uint32_t> {};
template <> struct RadixKey<double> : FloatKey<double, uint64_t> {};

// Stable LSD radix sort of a row into buf (key, index) order; 8-bit digits, passes whose digit is
// the same for every key skipped.
template <typename T> void radix_sort_row(Buf<Key<T>>& buf, bool descending) {
  using K = Key<T>;
  using U = typename RadixKey<K>::U;
  const size_t n = buf.size();
  ScratchVec<U> key(n), key2(n);
  ScratchVec<uint32_t> idx(n), idx2(n);
  for (size_t i = 0; i < n; ++i) {
    const U k = RadixKey<K>::get(buf[i].first);
    key[i] = descending ? U(~k) : k;
    idx[i] = uint32_t(i);
  }
  for (size_t pass = 0; pass < sizeof(U); ++pass) {
    const int shift = int(8 * pass);
    size_t count[257] = {};
    for (size_t i = 0; i < n; ++i) ++count[((key[i] >> shift) & 0xff) + 1];
    bool trivial = false;
    for (int d = 1; d <= 256; ++d) trivial = trivial || count[d] == n;
    if (trivial) continue;
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (size_t i = 0; i < n; ++i) {
      const size_t pos = count[(key[i] >> shift) & 0xff]++;
      key2[pos] = key[i];
      idx2[pos] = idx[i];
    }
    key.swap(key2);
    idx.swap(idx2);
  }
  Buf<K> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = buf[idx[i]];
  buf.swap(out);
}

constexpr int64_t kRadixMin = 512;  // rows this long sort by radix (below: std::stable_sort)

void sort(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in, int64_t dim, bool descending) {
  if (in.numel() == 0) return;
  dispatch_real(in.dtype(), "sort", [&]<typename T>() {
    using K = Key<T>;
    const Rows ri(in, dim), rv(values, dim), rx(indices, dim);
    const T* src = in.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    parallel_for(0, ri.count, row_grain(ri.n), [&](int64_t b, int64_t e) {
      Buf<K> buf;
      for (int64_t r = b; r < e; ++r) {
        load_row<T>(buf, src + ri.offset(r), ri.n, ri.step);
        if (ri.n >= kRadixMin && ri.n < (int64_t(1) << 32))
          radix_sort_row<T>(buf, descending);
        else if (descending)
          big_stable_sort(buf, [](const auto& x, const auto& y) { return key_less(y.first, x.first); });
        else
          big_stable_sort(buf, [](const auto& x, const auto& y) { return key_less(x.first, y.first); });
        T* v = vo + rv.offset(r);
        int64_t* ix = io + rx.offset(r);
        for (int64_t j = 0; j < ri.n; ++j) {
          v[j * rv.step] = T(buf[size_t(j)].first);
          ix[j * rx.step] = buf[size_t(j)].second;
        }
      }
    });
  });
}

void topk(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in, int64_t dim, int64_t k, bool largest) {
  if (values.numel() == 0) return;
  dispatch_real(in.dtype(), "topk", [&]<typename T>() {
    using K = Key<T>;
    const Rows ri(in, dim), rv(values, dim), rx(indices, dim);
    const T* src = in.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    // float rows and k <= 32: one pass that keeps the k best in order and skips blocks which cannot
    // enter (vec_rows.h topk_f32; the same total order), the selection below where it gives up
    const bool small_k = std::is_same_v<T, float> && ri.step == 1 && k <= 32;
    parallel_for(0, ri.count, row_grain(ri.n), [&](int64_t b, int64_t e) {
      Buf<K> buf;
      std::vector<float> tv(small_k ? static_cast<size_t>(k) : 0);
      std::vector<int64_t> ti(tv.size());
      for (int64_t r = b; r < e; ++r) {
        if constexpr (std::is_same_v<T, float>) {
          if (small_k && row_kernels().topk_f32(src + ri.offset(r), ri.n, k, largest, tv.data(), ti.data())) {
            T* v = vo + rv.offset(r);
            int64_t* ix = io + rx.offset(r);
            for (int64_t j = 0; j < k; ++j) {
              v[j * rv.step] = tv[size_t(j)];
              ix[j * rx.step] = ti[size_t(j)];
            }
            continue;
          }
        }
        load_row<T>(buf, src + ri.offset(r), ri.n, ri.step);
        // k <= 16 (a float row only where the one-pass kernel gave up: a rising row): a partial sort,
        // whose small heap rejects most elements with one compare; otherwise the k-th in place, then
        // the k before it sorted, O(n + k log k) where the heap costs O(n log k) on a rising row
        auto pick = [&](auto cmp) {
          if (k <= 16 && !small_k) {
            std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), cmp);
            return;
          }
          std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), cmp);
          std::sort(buf.begin(), buf.begin() + k, cmp);
        };
        if (largest) pick(DescTotal<K>());
        else pick(AscTotal<K>());
        T* v = vo + rv.offset(r);
        int64_t* ix = io + rx.offset(r);
        for (int64_t j = 0; j < k; ++j) {
          v[j * rv.step] = T(buf[size_t(j)].first);
          ix[j * rx.step] = buf[size_t(j)].second;
        }
      }
    });
  });
}

void select(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in, int64_t dim, int64_t k,
            SelectMode mode) {
  if (values.numel() == 0) return;
  dispatch_real(in.dtype(), "kthvalue", [&]<typename T>() {
    using K = Key<T>;
    const Rows ri(in, dim);
    const T* src = in.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    parallel_for(0, ri.count, row_grain(ri.n), [&](int64_t b, int64_t e) {
      Buf<K> buf;
      for (int64_t r = b; r < e; ++r) {
        load_row<T>(buf, src + ri.offset(r), ri.n, ri.step);
        int64_t kk = k;
        if (mode != SelectMode::Kth) {
          int64_t nans = 0;
          for (auto& p : buf) nans += is_nan(p.first);
          const int64_t valid = ri.n - nans;
          if (mode == SelectMode::Median) kk = nans ? valid : (ri.n - 1) / 2;  // NaN: the first NaN
          else kk = valid ? (valid - 1) / 2 : 0;
        }
        std::nth_element(buf.begin(), buf.begin() + kk, buf.end(), AscTotal<K>());
        vo[r] = T(buf[size_t(kk)].first);
        io[r] = buf[size_t(kk)].second;
      }
    });
  });
}

void mode(const TensorImpl& values, const TensorImpl& indices, const TensorImpl& in, int64_t dim) {
  if (values.numel() == 0) return;
  dispatch_real(in.dtype(), "mode", [&]<typename T>() {
    using K = Key<T>;
    const Rows ri(in, dim);
    const T* src = in.data<T>();
    T* vo = values.data<T>();
    int64_t* io = indices.data<int64_t>();
    parallel_for(0, ri.count, row_grain(ri.n), [&](int64_t b, int64_t e) {
      Buf<K> buf;
      for (int64_t r = b; r < e; ++r) {
        load_row<T>(buf, src + ri.offset(r), ri.n, ri.step);
        if (ri.n >= kRadixMin && ri.n < (int64_t(1) << 32)) radix_sort_row<T>(buf, false);
        else std::sort(buf.begin(), buf.end(), AscTotal<K>());
        size_t best = 0, best_count = 0;
        for (size_t s = 0; s < buf.size();) {
          size_t t = s + 1;
          while (t < buf.size() && buf[t].first == buf[s].first) ++t;  // NaN runs have length 1
          if (t - s > best_count) { best_count = t - s; best = t - 1; }
          s = t;
        }
        vo[r] = T(buf[best].first);
        io[r] = buf[best].second;
      }
    });
  });
}

// Rounds to T after each step, as PyTorch's Half/BFloat16 arithmetic does.
template <typename T> inline Key<T> rnd(Key<T> v) { return Key<T>(T(v)); }

void histc(const TensorImpl& hist, const TensorImpl& in, double lo_d, double hi_d) {
  const int64_t nb = hist.numel(), n = in.numel();
  dispatch_real(in.dtype(), "histc", [&]<typename T>() {
    if constexpr (std::is_floating_point_v<Key<T>>) {
      using K = Key<T>;
      const K lo = rnd<T>(K(lo_d)), hi = rnd<T>(K(hi_d)), width = rnd<T>(hi - lo), kb = rnd<T>(K(nb));
      const T* x = in.data<T>();
      std::vector<int64_t> acc(static_cast<size_t>(nb), 0);
      std::mutex mu;
      parallel_for(0, n, 65536, [&](int64_t b, int64_t e) {
        std::vector<int64_t> local(static_cast<size_t>(nb), 0);
        for (int64_t i = b; i < e; ++i) {
          const K v = K(x[i]);
          if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
          int64_t pos = int64_t(rnd<T>(rnd<T>(rnd<T>(v - lo) * kb) / width));
          if (pos >= nb) pos = nb - 1;
          if (pos < 0) pos = 0;
          ++local[size_t(pos)];
        }
        std::lock_guard<std::mutex> g(mu);
        for (int64_t j = 0; j < nb; ++j) acc[size_t(j)] += local[size_t(j)];
      });
      T* h = hist.data<T>();
      for (int64_t j = 0; j < nb; ++j) h[j] = T(K(acc[size_t(j)]));
    } else {
      LUCID_FAIL(NotImplemented, "[histc] is not implemented for " << dtype_name(in.dtype()));
    }
  });
}

void histogram_edges(const TensorImpl& hist, const TensorImpl& in, const TensorImpl* weight, const TensorImpl& edges) {
  const int64_t nb = hist.numel();
  std::vector<double> acc(size_t(nb), 0.0);
  dispatch_real(in.dtype(), "histogram", [&]<typename T>() {
    if constexpr (std::is_floating_point_v<Key<T>>) {
      const int64_t ne = edges.numel();
      std::vector<double> e(static_cast<size_t>(ne));
      for (int64_t i = 0; i < ne; ++i) e[size_t(i)] = double(Key<T>(edges.data<T>()[i]));
      const T* x = in.data<T>();
      const T* w = weight ? weight->data<T>() : nullptr;
      const int64_t n = in.numel();
      std::mutex mu;
      parallel_for(0, n, 65536, [&](int64_t b, int64_t en) {
        std::vector<double> local(size_t(nb), 0.0);
        for (int64_t i = b; i < en; ++i) {
          const double v = double(Key<T>(x[i]));
          if (!(v >= e[0] && v <= e[size_t(ne - 1)])) continue;  // outside, or NaN
          int64_t pos = std::upper_bound(e.begin(), e.end(), v) - e.begin() - 1;
          if (pos >= nb) pos = nb - 1;  // the last bin is closed
          local[size_t(pos)] += w ? double(Key<T>(w[i])) : 1.0;
        }
        std::lock_guard<std::mutex> g(mu);
        for (int64_t j = 0; j < nb; ++j) acc[size_t(j)] += local[size_t(j)];
      });
      T* h = hist.data<T>();
      for (int64_t j = 0; j < nb; ++j) h[j] = T(Key<T>(acc[size_t(j)]));
    } else {
      LUCID_FAIL(NotImplemented, "[histogram] is not implemented for " << dtype_name(in.dtype()));
    }
  });
}

void bincount(const TensorImpl& out, const TensorImpl& in, const TensorImpl* weight) {
  const int64_t nb = out.numel(), n = in.numel();
  std::vector<int64_t> idx(static_cast<size_t>(n));
  dispatch_real(in.dtype(), "bincount", [&]<typename T>() {
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) idx[size_t(i)] = int64_t(in.data<T>()[i]);
    }
  });
  if (!weight) {
    int64_t* o = out.data<int64_t>();
    std::fill(o, o + nb, 0);
    for (int64_t i = 0; i < n; ++i) ++o[idx[size_t(i)]];
    return;
  }
  std::vector<double> acc(size_t(nb), 0.0);
  dispatch_real(weight->dtype(), "bincount", [&]<typename W>() {
    const W* w = weight->data<W>();
    for (int64_t i = 0; i < n; ++i) acc[size_t(idx[size_t(i)])] += double(Key<W>(w[i]));
  });
  dispatch_real(out.dtype(), "bincount", [&]<typename O>() {
    O* o = out.data<O>();
    for (int64_t j = 0; j < nb; ++j) o[j] = O(Key<O>(acc[size_t(j)]));
  });
}

void unique(const TensorImpl& in, bool consecutive, Tensor* values, Tensor* inverse, Tensor* counts) {
  const int64_t n = in.dim() ? in.shape()[0] : 1, m = in.dim() > 1 ? in.shape()[1] : 1;
  dispatch_real(in.dtype(), "unique", [&]<typename T>() {
    using K = Key<T>;
    const T* x = in.data<T>();
    auto row_less = [&](int64_t a, int64_t b) {
      for (int64_t j = 0; j < m; ++j) {
        const K p = K(x[a * m + j]), q = K(x[b * m + j]);
        if (key_less(p, q)) return true;
        if (key_less(q, p)) return false;
      }
      return false;
    };
    auto row_eq = [&](int64_t a, int64_t b) {
      for (int64_t j = 0; j < m; ++j)
        if (!(K(x[a * m + j]) == K(x[b * m + j]))) return false;  // NaN equals nothing
      return true;
    };
    if (!consecutive && m == 1) {
      // Elements: groups read off the sorted keys in order (the values are the keys: no gather from x;
      // only the inverse indices are written at random).
      Buf<K> buf(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = {K(x[i]), i};
      if (n >= kRadixMin && n < (int64_t(1) << 32)) radix_sort_row<T>(buf, false);
      else big_stable_sort(buf, AscTotal<K>());
      int64_t u = n > 0;
      for (int64_t i = 1; i < n; ++i) u += !(buf[size_t(i)].first == buf[size_t(i - 1)].first);  // NaN equals nothing
      *values = TensorImpl::empty(Shape{u}, in.dtype(), in.device());
      *inverse = TensorImpl::empty(Shape{n}, Dtype::I64, in.device());
      *counts = TensorImpl::empty(Shape{u}, Dtype::I64, in.device());
      T* v = (*values)->data<T>();
      int64_t *inv = (*inverse)->data<int64_t>(), *cnt = (*counts)->data<int64_t>(), g = -1;
      for (int64_t i = 0; i < n; ++i) {
        const auto& [key, at] = buf[size_t(i)];
        if (i == 0 || !(key == buf[size_t(i - 1)].first)) {
          v[++g] = T(key);
          cnt[g] = 0;
        }
        ++cnt[g];
        inv[at] = g;
      }
      return;
    }
    // Rows (and unique_consecutive): an order of row indices, grouped by comparing whole rows.
    ScratchVec<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
    if (!consecutive) std::stable_sort(order.begin(), order.end(), row_less);
    ScratchVec<int64_t> firsts, cnt, inv(static_cast<size_t>(n));
    for (int64_t s = 0; s < n;) {
      int64_t t = s + 1;
      while (t < n && row_eq(order[size_t(s)], order[size_t(t)])) ++t;
      for (int64_t j = s; j < t; ++j) inv[size_t(order[size_t(j)])] = int64_t(firsts.size());
      firsts.push_back(order[size_t(s)]);
      cnt.push_back(t - s);
      s = t;
    }
    const int64_t u = int64_t(firsts.size());
    *values = TensorImpl::empty(in.dim() > 1 ? Shape{u, m} : Shape{u}, in.dtype(), in.device());
    T* v = (*values)->data<T>();
    for (int64_t i = 0; i < u; ++i) std::copy(x + firsts[size_t(i)] * m, x + (firsts[size_t(i)] + 1) * m, v + i * m);
    *inverse = TensorImpl::empty(Shape{n}, Dtype::I64, in.device());
    std::copy(inv.begin(), inv.end(), (*inverse)->data<int64_t>());
    *counts = TensorImpl::empty(Shape{u}, Dtype::I64, in.device());
    std::copy(cnt.begin(), cnt.end(), (*counts)->data<int64_t>());
  });
}

void isin(const TensorImpl& out, const TensorImpl& elements, const TensorImpl& test, bool invert) {
  dispatch_real(elements.dtype(), "isin", [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      LUCID_FAIL(NotImplemented, "[isin] is not implemented for bool tensors");
    } else {
    using K = Key<T>;
    std::vector<K> t(static_cast<size_t>(test.numel()));
    for (size_t i = 0; i < t.size(); ++i) t[i] = K(test.data<T>()[i]);
    std::sort(t.begin(), t.end(), [](K a, K b) { return key_less(a, b); });
    const T* x = elements.data<T>();
    bool* o = out.data<bool>();
    parallel_for(0, elements.numel(), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const K v = K(x[i]);
        auto it = std::lower_bound(t.begin(), t.end(), v, [](K a, K b) { return key_less(a, b); });
        const bool found = it != t.end() && *it == v;
        o[i] = found != invert;
      }
    });
    }
  });
}

void quantile(const TensorImpl& out, const TensorImpl& lo, const TensorImpl& hi, const TensorImpl& weight,
              const TensorImpl& sorted, const double* q, int64_t nq, QuantileInterp interp, bool ignore_nan) {
  const int64_t rows = sorted.shape()[0], n = sorted.shape()[1];
  dispatch_real(sorted.dtype(), "quantile", [&]<typename T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* s = sorted.data<T>();
      T* o = out.data<T>();
      T* w = weight.data<T>();
      int64_t* l = lo.data<int64_t>();
      int64_t* h = hi.data<int64_t>();
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = s + r * n;
        // NaNs sort last: the count of the others by bisection
        const int64_t valid = std::partition_point(row, row + n, [](T v) { return !std::isnan(v); }) - row;
        for (int64_t qi = 0; qi < nq; ++qi) {
          T rank;
          if (ignore_nan) {
            rank = T(q[qi]) * T(valid - 1);
            if (rank < 0) rank = 0;
          } else {
            rank = valid < n ? T(n - 1) : T(q[qi]) * T(n - 1);
          }
          if (interp == QuantileInterp::Lower) rank = std::floor(rank);
          else if (interp == QuantileInterp::Higher) rank = std::ceil(rank);
          else if (interp == QuantileInterp::Nearest) rank = std::nearbyint(rank);  // half to even
          // (rank <= n - 1 in exact arithmetic; a float32 n - 1 may round above it)
          const int64_t below = std::min<int64_t>(int64_t(rank), n - 1);
          int64_t above = below;
          T wt = 0;
          if (interp == QuantileInterp::Linear || interp == QuantileInterp::Midpoint) {
            above = std::min<int64_t>(int64_t(std::ceil(rank)), n - 1);
            wt = interp == QuantileInterp::Midpoint ? T(0.5) : rank - T(below);
          }
          const T a = row[below], b = row[above];
          // PyTorch's lerp: exact at both ends
          const T v = wt < T(0.5) ? a + wt * (b - a) : b - (b - a) * (T(1) - wt);
          const int64_t o_i = qi * rows + r;
          o[o_i] = above == below ? a : v;
          w[o_i] = wt;
          l[o_i] = below;
          h[o_i] = above;
        }
      }
    } else {
      LUCID_FAIL(DtypeMismatch, "[quantile] input tensor must be either float or double dtype");
    }
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(sort_kernel, CPU, sort)
LUCID_REGISTER_KERNEL(topk_kernel, CPU, topk)
LUCID_REGISTER_KERNEL(select_kernel, CPU, select)
LUCID_REGISTER_KERNEL(mode_kernel, CPU, mode)
LUCID_REGISTER_KERNEL(histc_kernel, CPU, histc)
LUCID_REGISTER_KERNEL(histogram_edges_kernel, CPU, histogram_edges)
LUCID_REGISTER_KERNEL(bincount_kernel, CPU, bincount)
LUCID_REGISTER_KERNEL(unique_kernel, CPU, unique)
LUCID_REGISTER_KERNEL(isin_kernel, CPU, isin)
LUCID_REGISTER_KERNEL(quantile_kernel, CPU, quantile)

}  // namespace lucid::cpu
