// aoti_torch_cuda_rand: a new tensor of uniform values in [0, 1). Each dtype takes as many random
// bits as its significand holds, so rounding can never produce 1.
#include "op_support.cuh"
#include "random.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

template <typename T, int Bits> __global__ void uniform_kernel(T* out, int64_t n, uint64_t seed, uint64_t base) {
  SHIMGEN_GRID_STRIDE_LOOP(i, n) {
    const uint64_t r = random_bits(seed, base + static_cast<uint64_t>(i)) >> (64 - Bits);
    if constexpr (sizeof(T) == 8) {
      out[i] = static_cast<double>(r) * (1.0 / static_cast<double>(1ull << Bits));
    } else {
      out[i] = from_float<T>(static_cast<float>(r) * (1.0f / static_cast<float>(1ull << Bits)));
    }
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_rand(const int64_t* size, int64_t size_len_, int32_t* dtype,
                                                                int32_t* layout, int32_t* device, int32_t device_index_,
                                                                int32_t* pin_memory, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    SHIMGEN_REQUIRE(size_len_ >= 0 && (size_len_ == 0 || size != nullptr), "size is null");
    SHIMGEN_REQUIRE(layout == nullptr || *layout == 0, "only the strided layout is supported");
    SHIMGEN_REQUIRE(device == nullptr || *device == kCUDA, "aoti_torch_cuda_rand makes CUDA tensors only");
    SHIMGEN_REQUIRE(pin_memory == nullptr || *pin_memory == 0, "pin_memory does not apply to CUDA tensors");
    const int32_t type = dtype != nullptr ? *dtype : kFloat32;
    const std::vector<int64_t> sizes(size, size + size_len_);
    Owned out;
    empty(out, sizes, {}, type, kCUDA, device_index_);
    const int32_t dev = out.get()->storage->device_index;
    const int64_t n = out.get()->numel();
    if (n > 0) {
      DeviceScope scope(dev);
      cudaStream_t stream = stream_of(dev);
      const uint64_t base = reserve_counter(static_cast<uint64_t>(n));
      char* data = out.get()->data();
      switch (type) {
        case kFloat32:
          uniform_kernel<float, 24>
              <<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<float*>(data), n, kDefaultSeed, base);
          break;
        case kFloat16:
          uniform_kernel<__half, 11>
              <<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<__half*>(data), n, kDefaultSeed, base);
          break;
        case kBFloat16:
          uniform_kernel<__nv_bfloat16, 8>
              <<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16*>(data), n, kDefaultSeed, base);
          break;
        case kFloat64:
          uniform_kernel<double, 53>
              <<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<double*>(data), n, kDefaultSeed, base);
          break;
        default: fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "rand needs a floating dtype, not code " + str(type));
      }
      check_cuda(cudaGetLastError(), "rand kernel launch");
    }
    *ret0 = out.release();
  });
}
