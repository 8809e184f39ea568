// The scans along a dim on the device (cumsum, cumprod, logcumsumexp, cummax, cummin: ops/cuda/
// <op>.cu): one thread per line, walking it in order, so every line accumulates exactly as the CPU
// ops do (and in torch's accumulation types: float for the 16-bit floats, int64 for integers).
// Models scan short lines (positions, masks, running extremes) over many rows, which this keeps
// busy; a single very long line runs on one thread. Results are new contiguous tensors.
// CUDA builds only; nothing here is exported.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "strided.cuh"

namespace shimgen::rt::cuda_ops {

// The lines of `sizes` along dim: `count` lines of `length` elements, element i of a line at
// base + i * step[t] in tensor t.
template <int N> struct Lines {
  Strided<N> walk;
  int64_t count = 0;
  int64_t length = 0;
  int64_t step[N] = {};
};

template <int N>
Lines<N> lines_of(const std::vector<int64_t>& sizes, int64_t dim, const std::array<const int64_t*, N>& strides) {
  Lines<N> l;
  const bool scalar = sizes.empty();
  l.walk = strided<N>(sizes, strides, scalar ? -1 : dim);
  l.length = scalar ? 1 : sizes[static_cast<size_t>(dim)];
  l.count = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (static_cast<int64_t>(d) != dim) l.count *= sizes[d];
  }
  for (int t = 0; t < N; ++t) l.step[t] = scalar ? 0 : strides[t][dim];
  if (l.length == 0) l.count = 0;
  return l;
}

// In -> Out as torch's .to(): through float for the 16-bit floats, 0/1 for bool.
template <typename Out, typename In> __device__ inline Out convert(In x) {
  return store_as<Out>(load_as<acc_of_t<In>>(x));
}

// The running accumulator of Out: int64 for integers, float for the 16-bit floats.
template <typename Out> using scan_acc_t = std::conditional_t<std::is_integral_v<Out>, int64_t, acc_of_t<Out>>;

struct AddOp {
  template <typename A> __device__ A start() const { return A(0); }
  template <typename A> __device__ A operator()(A acc, A x) const { return static_cast<A>(acc + x); }
};
struct MulOp {
  template <typename A> __device__ A start() const { return A(1); }
  template <typename A> __device__ A operator()(A acc, A x) const { return static_cast<A>(acc * x); }
};
// torch's log-add-exp recurrence: log1p(exp(min - max)) + max; equal infinities stay; NaN sticks.
struct LogAddExpOp {
  template <typename A> __device__ A start() const { return -INFINITY; }
  template <typename A> __device__ A operator()(A acc, A x) const {
    const A lo = acc != acc ? acc : (x < acc ? x : acc);
    const A hi = acc != acc ? acc : (x < acc ? acc : x);
    if (lo != hi || isfinite(lo)) return log1p(exp(lo - hi)) + hi;
    return x;
  }
};

// out[i] = op(out[i - 1], in[i]) along each line, in Out's accumulation type.
template <typename In, typename Out, typename Op>
__global__ void scan_kernel(const In* in, Out* out, Lines<2> lines, Op op) {
  using A = scan_acc_t<Out>;
  SHIMGEN_GRID_STRIDE_LOOP(line, lines.count) {
    int64_t base[2];
    lines.walk.offsets(line, base);
    A acc = op.template start<A>();
    for (int64_t i = 0; i < lines.length; ++i) {
      acc = op(acc, load_as<A>(convert<Out>(in[base[0] + i * lines.step[0]])));
      out[base[1] + i * lines.step[1]] = store_as<Out>(acc);
    }
  }
}

// Running maximum (max) or minimum and its index, torch's rule: x replaces the running value when x
// is NaN, or when the running value is not NaN and x >= it (max; <= for min): ties take the later
// index, and once NaN every later NaN takes its index.
template <typename T>
__global__ void extreme_kernel(const T* in, T* values, int64_t* indices, Lines<3> lines, bool max) {
  using A = acc_of_t<T>;
  SHIMGEN_GRID_STRIDE_LOOP(line, lines.count) {
    int64_t base[3];
    lines.walk.offsets(line, base);
    T best = in[base[0]];
    int64_t at = 0;
    for (int64_t i = 0; i < lines.length; ++i) {
      const T x = in[base[0] + i * lines.step[0]];
      const A xa = load_as<A>(x), ba = load_as<A>(best);
      if (is_nan(xa) || (!is_nan(ba) && (max ? xa >= ba : xa <= ba))) {
        best = x;
        at = i;
      }
      values[base[1] + i * lines.step[1]] = best;
      indices[base[2] + i * lines.step[2]] = at;
    }
  }
}

// A new contiguous result of self's sizes.
inline void empty_like_sizes(Owned& into, const Tensor& t, int32_t dtype) {
  empty(into, t.sizes, {}, dtype, kCUDA, t.storage->device_index);
}

// cumsum / cumprod / logcumsumexp: a new contiguous tensor of out_dtype. kFloatingOnly (logcumsumexp):
// floating self, out_dtype self's.
template <bool kFloatingOnly, typename Op>
void scan_to_new(const Tensor& t, int64_t dim, int32_t out_dtype, Op op, const char* what, AtenTensorHandle* ret0) {
  SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
  const int64_t d = wrap_dim(dim, t.sizes.size());
  const int32_t device = t.storage->device_index;
  Owned out;
  empty_like_sizes(out, t, out_dtype);
  const Lines<2> lines = lines_of<2>(t.sizes, d, {t.strides.data(), out.get()->strides.data()});
  DeviceScope scope(device);
  cudaStream_t stream = stream_of(device);
  auto launch = [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    if (lines.count == 0) return;
    scan_kernel<In, Out, Op><<<grid_for(lines.count), 256, 0, stream>>>(
        reinterpret_cast<const In*>(t.data()), reinterpret_cast<Out*>(out.get()->data()), lines, op);
    check_cuda(cudaGetLastError(), "scan kernel launch");
  };
  if constexpr (kFloatingOnly) {
    dispatch_floating_all(t.dtype, what, [&](auto tag) { launch(tag, tag); });
  } else {
    dispatch_real(t.dtype, what, [&](auto in_tag) {
      dispatch_real(out_dtype, what, [&](auto out_tag) {
        using In = decltype(in_tag);
        using Out = decltype(out_tag);
        constexpr bool allowed = std::is_same_v<In, Out> || std::is_same_v<Out, int64_t> ||
                                 std::is_same_v<Out, float> || std::is_same_v<Out, double>;
        if constexpr (allowed) {
          launch(in_tag, out_tag);
        } else {
          fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(what) + " from dtype code " + str(t.dtype) +
                                                      " to dtype code " + str(out_dtype) + " is not supported");
        }
      });
    });
  }
  *ret0 = out.release();
}

// cummax / cummin: values (self's dtype) and int64 indices, new contiguous tensors.
inline void cumulative_extreme(AtenTensorHandle self, int64_t dim, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
                               bool max, const char* what) {
  const Tensor& t = cuda_arg(self, "self");
  SHIMGEN_REQUIRE(ret0 != nullptr && ret1 != nullptr, "ret0 or ret1 is null");
  const int64_t d = wrap_dim(dim, t.sizes.size());
  Owned values, indices;
  empty_like_sizes(values, t, t.dtype);
  empty_like_sizes(indices, t, kInt64);
  const Lines<3> lines =
      lines_of<3>(t.sizes, d, {t.strides.data(), values.get()->strides.data(), indices.get()->strides.data()});
  const int32_t device = t.storage->device_index;
  DeviceScope scope(device);
  cudaStream_t stream = stream_of(device);
  dispatch_real(t.dtype, what, [&](auto tag) {
    using T = decltype(tag);
    if (lines.count > 0) {
      extreme_kernel<T><<<grid_for(lines.count), 256, 0, stream>>>(
          reinterpret_cast<const T*>(t.data()), reinterpret_cast<T*>(values.get()->data()),
          reinterpret_cast<int64_t*>(indices.get()->data()), lines, max);
      check_cuda(cudaGetLastError(), "scan kernel launch");
    }
  });
  *ret0 = values.release();
  *ret1 = indices.release();
}

}  // namespace shimgen::rt::cuda_ops
