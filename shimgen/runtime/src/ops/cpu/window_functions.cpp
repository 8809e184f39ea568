// Window and frequency factories without a C shim (served by the proxy executor): aten::hamming_window
// (and hann_window's periodic form), blackman_window, bartlett_window, kaiser_window in all their
// overloads (spectrogram front ends, STFT feature extractors, resampling filters), and
// aten::fft_fftfreq / fft_rfftfreq. A new contiguous 1-d tensor, computed in double and rounded once
// to the dtype (absent: float32; float16, bfloat16, float32, float64). torch's formulas
// (TensorFactories.cpp, SpectralOps.cpp): a periodic window of length L is the symmetric one of
// length L + 1 without its last point; L = 0: empty, L = 1: [1].
#include <cmath>

#include "../proxy_ops.h"
#include "cpu_op.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace shimgen::rt::proxy_ops {
namespace {

// The modified Bessel function of the first kind, order 0 (a power series; ample for |x| < 700).
double bessel_i0(double x) {
  const double q = x * x / 4.0;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 500; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

template <class F> AtenTensorHandle fill(const char* name, int64_t length, int32_t dtype, F&& value) {
  const int32_t type = dtype >= 0 ? dtype : kFloat32;
  if (!(type == kFloat32 || type == kFloat64 || type == kFloat16 || type == kBFloat16))
    fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, std::string(name) +
                                                     " expects floating point dtypes, got: " + scalar_type_name(type) +
                                                     " (served: float16, bfloat16, float32, float64)");
  auto out = empty_tensor({length}, {1}, type, kCPU, -1);
  dispatch_floating(type, name, [&](auto t) {
    using T = decltype(t);
    auto* dst = reinterpret_cast<T*>(out->data());
    for (int64_t n = 0; n < length; ++n) {
      const double w = value(n);
      if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) dst[n] = T(static_cast<float>(w));
      else dst[n] = static_cast<T>(w);
    }
  });
  return wrap(std::move(out));
}

}  // namespace

AtenTensorHandle cpu_window(char kind, int64_t window_length, bool periodic, double alpha, double beta, int32_t dtype) {
  const char* name = kind == 'h'   ? "hamming_window"
                     : kind == 'b' ? "blackman_window"
                     : kind == 't' ? "bartlett_window"
                                   : "kaiser_window";
  SHIMGEN_REQUIRE(kind == 'h' || kind == 'b' || kind == 't' || kind == 'k', "window: unknown kind");
  if (window_length < 0)
    fail(
        SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT,
        std::string(name) + " requires non-negative window_length, got window_length=" + std::to_string(window_length));
  if (window_length <= 1) return fill(name, window_length, dtype, [](int64_t) { return 1.0; });
  const int64_t full = window_length + (periodic ? 1 : 0);  // the symmetric window's length
  const double m = static_cast<double>(full - 1);
  const double i0_beta = kind == 'k' ? bessel_i0(beta) : 1.0;
  const int64_t first_half = ((full - 1) >> 1) + 1;  // bartlett: the rising part's length
  return fill(name, window_length, dtype, [&](int64_t n) {
    const double x = static_cast<double>(n);
    switch (kind) {
      case 'h': return alpha - beta * std::cos(2.0 * M_PI * x / m);
      case 'b': return 0.42 - 0.5 * std::cos(2.0 * M_PI * x / m) + 0.08 * std::cos(4.0 * M_PI * x / m);
      case 't': return n < first_half ? 2.0 * x / m : 2.0 - 2.0 * x / m;
      default: {
        const double r = (x - m / 2.0) / (m / 2.0);
        return bessel_i0(beta * std::sqrt(std::abs(1.0 - r * r))) / i0_beta;
      }
    }
  });
}

AtenTensorHandle cpu_fftfreq(int64_t n, double d, bool real_input, int32_t dtype) {
  const char* name = real_input ? "fft_rfftfreq" : "fft_fftfreq";
  const int64_t length = real_input ? n / 2 + 1 : n;  // C++ division, as torch's (rfftfreq(-3): empty)
  if (length < 0)
    fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "Trying to create tensor with negative dimension " +
                                                     std::to_string(length) + ": [" + std::to_string(length) + "]");
  const double scale = 1.0 / (static_cast<double>(n) * d);
  if (real_input) return fill(name, length, dtype, [&](int64_t k) { return static_cast<double>(k) * scale; });
  const int64_t positive = (n + 1) / 2;  // 0 .. (n - 1) / 2, then -(n / 2) .. -1
  return fill(name, n, dtype, [&](int64_t k) { return static_cast<double>(k < positive ? k : k - n) * scale; });
}

}  // namespace shimgen::rt::proxy_ops
