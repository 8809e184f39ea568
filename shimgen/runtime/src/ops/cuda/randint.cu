// aoti_torch_cuda_randint_low_out: `out` filled with integers uniform in [low, high). Inductor
// emits it to draw the seeds of its own random kernels (low = INT64_MIN, high = INT64_MAX), so the
// width high - low is taken in unsigned 64-bit arithmetic, where it cannot overflow.
#include "op_support.cuh"
#include "random.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

template <typename T>
__global__ void randint_kernel(T* out, int64_t n, int64_t low, uint64_t width, uint64_t seed, uint64_t base) {
  SHIMGEN_GRID_STRIDE_LOOP(i, n) {
    const uint64_t r = random_bits(seed, base + static_cast<uint64_t>(i)) % width;
    const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(low) + r);
    if constexpr (sizeof(T) == 2 && !std::is_integral_v<T>) {
      out[i] = from_float<T>(static_cast<float>(v));
    } else {
      out[i] = static_cast<T>(v);
    }
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_randint_low_out(AtenTensorHandle out, int64_t low,
                                                                           int64_t high, const int64_t* size,
                                                                           int64_t size_len_) {
  return guarded(__func__, [&] {
    const Tensor& t = cuda_arg(out, "out");
    SHIMGEN_REQUIRE(low < high,
                    "random_ expects 'from' to be less than 'to', but got from=" + str(low) + " >= to=" + str(high));
    SHIMGEN_REQUIRE(size_len_ >= 0 && (size_len_ == 0 || size != nullptr), "size is null");
    const std::vector<int64_t> sizes(size, size + size_len_);
    SHIMGEN_REQUIRE(sizes == t.sizes, "out's shape differs from size (resizing out is not supported)");
    SHIMGEN_REQUIRE(t.is_contiguous(), "out must be contiguous");
    const int64_t n = t.numel();
    if (n == 0) return;
    const int32_t device = t.storage->device_index;
    DeviceScope scope(device);
    cudaStream_t stream = stream_of(device);
    const uint64_t width = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    const uint64_t base = reserve_counter(static_cast<uint64_t>(n));
    auto launch = [&](auto tag) {
      using T = decltype(tag);
      randint_kernel<T>
          <<<grid_for(n), 256, 0, stream>>>(reinterpret_cast<T*>(t.data()), n, low, width, kDefaultSeed, base);
    };
    switch (t.dtype) {
      case kInt64: launch(int64_t{}); break;
      case kInt32: launch(int32_t{}); break;
      case kInt16: launch(int16_t{}); break;
      case kInt8: launch(int8_t{}); break;
      case kUInt8: launch(uint8_t{}); break;
      case kFloat32: launch(float{}); break;
      case kFloat64: launch(double{}); break;
      case kFloat16: launch(__half{}); break;
      case kBFloat16: launch(__nv_bfloat16{}); break;
      default: fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "randint into dtype code " + str(t.dtype) + " is not supported");
    }
    check_cuda(cudaGetLastError(), "randint kernel launch");
  });
}
