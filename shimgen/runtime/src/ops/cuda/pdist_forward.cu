// aoti_torch_cuda__pdist_forward: p-norm distances between the rows i < j of self [N, M]
// (torch.pdist), a new [N (N - 1) / 2] in row-major order of the upper triangle; p as in cdist (0
// counts differences, inf takes the largest). One thread per pair, summed in double and rounded
// once, as the CPU op. Floating dtypes.
#include <cmath>

#include "op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"
#include "strided.cuh"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

namespace {

template <typename T> __global__ void pdist_kernel(const T* x, int64_t rows, int64_t cols, int64_t row_stride,
                                                   int64_t col_stride, double p, int64_t pairs, T* out) {
  SHIMGEN_GRID_STRIDE_LOOP(k, pairs) {
    // Row i's pairs start at i * N - i * (i + 1) / 2; a float estimate, then exact steps.
    const double n2 = static_cast<double>(rows) - 0.5;
    int64_t i = static_cast<int64_t>(n2 - sqrt(fmax(n2 * n2 - 2.0 * static_cast<double>(k) - 1.0, 0.0)));
    auto start = [rows](int64_t r) { return r * rows - r * (r + 1) / 2; };
    if (i < 0) i = 0;
    if (i > rows - 2) i = rows - 2;
    while (i > 0 && start(i) > k) --i;
    while (i < rows - 2 && start(i + 1) <= k) ++i;
    const int64_t j = k - start(i) + i + 1;
    double acc = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      const double d = fabs(load_as<double>(x[i * row_stride + c * col_stride]) -
                            load_as<double>(x[j * row_stride + c * col_stride]));
      if (p == 0.0) acc += d != 0.0 ? 1.0 : 0.0;
      else if (isinf(p)) acc = fmax(acc, d);
      else if (p == 1.0) acc += d;
      else if (p == 2.0) acc += d * d;
      else acc += pow(d, p);
    }
    if (p == 2.0) acc = sqrt(acc);
    else if (p != 0.0 && p != 1.0 && !isinf(p)) acc = pow(acc, 1.0 / p);
    if constexpr (std::is_same_v<T, double>) out[k] = acc;
    else out[k] = store_as<T>(static_cast<float>(acc));
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__pdist_forward(AtenTensorHandle self, double p,
                                                                          AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& x = cuda_arg(self, "self");
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    SHIMGEN_REQUIRE(x.sizes.size() == 2,
                    "pdist only supports 2D tensors, got: " + str(static_cast<int64_t>(x.sizes.size())) + "D");
    SHIMGEN_REQUIRE(p >= 0.0, "pdist only supports non-negative p values");
    SHIMGEN_REQUIRE(!integral(x.dtype), "pdist needs a floating dtype, not dtype code " + str(x.dtype));
    const int64_t n = x.sizes[0], m = x.sizes[1];
    const int64_t pairs = n > 1 ? n * (n - 1) / 2 : 0;
    const int32_t device = x.storage->device_index;
    Owned out;
    empty(out, {pairs}, {}, x.dtype, kCUDA, device);
    DeviceScope scope(device);
    cudaStream_t stream = stream_of(device);
    auto launch = [&](auto tag) {
      using T = decltype(tag);
      if (pairs == 0) return;
      pdist_kernel<T><<<grid_for(pairs), 256, 0, stream>>>(reinterpret_cast<const T*>(x.data()), n, m, x.strides[0],
                                                           x.strides[1], p, pairs,
                                                           reinterpret_cast<T*>(out.get()->data()));
      check_cuda(cudaGetLastError(), "pdist kernel launch");
    };
    if (x.dtype == kFloat64) launch(double{});
    else dispatch_floating(x.dtype, "self", launch);
    *ret0 = out.release();
  });
}
