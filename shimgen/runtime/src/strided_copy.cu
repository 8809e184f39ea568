// Strided element copy on one device (any strides; 0 for broadcast), for copy_ and clone.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_internal.h"

namespace shimgen::rt {
namespace {

constexpr int kMaxDims = 64;

struct StridedArgs {
  int32_t ndim;
  int64_t numel;
  int64_t sizes[kMaxDims];
  int64_t dst_strides[kMaxDims];
  int64_t src_strides[kMaxDims];
};

template <typename T> __global__ void strided_copy_kernel(T* dst, const T* src, StridedArgs args) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < args.numel;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, d_off = 0, s_off = 0;
    for (int d = args.ndim - 1; d >= 0; --d) {
      int64_t index = rest % args.sizes[d];
      rest /= args.sizes[d];
      d_off += index * args.dst_strides[d];
      s_off += index * args.src_strides[d];
    }
    dst[d_off] = src[s_off];
  }
}

template <typename T> void launch(char* dst, const char* src, const StridedArgs& args, cudaStream_t stream) {
  const int threads = 256;
  int64_t blocks = (args.numel + threads - 1) / threads;
  if (blocks > 65535) blocks = 65535;
  strided_copy_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(reinterpret_cast<T*>(dst),
                                                                                reinterpret_cast<const T*>(src), args);
}

}  // namespace

void launch_strided_copy(char* dst, const int64_t* dst_strides, const char* src, const int64_t* src_strides,
                         const std::vector<int64_t>& sizes, size_t itemsize, cudaStream_t stream) {
  StridedArgs args{};
  args.ndim = static_cast<int32_t>(sizes.size());
  args.numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    args.sizes[i] = sizes[i];
    args.dst_strides[i] = dst_strides[i];
    args.src_strides[i] = src_strides[i];
    args.numel *= sizes[i];
  }
  if (args.numel == 0) return;
  dispatch_bits(itemsize, "strided copy", [&](auto tag) { launch<decltype(tag)>(dst, src, args, stream); });
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    fail(SHIMGEN_RUNTIME_ERROR_CUDA, std::string("strided copy kernel launch: ") + cudaGetErrorString(status));
}

// Loads this file's kernels on the current device now (see preload_kernels in backend_cuda.cpp).
void preload_strided_copy_kernels() {
  cudaFuncAttributes attributes{};
  (void)cudaFuncGetAttributes(&attributes, strided_copy_kernel<uint8_t>);
  (void)cudaFuncGetAttributes(&attributes, strided_copy_kernel<uint16_t>);
  (void)cudaFuncGetAttributes(&attributes, strided_copy_kernel<uint32_t>);
  (void)cudaFuncGetAttributes(&attributes, strided_copy_kernel<uint64_t>);
  (void)cudaFuncGetAttributes(&attributes, strided_copy_kernel<Bytes16>);
  (void)cudaGetLastError();
}

}  // namespace shimgen::rt
