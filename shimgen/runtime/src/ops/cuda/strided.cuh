// Device-side indexing and conversions shared by the CUDA ops that walk strided tensors element by
// element or line by line (scatter*, the scans, pdist). CUDA builds only; nothing here is exported.
#pragma once

#include <array>
#include <type_traits>
#include <vector>

#include "op_support.cuh"

namespace shimgen::rt::cuda_ops {

constexpr int kMaxDims = 12;

// A row-major walk over `sizes` mapped to element offsets in N tensors (one stride list each),
// passed to kernels by value. Dims of size 1 are dropped (their coordinate is always 0).
template <int N> struct Strided {
  int rank = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};

  // Element offsets of the row-major position `linear` (0 <= linear < product of sizes).
  __device__ void offsets(int64_t linear, int64_t (&out)[N]) const {
    for (int t = 0; t < N; ++t) out[t] = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = linear % sizes[d];
      linear /= sizes[d];
      for (int t = 0; t < N; ++t) out[t] += c * strides[t][d];
    }
  }
};

// The walk over `sizes` without dim `skip` (-1: none), each of `strides` read for the same dims.
template <int N>
Strided<N> strided(const std::vector<int64_t>& sizes, const std::array<const int64_t*, N>& strides, int64_t skip = -1) {
  Strided<N> s;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (static_cast<int64_t>(d) == skip || sizes[d] == 1) continue;
    if (s.rank == kMaxDims) {
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
           "tensors of more than " + str(kMaxDims) + " non-unit dims are not supported");
    }
    s.sizes[s.rank] = sizes[d];
    for (int t = 0; t < N; ++t) s.strides[t][s.rank] = strides[t][d];
    ++s.rank;
  }
  return s;
}

// Row-major (contiguous) strides of `sizes`.
inline std::vector<int64_t> row_major(const std::vector<int64_t>& sizes) { return contiguous_strides_of(sizes); }

// The arithmetic type a dtype accumulates in on the device: float for the 16-bit floats.
template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<__half> { using type = float; };
template <> struct AccOf<__nv_bfloat16> { using type = float; };
template <> struct AccOf<bool> { using type = int64_t; };
template <typename T> using acc_of_t = typename AccOf<T>::type;

template <typename T> constexpr bool is_16bit_float_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename A, typename T> __device__ inline A load_as(T v) {
  if constexpr (is_16bit_float_v<T>) return static_cast<A>(to_float(v));
  else if constexpr (std::is_same_v<T, bool>) return static_cast<A>(v ? 1 : 0);
  else return static_cast<A>(v);
}

template <typename T, typename A> __device__ inline T store_as(A v) {
  if constexpr (is_16bit_float_v<T>) return from_float<T>(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>) return v != A(0);
  else return static_cast<T>(v);
}

template <typename A> __device__ inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) return v != v;
  else return false;
}

// Calls fn(T{}) with T the C++ type of a real dtype (the floats, the integers, bool).
template <typename Fn> void dispatch_real(int32_t dtype, const char* what, Fn&& fn) {
  switch (dtype) {
    case kFloat32: fn(float{}); return;
    case kFloat16: fn(__half{}); return;
    case kBFloat16: fn(__nv_bfloat16{}); return;
    case kFloat64: fn(double{}); return;
    case kInt64: fn(int64_t{}); return;
    case kInt32: fn(int32_t{}); return;
    case kInt16: fn(int16_t{}); return;
    case kInt8: fn(int8_t{}); return;
    case kUInt8: fn(uint8_t{}); return;
    case kBool: fn(bool{}); return;
    default:
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(what) + " of dtype code " + str(dtype) + " is not supported");
  }
}

// Calls fn(T{}) with T the C++ type of a floating dtype, float64 included.
template <typename Fn> void dispatch_floating_all(int32_t dtype, const char* what, Fn&& fn) {
  if (dtype == kFloat64) fn(double{});
  else dispatch_floating(dtype, what, fn);
}

inline bool integral(int32_t dtype) {
  return dtype == kInt64 || dtype == kInt32 || dtype == kInt16 || dtype == kInt8 || dtype == kUInt8 || dtype == kBool;
}

}  // namespace shimgen::rt::cuda_ops
