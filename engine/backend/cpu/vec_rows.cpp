// The per-ISA row kernel tables (vec_rows.h), filled by each ISA's isa_rows.cpp.
#include "backend/cpu/vec_rows.h"

#include "core/error.h"

namespace lucid::cpu {

namespace {
RowKernels g_rows[kNumIsas] = {};
}  // namespace

void register_row_kernels(Isa i, const RowKernels& k) { g_rows[int(i)] = k; }

const RowKernels& row_kernels() {
  for (int i = int(isa()); i >= 0; --i)
    if (g_rows[i].softmax_f32) return g_rows[i];
  LUCID_FAIL(Generic, "no CPU row kernels registered");
}

}  // namespace lucid::cpu
