#pragma once
// Per-ISA builds of the hot CPU loops (baseline, AVX2, AVX-512), chosen once at start-up from
// cpuid; LUCID_CPU_ISA=baseline|avx2|avx512 forces a lower path (tests use it to cover each).
namespace lucid::cpu {

enum class Isa : int { Baseline = 0, AVX2 = 1, AVX512 = 2 };
constexpr int kNumIsas = 3;

Isa isa();                   // the path in use
Isa detected_isa();          // the best the CPU supports
const char* isa_name(Isa i);
// Re-reads LUCID_CPU_ISA (tests); returns the new path.
Isa reset_isa_from_env();
// Forces a path (clamped to what the CPU supports); returns the path now in use.
Isa set_isa(Isa i);

template <typename Fn>
struct IsaStub {
  Fn fns[kNumIsas] = {};
  Fn get() const {
    for (int i = int(isa()); i >= 0; --i)
      if (fns[i]) return fns[i];
    return nullptr;
  }
};

}  // namespace lucid::cpu
