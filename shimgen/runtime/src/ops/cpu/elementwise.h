// What the CPU elementwise fallbacks share (abs, mul_Tensor, polar, complex: inductor generates real
// elementwise kernels itself and falls back only for complex tensors): the metadata rules of
// ../elementwise_rules.h (broadcasting, output layout, dtypes; the CUDA ops use them too), a walk over
// N broadcast operands, complex element access. Nothing here is exported.
#pragma once

#include <complex>

#include "../elementwise_rules.h"
#include "cpu_op.h"

namespace shimgen::rt::cpu::elementwise {

using rules::broadcast_shape;
using rules::broadcast_strides;
using rules::is_complex;
using rules::output_strides;

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

// Element at of a complex64/128 or real tensor (any real dtype), as complex<double>.
inline std::complex<double> read_complex(const Tensor& t, int64_t at) {
  switch (t.dtype) {
    case kComplex64: {
      const auto v = reinterpret_cast<const std::complex<float>*>(t.data())[at];
      return {v.real(), v.imag()};
    }
    case kComplex128: return reinterpret_cast<const std::complex<double>*>(t.data())[at];
    case kFloat32: return {reinterpret_cast<const float*>(t.data())[at], 0.0};
    case kFloat64: return {reinterpret_cast<const double*>(t.data())[at], 0.0};
    default: {  // the other real dtypes (a Python int beside a complex tensor arrives as a 0-d int64)
      double v = 0.0;
      dispatch_real(t.dtype, "complex arithmetic", [&](auto x) {
        v = static_cast<double>(value_of(reinterpret_cast<const decltype(x)*>(t.data())[at]));
      });
      return {v, 0.0};
    }
  }
}

inline void write_complex(const Tensor& t, int64_t at, std::complex<double> v) {
  if (t.dtype == kComplex64)
    reinterpret_cast<std::complex<float>*>(t.data())[at] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  else reinterpret_cast<std::complex<double>*>(t.data())[at] = v;
}

// The result dtype of a binary op with a complex operand (add, sub, div, pow), by mul's rule
// (rules::mul_dtype: complex128 when an operand that sets the width is 64-bit, 0-d operands only
// raising the category), the other operand any real dtype (a Python int arrives as a 0-d int64);
// errors name `op`.
inline int32_t complex_binary_dtype(const Tensor& a, const Tensor& b, const char* op) {
  for (const Tensor* t : {&a, &b})
    if (!is_complex(t->dtype)) dispatch_real(t->dtype, op, [](auto) {});  // any real dtype beside a complex one
  if (!is_complex(a.dtype) && !is_complex(b.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) +
                                                ": only calls with a complex operand are served "
                                                "(inductor generates the real ones itself)");
  std::vector<const Tensor*> leading;  // torch's promotion: dimensioned operands set the width
  for (const Tensor* t : {&a, &b})
    if (!t->sizes.empty()) leading.push_back(t);
  if (leading.empty()) leading = {&a, &b};
  bool wide = false;
  for (const Tensor* t : leading) wide |= t->dtype == kComplex128 || t->dtype == kFloat64;
  return wide ? kComplex128 : kComplex64;
}

// A complex tensor made from two real ones of one float dtype, broadcast (torch.complex, torch.polar):
// float32 gives complex64, float64 complex128; f(a, b) gives each element. `op`, `a_name`, `b_name`
// name the operands in errors.
template <class F> std::unique_ptr<Tensor> complex_from_reals(const Tensor& a, const Tensor& b, const char* op,
                                                              const char* a_name, const char* b_name, F f) {
  const int32_t type = rules::from_reals_dtype(a, b, op, a_name, b_name);
  const std::vector<int64_t> sizes = broadcast_shape(a.sizes, b.sizes);
  const std::vector<int64_t> sa = broadcast_strides(a, sizes), sb = broadcast_strides(b, sizes);
  auto out = empty_tensor(sizes, output_strides(sizes, {&a, &b}), type, kCPU, -1);
  const std::vector<int64_t>* strides[3] = {&out->strides, &sa, &sb};
  for_each(sizes, strides, [&](const int64_t* at) {
    write_complex(*out, at[0], f(read_complex(a, at[1]).real(), read_complex(b, at[2]).real()));
  });
  return out;
}

}  // namespace shimgen::rt::cpu::elementwise
