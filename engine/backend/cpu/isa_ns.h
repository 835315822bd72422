#pragma once
// Code compiled once per ISA (isa_loops.cpp with LUCID_ISA and its -m flags) lives in an inline
// namespace named after the ISA, so the linker cannot fold the AVX-512, AVX2 and baseline
// instantiations of one template into one copy (weak symbols of one name are merged: every ISA's
// table would run whichever copy came first). Other translation units get the `generic` copy.
#if defined(LUCID_ISA)
#define LUCID_ISA_NS_CAT(x) isa_##x
#define LUCID_ISA_NS_NAME(x) LUCID_ISA_NS_CAT(x)
#define LUCID_ISA_NS_BEGIN inline namespace LUCID_ISA_NS_NAME(LUCID_ISA) {
#else
#define LUCID_ISA_NS_BEGIN inline namespace generic {
#endif
#define LUCID_ISA_NS_END }
