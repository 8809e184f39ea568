// aten::_fft_c2r (no C shim: served by the proxy executor): torch.fft.irfft/irfftn. self holds the
// onesided half of a Hermitian spectrum (complex64/128); the inverse c2c over dim[:-1], then the
// last dim extended by conjugate symmetry to last_dim_size points and inverse-transformed, real part
// kept (the imaginary parts of the DC and Nyquist terms drop out, as in pocketfft). float32/64 out,
// with the strides torch's meta function gives; normalization as _fft_c2c (n: the output's
// transformed sizes).
#include "../proxy_ops.h"
#include "fft.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {

AtenTensorHandle cpu_fft_c2r(AtenTensorHandle self, const std::vector<int64_t>& dim, int64_t normalization,
                             int64_t last_dim_size) {
  const Tensor& in = cpu_tensor(self, "self");
  if (!fft::is_complex(in.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         "_fft_c2r: dtype code " + std::to_string(in.dtype) + " is not complex64/128");
  const std::vector<int64_t> dims =
      fft::wrapped_dims(dim.data(), static_cast<int64_t>(dim.size()), static_cast<int64_t>(in.sizes.size()));
  SHIMGEN_REQUIRE(!dims.empty(), "_fft_c2r: dim is empty");
  SHIMGEN_REQUIRE(last_dim_size >= 1,
                  "_fft_c2r: invalid number of data points (" + std::to_string(last_dim_size) + ")");
  const int64_t last = dims.back();
  std::vector<int64_t> out_sizes = in.sizes;
  out_sizes[static_cast<size_t>(last)] = last_dim_size;
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(out_sizes[static_cast<size_t>(d)]);
  const double factor = fft::scale(normalization, n);
  // The layout: meta_fft_c2r (mkl) runs _exec_fft on the c2c result over dim[:-1] (or on self).
  std::vector<int64_t> mid_strides = in.strides;
  if (dims.size() > 1) {
    const std::vector<int64_t> head(dims.begin(), dims.end() - 1);
    mid_strides = fft::exec_fft_strides(in.strides, in.sizes, fft::sort_dims(head, in.strides, false));
  }
  auto out =
      empty_tensor(out_sizes, fft::exec_fft_strides(mid_strides, out_sizes, {last}), fft::real_of(in.dtype), kCPU, -1);
  std::vector<fft::cd> buf = fft::load(in);
  for (size_t i = 0; i + 1 < dims.size(); ++i) fft::dft(buf, in.sizes, dims[i], false);
  // Hermitian extension of the last dim: X[k] = conj(X[N - k]) above N / 2; entries self lacks are 0.
  const int64_t have = in.sizes[static_cast<size_t>(last)];
  std::vector<fft::cd> full = fft::resized(buf, in.sizes, last, last_dim_size);
  size_t inner = 1, outer = 1;
  for (size_t d = static_cast<size_t>(last) + 1; d < out_sizes.size(); ++d) inner *= static_cast<size_t>(out_sizes[d]);
  for (size_t d = 0; d < static_cast<size_t>(last); ++d) outer *= static_cast<size_t>(out_sizes[d]);
  const size_t N = static_cast<size_t>(last_dim_size);
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i)
      for (size_t k = N / 2 + 1; k < N; ++k) {
        const size_t mirror = N - k;
        full[(o * N + k) * inner + i] =
            static_cast<int64_t>(mirror) < have ? std::conj(full[(o * N + mirror) * inner + i]) : fft::cd{};
      }
  fft::dft(full, out_sizes, last, false);
  fft::store(full, *out, factor);
  return wrap(std::move(out));
}

}  // namespace shimgen::rt::proxy_ops
