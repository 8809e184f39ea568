// aoti_torch_cpu__fft_r2c: real-to-complex forward FFT over `dim` (torch.fft.rfft/rfftn, and fft of
// a real tensor with onesided=0). A new complex64 (float32 input) or complex128 tensor; onesided:
// the last transformed dim keeps n/2 + 1 entries (the rest is the conjugate mirror). Strides as
// torch's meta function gives them; normalization as _fft_c2c (n: the input's transformed sizes).
#include "fft.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__fft_r2c(AtenTensorHandle self, const int64_t* dim,
                                                                   int64_t dim_len_, int64_t normalization,
                                                                   int32_t onesided, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    if (in.dtype != kFloat32 && in.dtype != kFloat64)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "_fft_r2c: dtype code " + std::to_string(in.dtype) + " is not float32/64");
    const std::vector<int64_t> dims = fft::wrapped_dims(dim, dim_len_, static_cast<int64_t>(in.sizes.size()));
    SHIMGEN_REQUIRE(!dims.empty(), "_fft_r2c: dim is empty");
    double n = 1;
    for (int64_t d : dims) n *= static_cast<double>(in.sizes[static_cast<size_t>(d)]);
    const double factor = fft::scale(normalization, n);
    const int64_t last = dims.back();
    std::vector<int64_t> out_sizes = in.sizes;
    if (onesided != 0) out_sizes[static_cast<size_t>(last)] = in.sizes[static_cast<size_t>(last)] / 2 + 1;
    const std::vector<int64_t> sorted = fft::sort_dims(dims, in.strides, true);
    auto out = empty_tensor(out_sizes, fft::exec_fft_strides(in.strides, out_sizes, sorted), fft::complex_of(in.dtype),
                            kCPU, -1);
    std::vector<fft::cd> buf = fft::load(in);
    for (int64_t d : dims) fft::dft(buf, in.sizes, d, true);
    if (onesided != 0) buf = fft::resized(buf, in.sizes, last, out_sizes[static_cast<size_t>(last)]);
    fft::store(buf, *out, factor);
    *ret0 = wrap(std::move(out));
  });
}
