#pragma once
// Cache-blocked copy of a transposed/permuted layout (CPU). Only elementwise.cpp includes this.
#include <cstdint>

#include "backend/common/iter.h"

namespace lucid::cpu {

// Same-dtype copy of a coalesced Iter whose destination is contiguous along one dim and whose
// source is contiguous along another (a transpose or permute): copies in square tiles so both
// sides stream through cache lines. Returns false, copying nothing, when the layout is not such
// a transpose (the caller's strided loop handles it).
bool copy_transposed(const Iter<2>& it, int64_t isz);

}  // namespace lucid::cpu
