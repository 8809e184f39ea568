// The int8 oneDNN ops' shared arithmetic (onednn_quant.h). The integer products are exact in int32
// (as oneDNN accumulates); everything after them is float32, as oneDNN's epilogue is.
#include "onednn_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace shimgen::rt::cpu::quant {
namespace {

int64_t int_at(const Tensor& t, int64_t at) {
  const char* p = t.data();
  switch (t.dtype) {
    case kUInt8: return reinterpret_cast<const uint8_t*>(p)[at];
    case kInt8: return reinterpret_cast<const int8_t*>(p)[at];
    case kInt32: return reinterpret_cast<const int32_t*>(p)[at];
    case kInt64: return reinterpret_cast<const int64_t*>(p)[at];
    default: break;
  }
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(scalar_type_name(t.dtype)) + " is not an integer type here");
}

// Element i (row-major) of a tensor of any strides: its offset from data().
int64_t offset_of(const Tensor& t, int64_t i) {
  int64_t at = 0;
  for (size_t d = t.sizes.size(); d-- > 0;) {
    at += (i % t.sizes[d]) * t.strides[d];
    i /= t.sizes[d];
  }
  return at;
}

// (x - zp) of every element, row-major, as int32 (a uint8 minus its zero point leaves int8's range).
std::vector<int32_t> shifted(const Activation& a) {
  std::vector<int32_t> v;
  v.reserve(static_cast<size_t>(a.x->numel()));
  const auto* p = a.x->data();
  const bool u8 = a.x->dtype == kUInt8;
  for_each_element(*a.x, [&](int64_t at) {
    const int32_t q = u8 ? reinterpret_cast<const uint8_t*>(p)[at] : reinterpret_cast<const int8_t*>(p)[at];
    v.push_back(q - a.zero_point);
  });
  return v;
}

void require_int8_weight(const char* op, const Tensor& w) {
  SHIMGEN_REQUIRE(w.dtype == kInt8, std::string(op) + ": the weight must be int8 (oneDNN-packed), got " +
                                        scalar_type_name(w.dtype));
}

}  // namespace

int32_t output_dtype(const char* op, const int32_t* dtype, const Tensor& x) {
  if (dtype == nullptr) return x.dtype;
  if (*dtype == kUInt8 || *dtype == kInt8 || *dtype == kFloat32 || *dtype == kBFloat16) return *dtype;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": output dtype " + scalar_type_name(*dtype) +
                                              " is not supported (uint8, int8, float32, bfloat16)");
}

Activation activation(const char* op, AtenTensorHandle X, AtenTensorHandle scale, AtenTensorHandle zero_point) {
  Activation a;
  a.x = &cpu_tensor(X, "X");
  SHIMGEN_REQUIRE(a.x->dtype == kUInt8 || a.x->dtype == kInt8,
                  std::string(op) + ": X must be uint8 or int8, got " + scalar_type_name(a.x->dtype));
  const Tensor& s = cpu_tensor(scale, "act_scale");
  const Tensor& z = cpu_tensor(zero_point, "act_zero_point");
  SHIMGEN_REQUIRE(s.numel() == 1 && z.numel() == 1,
                  std::string(op) + ": act_scale and act_zero_point must hold one value each (per-tensor)");
  a.scale = fused::load_float(s.data(), 0, s.dtype);
  const int64_t zp = int_at(z, 0);
  const int64_t lo = a.x->dtype == kUInt8 ? 0 : -128, hi = a.x->dtype == kUInt8 ? 255 : 127;
  SHIMGEN_REQUIRE(zp >= lo && zp <= hi, std::string(op) + ": act_zero_point " + std::to_string(zp) +
                                            " is outside X's range");
  a.zero_point = static_cast<int32_t>(zp);
  return a;
}

std::vector<float> channel_scales(const char* op, const Activation& a, AtenTensorHandle weight_scales,
                                  AtenTensorHandle weight_zero_points, int64_t n) {
  const Tensor& s = cpu_tensor(weight_scales, "weight_scales");
  SHIMGEN_REQUIRE(s.numel() == 1 || s.numel() == n, std::string(op) + ": weight_scales has " +
                                                        std::to_string(s.numel()) + " values for " + std::to_string(n) +
                                                        " output channels");
  if (weight_zero_points != nullptr) {
    const Tensor& z = cpu_tensor(weight_zero_points, "weight_zero_points");
    for (int64_t i = 0; i < z.numel(); ++i)
      if (int_at(z, offset_of(z, i)) != 0)
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": a nonzero weight zero point (oneDNN's int8 weights are symmetric)");
  }
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c)
    out[c] = a.scale * fused::load_float(s.data(), offset_of(s, s.numel() == 1 ? 0 : c), s.dtype);
  return out;
}

Epilogue epilogue(AtenTensorHandle* B, const fused::Unary& unary, double output_scale, int64_t output_zero_point) {
  Epilogue e;
  e.bias = optional_tensor(B, "B");
  e.unary = unary;
  e.output_scale = output_scale;
  e.output_zero_point = output_zero_point;
  return e;
}

bool parse_binary(const char* op, const char* name) {
  const std::string b = name == nullptr ? "" : name;
  if (b == "sum") return true;
  if (b == "add") return false;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": binary post-op '" + b + "' is not supported (sum, add)");
}

void finish(const char* op, const std::vector<int32_t>& acc, const std::vector<int64_t>& logical,
            const std::vector<int64_t>& perm, const std::vector<float>& scales, const Epilogue& e, const Tensor& dst) {
  const int64_t channels = logical.back();
  if (e.bias != nullptr)
    SHIMGEN_REQUIRE(e.bias->numel() == channels, std::string(op) + ": the bias has " + std::to_string(e.bias->numel()) +
                                                     " values for " + std::to_string(channels) + " output channels");
  const bool quantized = dst.dtype == kUInt8 || dst.dtype == kInt8;
  if (!quantized && (e.output_scale != 1.0 || e.output_zero_point != 0))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": a float output with output scale " +
                                                std::to_string(e.output_scale) + " and zero point " +
                                                std::to_string(e.output_zero_point) + " (only 1 and 0)");
  std::vector<float> bias(static_cast<size_t>(channels), 0.0f);
  if (e.bias != nullptr)
    for (int64_t c = 0; c < channels; ++c) bias[c] = fused::load_float(e.bias->data(), offset_of(*e.bias, c), e.bias->dtype);
  std::vector<int64_t> dst_strides(logical.size()), other_strides(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) {
    dst_strides[i] = dst.strides[perm[i]];
    if (e.other != nullptr) other_strides[i] = e.other->strides[perm[i]];
  }
  const std::vector<int64_t> dense = contiguous_strides_of(logical);
  const float oscale = static_cast<float>(e.output_scale);
  const float lo = dst.dtype == kUInt8 ? 0.0f : -128.0f, hi = dst.dtype == kUInt8 ? 255.0f : 127.0f;
  const bool other_int = e.other != nullptr && (e.other->dtype == kUInt8 || e.other->dtype == kInt8 ||
                                                e.other->dtype == kInt32);
  char* out = dst.data();
  auto value = [&](int64_t i) {
    return static_cast<float>(acc[i]) * scales[i % channels] + bias[i % channels];
  };
  auto store = [&](int64_t j, float v) {
    v = fused::apply_unary(e.unary, v);
    if (quantized) {
      // Requantize: divide by the output scale, round half to even (the default rounding mode),
      // add the zero point, saturate.
      const float q = std::min(std::max(std::nearbyint(v / oscale) + static_cast<float>(e.output_zero_point), lo), hi);
      if (dst.dtype == kUInt8)
        reinterpret_cast<uint8_t*>(out)[j] = static_cast<uint8_t>(q);
      else
        reinterpret_cast<int8_t*>(out)[j] = static_cast<int8_t>(q);
    } else if (dst.dtype == kFloat32) {
      reinterpret_cast<float*>(out)[j] = v;
    } else {
      reinterpret_cast<BFloat16*>(out)[j] = BFloat16(v);
    }
  };
  if (e.other == nullptr) {
    fused::walk2(logical, dense, dst_strides, [&](int64_t i, int64_t j) { store(j, value(i)); });
    return;
  }
  // The binary operand is read where dst is written (the "sum" ops write into it): one walk over
  // logical, with dst's and other's offsets stepped together.
  const Tensor& o = *e.other;
  std::vector<int64_t> index(logical.size(), 0);
  const int64_t n = static_cast<int64_t>(acc.size());
  int64_t dj = 0, oj = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float other = other_int ? static_cast<float>(int_at(o, oj) - e.other_zero_point) * e.other_scale
                                  : fused::load_float(o.data(), oj, o.dtype);
    store(dj, value(i) + e.alpha * other);
    for (size_t d = logical.size(); d-- > 0;) {
      dj += dst_strides[d];
      oj += other_strides[d];
      if (++index[d] < logical[d]) break;
      dj -= dst_strides[d] * logical[d];
      oj -= other_strides[d] * logical[d];
      index[d] = 0;
    }
  }
}

LinearS32 linear_s32(const char* op, const Activation& a, const Tensor& w) {
  require_int8_weight(op, w);
  const Tensor& x = *a.x;
  SHIMGEN_REQUIRE(!x.sizes.empty() && w.sizes.size() == 2 && w.sizes[0] == x.sizes.back(),
                  std::string(op) + ": X [..., K] and the packed weight [K, N] do not match");
  const int64_t k = w.sizes[0], n = w.sizes[1];
  const int64_t rows = k == 0 ? 0 : x.numel() / k;
  const std::vector<int32_t> xs = shifted(a);
  // Row r of acc gathers x[r, kk] times weight row kk, a run of N int8 values: no copy of the
  // weight per call, and the inner loop is contiguous in both acc and (unpacked) w.
  const auto* wp = reinterpret_cast<const int8_t*>(w.data());
  std::vector<int32_t> acc(static_cast<size_t>(rows * n), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* xr = xs.data() + r * k;
    int32_t* ar = acc.data() + r * n;
    for (int64_t kk = 0; kk < k; ++kk) {
      const int32_t xv = xr[kk];
      const int8_t* wr = wp + kk * w.strides[0];
      if (w.strides[1] == 1) {
        for (int64_t j = 0; j < n; ++j) ar[j] += xv * wr[j];
      } else {
        for (int64_t j = 0; j < n; ++j) ar[j] += xv * wr[j * w.strides[1]];
      }
    }
  }
  std::vector<int64_t> sizes(x.sizes);
  sizes.back() = n;
  return {std::move(acc), rows, n, std::move(sizes)};
}

std::vector<int32_t> conv2d_s32(const char* op, const Activation& a, const Tensor& w, const int64_t* stride,
                                int64_t stride_len, const int64_t* padding, int64_t padding_len,
                                const int64_t* dilation, int64_t dilation_len, int64_t groups,
                                std::vector<int64_t>& out_sizes) {
  require_int8_weight(op, w);
  const Tensor& x = *a.x;
  if (x.sizes.size() != 4 || w.sizes.size() != 4)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": only 2-D convolutions (4-D X and weight) are served");
  auto pick = [&](const int64_t* v, int64_t len, int i, int64_t dflt, const char* what) {
    SHIMGEN_REQUIRE(len == 0 || len == 1 || len == 2, std::string(op) + ": " + what + " needs 1 or 2 values");
    return len == 0 ? dflt : v[len == 1 ? 0 : i];
  };
  const int64_t sh = pick(stride, stride_len, 0, 1, "stride"), sw = pick(stride, stride_len, 1, 1, "stride");
  const int64_t ph = pick(padding, padding_len, 0, 0, "padding"), pw = pick(padding, padding_len, 1, 0, "padding");
  const int64_t dh = pick(dilation, dilation_len, 0, 1, "dilation"), dw = pick(dilation, dilation_len, 1, 1, "dilation");
  const int64_t nb = x.sizes[0], c = x.sizes[1], h = x.sizes[2], wd = x.sizes[3];
  const int64_t o = w.sizes[0], cg = w.sizes[1], kh = w.sizes[2], kw = w.sizes[3];
  SHIMGEN_REQUIRE(groups >= 1 && c == cg * groups && o % groups == 0 && sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 &&
                      ph >= 0 && pw >= 0,
                  std::string(op) + ": X, weight, groups, stride, padding or dilation do not agree");
  const int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1, ow = (wd + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  SHIMGEN_REQUIRE(oh >= 1 && ow >= 1, std::string(op) + ": the output would be empty");
  out_sizes = {nb, o, oh, ow};
  // X as (x - zp) in [N, H, W, C] order and the weight as [O, KH, KW, C/g]: the reduction over
  // input channels is then contiguous in both.
  std::vector<int32_t> xs(static_cast<size_t>(nb * h * wd * c));
  const bool u8 = x.dtype == kUInt8;
  const char* xp = x.data();
  for (int64_t in = 0; in < nb; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t z = 0; z < wd; ++z) {
          const int64_t at = in * x.strides[0] + ic * x.strides[1] + y * x.strides[2] + z * x.strides[3];
          const int32_t q = u8 ? reinterpret_cast<const uint8_t*>(xp)[at] : reinterpret_cast<const int8_t*>(xp)[at];
          xs[((in * h + y) * wd + z) * c + ic] = q - a.zero_point;
        }
  std::vector<int32_t> ws(static_cast<size_t>(o * kh * kw * cg));
  const auto* wp = reinterpret_cast<const int8_t*>(w.data());
  for (int64_t oc = 0; oc < o; ++oc)
    for (int64_t ic = 0; ic < cg; ++ic)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t z = 0; z < kw; ++z)
          ws[((oc * kh + y) * kw + z) * cg + ic] =
              wp[oc * w.strides[0] + ic * w.strides[1] + y * w.strides[2] + z * w.strides[3]];
  const int64_t og = o / groups;
  std::vector<int32_t> acc(static_cast<size_t>(nb * oh * ow * o), 0);
  for (int64_t in = 0; in < nb; ++in)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        int32_t* dst = acc.data() + ((in * oh + y) * ow + z) * o;
        for (int64_t oc = 0; oc < o; ++oc) {
          const int64_t g = oc / og;
          int32_t s = 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = y * sh - ph + ky * dh;
            if (iy < 0 || iy >= h) continue;  // padding: the zero point, which shifts to 0
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = z * sw - pw + kx * dw;
              if (ix < 0 || ix >= wd) continue;
              const int32_t* xr = xs.data() + ((in * h + iy) * wd + ix) * c + g * cg;
              const int32_t* wr = ws.data() + ((oc * kh + ky) * kw + kx) * cg;
              for (int64_t ic = 0; ic < cg; ++ic) s += xr[ic] * wr[ic];
            }
          }
          dst[oc] = s;
        }
      }
  return acc;
}

AtenTensorHandle alias(const Tensor& t) {
  return wrap(std::make_unique<Tensor>(Tensor{t.storage, t.sizes, t.strides, t.storage_offset, t.dtype}));
}

}  // namespace shimgen::rt::cpu::quant
