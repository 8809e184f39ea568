// What the elementwise fallbacks share (abs, mul_Tensor, polar, complex: inductor generates real
// elementwise kernels itself and falls back only for complex tensors): broadcasting, torch's
// elementwise output layout, a walk over N broadcast operands, complex element access. Nothing here
// is exported.
#pragma once

#include <complex>

#include "cpu_op.h"

namespace shimgen::rt::cpu::elementwise {

// torch's broadcast of two shapes (right-aligned; 1 stretches).
inline std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    SHIMGEN_REQUIRE(x == y || x == 1 || y == 1, "shapes do not broadcast (size " + std::to_string(x) + " against " +
                                                    std::to_string(y) + " at dim " + std::to_string(i) + ")");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// t's strides seen at `sizes` (rank-aligned, 0 where t broadcasts).
inline std::vector<int64_t> broadcast_strides(const Tensor& t, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size(), 0);
  const size_t lead = sizes.size() - t.sizes.size();
  for (size_t i = 0; i < t.sizes.size(); ++i) s[lead + i] = t.sizes[i] == 1 ? 0 : t.strides[i];
  return s;
}

// The output layout of an elementwise op (torch's elementwise_meta, for the cases models meet): the
// layout of the first operand that has the output's shape, made dense; else contiguous.
inline std::vector<int64_t> output_strides(const std::vector<int64_t>& sizes, std::initializer_list<const Tensor*> in) {
  for (const Tensor* t : in)
    if (t->sizes == sizes) return dense_strides_like(sizes, t->strides);
  return contiguous_strides_of(sizes);
}

// f(offsets) for every element of `sizes` in row-major order; offsets[i] into operand i (strides[i]).
template <size_t N, class F>
void for_each(const std::vector<int64_t>& sizes, const std::vector<int64_t>* const (&strides)[N], F&& f) {
  if (sizes.empty()) {
    int64_t zero[N] = {};
    f(static_cast<const int64_t*>(zero));
    return;
  }
  const int64_t last = static_cast<int64_t>(sizes.size()) - 1;
  const int64_t n = sizes.back();
  for_each_line(sizes, last, strides, [&](const int64_t* base) {
    int64_t at[N];
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < N; ++k) at[k] = base[k] + i * (*strides[k])[static_cast<size_t>(last)];
      f(static_cast<const int64_t*>(at));
    }
  });
}

// Element at of a complex64/128 or real float32/64 tensor, as complex<double>.
inline std::complex<double> read_complex(const Tensor& t, int64_t at) {
  switch (t.dtype) {
    case kComplex64: {
      const auto v = reinterpret_cast<const std::complex<float>*>(t.data())[at];
      return {v.real(), v.imag()};
    }
    case kComplex128: return reinterpret_cast<const std::complex<double>*>(t.data())[at];
    case kFloat32: return {reinterpret_cast<const float*>(t.data())[at], 0.0};
    case kFloat64: return {reinterpret_cast<const double*>(t.data())[at], 0.0};
    default: fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dtype code " + std::to_string(t.dtype) + " is not supported");
  }
}

inline void write_complex(const Tensor& t, int64_t at, std::complex<double> v) {
  if (t.dtype == kComplex64)
    reinterpret_cast<std::complex<float>*>(t.data())[at] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  else
    reinterpret_cast<std::complex<double>*>(t.data())[at] = v;
}

// Whether a dtype is one of the complex types these ops take.
inline bool is_complex(int32_t dtype) { return dtype == kComplex64 || dtype == kComplex128; }

// A complex tensor made from two real ones of one float dtype, broadcast (torch.complex, torch.polar):
// float32 gives complex64, float64 complex128; f(a, b) gives each element. `op`, `a_name`, `b_name`
// name the operands in errors.
template <class F>
std::unique_ptr<Tensor> complex_from_reals(const Tensor& a, const Tensor& b, const char* op, const char* a_name,
                                           const char* b_name, F f) {
  SHIMGEN_REQUIRE(a.dtype == b.dtype, std::string(op) + ": expected " + a_name + " and " + b_name +
                                          " to have the same dtype");
  if (a.dtype != kFloat32 && a.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": dtype code " + std::to_string(a.dtype) +
                                                " is not float32/64");
  const std::vector<int64_t> sizes = broadcast_shape(a.sizes, b.sizes);
  const std::vector<int64_t> sa = broadcast_strides(a, sizes), sb = broadcast_strides(b, sizes);
  auto out = empty_tensor(sizes, output_strides(sizes, {&a, &b}), a.dtype == kFloat64 ? kComplex128 : kComplex64,
                          kCPU, -1);
  const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
  for_each(sizes, strides, [&](const int64_t* at) {
    write_complex(*out, at[0], f(read_complex(a, at[1]).real(), read_complex(b, at[2]).real()));
  });
  return out;
}

}  // namespace shimgen::rt::cpu::elementwise
