// Last-error message (per thread) and the shim-call counter (per process).
#include <atomic>
#include <cstdio>
#include <string>

#include "internal.h"

namespace shimgen::rt {
namespace {
thread_local std::string t_last_error;
std::atomic<uint64_t> g_shim_calls{0};
}  // namespace

void fail(int32_t code, const std::string& message) { throw ShimError(code, message); }

void fail_overflow(int64_t a, char op, int64_t b, const char* what) {
  fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
       std::string(what) + " overflows int64 (" + std::to_string(a) + " " + op + " " + std::to_string(b) + ")");
}

void count_shim_call() noexcept { g_shim_calls.fetch_add(1, std::memory_order_relaxed); }

void set_last_error(const char* shim, const char* message) noexcept {
  try {
    t_last_error.assign(shim);
    t_last_error.append(": ");
    t_last_error.append(message);
  } catch (...) {
    // Out of memory while reporting: keep whatever fits rather than throwing across the C ABI.
  }
}

}  // namespace shimgen::rt

extern "C" {

SHIMGEN_RUNTIME_API const char* shimgen_runtime_last_error(void) { return shimgen::rt::t_last_error.c_str(); }

SHIMGEN_RUNTIME_API void shimgen_runtime_clear_last_error(void) { shimgen::rt::t_last_error.clear(); }

SHIMGEN_RUNTIME_API uint64_t shimgen_runtime_shim_call_count(void) {
  return shimgen::rt::g_shim_calls.load(std::memory_order_relaxed);
}

SHIMGEN_RUNTIME_API int32_t shimgen_runtime_has_cuda(void) { return shimgen::rt::cuda_built() ? 1 : 0; }

AOTI_SHIM_EXPORT void aoti_torch_warn(const char* func, const char* file, uint32_t line, const char* msg) {
  shimgen::rt::count_shim_call();
  std::fprintf(stderr, "Warning: %s (%s at %s:%u)\n", msg ? msg : "", func ? func : "?", file ? file : "?",
               static_cast<unsigned>(line));
}

}  // extern "C"
