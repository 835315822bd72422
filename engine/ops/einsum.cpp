// einsum: the equation is parsed here, then lowered onto views and BLAS.
//   1. ellipses become labels of their own (right-aligned across operands, so they broadcast);
//   2. a label repeated within one operand takes the diagonal (a view);
//   3. labels found in one operand only and absent from the output are summed out at once;
//   4. operands are contracted pairwise, greedily picking the pair with the smallest result; each
//      pair is permuted/reshaped to (batch..., M, K) @ (batch..., K, N) and handed to matmul (or to a
//      broadcast multiply when nothing is contracted or nothing is left free);
//   5. the last tensor is summed over leftover labels and permuted to the output order.
// Autograd comes from the composition (diagonal, sum, permute, reshape, matmul, mul).
#include <algorithm>
#include <limits>

#include "ops/binary.h"
#include "ops/copy.h"
#include "ops/matmul.h"
#include "ops/products.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace lucid {

namespace {

constexpr int kLetters = 52;  // 'A'..'Z' are 0..25, 'a'..'z' 26..51 (so sorting ids sorts the letters)
constexpr int kEllipsis = -1;

int letter_id(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

std::vector<int> parse_term(const std::string& eq, size_t begin, size_t end) {
  std::vector<int> out;
  bool ell = false;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      LUCID_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', Value,
                  "[einsum] found '.' for operand that is not part of any ellipsis in equation '" << eq << "'");
      LUCID_CHECK(!ell, Value, "[einsum] found more than one ellipsis in one term of equation '" << eq << "'");
      ell = true;
      out.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int id = letter_id(c);
    LUCID_CHECK(id >= 0, Value,
                "[einsum] invalid subscript '" << c << "' in equation '" << eq << "': subscripts must be in [a-zA-Z]");
    out.push_back(id);
  }
  return out;
}

struct Operand_ {
  Tensor t;
  std::vector<int> labels;  // one per dim, unique after the diagonals
};

int64_t index_of(const std::vector<int>& v, int l) {
  auto it = std::find(v.begin(), v.end(), l);
  return it == v.end() ? -1 : int64_t(it - v.begin());
}

bool has(const std::vector<int>& v, int l) { return index_of(v, l) >= 0; }

int64_t size_of(const Operand_& o, int l) {
  const int64_t i = index_of(o.labels, l);
  return i < 0 ? 1 : o.t->shape()[size_t(i)];
}

// Sums `o` over the given labels (dropping them).
void sum_labels(Operand_& o, const std::vector<int>& labels) {
  if (labels.empty()) return;
  std::vector<int64_t> dims;
  std::vector<int> keep;
  for (size_t i = 0; i < o.labels.size(); ++i)
    if (has(labels, o.labels[i])) dims.push_back(int64_t(i));
    else keep.push_back(o.labels[i]);
  if (dims.empty()) return;
  o.t = sum(o.t, dims, false, o.t->dtype());
  o.labels = keep;
}

// `o` permuted to `order` (a subset of its labels, in the wanted order) with size-1 dims inserted
// for the labels of `order` it lacks.
Tensor arrange(const Operand_& o, const std::vector<int>& order) {
  std::vector<int64_t> perm;
  for (int l : order)
    if (has(o.labels, l)) perm.push_back(index_of(o.labels, l));
  Tensor t = permute(o.t, perm);
  for (size_t i = 0; i < order.size(); ++i)
    if (!has(o.labels, order[i])) t = unsqueeze(t, int64_t(i));
  return t;
}

// Contracts a and b; the result keeps the labels for which `needed` is true.
template <typename Needed>
Operand_ contract(Operand_ a, Operand_ b, Needed needed, bool prefer_b_first) {
  // Labels in one operand only that nobody needs: sum them away first.
  std::vector<int> sa, sb;
  for (int l : a.labels)
    if (!has(b.labels, l) && !needed(l)) sa.push_back(l);
  for (int l : b.labels)
    if (!has(a.labels, l) && !needed(l)) sb.push_back(l);
  sum_labels(a, sa);
  sum_labels(b, sb);
  std::vector<int> batch, contr, af, bf;
  for (int l : a.labels) {
    if (has(b.labels, l)) (needed(l) ? batch : contr).push_back(l);
    else af.push_back(l);
  }
  for (int l : b.labels)
    if (!has(a.labels, l)) bf.push_back(l);
  // A contracted label of size 1 on one side broadcasts: sum the other side over it.
  std::vector<int> contr2;
  for (int l : contr) {
    const int64_t x = size_of(a, l), y = size_of(b, l);
    if (x == y) { contr2.push_back(l); continue; }
    if (x == 1) { sum_labels(b, {l}); sum_labels(a, {l}); }
    else { sum_labels(a, {l}); sum_labels(b, {l}); }
  }
  contr = contr2;
  if (prefer_b_first) std::swap(a, b), std::swap(af, bf);
  Operand_ r;
  r.labels = batch;
  r.labels.insert(r.labels.end(), af.begin(), af.end());
  r.labels.insert(r.labels.end(), bf.begin(), bf.end());
  int64_t M = 1, N = 1;
  for (int l : af) M *= size_of(a, l);
  for (int l : bf) N *= size_of(b, l);
  if (contr.empty() || (af.empty() && bf.empty())) {
    // A broadcast multiply, then a sum over the contracted labels (batched dot products and outer
    // products would be many tiny GEMMs).
    // Contracted labels go outermost: summing leading dims accumulates whole rows (fast).
    std::vector<int> order = contr;
    order.insert(order.end(), r.labels.begin(), r.labels.end());
    r.t = mul(arrange(a, order), arrange(b, order));
    if (!contr.empty()) {
      std::vector<int64_t> dims;
      for (size_t i = 0; i < contr.size(); ++i) dims.push_back(int64_t(i));
      r.t = sum(r.t, dims, false, r.t->dtype());
    }
    return r;
  }
  std::vector<int> oa = batch, ob = batch;
  oa.insert(oa.end(), af.begin(), af.end());
  oa.insert(oa.end(), contr.begin(), contr.end());
  ob.insert(ob.end(), contr.begin(), contr.end());
  ob.insert(ob.end(), bf.begin(), bf.end());
  int64_t K = 1;
  for (int l : contr) K *= size_of(a, l);
  Shape sha, shb, out;
  for (int l : batch) {
    sha.push_back(size_of(a, l));
    shb.push_back(size_of(b, l));
    out.push_back(std::max(size_of(a, l), size_of(b, l)));
  }
  sha.push_back(M);
  sha.push_back(K);
  shb.push_back(K);
  shb.push_back(N);
  for (int l : af) out.push_back(size_of(a, l));
  for (int l : bf) out.push_back(size_of(b, l));
  Tensor ta = reshape(permute(a.t, [&] {
                        std::vector<int64_t> p;
                        for (int l : oa) p.push_back(index_of(a.labels, l));
                        return p;
                      }()),
                      sha);
  Tensor tb = reshape(permute(b.t, [&] {
                        std::vector<int64_t> p;
                        for (int l : ob) p.push_back(index_of(b.labels, l));
                        return p;
                      }()),
                      shb);
  r.t = reshape(matmul(ta, tb), out);
  return r;
}

}  // namespace

Tensor einsum(const std::string& eq, const std::vector<Tensor>& ops) {
  LUCID_CHECK(!ops.empty(), Value, "[einsum] must provide at least one operand");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs, start, comma == std::string::npos ? lhs.size() : comma));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  LUCID_CHECK(terms.size() == ops.size(), Value,
              "[einsum] the equation '" << eq << "' has " << terms.size() << " operand term(s) but " << ops.size()
                                        << " operand(s) were given");
  for (size_t i = 1; i < ops.size(); ++i) {
    LUCID_CHECK(ops[i]->device() == ops[0]->device(), DeviceMismatch,
                "[einsum] expected all operands on the same device, got " << ops[0]->device() << " and "
                                                                          << ops[i]->device());
    LUCID_CHECK(ops[i]->dtype() == ops[0]->dtype(), DtypeMismatch,
                "[einsum] expected all operands to have the same dtype, got " << dtype_name(ops[0]->dtype())
                                                                             << " and " << dtype_name(ops[i]->dtype()));
  }
  // Ellipsis dims per operand, and the widest.
  std::vector<int64_t> ell(ops.size(), 0);
  int64_t max_ell = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t nl = int64_t(std::count_if(terms[i].begin(), terms[i].end(), [](int l) { return l >= 0; }));
    const bool e = has(terms[i], kEllipsis);
    const int64_t d = ops[i]->dim();
    LUCID_CHECK(e ? d >= nl : d == nl, ShapeMismatch,
                "[einsum] the term for operand " << i << " in '" << eq << "' has " << nl << " subscript(s)"
                                                 << (e ? " and an ellipsis" : "") << ", but the operand has shape "
                                                 << shape_str(ops[i]->shape()));
    ell[i] = e ? d - nl : 0;
    max_ell = std::max(max_ell, ell[i]);
  }
  const int nlabels = kLetters + int(max_ell);
  std::vector<Operand_> rem(ops.size());
  std::vector<int> count(size_t(nlabels), 0);
  std::vector<int64_t> size(size_t(nlabels), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    rem[i].t = ops[i];
    for (int l : terms[i]) {
      if (l == kEllipsis) {
        for (int64_t k = 0; k < ell[i]; ++k) rem[i].labels.push_back(kLetters + int(max_ell - ell[i] + k));
      } else {
        rem[i].labels.push_back(l);
      }
    }
    for (size_t k = 0; k < rem[i].labels.size(); ++k) {
      const int l = rem[i].labels[k];
      const int64_t s = ops[i]->shape()[k];
      const int64_t first = index_of(rem[i].labels, l);
      LUCID_CHECK(first == int64_t(k) || ops[i]->shape()[size_t(first)] == s, ShapeMismatch,
                  "[einsum] subscript " << (l < 26 ? char('A' + l) : char('a' + l - 26)) << " is repeated for operand "
                                        << i << " but the sizes don't match, " << ops[i]->shape()[size_t(first)]
                                        << " != " << s);
      ++count[size_t(l)];
      int64_t& have = size[size_t(l)];
      if (have == -1 || have == 1) have = (have == -1 || s != 1) ? s : have;
      else
        LUCID_CHECK(s == have || s == 1, ShapeMismatch,
                    "[einsum] operands do not broadcast: subscript "
                        << (l < kLetters ? std::string(1, l < 26 ? char('A' + l) : char('a' + l - 26)) : std::string("..."))
                        << " has size " << s << " for operand " << i << " (shape " << shape_str(ops[i]->shape())
                        << ") but size " << have << " elsewhere");
    }
  }
  // The output labels.
  std::vector<int> out;
  if (arrow != std::string::npos) {
    const std::vector<int> rhs = parse_term(eq, arrow + 2, eq.size());
    for (int l : rhs) {
      if (l == kEllipsis) {
        for (int k = 0; k < max_ell; ++k) out.push_back(kLetters + k);
        continue;
      }
      LUCID_CHECK(count[size_t(l)] > 0, Value,
                  "[einsum] output subscript " << (l < 26 ? char('A' + l) : char('a' + l - 26))
                                               << " does not appear in the equation for any input operand");
      LUCID_CHECK(!has(out, l), Value,
                  "[einsum] output subscript " << (l < 26 ? char('A' + l) : char('a' + l - 26))
                                               << " appears more than once in the output");
      out.push_back(l);
    }
  } else {
    for (int k = 0; k < max_ell; ++k) out.push_back(kLetters + k);
    for (int l = 0; l < kLetters; ++l)
      if (count[size_t(l)] == 1) out.push_back(l);
  }
  // Diagonals for labels repeated within an operand.
  for (size_t i = 0; i < rem.size(); ++i) {
    auto& o = rem[i];
    for (;;) {
      int64_t p = -1, q = -1;
      for (size_t x = 0; x < o.labels.size() && p < 0; ++x)
        for (size_t y = x + 1; y < o.labels.size(); ++y)
          if (o.labels[x] == o.labels[y]) { p = int64_t(x); q = int64_t(y); break; }
      if (p < 0) break;
      const int l = o.labels[size_t(p)];
      LUCID_CHECK(o.t->shape()[size_t(p)] == o.t->shape()[size_t(q)], ShapeMismatch,
                  "[einsum] subscript " << (l < 26 ? char('A' + l) : char('a' + l - 26)) << " is repeated for operand "
                                        << i << " but the sizes don't match, " << o.t->shape()[size_t(p)]
                                        << " != " << o.t->shape()[size_t(q)]);
      o.t = diagonal(o.t, 0, p, q);
      o.labels.erase(o.labels.begin() + q);
      o.labels.erase(o.labels.begin() + p);
      o.labels.push_back(l);
    }
  }
  auto in_out = [&](int l) { return has(out, l); };
  // Sum away labels that live in one operand only and not in the output.
  for (size_t i = 0; i < rem.size(); ++i) {
    std::vector<int> drop;
    for (int l : rem[i].labels) {
      if (in_out(l)) continue;
      bool elsewhere = false;
      for (size_t j = 0; j < rem.size() && !elsewhere; ++j) elsewhere = j != i && has(rem[j].labels, l);
      if (!elsewhere) drop.push_back(l);
    }
    sum_labels(rem[i], drop);
  }
  // Pairwise contractions, smallest result first.
  while (rem.size() > 1) {
    size_t bi = 0, bj = 1;
    double best = std::numeric_limits<double>::infinity();
    auto needed_beyond = [&](int l, size_t i, size_t j) {
      if (in_out(l)) return true;
      for (size_t k = 0; k < rem.size(); ++k)
        if (k != i && k != j && has(rem[k].labels, l)) return true;
      return false;
    };
    for (size_t i = 0; i < rem.size(); ++i)
      for (size_t j = i + 1; j < rem.size(); ++j) {
        double n = 1;
        for (int l : rem[i].labels)
          if (needed_beyond(l, i, j)) n *= double(std::max(size_of(rem[i], l), size_of(rem[j], l)));
        for (int l : rem[j].labels)
          if (!has(rem[i].labels, l) && needed_beyond(l, i, j)) n *= double(size_of(rem[j], l));
        if (n < best) { best = n; bi = i; bj = j; }
      }
    const size_t i = bi, j = bj;
    bool swap = false;
    if (rem.size() == 2) {
      // Last product: order the operands so the result comes out in the output's order if it can.
      std::vector<int> fa, fb;
      for (int l : out)
        if (has(rem[i].labels, l) && !has(rem[j].labels, l)) fa.push_back(l);
        else if (has(rem[j].labels, l) && !has(rem[i].labels, l)) fb.push_back(l);
      if (!fa.empty() && !fb.empty()) swap = index_of(out, fb.front()) < index_of(out, fa.front());
    }
    Operand_ r = contract(rem[i], rem[j], [&](int l) { return needed_beyond(l, i, j); }, swap);
    rem.erase(rem.begin() + int64_t(j));
    rem.erase(rem.begin() + int64_t(i));
    rem.push_back(std::move(r));
  }
  Operand_& f = rem[0];
  std::vector<int> drop;
  for (int l : f.labels)
    if (!in_out(l)) drop.push_back(l);
  sum_labels(f, drop);
  std::vector<int64_t> perm;
  for (int l : out) perm.push_back(index_of(f.labels, l));
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == int64_t(k);
  bool computed = true;  // false when the result is only a view of the single input (as PyTorch)
  if (ops.size() == 1) computed = f.t->storage().get() != ops[0]->storage().get();
  if (!computed) return permute(f.t, perm);
  return identity ? f.t : contiguous(permute(f.t, perm));
}

}  // namespace lucid
