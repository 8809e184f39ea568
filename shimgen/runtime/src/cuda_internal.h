// Internal helpers shared by the CUDA translation units (backend_cuda.cpp, cuda_ops.cu). CUDA
// builds only; nothing here is exported.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
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

// An element of 16 bytes (complex128), moved as it is.
struct Bytes16 { uint64_t lo, hi; };

// Calls f with a value of the unsigned type of `itemsize` bytes (Bytes16 for 16): kernels that only move
// elements (copies, gathers, scatters) need an element's size, not its dtype. Other sizes fail, naming `what`.
template <typename F> void dispatch_bits(size_t itemsize, const char* what, F&& f) {
  switch (itemsize) {
    case 1: f(uint8_t{}); return;
    case 2: f(uint16_t{}); return;
    case 4: f(uint32_t{}); return;
    case 8: f(uint64_t{}); return;
    case 16: f(Bytes16{}); return;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           std::string(what) + ": element size " + std::to_string(itemsize) + " is not supported on CUDA");
  }
}

}  // namespace shimgen::rt
