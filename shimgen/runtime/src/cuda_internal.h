// Internal helpers shared by the CUDA translation units (backend_cuda.cpp, cuda_ops.cu). CUDA
// builds only; nothing here is exported.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "internal.h"

namespace shimgen::rt {

// A CUDA runtime status as the runtime's error: OutOfMemory for allocation failures, Cuda for the
// rest, with the call that failed and CUDA's name and text for the status.
inline void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // clear the non-sticky error so the next call starts clean
  fail(status == cudaErrorMemoryAllocation ? SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY : SHIMGEN_RUNTIME_ERROR_CUDA,
       std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

// Makes `device` current for a scope and restores the previous device on every way out of it.
class DeviceScope {
 public:
  explicit DeviceScope(int32_t device) {
    check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceScope() {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != previous_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace shimgen::rt
