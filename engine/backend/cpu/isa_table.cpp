// The per-ISA loop tables and their lookup (loops.h).
#include "backend/cpu/isa.h"
#include "backend/cpu/loops.h"

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
CastLoop cast_loop_for(Dtype to, Dtype from) { return loops().cast(to, from); }
SumLoop sum_loop_for(Dtype d) { return loops().sum(d); }
UnaryLoop unary_loop_for(UnaryOp op, Dtype d) { return loops().unary(op, d); }

}  // namespace lucid::cpu
