// The shared part of the oneDNN-fused CPU ops (mkldnn_fused.h). The arithmetic is the runtime's own:
// the GEMM of cpu_blas.cpp and the convolution shim, in float32; only the post-ops are new.
#include "mkldnn_fused.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cpu::fused {
namespace {

float load(const char* base, int64_t at, int32_t dtype) {
  switch (dtype) {
    case kFloat32: return reinterpret_cast<const float*>(base)[at];
    case kBFloat16: return static_cast<float>(reinterpret_cast<const BFloat16*>(base)[at]);
    case kFloat16: return static_cast<float>(reinterpret_cast<const Half*>(base)[at]);
    case kFloat64: return static_cast<float>(reinterpret_cast<const double*>(base)[at]);
    default: break;
  }
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dtype code " + std::to_string(dtype) + " is not a floating type");
}

void store(char* base, int64_t at, int32_t dtype, float v) {
  switch (dtype) {
    case kFloat32: reinterpret_cast<float*>(base)[at] = v; return;
    case kBFloat16: reinterpret_cast<BFloat16*>(base)[at] = BFloat16(v); return;
    case kFloat16: reinterpret_cast<Half*>(base)[at] = Half(v); return;
    case kFloat64: reinterpret_cast<double*>(base)[at] = v; return;
    default: break;
  }
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dtype code " + std::to_string(dtype) + " is not a floating type");
}

float apply(const Unary& u, float x) {
  const double v = x;
  switch (u.kind) {
    case Unary::kNone: return x;
    case Unary::kRelu: return x < 0.0f ? 0.0f : x;  // NaN passes, as torch.relu
    case Unary::kSigmoid: return static_cast<float>(1.0 / (1.0 + std::exp(-v)));
    case Unary::kTanh: return std::tanh(x);
    case Unary::kHardswish: return static_cast<float>(v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0);
    case Unary::kHardsigmoid: return static_cast<float>(std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0);
    case Unary::kSwish: return static_cast<float>(v / (1.0 + std::exp(-v)));
    case Unary::kGeluErf: return static_cast<float>(0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440)));
    case Unary::kGeluTanh:
      return static_cast<float>(0.5 * v * (1.0 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v))));
    case Unary::kLeakyRelu: return x > 0.0f ? x : static_cast<float>(v * u.a);
    case Unary::kHardtanh: return static_cast<float>(std::min(std::max(v, u.a), u.b));
  }
  return x;
}

float combine(Binary b, float y, float o) {
  switch (b) {
    case Binary::kAdd: return y + o;
    case Binary::kSub: return y - o;
    case Binary::kMul: return y * o;
    case Binary::kDiv: return y / o;
  }
  return y;
}

void check_call(const char* op, AOTITorchError code, const char* what) {
  if (code != AOTI_TORCH_SUCCESS) fail(code, std::string(op) + ": " + what + ": " + shimgen_runtime_last_error());
}

}  // namespace

float load_float(const char* base, int64_t at, int32_t dtype) { return load(base, at, dtype); }
float apply_unary(const Unary& u, float x) { return apply(u, x); }

Unary parse_unary(const char* op, const char* attr, const double** scalars, int64_t scalars_len,
                  const char** algorithm) {
  const std::string name = attr == nullptr ? "none" : attr;
  const std::string algo = algorithm == nullptr || *algorithm == nullptr ? "" : *algorithm;
  auto scalar = [&](int64_t i) {
    SHIMGEN_REQUIRE(scalars != nullptr && scalars_len > i && scalars[i] != nullptr,
                    std::string(op) + ": attr \"" + name + "\" needs scalar " + std::to_string(i));
    return *scalars[i];
  };
  Unary u;
  if (name == "none" || name.empty()) u.kind = Unary::kNone;
  else if (name == "relu") u.kind = Unary::kRelu;
  else if (name == "sigmoid") u.kind = Unary::kSigmoid;
  else if (name == "tanh") u.kind = Unary::kTanh;
  else if (name == "hardswish") u.kind = Unary::kHardswish;
  else if (name == "hardsigmoid") u.kind = Unary::kHardsigmoid;
  else if (name == "swish") u.kind = Unary::kSwish;
  else if (name == "gelu") {
    SHIMGEN_REQUIRE(algo.empty() || algo == "none" || algo == "tanh",
                    std::string(op) + ": gelu algorithm \"" + algo + "\" is not one of none, tanh");
    u.kind = algo == "tanh" ? Unary::kGeluTanh : Unary::kGeluErf;
  } else if (name == "leaky_relu") {
    u.kind = Unary::kLeakyRelu;
    u.a = scalar(0);
  } else if (name == "hardtanh") {
    u.kind = Unary::kHardtanh;
    u.a = scalar(0);
    u.b = scalar(1);
  } else {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": unary attr \"" + name +
                                                "\" is not supported (none, relu, sigmoid, tanh, hardswish, "
                                                "hardsigmoid, swish, gelu, leaky_relu, hardtanh)");
  }
  return u;
}

Binary parse_binary(const char* op, const char* attr) {
  const std::string name = attr == nullptr ? "" : attr;
  if (name == "add") return Binary::kAdd;
  if (name == "sub") return Binary::kSub;
  if (name == "mul") return Binary::kMul;
  if (name == "div") return Binary::kDiv;
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
       std::string(op) + ": binary attr \"" + name + "\" is not supported (add, sub, mul, div)");
}

void require_fused_dtype(const char* op, const Tensor& t, const char* what) {
  if (t.dtype != kFloat32 && t.dtype != kBFloat16 && t.dtype != kFloat16)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(op) + ": " + what + " has dtype code " +
                                                std::to_string(t.dtype) + " (float32, bfloat16, float16 only)");
}

Operands operands(const char* op, AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B, AtenTensorHandle other) {
  const Tensor& x = cpu_tensor(X, "X");
  const Tensor* o = other == nullptr ? nullptr : &cpu_tensor(other, "other");
  const Tensor& w = cpu_tensor(W, "W");
  const Tensor* b = optional_tensor(B, "B");
  require_fused_dtype(op, x, "X");
  SHIMGEN_REQUIRE(
      w.dtype == x.dtype && (o == nullptr || o->dtype == x.dtype),
      std::string(op) + (o == nullptr ? ": X and W must have one dtype" : ": X, other and W must have one dtype"));
  if (b != nullptr) {
    SHIMGEN_REQUIRE(b->storage->device_type == kCPU, std::string(op) + ": B is not a CPU tensor");
    require_fused_dtype(op, *b, "B");
  }
  return {x, w, b, o};
}

std::unique_ptr<Tensor> float_copy(const Tensor& t, const std::vector<int64_t>& strides) {
  auto out = empty_tensor(t.sizes, strides, kFloat32, kCPU, -1);
  const char* src = t.data();
  auto* dst = reinterpret_cast<float*>(out->data());
  walk2(t.sizes, t.strides, out->strides, [&](int64_t s, int64_t d) { dst[d] = load(src, s, t.dtype); });
  return out;
}

AsFloat as_float(const Tensor& t) {
  AsFloat r;
  if (t.dtype == kFloat32) {
    r.t = &t;
  } else {
    r.owned = float_copy(t, dense_strides_like(t.sizes, t.strides));
    r.t = r.owned.get();
  }
  return r;
}

std::unique_ptr<Tensor> epilogue(std::unique_ptr<Tensor> acc, const Tensor* other, Binary binary, const Unary& unary,
                                 int32_t dtype, const Tensor* into) {
  auto* a = reinterpret_cast<float*>(acc->data());
  if (other != nullptr) {
    const char* o = other->data();
    walk2(acc->sizes, acc->strides, other->strides,
          [&](int64_t i, int64_t j) { a[i] = combine(binary, a[i], load(o, j, other->dtype)); });
  }
  if (unary.kind != Unary::kNone) {
    const int64_t span = span_elements(acc->sizes, acc->strides);  // acc is dense: every slot is an element
    for (int64_t i = 0; i < span; ++i) a[i] = apply(unary, a[i]);
  }
  if (into == nullptr && dtype == kFloat32) return acc;
  std::unique_ptr<Tensor> made;
  const Tensor* dst = into;
  if (dst == nullptr) {
    made = empty_tensor(acc->sizes, acc->strides, dtype, kCPU, -1);
    dst = made.get();
  }
  char* d = dst->data();
  walk2(acc->sizes, acc->strides, dst->strides, [&](int64_t i, int64_t j) { store(d, j, dst->dtype, a[i]); });
  return made;
}

Borrowed::Borrowed(const Tensor& t) {
  h = wrap(std::make_unique<Tensor>(Tensor{t.storage, t.sizes, t.strides, t.storage_offset, t.dtype}));
}
Borrowed::~Borrowed() {
  if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
}

std::unique_ptr<Tensor> convolve_float(const char* op, const Tensor& x, const Tensor& w, const Tensor* bias,
                                       const int64_t* padding, int64_t padding_len, const int64_t* output_padding,
                                       int64_t output_padding_len, const int64_t* stride, int64_t stride_len,
                                       const int64_t* dilation, int64_t dilation_len, int64_t groups, bool transposed) {
  const AsFloat fx = as_float(x), fw = as_float(w);
  AsFloat fb;
  if (bias != nullptr) fb = as_float(*bias);
  Borrowed hx(*fx.t), hw(*fw.t);
  std::unique_ptr<Borrowed> hb = bias != nullptr ? std::make_unique<Borrowed>(*fb.t) : nullptr;
  AtenTensorHandle bias_handle = hb ? hb->h : nullptr, result = nullptr;
  check_call(
      op,
      aoti_torch_cpu_convolution(hx.h, hw.h, &bias_handle, stride, stride_len, padding, padding_len, dilation,
                                 dilation_len, transposed ? 1 : 0, output_padding, output_padding_len, groups, &result),
      "convolution");
  // Take the result out of its handle (the handle's Tensor is the runtime's own).
  Tensor* r = unwrap(result, "convolution result");
  auto out = std::make_unique<Tensor>(Tensor{r->storage, r->sizes, r->strides, r->storage_offset, r->dtype});
  (void)aoti_torch_delete_tensor_object(result);
  return out;
}

std::unique_ptr<Tensor> linear_float(const char* op, const Tensor& x, const Tensor& w, const Tensor* bias) {
  SHIMGEN_REQUIRE(!x.sizes.empty(), std::string(op) + ": input must have at least one dim");
  SHIMGEN_REQUIRE(w.sizes.size() == 2, std::string(op) + ": weight must be 2-d [N, K], got " + shape_str(w.sizes));
  const int64_t k = x.sizes.back(), n = w.sizes[0];
  SHIMGEN_REQUIRE(w.sizes[1] == k,
                  std::string(op) + ": weight " + shape_str(w.sizes) + " does not fit input " + shape_str(x.sizes));
  if (bias != nullptr)
    SHIMGEN_REQUIRE(bias->sizes.size() == 1 && bias->sizes[0] == n,
                    std::string(op) + ": bias " + shape_str(bias->sizes) + " must be [" + std::to_string(n) + "]");
  std::vector<int64_t> out_sizes(x.sizes);
  out_sizes.back() = n;
  auto out = empty_tensor(out_sizes, contiguous_strides_of(out_sizes), kFloat32, kCPU, -1);
  const int64_t m = k == 0 ? out->numel() / std::max<int64_t>(n, 1) : x.numel() / k;
  if (out->numel() == 0) return out;
  // The input as a [M, K] matrix: in place when its leading dims collapse (2-d, or contiguous rows),
  // else a contiguous float32 copy.
  AsFloat fx;
  if (x.dtype == kFloat32 && (x.sizes.size() == 2 || x.is_contiguous())) fx.t = &x;
  else {
    fx.owned = float_copy(x, contiguous_strides_of(x.sizes));
    fx.t = fx.owned.get();
  }
  const bool two = fx.t->sizes.size() == 2;
  const int64_t row = two ? fx.t->strides[0] : k, col = two ? fx.t->strides[1] : 1;
  const AsFloat fw = as_float(w);
  AsFloat fb;
  if (bias != nullptr) fb = as_float(*bias);
  auto* c = reinterpret_cast<float*>(out->data());
  const Matrix<const float> a{reinterpret_cast<const float*>(fx.t->data()), m, k, row, col};
  const Matrix<const float> b =
      Matrix<const float>{reinterpret_cast<const float*>(fw.t->data()), n, k, fw.t->strides[0], fw.t->strides[1]}
          .transposed();
  const Matrix<float> cm{c, m, n, n, 1};
  // The runtime's direct kernel for small products first (as addmm takes it), else the BLAS.
  const Bias fused_bias{fb.t ? reinterpret_cast<const float*>(fb.t->data()) : nullptr, 0, fb.t ? fb.t->strides[0] : 0};
  if (k > 0 && small_gemm(a, b, cm, 1.0f, fb.t ? 1.0f : 0.0f, fb.t ? &fused_bias : nullptr)) return out;
  float beta = 0.0f;
  if (fb.t != nullptr) {  // every row starts as the bias; the GEMM adds onto it
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * n + j] = fused_bias.data[j * fused_bias.col_stride];
    beta = 1.0f;
  }
  if (k > 0) gemm(a, b, cm, 1.0f, beta);
  else if (fb.t == nullptr) std::fill(c, c + m * n, 0.0f);
  return out;
}

}  // namespace shimgen::rt::cpu::fused
