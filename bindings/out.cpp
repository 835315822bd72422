// The out= fast paths of lucid/_out.py: _unary_out(name, x, out) and _binary_out(name, a, b, out,
// alpha) write an elementwise result straight into a fitting out and return True, or return False
// (nothing written) for the caller to compute and copy.
#include <string>
#include <unordered_map>

#include "bindings/common.h"
#include "ops/out.h"

namespace lucid::py {

namespace {

const std::unordered_map<std::string, UnaryOp>& unary_ops() {
  static const auto* m = [] {
    auto* r = new std::unordered_map<std::string, UnaryOp>;
    for (int i = 0; i < kNumUnaryOps; ++i) (*r)[unary_name(UnaryOp(i))] = UnaryOp(i);
    return r;
  }();
  return *m;
}

const std::unordered_map<std::string, BinaryOp>& binary_ops() {
  static const auto* m = [] {
    auto* r = new std::unordered_map<std::string, BinaryOp>{
        {"add", BinaryOp::Add}, {"sub", BinaryOp::Sub}, {"mul", BinaryOp::Mul}, {"div", BinaryOp::Div}};
    for (int i = int(BinaryOp::FloorDiv); i <= int(BinaryOp::Shr); ++i)
      if (BinaryOp(i) != BinaryOp::TruncDiv) (*r)[binary_detail::ext_name(BinaryOp(i))] = BinaryOp(i);
    return r;
  }();
  return *m;
}

}  // namespace

void init_out(nb::module_& m) {
  m.def("_unary_out", [](const std::string& name, const Tensor& x, const Tensor& out) {
    auto it = unary_ops().find(name);
    return it != unary_ops().end() && unary_into(it->second, x, out);
  });
  m.def("_binary_out", [](const std::string& name, const Operand& a, const Operand& b, const Tensor& out,
                          const Scalar& alpha) {
    auto it = binary_ops().find(name);
    return it != binary_ops().end() && binary_into(it->second, a, b, alpha, out);
  }, nb::arg("name"), nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("alpha") = Scalar::from_int(1));
}

LUCID_BINDINGS(init_out)

}  // namespace lucid::py
