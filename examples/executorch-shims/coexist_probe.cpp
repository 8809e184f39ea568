// A consumer of ExecuTorch's AOTI shims compiled against ExecuTorch's own header: reports which
// loaded library its aoti_torch_dtype_float32 binds to (dladdr on the address it calls through),
// for ../vendor-zstd/probe/coexist.c. Built twice: against the prefixed aoti_cuda_shims (the
// force-included header renames the call) and against an unprefixed copy of the same source (the
// negative control), both loaded after libtorch_cpu.so, which exports the same plain name.
#include <dlfcn.h>

#include <executorch/backends/aoti/common_shims_slim.h>

using executorch::backends::aoti::aoti_torch_dtype_float32;

extern "C" {
__attribute__((visibility("default"))) const char* probe_provider() {
  Dl_info info;
  void* called = reinterpret_cast<void*>(&aoti_torch_dtype_float32);
  if (!dladdr(called, &info) || !info.dli_fname) return "?";
  return info.dli_fname;
}

// The dtype code the bound library answers (6 for float32, in ExecuTorch and in libtorch).
__attribute__((visibility("default"))) unsigned probe_version() {
  return static_cast<unsigned>(aoti_torch_dtype_float32());
}

__attribute__((visibility("default"))) int probe_roundtrip() { return aoti_torch_dtype_float32() == 6 ? 0 : 1; }
}
