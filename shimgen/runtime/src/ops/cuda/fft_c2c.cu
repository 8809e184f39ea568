// aoti_torch_cuda__fft_c2c: complex-to-complex FFT over `dim` (FNet's token mixing, fft2/fftn/ifft of
// a complex CUDA tensor). Computed by the CPU op on a host copy (fft_staged.h): the same values as on
// the CPU, where tests/integration/test_cpu_complex_ops.py compares them with torch, laid out as
// cuFFT's staged plan lays them out.
#include "fft_staged.h"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__fft_c2c(AtenTensorHandle self, const int64_t* dim,
                                                                    int64_t dim_len_, int64_t normalization,
                                                                    int32_t forward, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    staged_fft(
        "_fft_c2c", self, dim, dim_len_, ret0,
        [](const Tensor& in, const std::vector<int64_t>& dims) {
          return cpu::fft::cuda_c2c_strides(in.sizes, in.strides, dims);
        },
        [&](AtenTensorHandle host, AtenTensorHandle* r) {
          return aoti_torch_cpu__fft_c2c(host, dim, dim_len_, normalization, forward, r);
        });
  });
}
