// The per-ISA loop tables and their lookup (loops.h).
#include "backend/cpu/isa.h"
#include "backend/cpu/loops.h"

#include <utility>

namespace lucid::cpu {


namespace {
IsaLoops g_loops[kNumIsas] = {};

const IsaLoops& loops() {
  for (int i = int(isa()); i >= 0; --i)
    if (g_loops[i].binary) return g_loops[i];
  LUCID_FAIL(Generic, "no CPU loops registered");
}
}  // namespace

void register_isa_loops(Isa i, IsaLoops l) { g_loops[int(i)] = l; }

BinaryLoop binary_loop_for(BinaryOp op, Dtype d) { return loops().binary(op, d); }

namespace {
template <BinaryOp Op, typename T>
constexpr BinaryLoop generic_entry() {
  if constexpr (binary_supported<Op, T>()) return &binary_loop<Op, T>;
  else return nullptr;
}
template <typename T, size_t... I>
BinaryLoop pick_generic(BinaryOp op, std::index_sequence<I...>) {
  static constexpr BinaryLoop table[] = {generic_entry<BinaryOp(I), T>()...};
  return table[int(op)];
}
}  // namespace

BinaryLoop generic_complex_binary_loop(BinaryOp op, Dtype d) {
  if (d == Dtype::C64) return pick_generic<c64>(op, std::make_index_sequence<kNumBinaryOps>{});
  if (d == Dtype::C128) return pick_generic<c128>(op, std::make_index_sequence<kNumBinaryOps>{});
  return nullptr;
}
CastLoop cast_loop_for(Dtype to, Dtype from) { return loops().cast(to, from); }
SumLoop sum_loop_for(Dtype d) { return loops().sum(d); }
UnaryLoop unary_loop_for(UnaryOp op, Dtype d) { return loops().unary(op, d); }

}  // namespace lucid::cpu
