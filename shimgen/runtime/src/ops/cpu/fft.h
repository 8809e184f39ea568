// What the FFT ops (_fft_c2c.cpp, _fft_r2c.cpp and the proxy executor's _fft_c2r) share: complex
// element access, torch's output layout for a transform (its meta function's _exec_fft), loading a
// tensor into a row-major double-precision buffer, a 1-D DFT along one dim of that buffer, and the
// store. Transforms are direct DFTs in double precision (torch's pocketfft rounds in float for
// complex64; the two agree to float rounding), radix-2 where the length is a power of two.
// Nothing here is exported.
#pragma once

#include <algorithm>
#include <complex>
#include <numeric>

#include "cpu_op.h"

namespace shimgen::rt::cpu::fft {

using cd = std::complex<double>;

inline bool is_complex(int32_t dtype) { return dtype == kComplex64 || dtype == kComplex128; }
inline int32_t complex_of(int32_t real) { return real == kFloat64 ? kComplex128 : kComplex64; }
inline int32_t real_of(int32_t complex) { return complex == kComplex128 ? kFloat64 : kFloat32; }

// torch's fft_norm_mode: 0 none, 1 by_root_n, 2 by_n; n is the product of the signal sizes.
inline double scale(int64_t normalization, double n) {
  SHIMGEN_REQUIRE(normalization >= 0 && normalization <= 2, "normalization must be 0, 1 or 2");
  if (normalization == 0 || n == 0) return 1.0;
  return normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

// The transformed dims made non-negative, checked to be distinct.
inline std::vector<int64_t> wrapped_dims(const int64_t* dim, int64_t dim_len, int64_t rank) {
  SHIMGEN_REQUIRE(dim_len >= 0 && (dim != nullptr || dim_len == 0), "dim is null");
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < dim_len; ++i) {
    const int64_t d = wrap_dim(dim[i], rank, "dim");
    SHIMGEN_REQUIRE(std::find(dims.begin(), dims.end(), d) == dims.end(), "dims must be distinct");
    dims.push_back(d);
  }
  return dims;
}

// torch's _sort_dims: the dims ordered by the input's stride, largest first (stable); exclude_last
// keeps the last dim last (r2c, whose last dim is the halved one).
inline std::vector<int64_t> sort_dims(std::vector<int64_t> dims, const std::vector<int64_t>& strides,
                                      bool exclude_last) {
  const auto end = dims.end() - (exclude_last && !dims.empty() ? 1 : 0);
  std::stable_sort(dims.begin(), end, [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  return dims;
}

// The output strides torch's meta _exec_fft gives: dense, the batch dims (those not transformed)
// outermost in the input's stride order (largest first, stable), then the transformed dims in the
// order given, the last innermost.
inline std::vector<int64_t> exec_fft_strides(const std::vector<int64_t>& in_strides,
                                             const std::vector<int64_t>& out_sizes, const std::vector<int64_t>& dims) {
  const size_t rank = out_sizes.size();
  std::vector<int64_t> order;
  for (size_t d = 0; d < rank; ++d)
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) == dims.end())
      order.push_back(static_cast<int64_t>(d));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return in_strides[a] > in_strides[b]; });
  order.insert(order.end(), dims.begin(), dims.end());
  std::vector<int64_t> strides(rank, 1);
  int64_t step = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[static_cast<size_t>(order[i])] = step;
    step = checked_mul(step, std::max<int64_t>(out_sizes[static_cast<size_t>(order[i])], 1), "fft output size");
  }
  return strides;
}

// ---- Result layouts on CUDA (the host-staged ops/cuda/_fft_*.cu): torch's fake tensors on a CUDA
// device follow cuFFT's plan (torch/_meta_registrations.py, meta_fft_c2c / meta_fft_r2c), which
// transforms at most 3 dims per stage and restrides after each; inductor compiles against these. ----
constexpr size_t kCufftMaxDims = 3;

// The layout after staged transforms of `dims` from `strides`: each stage takes the (at most 3)
// dims with the smallest strides of the previous stage's layout and lays its result out as
// exec_fft_strides does.
inline std::vector<int64_t> staged_strides(std::vector<int64_t> strides, const std::vector<int64_t>& sizes,
                                           std::vector<int64_t> dims) {
  while (!dims.empty()) {
    std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
    const size_t take = std::min(kCufftMaxDims, dims.size());
    strides = exec_fft_strides(strides, sizes,
                               std::vector<int64_t>(dims.end() - static_cast<std::ptrdiff_t>(take), dims.end()));
    dims.resize(dims.size() - take);
  }
  return strides;
}

// _fft_c2c's result strides on CUDA (dims: wrapped; none: self's dense layout, as clone).
inline std::vector<int64_t> cuda_c2c_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                             const std::vector<int64_t>& dims) {
  return dims.empty() ? dense_strides_like(sizes, strides) : staged_strides(strides, sizes, dims);
}

// _fft_r2c's result strides on CUDA (dims: wrapped, not empty). cuFFT's one-plan path (at most 3
// dims, not starting [0, 1]) lays out every dim at once in the given order; otherwise the r2c of
// the last dim comes first, then c2c stages over the others, and a two-sided result that the
// stages left onesided is made contiguous.
inline std::vector<int64_t> cuda_r2c_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                             const std::vector<int64_t>& dims, bool onesided) {
  const auto last = static_cast<size_t>(dims.back());
  std::vector<int64_t> half = sizes;
  half[last] = sizes[last] / 2 + 1;
  const std::vector<int64_t>& out_sizes = onesided ? half : sizes;
  if (dims.size() <= kCufftMaxDims && !(dims.size() >= 2 && dims[0] == 0 && dims[1] == 1))
    return exec_fft_strides(strides, out_sizes, dims);
  if (!onesided && half[last] != sizes[last]) return contiguous_strides_of(sizes);
  const std::vector<int64_t> first = exec_fft_strides(strides, half, {dims.back()});
  return staged_strides(first, half, std::vector<int64_t>(dims.begin(), dims.end() - 1));
}

// The elements of t (complex64/128, or a real float32/64 as complex) in row-major order.
inline std::vector<cd> load(const Tensor& t) {
  std::vector<cd> buf;
  buf.reserve(static_cast<size_t>(t.numel()));
  switch (t.dtype) {
    case kComplex64: {
      const auto* p = reinterpret_cast<const std::complex<float>*>(t.data());
      for_each_element(t, [&](int64_t at) { buf.emplace_back(p[at].real(), p[at].imag()); });
      break;
    }
    case kComplex128: {
      const auto* p = reinterpret_cast<const cd*>(t.data());
      for_each_element(t, [&](int64_t at) { buf.push_back(p[at]); });
      break;
    }
    case kFloat32: {
      const auto* p = reinterpret_cast<const float*>(t.data());
      for_each_element(t, [&](int64_t at) { buf.emplace_back(p[at], 0.0); });
      break;
    }
    case kFloat64: {
      const auto* p = reinterpret_cast<const double*>(t.data());
      for_each_element(t, [&](int64_t at) { buf.emplace_back(p[at], 0.0); });
      break;
    }
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "fft: dtype code " + std::to_string(t.dtype) + " is not supported");
  }
  return buf;
}

// One line of length n, in place: X[k] = sum_j x[j] exp(sign 2 pi i j k / n).
inline void dft_line(std::vector<cd>& x, std::vector<cd>& tmp, const std::vector<cd>& twiddle, size_t n) {
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) {  // iterative radix-2
    for (size_t i = 1, j = 0; i < n; ++i) {
      size_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
      const size_t step = n / len;
      for (size_t i = 0; i < n; i += len)
        for (size_t k = 0; k < len / 2; ++k) {
          const cd u = x[i + k], v = x[i + k + len / 2] * twiddle[k * step];
          x[i + k] = u + v;
          x[i + k + len / 2] = u - v;
        }
    }
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    cd s = 0;
    for (size_t j = 0, w = 0; j < n; ++j, w = (w + k) % n) s += x[j] * twiddle[w];
    tmp[k] = s;
  }
  std::copy(tmp.begin(), tmp.begin() + static_cast<std::ptrdiff_t>(n), x.begin());
}

// The 1-D DFT along dim of a row-major buffer of `sizes` (forward: exp(-2 pi i ...)), in place.
inline void dft(std::vector<cd>& buf, const std::vector<int64_t>& sizes, int64_t dim, bool forward) {
  const size_t n = static_cast<size_t>(sizes[static_cast<size_t>(dim)]);
  size_t inner = 1, outer = 1;
  for (size_t d = static_cast<size_t>(dim) + 1; d < sizes.size(); ++d) inner *= static_cast<size_t>(sizes[d]);
  for (size_t d = 0; d < static_cast<size_t>(dim); ++d) outer *= static_cast<size_t>(sizes[d]);
  if (n == 0 || inner == 0 || outer == 0) return;
  std::vector<cd> twiddle(n), line(n), tmp(n);
  const double sign = forward ? -1.0 : 1.0;
  for (size_t k = 0; k < n; ++k)
    twiddle[k] = std::polar(1.0, sign * 6.283185307179586 * static_cast<double>(k) / static_cast<double>(n));
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      cd* base = buf.data() + o * n * inner + i;
      for (size_t j = 0; j < n; ++j) line[j] = base[j * inner];
      dft_line(line, tmp, twiddle, n);
      for (size_t j = 0; j < n; ++j) base[j * inner] = line[j];
    }
}

// out (complex64/128, or float32/64 taking the real part) = scale * buf, buf row-major of out's sizes.
inline void store(const std::vector<cd>& buf, const Tensor& out, double factor) {
  size_t i = 0;
  switch (out.dtype) {
    case kComplex64: {
      auto* p = reinterpret_cast<std::complex<float>*>(out.data());
      for_each_element(out, [&](int64_t at) {
        const cd v = buf[i++] * factor;
        p[at] = std::complex<float>(static_cast<float>(v.real()), static_cast<float>(v.imag()));
      });
      break;
    }
    case kComplex128: {
      auto* p = reinterpret_cast<cd*>(out.data());
      for_each_element(out, [&](int64_t at) { p[at] = buf[i++] * factor; });
      break;
    }
    case kFloat32: {
      auto* p = reinterpret_cast<float*>(out.data());
      for_each_element(out, [&](int64_t at) { p[at] = static_cast<float>(buf[i++].real() * factor); });
      break;
    }
    case kFloat64: {
      auto* p = reinterpret_cast<double*>(out.data());
      for_each_element(out, [&](int64_t at) { p[at] = buf[i++].real() * factor; });
      break;
    }
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "fft: dtype code " + std::to_string(out.dtype) + " is not supported");
  }
}

// A row-major buffer of `sizes` cut (or zero-padded) to `to` along dim.
inline std::vector<cd> resized(const std::vector<cd>& buf, const std::vector<int64_t>& sizes, int64_t dim, int64_t to) {
  const size_t n = static_cast<size_t>(sizes[static_cast<size_t>(dim)]), m = static_cast<size_t>(to);
  size_t inner = 1, outer = 1;
  for (size_t d = static_cast<size_t>(dim) + 1; d < sizes.size(); ++d) inner *= static_cast<size_t>(sizes[d]);
  for (size_t d = 0; d < static_cast<size_t>(dim); ++d) outer *= static_cast<size_t>(sizes[d]);
  std::vector<cd> out(outer * m * inner);
  for (size_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < std::min(n, m); ++j)
      for (size_t i = 0; i < inner; ++i) out[(o * m + j) * inner + i] = buf[(o * n + j) * inner + i];
  return out;
}

}  // namespace shimgen::rt::cpu::fft
