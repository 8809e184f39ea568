// aoti_torch_cuda_histc: a histogram of `bins` equal bins over [min, max]; min == max takes the
// data's own range (as PyTorch does), found on the device so the host never waits. Counts are
// integers while they accumulate and take self's dtype at the end. Floating inputs (float32, and
// float16/bfloat16, which PyTorch's CUDA histc lacks) bin in float; float64 and integer inputs
// (transformers' MoE counts int32 expert ids) in double, exact for PyTorch's integer formula.
#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

#include <cmath>
#include <type_traits>

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

constexpr int kRangeThreads = 1024;

// The arithmetic type of the binning: float for the 32- and 16-bit floats, double otherwise.
template <typename T> struct Acc { using type = double; };
template <> struct Acc<float> { using type = float; };
template <> struct Acc<__half> { using type = float; };
template <> struct Acc<__nv_bfloat16> { using type = float; };

template <typename T> __device__ inline typename Acc<T>::type acc_of(T v) {
  if constexpr (std::is_same_v<typename Acc<T>::type, float>) return to_float(v);
  else return static_cast<double>(v);
}

template <typename T> __device__ inline T count_as(unsigned long long count) {
  if constexpr (std::is_same_v<typename Acc<T>::type, float>) return from_float<T>(static_cast<float>(count));
  else return static_cast<T>(count);
}

// range[0], range[1] = the edges the histogram uses: [min, max] as given, else the data's range;
// an empty range is widened by one on each side (PyTorch's rule).
template <typename T, typename A = typename Acc<T>::type>
__global__ void range_kernel(const T* data, int64_t n, A lo, A hi, bool from_data, A* range) {
  __shared__ A mins[kRangeThreads], maxs[kRangeThreads];
  A mn = INFINITY, mx = -INFINITY;
  if (from_data) {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const A v = acc_of(data[i]);
      mn = fmin(mn, v);
      mx = fmax(mx, v);
    }
  }
  mins[threadIdx.x] = mn;
  maxs[threadIdx.x] = mx;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) {
      mins[threadIdx.x] = fmin(mins[threadIdx.x], mins[threadIdx.x + step]);
      maxs[threadIdx.x] = fmax(maxs[threadIdx.x], maxs[threadIdx.x + step]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    A a = from_data && n > 0 ? mins[0] : lo, b = from_data && n > 0 ? maxs[0] : hi;
    if (a == b) {
      a -= 1;
      b += 1;
    }
    range[0] = a;
    range[1] = b;
  }
}

template <typename T, typename A = typename Acc<T>::type>
__global__ void count_kernel(const T* data, int64_t n, const A* range, int64_t bins, unsigned long long* counts) {
  const A lo = range[0], hi = range[1];
  SHIMGEN_GRID_STRIDE_LOOP(i, n) {
    const A v = acc_of(data[i]);
    if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
    int64_t bin = static_cast<int64_t>((v - lo) * static_cast<A>(bins) / (hi - lo));
    if (bin >= bins) bin = bins - 1;
    atomicAdd(counts + bin, 1ull);
  }
}

template <typename T> __global__ void store_kernel(const unsigned long long* counts, int64_t bins, T* out) {
  SHIMGEN_GRID_STRIDE_LOOP(i, bins) out[i] = count_as<T>(counts[i]);
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
    auto histogram = [&](auto tag) {
      using T = decltype(tag);
      using A = typename Acc<T>::type;
      // A dense copy when self is not contiguous: the kernels read it flat.
      Scratch dense(device, t.is_contiguous() ? 0 : static_cast<size_t>(n) * sizeof(T));
      const T* data = reinterpret_cast<const T*>(t.data());
      if (!t.is_contiguous() && n > 0) {
        const std::vector<int64_t> strides = contiguous_strides_of(t.sizes);
        copy_strided(dense.data(), strides.data(), t.data(), t.strides.data(), t.sizes, sizeof(T), device);
        data = dense.as<const T>();
      }
      Scratch range(device, 2 * sizeof(A)), counts(device, static_cast<size_t>(bins) * 8);
      check_cuda(cudaMemsetAsync(counts.data(), 0, static_cast<size_t>(bins) * 8, stream), "cudaMemsetAsync");
      range_kernel<T><<<1, kRangeThreads, 0, stream>>>(data, n, static_cast<A>(min), static_cast<A>(max), min == max,
                                                       range.as<A>());
      if (n > 0) {
        count_kernel<T>
            <<<grid_for(n), 256, 0, stream>>>(data, n, range.as<const A>(), bins, counts.as<unsigned long long>());
      }
      store_kernel<T><<<grid_for(bins), 256, 0, stream>>>(counts.as<const unsigned long long>(), bins,
                                                          reinterpret_cast<T*>(out.get()->data()));
      check_cuda(cudaGetLastError(), "histc kernel launch");
    };
    switch (t.dtype) {
      case kFloat32: histogram(float{}); break;
      case kFloat16: histogram(__half{}); break;
      case kBFloat16: histogram(__nv_bfloat16{}); break;
      case kFloat64: histogram(double{}); break;
      case kInt64: histogram(int64_t{}); break;
      case kInt32: histogram(int32_t{}); break;
      case kInt16: histogram(int16_t{}); break;
      case kInt8: histogram(int8_t{}); break;
      case kUInt8: histogram(uint8_t{}); break;
      default:
        fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "histc of dtype code " + str(t.dtype) + " is not supported");
    }
    *ret0 = out.release();
  });
}
