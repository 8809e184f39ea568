// aoti_torch_cuda_histc: a histogram of `bins` equal bins over [min, max]; min == max takes the
// data's own range (as PyTorch does), found on the device so the host never waits. Counts are
// integers while they accumulate and take self's dtype at the end.
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

#include <cmath>

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

constexpr int kRangeThreads = 1024;

// range[0], range[1] = the edges the histogram uses: [min, max] as given, else the data's range;
// an empty range is widened by one on each side (PyTorch's rule).
template <typename T>
__global__ void range_kernel(const T* data, int64_t n, float lo, float hi, bool from_data, float* range) {
  __shared__ float mins[kRangeThreads], maxs[kRangeThreads];
  float mn = INFINITY, mx = -INFINITY;
  if (from_data) {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const float v = to_float(data[i]);
      mn = fminf(mn, v);
      mx = fmaxf(mx, v);
    }
  }
  mins[threadIdx.x] = mn;
  maxs[threadIdx.x] = mx;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) {
      mins[threadIdx.x] = fminf(mins[threadIdx.x], mins[threadIdx.x + step]);
      maxs[threadIdx.x] = fmaxf(maxs[threadIdx.x], maxs[threadIdx.x + step]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float a = from_data && n > 0 ? mins[0] : lo, b = from_data && n > 0 ? maxs[0] : hi;
    if (a == b) {
      a -= 1.0f;
      b += 1.0f;
    }
    range[0] = a;
    range[1] = b;
  }
}

template <typename T>
__global__ void count_kernel(const T* data, int64_t n, const float* range, int64_t bins, unsigned long long* counts) {
  const float lo = range[0], hi = range[1];
  SHIMGEN_GRID_STRIDE_LOOP(i, n) {
    const float v = to_float(data[i]);
    if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
    int64_t bin = static_cast<int64_t>((v - lo) * static_cast<float>(bins) / (hi - lo));
    if (bin >= bins) bin = bins - 1;
    atomicAdd(counts + bin, 1ull);
  }
}

template <typename T>
__global__ void store_kernel(const unsigned long long* counts, int64_t bins, T* out) {
  SHIMGEN_GRID_STRIDE_LOOP(i, bins) out[i] = from_float<T>(static_cast<float>(counts[i]));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_histc(AtenTensorHandle self, int64_t bins, double min,
                                                                 double max, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const Tensor& t = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(bins > 0, "bins must be > 0, not " + str(bins));
    SHIMGEN_REQUIRE(std::isfinite(min) && std::isfinite(max), "range of [min, max] is not finite");
    SHIMGEN_REQUIRE(min <= max, "max must be larger than min");
    const int32_t device = t.storage->device_index;
    Owned out;
    empty(out, {bins}, {}, t.dtype, kCUDA, device);
    DeviceScope scope(device);
    cudaStream_t stream = stream_of(device);
    const int64_t n = t.numel();
    dispatch_floating(t.dtype, "self", [&](auto tag) {
      using T = decltype(tag);
      // A dense copy when self is not contiguous: the kernels read it flat.
      Scratch dense(device, t.is_contiguous() ? 0 : static_cast<size_t>(n) * sizeof(T));
      const T* data = reinterpret_cast<const T*>(t.data());
      if (!t.is_contiguous() && n > 0) {
        const std::vector<int64_t> strides = contiguous_strides_of(t.sizes);
        copy_strided(dense.data(), strides.data(), t.data(), t.strides.data(), t.sizes, sizeof(T), device);
        data = dense.as<const T>();
      }
      Scratch range(device, 2 * sizeof(float)), counts(device, static_cast<size_t>(bins) * 8);
      check_cuda(cudaMemsetAsync(counts.data(), 0, static_cast<size_t>(bins) * 8, stream), "cudaMemsetAsync");
      range_kernel<T><<<1, kRangeThreads, 0, stream>>>(data, n, static_cast<float>(min), static_cast<float>(max),
                                                       min == max, range.as<float>());
      if (n > 0) {
        count_kernel<T><<<grid_for(n), 256, 0, stream>>>(data, n, range.as<const float>(), bins,
                                                          counts.as<unsigned long long>());
      }
      store_kernel<T><<<grid_for(bins), 256, 0, stream>>>(counts.as<const unsigned long long>(), bins,
                                                          reinterpret_cast<T*>(out.get()->data()));
      check_cuda(cudaGetLastError(), "histc kernel launch");
    });
    *ret0 = out.release();
  });
}
