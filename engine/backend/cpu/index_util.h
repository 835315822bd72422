#pragma once
// Helpers of the CPU indexing kernels that only move elements: a plain type per element width.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/error.h"

namespace lucid::cpu {

template <size_t W>
struct Bytes {
  unsigned char b[W];
};
template <size_t W>
using Word = std::conditional_t<W == 1, uint8_t,
             std::conditional_t<W == 2, uint16_t,
             std::conditional_t<W == 4, uint32_t, std::conditional_t<W == 8, uint64_t, Bytes<W>>>>>;

// f.template operator()<U>() with U the word of `width` bytes (1, 2, 4, 8 or 16).
template <typename F>
decltype(auto) dispatch_width(int64_t width, const char* op, F&& f) {
  switch (width) {
    case 1: return f.template operator()<Word<1>>();
    case 2: return f.template operator()<Word<2>>();
    case 4: return f.template operator()<Word<4>>();
    case 8: return f.template operator()<Word<8>>();
    case 16: return f.template operator()<Word<16>>();
    default: LUCID_FAIL(NotImplemented, "[" << op << "] elements of " << width << " bytes");
  }
}

}  // namespace lucid::cpu
