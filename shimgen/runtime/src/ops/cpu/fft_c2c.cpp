// aoti_torch_cpu__fft_c2c: complex-to-complex FFT over `dim` (torch.fft.fft/ifft/fftn/fft2 of a
// complex tensor; FNet's token mixing). A new tensor of self's shape and dtype (complex64/128) with
// the strides torch's meta function gives (fft.h, exec_fft_strides); forward: exp(-2 pi i ...),
// normalization 0 none, 1 by sqrt(n), 2 by n (n: the product of the transformed sizes).
#include "fft.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu__fft_c2c(AtenTensorHandle self, const int64_t* dim,
                                                                   int64_t dim_len_, int64_t normalization,
                                                                   int32_t forward, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    if (!fft::is_complex(in.dtype))
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "_fft_c2c: dtype code " + std::to_string(in.dtype) + " is not complex64/128");
    const std::vector<int64_t> dims = fft::wrapped_dims(dim, dim_len_, static_cast<int64_t>(in.sizes.size()));
    double n = 1;
    for (int64_t d : dims) n *= static_cast<double>(in.sizes[static_cast<size_t>(d)]);
    const double factor = fft::scale(normalization, n);
    const std::vector<int64_t> sorted = fft::sort_dims(dims, in.strides, false);
    const std::vector<int64_t> strides =
        dims.empty() ? dense_strides_like(in.sizes, in.strides) : fft::exec_fft_strides(in.strides, in.sizes, sorted);
    auto out = empty_tensor(in.sizes, strides, in.dtype, kCPU, -1);
    std::vector<fft::cd> buf = fft::load(in);
    for (int64_t d : dims) fft::dft(buf, in.sizes, d, forward != 0);
    fft::store(buf, *out, factor);
    *ret0 = wrap(std::move(out));
  });
}
