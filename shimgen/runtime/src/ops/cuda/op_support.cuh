// Helpers shared by the CUDA fallback ops (runtime/src/cuda_ops.cu and ops/cuda/*.cu). CUDA builds
// only; nothing here is exported.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../cuda_internal.h"
#include "../../internal.h"

namespace shimgen::rt::cuda_ops {

inline std::string str(int64_t v) { return std::to_string(v); }
inline bool floating(int32_t dtype) { return dtype == kFloat32 || dtype == kFloat16 || dtype == kBFloat16; }

// A scratch device buffer, freed (stream-ordered) at scope exit.
class Scratch {
 public:
  Scratch(int32_t device, size_t nbytes) : device_(device) {
    if (nbytes != 0) data_ = static_cast<char*>(cuda_malloc(device, nbytes));
  }
  ~Scratch() { cuda_free(device_, data_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  char* data() const { return data_; }
  template <typename T> T* as() const { return reinterpret_cast<T*>(data_); }

 private:
  int32_t device_;
  char* data_ = nullptr;
};

// A tensor handle this op owns until it hands it out.
class Owned {
 public:
  Owned() = default;
  ~Owned() {
    if (handle_ != nullptr) (void)aoti_torch_delete_tensor_object(handle_);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  AtenTensorHandle* out() { return &handle_; }
  Tensor* get() const { return reinterpret_cast<Tensor*>(handle_); }
  AtenTensorHandle release() {
    AtenTensorHandle h = handle_;
    handle_ = nullptr;
    return h;
  }

 private:
  AtenTensorHandle handle_ = nullptr;
};

// A new tensor (empty strides: contiguous) through aoti_torch_empty_strided, owned by `into`.
inline void empty(Owned& into, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int32_t dtype,
                  int32_t device_type, int32_t device) {
  AOTITorchError code =
      aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()), sizes.data(),
                               strides.empty() ? nullptr : strides.data(), dtype, device_type, device, into.out());
  if (code != AOTI_TORCH_SUCCESS) fail(code, std::string("allocating a result: ") + shimgen_runtime_last_error());
}

// A CUDA tensor argument; dim >= 0 also checks its rank.
inline const Tensor& cuda_arg(AtenTensorHandle handle, const char* what, int64_t dim = -1) {
  const Tensor* t = unwrap(handle, what);
  SHIMGEN_REQUIRE(t->storage->device_type == kCUDA, std::string(what) + " is not a CUDA tensor");
  if (dim >= 0) {
    SHIMGEN_REQUIRE(
        static_cast<int64_t>(t->sizes.size()) == dim,
        std::string(what) + " must be " + str(dim) + "-d, not " + str(static_cast<int64_t>(t->sizes.size())) + "-d");
  }
  return *t;
}

// A dim argument wrapped like PyTorch's maybe_wrap_dim (a 0-d tensor takes dim 0 or -1).
inline int64_t wrap_dim(int64_t dim, size_t rank) {
  const int64_t r = std::max<int64_t>(static_cast<int64_t>(rank), 1);
  SHIMGEN_REQUIRE(dim >= -r && dim < r,
                  "dim " + str(dim) + " is out of range for a " + str(static_cast<int64_t>(rank)) + "-d tensor");
  return dim < 0 ? dim + r : dim;
}

inline View device_view(char* data, const int64_t* strides, int32_t device) {
  return View{data, strides, kCUDA, device, false};
}

// Copies `src` (any strides) into `dst` (any strides) on the device's effective stream.
inline void copy_strided(char* dst, const int64_t* dst_strides, const char* src, const int64_t* src_strides,
                         const std::vector<int64_t>& sizes, size_t itemsize, int32_t device) {
  copy_views(device_view(dst, dst_strides, device), device_view(const_cast<char*>(src), src_strides, device), sizes,
             itemsize, true);
}

inline cudaStream_t stream_of(int32_t device) { return static_cast<cudaStream_t>(effective_stream(device)); }

inline unsigned grid_for(int64_t total, int threads = 256) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((total + threads - 1) / threads, 65535)));
}

#define SHIMGEN_GRID_STRIDE_LOOP(i, n)                                                   \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ inline T from_float(float v);
template <> __device__ inline float from_float<float>(float v) { return v; }
template <> __device__ inline __half from_float<__half>(float v) { return __float2half(v); }
template <> __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

// Calls fn(T{}) with T the C++ type of a floating dtype code (float, __half, __nv_bfloat16).
template <typename Fn> void dispatch_floating(int32_t dtype, const char* what, Fn&& fn) {
  switch (dtype) {
    case kFloat32: fn(float{}); return;
    case kFloat16: fn(__half{}); return;
    case kBFloat16: fn(__nv_bfloat16{}); return;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, std::string(what) + " has dtype code " + str(dtype) +
                                                       "; float32 (6), float16 (5) and bfloat16 (15) are supported");
  }
}

}  // namespace shimgen::rt::cuda_ops
