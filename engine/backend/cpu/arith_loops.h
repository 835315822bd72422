#pragma once
// Per-ISA loops of the arithmetic ops that are not a BinaryOp (clamp), registered by each ISA's
// isa_loops.cpp like the tables of loops.h and looked up here.
#include <cstdint>

#include "backend/cpu/isa.h"
#include "core/dtype.h"

namespace lucid::cpu {

// One run of clamp: ptrs = {out, x, lo, hi} (lo / hi are read only when present).
using ClampLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n, bool has_lo, bool has_hi);

void register_clamp_loops(Isa isa, ClampLoop (*pick)(Dtype));
ClampLoop clamp_loop_for(Dtype d);  // null for bool and complex

}  // namespace lucid::cpu
