// aoti_torch_cpu_convolution: 1-, 2- and 3-D convolution (groups, stride, padding, dilation, bias),
// as im2col + one BLAS GEMM per (image, group); transposed convolution as one GEMM + col2im per
// (image, group); bfloat16/float16 computed in float32 and rounded once. See shim_cpu_ops.h.
//
// Every spatial problem is run as 3-D (a 1-D or 2-D one gets leading size-1 dimensions), so one
// code path covers them all.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cpu {
namespace {

constexpr size_t kSpatial = 3;
using Dims = std::array<int64_t, kSpatial>;

// stride/padding/dilation: one value for every dimension or one each (PyTorch expands a single value).
Dims param(const int64_t* values, int64_t len, size_t spatial, int64_t fill, int64_t minimum, const char* name) {
  SHIMGEN_REQUIRE(len == 1 || len == static_cast<int64_t>(spatial), std::string(name) + " has " + std::to_string(len) +
                                                                        " values for a " + std::to_string(spatial) +
                                                                        "-d convolution");
  SHIMGEN_REQUIRE(values != nullptr, std::string(name) + " is null");
  Dims out{fill, fill, fill};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t v = values[len == 1 ? 0 : i];
    SHIMGEN_REQUIRE(v >= minimum,
                    std::string(name) + " value " + std::to_string(v) + " is below " + std::to_string(minimum));
    out[kSpatial - spatial + i] = v;
  }
  return out;
}

// Sizes or strides of an [N, C, *spatial] tensor as a 3-D problem's (leading spatial dims filled).
std::vector<int64_t> lift3(const std::vector<int64_t>& v, int64_t fill, size_t spatial) {
  std::vector<int64_t> r{v[0], v[1]};
  for (size_t i = 0; i < kSpatial - spatial; ++i) r.push_back(fill);
  for (size_t i = 2; i < v.size(); ++i) r.push_back(v[i]);
  return r;
}

template <typename T> void convolve(const Tensor& input, const Tensor& weight, const Tensor* bias, const Tensor& out,
                                    const Dims& stride, const Dims& padding, const Dims& dilation, int64_t groups,
                                    size_t spatial) {
  // Sizes and strides as 3-D problems.
  auto lift = [&](const std::vector<int64_t>& v, int64_t fill) { return lift3(v, fill, spatial); };
  const std::vector<int64_t> is = lift(input.sizes, 1), ist = lift(input.strides, 0);
  const std::vector<int64_t> ws = lift(weight.sizes, 1), wst = lift(weight.strides, 0);
  const std::vector<int64_t> os = lift(out.sizes, 1), ost = lift(out.strides, 0);
  const int64_t batch = is[0], in_per_group = ws[1], out_channels = ws[0], out_per_group = out_channels / groups;
  const Dims in{is[2], is[3], is[4]}, k{ws[2], ws[3], ws[4]}, o{os[2], os[3], os[4]};
  const int64_t kernel = k[0] * k[1] * k[2], positions = o[0] * o[1] * o[2], depth = in_per_group * kernel;

  // The weight as a dense [out_channels, depth] matrix (its own strides may be channels-last).
  std::vector<T> w(static_cast<size_t>(out_channels * depth));
  const T* wp = reinterpret_cast<const T*>(weight.data());
  for (int64_t oc = 0; oc < out_channels; ++oc)
    for (int64_t c = 0; c < in_per_group; ++c)
      for (int64_t a = 0; a < k[0]; ++a)
        for (int64_t b = 0; b < k[1]; ++b)
          for (int64_t e = 0; e < k[2]; ++e)
            w[static_cast<size_t>(oc * depth + ((c * k[0] + a) * k[1] + b) * k[2] + e)] =
                wp[oc * wst[0] + c * wst[1] + a * wst[2] + b * wst[3] + e * wst[4]];

  std::vector<T> col(static_cast<size_t>(depth * positions));
  std::vector<T> result(static_cast<size_t>(out_per_group * positions));
  const T* ip = reinterpret_cast<const T*>(input.data());
  T* op = reinterpret_cast<T*>(out.data());
  const T* bp = bias ? reinterpret_cast<const T*>(bias->data()) : nullptr;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < groups; ++g) {
      // im2col: row (c, a, b, e) holds the input value each output position sees through that tap.
      for (int64_t c = 0; c < in_per_group; ++c) {
        const T* plane = ip + n * ist[0] + (g * in_per_group + c) * ist[1];
        for (int64_t a = 0; a < k[0]; ++a)
          for (int64_t b = 0; b < k[1]; ++b)
            for (int64_t e = 0; e < k[2]; ++e) {
              T* row = col.data() + (((c * k[0] + a) * k[1] + b) * k[2] + e) * positions;
              for (int64_t x = 0; x < o[0]; ++x) {
                const int64_t px = x * stride[0] - padding[0] + a * dilation[0];
                for (int64_t y = 0; y < o[1]; ++y) {
                  const int64_t py = y * stride[1] - padding[1] + b * dilation[1];
                  T* dst = row + (x * o[1] + y) * o[2];
                  const bool inside = px >= 0 && px < in[0] && py >= 0 && py < in[1];
                  for (int64_t z = 0; z < o[2]; ++z) {
                    const int64_t pz = z * stride[2] - padding[2] + e * dilation[2];
                    dst[z] = inside && pz >= 0 && pz < in[2] ? plane[px * ist[2] + py * ist[3] + pz * ist[4]] : T(0);
                  }
                }
              }
            }
      }
      gemm(Matrix<const T>{w.data() + g * out_per_group * depth, out_per_group, depth, depth, 1},
           Matrix<const T>{col.data(), depth, positions, positions, 1},
           Matrix<T>{result.data(), out_per_group, positions, positions, 1}, T(1), T(0));
      // Scatter into out with its own strides (channels-last or contiguous), adding the bias.
      for (int64_t oc = 0; oc < out_per_group; ++oc) {
        const int64_t channel = g * out_per_group + oc;
        const T add = bp ? bp[channel * bias->strides[0]] : T(0);
        T* dst = op + n * ost[0] + channel * ost[1];
        const T* src = result.data() + oc * positions;
        for (int64_t x = 0; x < o[0]; ++x)
          for (int64_t y = 0; y < o[1]; ++y)
            for (int64_t z = 0; z < o[2]; ++z)
              dst[x * ost[2] + y * ost[3] + z * ost[4]] = src[(x * o[1] + y) * o[2] + z] + add;
      }
    }
  }
}

// Transposed convolution (ConvTranspose1d/2d/3d: decoders, vocoders, U-Net up-paths): weight
// [C_in, C_out / groups, *k]. Per (image, group) one GEMM, col = W_g^T @ X_g ([C_out_g * taps,
// input positions]), then col2im: tap (a, b, e) of input position (x, y, z) adds into output
// position x * stride - padding + a * dilation (and likewise per dim), then the bias.
template <typename T> void convolve_transposed(const Tensor& input, const Tensor& weight, const Tensor* bias,
                                               const Tensor& out, const Dims& stride, const Dims& padding,
                                               const Dims& dilation, int64_t groups, size_t spatial) {
  auto lift = [&](const std::vector<int64_t>& v, int64_t fill) { return lift3(v, fill, spatial); };
  const std::vector<int64_t> is = lift(input.sizes, 1), ist = lift(input.strides, 0);
  const std::vector<int64_t> ws = lift(weight.sizes, 1), wst = lift(weight.strides, 0);
  const std::vector<int64_t> os = lift(out.sizes, 1), ost = lift(out.strides, 0);
  const int64_t batch = is[0], in_per_group = is[1] / groups, out_per_group = ws[1];
  const Dims in{is[2], is[3], is[4]}, k{ws[2], ws[3], ws[4]}, o{os[2], os[3], os[4]};
  const int64_t kernel = k[0] * k[1] * k[2], positions = in[0] * in[1] * in[2], rows = out_per_group * kernel;
  // Per group, the weight as a dense [C_in_g, C_out_g * taps] matrix, and the input as [C_in_g, positions].
  std::vector<T> w(static_cast<size_t>(ws[0] * rows));
  const T* wp = reinterpret_cast<const T*>(weight.data());
  for (int64_t ic = 0; ic < ws[0]; ++ic)
    for (int64_t oc = 0; oc < out_per_group; ++oc)
      for (int64_t a = 0; a < k[0]; ++a)
        for (int64_t b = 0; b < k[1]; ++b)
          for (int64_t e = 0; e < k[2]; ++e)
            w[static_cast<size_t>(ic * rows + ((oc * k[0] + a) * k[1] + b) * k[2] + e)] =
                wp[ic * wst[0] + oc * wst[1] + a * wst[2] + b * wst[3] + e * wst[4]];
  std::vector<T> x(static_cast<size_t>(in_per_group * positions)), col(static_cast<size_t>(rows * positions));
  std::vector<T> acc(static_cast<size_t>(out_per_group * o[0] * o[1] * o[2]));
  const T* ip = reinterpret_cast<const T*>(input.data());
  T* op = reinterpret_cast<T*>(out.data());
  const T* bp = bias ? reinterpret_cast<const T*>(bias->data()) : nullptr;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t c = 0; c < in_per_group; ++c)
        for (int64_t p = 0; p < positions; ++p) {
          const int64_t xx = p / (in[1] * in[2]), yy = (p / in[2]) % in[1], zz = p % in[2];
          x[static_cast<size_t>(c * positions + p)] =
              ip[n * ist[0] + (g * in_per_group + c) * ist[1] + xx * ist[2] + yy * ist[3] + zz * ist[4]];
        }
      gemm(Matrix<const T>{w.data() + g * in_per_group * rows, in_per_group, rows, rows, 1}.transposed(),
           Matrix<const T>{x.data(), in_per_group, positions, positions, 1},
           Matrix<T>{col.data(), rows, positions, positions, 1}, T(1), T(0));
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t oc = 0; oc < out_per_group; ++oc)
        for (int64_t a = 0; a < k[0]; ++a)
          for (int64_t b = 0; b < k[1]; ++b)
            for (int64_t e = 0; e < k[2]; ++e) {
              const T* row = col.data() + (((oc * k[0] + a) * k[1] + b) * k[2] + e) * positions;
              for (int64_t xx = 0; xx < in[0]; ++xx) {
                const int64_t px = xx * stride[0] - padding[0] + a * dilation[0];
                if (px < 0 || px >= o[0]) continue;
                for (int64_t yy = 0; yy < in[1]; ++yy) {
                  const int64_t py = yy * stride[1] - padding[1] + b * dilation[1];
                  if (py < 0 || py >= o[1]) continue;
                  for (int64_t zz = 0; zz < in[2]; ++zz) {
                    const int64_t pz = zz * stride[2] - padding[2] + e * dilation[2];
                    if (pz < 0 || pz >= o[2]) continue;
                    acc[static_cast<size_t>(((oc * o[0] + px) * o[1] + py) * o[2] + pz)] +=
                        row[(xx * in[1] + yy) * in[2] + zz];
                  }
                }
              }
            }
      for (int64_t oc = 0; oc < out_per_group; ++oc) {
        const int64_t channel = g * out_per_group + oc;
        const T add = bp ? bp[channel * bias->strides[0]] : T(0);
        T* dst = op + n * ost[0] + channel * ost[1];
        for (int64_t xx = 0; xx < o[0]; ++xx)
          for (int64_t yy = 0; yy < o[1]; ++yy)
            for (int64_t zz = 0; zz < o[2]; ++zz)
              dst[xx * ost[2] + yy * ost[3] + zz * ost[4]] =
                  acc[static_cast<size_t>(((oc * o[0] + xx) * o[1] + yy) * o[2] + zz)] + add;
      }
    }
  }
}

}  // namespace
}  // namespace shimgen::rt::cpu

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu_convolution(AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias,
                                          const int64_t* stride, int64_t stride_len_, const int64_t* padding,
                                          int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_,
                                          int32_t transposed, const int64_t* output_padding,
                                          int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
    const Tensor& x = *unwrap(input, "input");
    const Tensor& w = *unwrap(weight, "weight");
    SHIMGEN_REQUIRE(x.storage->device_type == kCPU && w.storage->device_type == kCPU,
                    "input and weight must be CPU tensors");
    if (x.dtype != kFloat32 && x.dtype != kFloat64 && !is_half_dtype(x.dtype))
      fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "convolution: dtype code " + std::to_string(x.dtype) +
                                                  " is not supported (float32, float64, bfloat16, float16)");
    const Tensor* b = optional_tensor(bias, "bias");
    const bool tr = transposed != 0;
    const size_t nd = x.sizes.size();
    SHIMGEN_REQUIRE(nd >= 3 && nd <= 5, "input must be 3-, 4- or 5-d ([N, C, *spatial]), got " + shape_str(x.sizes));
    SHIMGEN_REQUIRE(w.sizes.size() == nd,
                    "weight " + shape_str(w.sizes) + " must have the input's " + std::to_string(nd) + " dimensions");
    SHIMGEN_REQUIRE(w.dtype == x.dtype && (!b || b->dtype == x.dtype), "input, weight and bias must have one dtype");
    SHIMGEN_REQUIRE(groups >= 1, "groups must be positive, got " + std::to_string(groups));
    // Regular: weight [C_out, C_in / groups, *k]; transposed: weight [C_in, C_out / groups, *k].
    const int64_t channels = x.sizes[1], out_channels = tr ? w.sizes[1] * groups : w.sizes[0];
    SHIMGEN_REQUIRE(tr ? (channels == w.sizes[0] && channels % groups == 0)
                       : (channels == w.sizes[1] * groups && out_channels % groups == 0),
                    "weight " + shape_str(w.sizes) + " does not fit input " + shape_str(x.sizes) +
                        " with groups=" + std::to_string(groups) + (tr ? " (transposed)" : ""));
    if (b) {
      SHIMGEN_REQUIRE(b->storage->device_type == kCPU, "bias is not a CPU tensor");
      SHIMGEN_REQUIRE(b->sizes.size() == 1 && b->sizes[0] == out_channels,
                      "bias " + shape_str(b->sizes) + " must be [" + std::to_string(out_channels) + "]");
    }
    const size_t spatial = nd - 2;
    const auto s = param(stride, stride_len_, spatial, 1, 1, "stride");
    const auto p = param(padding, padding_len_, spatial, 0, 0, "padding");
    const auto d = param(dilation, dilation_len_, spatial, 1, 1, "dilation");
    Dims op{0, 0, 0};
    if (tr && output_padding_len_ > 0) op = param(output_padding, output_padding_len_, spatial, 0, 0, "output_padding");
    std::vector<int64_t> out_sizes{x.sizes[0], out_channels};
    for (size_t i = 0; i < spatial; ++i) {
      const size_t j = kSpatial - spatial + i;
      const int64_t reach = checked_add(checked_mul(d[j], w.sizes[2 + i] - 1, "kernel extent"), 1, "kernel extent");
      if (tr) {
        SHIMGEN_REQUIRE(op[j] < s[j] || op[j] < d[j], "output padding must be smaller than either stride or dilation");
        const int64_t size =
            checked_add(checked_add(checked_mul(x.sizes[2 + i] - 1, s[j], "output size"), reach, "output size"),
                        op[j] - 2 * p[j], "output size");
        SHIMGEN_REQUIRE(w.sizes[2 + i] >= 1 && size >= 1,
                        "transposed convolution output size would be " + std::to_string(size));
        out_sizes.push_back(size);
        continue;
      }
      const int64_t extent = checked_add(x.sizes[2 + i], checked_mul(2, p[j], "padding"), "padded size");
      SHIMGEN_REQUIRE(w.sizes[2 + i] >= 1 && extent >= reach,
                      "kernel " + shape_str(w.sizes) + " is larger than the padded input " + shape_str(x.sizes));
      out_sizes.push_back((extent - reach) / s[j] + 1);
    }
    const bool cl = convolution_output_channels_last(x, w);
    const std::vector<int64_t> out_strides =
        cl ? channels_last_strides_of(out_sizes) : contiguous_strides_of(out_sizes);
    auto out = empty_tensor(out_sizes, out_strides, x.dtype, kCPU, 0);
    if (out->numel() > 0) {
      auto run = [&](auto type, const Tensor& xi, const Tensor& wi, const Tensor* bi, const Tensor& o) {
        using T = decltype(type);
        if (tr) convolve_transposed<T>(xi, wi, bi, o, s, p, d, groups, spatial);
        else convolve<T>(xi, wi, bi, o, s, p, d, groups, spatial);
      };
      if (x.dtype == kFloat32) {
        run(float{}, x, w, b, *out);
      } else if (x.dtype == kFloat64) {
        run(double{}, x, w, b, *out);
      } else {  // bfloat16 / float16: computed in float32 (as torch's CPU kernels accumulate), rounded once
        auto wide_out = empty_tensor(out_sizes, out_strides, kFloat32, kCPU, 0);
        std::unique_ptr<Tensor> wide_b = b ? widened(*b) : nullptr;
        run(float{}, *widened(x), *widened(w), wide_b.get(), *wide_out);
        store_narrowed(*wide_out, *out);
      }
    }
    *ret0 = wrap(std::move(out));
  });
}

}  // extern "C"
