// The complex elementwise ops on the device (abs.cu, mul_Tensor.cu, polar.cu): one kernel that walks
// the broadcast output (strided.cuh), loads each operand as a (real, imaginary) pair in the result's
// precision (float for complex64/float32 results, double for the 128/64-bit ones, as torch's CUDA
// kernels compute) and stores what the op's functor makes of them. Shapes, layouts and dtypes come
// from ../elementwise_rules.h, the rules the CPU ops follow. An operand is a CUDA tensor on the
// result's device or a 0-d CPU tensor (scalar_to_tensor's, which torch lets join a CUDA op), passed
// to the kernel by value. CUDA builds only; nothing here is exported.
#pragma once

#include <complex>
#include <cstring>

#include "../elementwise_rules.h"
#include "op_support.cuh"
#include "strided.cuh"

namespace shimgen::rt::cuda_ops::complex_ew {

// One operand as the kernel sees it: device data of `dtype` (complex64/128, float32/64), or, when
// data is null, the value of a host scalar.
struct Operand {
  const char* data = nullptr;
  int32_t dtype = kFloat32;
  double re = 0.0, im = 0.0;
};

template <int N> struct Operands { Operand at[N]; };

template <typename R> __device__ inline void load(const Operand& o, int64_t i, R& re, R& im) {
  if (o.data == nullptr) {
    re = static_cast<R>(o.re);
    im = static_cast<R>(o.im);
    return;
  }
  switch (o.dtype) {
    case kComplex64: {
      const float2 v = reinterpret_cast<const float2*>(o.data)[i];
      re = static_cast<R>(v.x);
      im = static_cast<R>(v.y);
      return;
    }
    case kComplex128: {
      const double2 v = reinterpret_cast<const double2*>(o.data)[i];
      re = static_cast<R>(v.x);
      im = static_cast<R>(v.y);
      return;
    }
    case kFloat32: re = static_cast<R>(reinterpret_cast<const float*>(o.data)[i]); break;
    default: re = static_cast<R>(reinterpret_cast<const double*>(o.data)[i]); break;
  }
  im = R(0);
}

// out[k] = op(operands at k): Op::operator()(re[], im[], out_re, out_im); a real result (Complex false)
// stores out_re alone.
template <typename R, bool Complex, int N, typename Op>
__global__ void elementwise_kernel(Strided<N + 1> walk, int64_t total, R* out, Operands<N> in, Op op) {
  SHIMGEN_GRID_STRIDE_LOOP(k, total) {
    int64_t at[N + 1];
    walk.offsets(k, at);
    R re[N], im[N];
    for (int i = 0; i < N; ++i) load(in.at[i], at[i + 1], re[i], im[i]);
    R out_re, out_im;
    op(re, im, out_re, out_im);
    if constexpr (Complex) {
      out[2 * at[0]] = out_re;
      out[2 * at[0] + 1] = out_im;
    } else {
      out[at[0]] = out_re;
    }
  }
}

// A 0-d CPU operand's value as a (real, imaginary) pair.
inline Operand host_scalar(const Tensor& t) {
  Operand o;
  o.dtype = t.dtype;
  auto pair = [&](auto v) {  // v: a std::complex of the element's width
    std::memcpy(&v, t.data(), sizeof v);
    o.re = v.real();
    o.im = v.imag();
  };
  switch (t.dtype) {
    case kComplex64: pair(std::complex<float>{}); break;
    case kComplex128: pair(std::complex<double>{}); break;
    case kFloat32: o.re = *reinterpret_cast<const float*>(t.data()); break;
    default: o.re = *reinterpret_cast<const double*>(t.data()); break;
  }
  return o;
}

// The operands of one call: CUDA tensors on one device, or 0-d CPU tensors. Fixes the device.
template <int N> struct Call {
  const Tensor* t[N];
  int32_t device = -1;

  Call(const AtenTensorHandle (&handles)[N], const char* const (&names)[N]) {
    for (int i = 0; i < N; ++i) {
      t[i] = unwrap(handles[i], names[i]);
      const Storage& s = *t[i]->storage;
      if (s.device_type == kCUDA) {
        SHIMGEN_REQUIRE(device < 0 || s.device_index == device,
                        std::string("Expected all tensors to be on the same device, but ") + names[i] +
                            " is on cuda:" + str(s.device_index) + " and another operand on cuda:" + str(device));
        device = s.device_index;
      } else {
        SHIMGEN_REQUIRE(s.device_type == kCPU && t[i]->sizes.empty(),
                        std::string(names[i]) + " is not a CUDA tensor (nor a 0-d CPU scalar)");
      }
    }
    SHIMGEN_REQUIRE(device >= 0, "no operand is a CUDA tensor");
  }
};

// Runs Op over the broadcast of call's operands into a new tensor of `out_dtype` (complex64/128, or
// float32/64 for a real result) with torch's elementwise layout; the handle goes to *ret0.
template <bool Complex, int N, typename Op>
void launch(const Call<N>& call, int32_t out_dtype, Op op, AtenTensorHandle* ret0) {
  std::vector<int64_t> sizes = call.t[0]->sizes;
  for (int i = 1; i < N; ++i) sizes = rules::broadcast_shape(sizes, call.t[i]->sizes);
  std::vector<int64_t> out_strides;
  if constexpr (N == 1) out_strides = rules::output_strides(sizes, {call.t[0]});
  else out_strides = rules::output_strides(sizes, {call.t[0], call.t[1]});
  std::vector<int64_t> strides[N];
  std::array<const int64_t*, N + 1> walk_strides{};
  walk_strides[0] = out_strides.data();
  Operands<N> in;
  for (int i = 0; i < N; ++i) {
    strides[i] = rules::broadcast_strides(*call.t[i], sizes);
    walk_strides[static_cast<size_t>(i) + 1] = strides[i].data();
    in.at[i] = call.t[i]->storage->device_type == kCUDA ? Operand{call.t[i]->data(), call.t[i]->dtype}
                                                        : host_scalar(*call.t[i]);
  }
  const Strided<N + 1> walk = strided<N + 1>(sizes, walk_strides);
  Owned out;
  empty(out, sizes, out_strides, out_dtype, kCUDA, call.device);
  const int64_t total = out.get()->numel();
  if (total > 0) {
    DeviceScope scope(call.device);
    auto go = [&](auto precision) {
      using R = decltype(precision);
      elementwise_kernel<R, Complex, N><<<grid_for(total), 256, 0, stream_of(call.device)>>>(
          walk, total, reinterpret_cast<R*>(out.get()->data()), in, op);
      check_cuda(cudaGetLastError(), "complex elementwise kernel launch");
    };
    if (out_dtype == kComplex128 || out_dtype == kFloat64) go(double{});
    else go(float{});
  }
  *ret0 = out.release();
}

}  // namespace shimgen::rt::cuda_ops::complex_ew
