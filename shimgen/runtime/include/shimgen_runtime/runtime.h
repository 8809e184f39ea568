/*
 * The runtime's own API: the caller-stream contract, the last error message and the shim-call
 * counter. The C functions are exported unprefixed (listed under `exports` in shimgen.toml); the
 * C++ part is inline over them, so the thread-local state lives in libshimgen_runtime.so alone,
 * however many binaries include this header.
 *
 * Caller-stream contract (per thread):
 *   - no guard: nothing is selected; CUDA work uses the runtime's current stream of the device;
 *   - a guard on NULL (the legacy default stream) IS a selection, distinct from no guard;
 *   - nested guards restore the outer selection when they end (strictly LIFO, same thread);
 *   - a new thread starts with no selection; a guard is never seen by another thread.
 * A selected stream applies to the device it belongs to (NULL applies to every device); work on
 * any other device uses that device's own current stream.
 */
#ifndef SHIMGEN_RUNTIME_RUNTIME_H_
#define SHIMGEN_RUNTIME_RUNTIME_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ShimgenCallerStreamGuardOpaque* ShimgenCallerStreamGuardHandle;

/* Select `stream` (a cudaStream_t, or an opaque pointer in a CPU-only build; NULL allowed) for the
 * calling thread until the guard is deleted. */
SHIMGEN_RUNTIME_API AOTITorchError
shimgen_runtime_caller_stream_guard_create(void* stream, ShimgenCallerStreamGuardHandle* ret_guard);
/* Restores the selection the guard replaced. Fails (SHIMGEN_RUNTIME_ERROR_STATE) and changes
 * nothing when the guard is not the innermost one of the calling thread. */
SHIMGEN_RUNTIME_API AOTITorchError shimgen_runtime_caller_stream_guard_delete(ShimgenCallerStreamGuardHandle guard);
/* *ret_selected = 1 and *ret_stream = the stream when one is selected; *ret_selected = 0 (and
 * *ret_stream untouched) when none is. */
SHIMGEN_RUNTIME_API AOTITorchError shimgen_runtime_get_caller_stream(int32_t* ret_selected, void** ret_stream);

/* The message of the calling thread's most recent failed call ("" if none); valid until the next
 * failure on this thread. */
SHIMGEN_RUNTIME_API const char* shimgen_runtime_last_error(void);
SHIMGEN_RUNTIME_API void shimgen_runtime_clear_last_error(void);
/* Total shim entries served by this library, all threads: proof that a model called this runtime. */
SHIMGEN_RUNTIME_API uint64_t shimgen_runtime_shim_call_count(void);
/* 1 when built with CUDA support, else 0. */
SHIMGEN_RUNTIME_API int32_t shimgen_runtime_has_cuda(void);

#ifdef __cplusplus
} /* extern "C" */

#include <optional>
#include <stdexcept>
#include <string>

#ifdef SHIMGEN_RUNTIME_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace shimgen::runtime {

#ifdef SHIMGEN_RUNTIME_WITH_CUDA
using stream_t = cudaStream_t;
#else
/* CPU-only build: the same contract over an opaque stream type. */
struct OpaqueStream;
using stream_t = OpaqueStream*;
#endif

class Error : public std::runtime_error {
 public:
  Error(AOTITorchError code, const std::string& what) : std::runtime_error(what), code_(code) {}
  AOTITorchError code() const noexcept { return code_; }

 private:
  AOTITorchError code_;
};

/* The calling thread's selection: nullopt when none, a (possibly null) stream when selected. */
inline std::optional<stream_t> get_caller_stream() {
  int32_t selected = 0;
  void* stream = nullptr;
  AOTITorchError err = shimgen_runtime_get_caller_stream(&selected, &stream);
  if (err != AOTI_TORCH_SUCCESS) throw Error(err, shimgen_runtime_last_error());
  if (!selected) return std::nullopt;
  return static_cast<stream_t>(stream);
}

/* Selects a stream for the calling thread for the guard's lifetime. Not copyable or movable: a
 * selection belongs to one scope of one thread. */
class CallerStreamGuard {
 public:
  explicit CallerStreamGuard(stream_t stream) {
    AOTITorchError err = shimgen_runtime_caller_stream_guard_create(static_cast<void*>(stream), &handle_);
    if (err != AOTI_TORCH_SUCCESS) throw Error(err, shimgen_runtime_last_error());
  }
  ~CallerStreamGuard() { (void)shimgen_runtime_caller_stream_guard_delete(handle_); }
  CallerStreamGuard(const CallerStreamGuard&) = delete;
  CallerStreamGuard& operator=(const CallerStreamGuard&) = delete;
  CallerStreamGuard(CallerStreamGuard&&) = delete;
  CallerStreamGuard& operator=(CallerStreamGuard&&) = delete;

 private:
  ShimgenCallerStreamGuardHandle handle_ = nullptr;
};

}  // namespace shimgen::runtime
#endif /* __cplusplus */

#endif /* SHIMGEN_RUNTIME_RUNTIME_H_ */
