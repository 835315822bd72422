// The per-ISA clamp loop tables of arith_loops.h.
#include "backend/cpu/arith_loops.h"

#include "core/error.h"

namespace lucid::cpu {

namespace {
ClampLoop (*g_clamp[kNumIsas])(Dtype) = {};
}  // namespace

void register_clamp_loops(Isa i, ClampLoop (*pick)(Dtype)) { g_clamp[int(i)] = pick; }

ClampLoop clamp_loop_for(Dtype d) {
  for (int i = int(isa()); i >= 0; --i)
    if (g_clamp[i]) return g_clamp[i](d);
  LUCID_FAIL(Generic, "no CPU clamp loops registered");
}

}  // namespace lucid::cpu
