// The metadata rules of the complex elementwise fallbacks (abs, mul_Tensor, polar, complex), shared
// by the CPU ops (ops/cpu/elementwise.h) and the CUDA ones (ops/cuda/complex_elementwise.cuh):
// broadcasting, torch's elementwise output layout, and which dtypes go in and come out. Nothing here
// reads an element or is exported.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "../internal.h"

namespace shimgen::rt::rules {

// Whether a dtype is one of the complex types these ops take.
inline bool is_complex(int32_t dtype) { return dtype == kComplex64 || dtype == kComplex128; }

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

// abs: complex64/float32 give float32, complex128/float64 float64; else Unsupported.
inline int32_t abs_dtype(int32_t in) {
  switch (in) {
    case kComplex64:
    case kFloat32: return kFloat32;
    case kComplex128:
    case kFloat64: return kFloat64;
    default: fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "abs: dtype code " + std::to_string(in) + " is not supported");
  }
}

// mul with a complex operand (the other complex or float32/64): complex128 when an operand that sets
// the width is 64-bit, else complex64. torch's type promotion: 0-d operands (scalar_to_tensor's)
// count only when they raise the category (real -> complex), never the width; among operands of one
// priority, 64-bit wins.
inline int32_t mul_dtype(const Tensor& a, const Tensor& b) {
  for (const Tensor* t : {&a, &b})
    if (!is_complex(t->dtype) && t->dtype != kFloat32 && t->dtype != kFloat64)
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "mul: dtype code " + std::to_string(t->dtype) + " is not served (complex64/128, float32/64)");
  if (!is_complex(a.dtype) && !is_complex(b.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "mul: only products with a complex operand are served");
  std::vector<const Tensor*> leading;
  for (const Tensor* t : {&a, &b})
    if (!t->sizes.empty()) leading.push_back(t);
  if (leading.empty()) leading = {&a, &b};
  bool wide = false;
  for (const Tensor* t : leading) wide |= t->dtype == kComplex128 || t->dtype == kFloat64;
  return wide ? kComplex128 : kComplex64;
}

// A complex tensor made from two real ones (torch.complex, torch.polar): one float dtype for both,
// float32 giving complex64, float64 complex128. `op`, `a_name`, `b_name` name the operands in errors.
inline int32_t from_reals_dtype(const Tensor& a, const Tensor& b, const char* op, const char* a_name,
                                const char* b_name) {
  SHIMGEN_REQUIRE(a.dtype == b.dtype,
                  std::string(op) + ": expected " + a_name + " and " + b_name + " to have the same dtype");
  if (a.dtype != kFloat32 && a.dtype != kFloat64)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         std::string(op) + ": dtype code " + std::to_string(a.dtype) + " is not float32/64");
  return a.dtype == kFloat64 ? kComplex128 : kComplex64;
}

}  // namespace shimgen::rt::rules
