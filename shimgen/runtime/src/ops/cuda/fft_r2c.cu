// aoti_torch_cuda__fft_r2c: real-to-complex forward FFT over `dim` (rfft/rfftn, fft of a real CUDA
// tensor with onesided=0). Computed by the CPU op on a host copy (fft_staged.h): the same values as
// on the CPU, where tests/integration/test_cpu_complex_ops.py compares them with torch, laid out as
// cuFFT's plan lays them out (rfft2 of a 2-d tensor is column-major there, row-major on the CPU).
#include "fft_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__fft_r2c(AtenTensorHandle self, const int64_t* dim,
                                                                    int64_t dim_len_, int64_t normalization,
                                                                    int32_t onesided, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    staged_fft(
        "_fft_r2c", self, dim, dim_len_, ret0,
        [&](const Tensor& in, const std::vector<int64_t>& dims) {
          SHIMGEN_REQUIRE(!dims.empty(), "_fft_r2c: dim is empty");
          return cpu::fft::cuda_r2c_strides(in.sizes, in.strides, dims, onesided != 0);
        },
        [&](AtenTensorHandle host, AtenTensorHandle* r) {
          return aoti_torch_cpu__fft_r2c(host, dim, dim_len_, normalization, onesided, r);
        });
  });
}
