// The caller-stream contract and the per-device current streams. All state is thread-local and
// lives in this translation unit, which is linked into exactly one shared library
// (libshimgen_runtime.so): consumers reach it only through the exported C functions.
//
// One per-thread sequence number orders every selection (caller guards and stream guards), so the
// innermost guard wins whichever kind it is.
#include <thread>
#include <vector>

#include "internal.h"

namespace shimgen::rt {
namespace {

struct CallerState {
  bool selected = false;
  void* stream = nullptr;
  // Device the stream belongs to: -1 every device (the legacy default stream), -2 not looked up
  // yet. Looked up lazily, at the first CUDA use, so selecting a stream costs no CUDA call.
  int32_t device = -1;
  uint64_t seq = 0;
  uint64_t depth = 0;
};

thread_local CallerState t_caller;
thread_local uint64_t t_seq = 0;
thread_local std::vector<CurrentStreamSlot> t_current;

}  // namespace

CurrentStreamSlot current_stream_slot(int32_t device) noexcept {
  if (device < 0 || static_cast<size_t>(device) >= t_current.size()) return {};
  return t_current[static_cast<size_t>(device)];
}

CurrentStreamSlot set_current_stream_slot(int32_t device, void* stream) {
  if (static_cast<size_t>(device) >= t_current.size()) t_current.resize(static_cast<size_t>(device) + 1);
  CurrentStreamSlot previous = t_current[static_cast<size_t>(device)];
  t_current[static_cast<size_t>(device)] = CurrentStreamSlot{stream, ++t_seq};
  return previous;
}

void restore_current_stream_slot(int32_t device, CurrentStreamSlot previous) {
  if (static_cast<size_t>(device) >= t_current.size()) t_current.resize(static_cast<size_t>(device) + 1);
  t_current[static_cast<size_t>(device)] = previous;
}

void* effective_stream(int32_t device) noexcept {
  CurrentStreamSlot current = current_stream_slot(device);
  CallerState& caller = t_caller;
  if (caller.selected && caller.device == -2) {
    try {
      caller.device = cuda_stream_device(caller.stream);
    } catch (...) {
      caller.device = -1;  // not a stream CUDA knows: the CUDA call using it reports the error
    }
  }
  if (caller.selected && (caller.device < 0 || caller.device == device) && caller.seq > current.seq)
    return caller.stream;
  return current.stream;
}

}  // namespace shimgen::rt

struct ShimgenCallerStreamGuardOpaque {
  shimgen::rt::CallerState previous;
  uint64_t depth;
  std::thread::id owner;
};

using namespace shimgen::rt;

extern "C" {

SHIMGEN_RUNTIME_API AOTITorchError
shimgen_runtime_caller_stream_guard_create(void* stream, ShimgenCallerStreamGuardHandle* ret_guard) {
  return run_guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_guard != nullptr, "ret_guard is null");
    int32_t device = stream != nullptr ? -2 : -1;
    auto* guard = new ShimgenCallerStreamGuardOpaque{t_caller, t_caller.depth + 1, std::this_thread::get_id()};
    t_caller = CallerState{true, stream, device, ++t_seq, t_caller.depth + 1};
    *ret_guard = guard;
  });
}

SHIMGEN_RUNTIME_API AOTITorchError shimgen_runtime_caller_stream_guard_delete(ShimgenCallerStreamGuardHandle guard) {
  return run_guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    if (guard->owner != std::this_thread::get_id())
      fail(SHIMGEN_RUNTIME_ERROR_STATE, "caller-stream guard deleted on a thread other than the one that created it");
    if (guard->depth != t_caller.depth)
      fail(SHIMGEN_RUNTIME_ERROR_STATE, "caller-stream guard deleted out of order: guard depth " +
                                            std::to_string(guard->depth) + ", innermost depth " +
                                            std::to_string(t_caller.depth));
    t_caller = guard->previous;
    delete guard;
  });
}

SHIMGEN_RUNTIME_API AOTITorchError shimgen_runtime_get_caller_stream(int32_t* ret_selected, void** ret_stream) {
  return run_guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret_selected != nullptr, "ret_selected is null");
    SHIMGEN_REQUIRE(ret_stream != nullptr, "ret_stream is null");
    *ret_selected = t_caller.selected ? 1 : 0;
    if (t_caller.selected) *ret_stream = t_caller.stream;
  });
}

}  // extern "C"
