#include "backend/cpu/isa.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace lucid::cpu {

Isa detected_isa() {
  static const Isa best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return Isa::AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::AVX2;
    return Isa::Baseline;
  }();
  return best;
}

namespace {
std::atomic<int> g_isa{-1};

Isa from_env() {
  const char* e = std::getenv("LUCID_CPU_ISA");
  Isa want = detected_isa();
  if (e && *e) {
    if (!std::strcmp(e, "baseline")) want = Isa::Baseline;
    else if (!std::strcmp(e, "avx2")) want = Isa::AVX2;
    else if (!std::strcmp(e, "avx512")) want = Isa::AVX512;
    else LUCID_FAIL(Value, "LUCID_CPU_ISA must be baseline, avx2 or avx512, got '" << e << "'");
  }
  return int(want) > int(detected_isa()) ? detected_isa() : want;
}
}  // namespace

Isa isa() {
  int v = g_isa.load(std::memory_order_relaxed);
  if (v < 0) {
    v = int(from_env());
    g_isa.store(v);
  }
  return Isa(v);
}

Isa reset_isa_from_env() {
  g_isa.store(int(from_env()));
  return isa();
}

Isa set_isa(Isa i) {
  g_isa.store(int(i) > int(detected_isa()) ? int(detected_isa()) : int(i));
  return isa();
}

const char* isa_name(Isa i) {
  switch (i) {
    case Isa::Baseline: return "baseline";
    case Isa::AVX2: return "avx2";
    case Isa::AVX512: return "avx512";
  }
  return "?";
}

}  // namespace lucid::cpu
