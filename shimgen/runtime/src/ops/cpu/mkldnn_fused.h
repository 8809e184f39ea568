// What the oneDNN-fused ops of a model compiled with freezing=True share (linear_pointwise*.cpp,
// mkldnn_convolution_*.cpp): the post-op attributes inductor's mkldnn fusion passes emit
// (torch/_inductor/fx_passes/mkldnn_fusion.py), float32 working copies of 16-bit operands, and the
// epilogue that applies a binary then a unary post-op and rounds to the output dtype once, as
// oneDNN applies its post-ops in float32 before the final store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace shimgen::rt::cpu::fused {

// A unary post-op: "none", "relu", "sigmoid", "tanh", "hardswish", "hardsigmoid", "swish" (SiLU),
// "gelu" (algorithm "none": erf, "tanh": the tanh approximation), "leaky_relu" (scalars
// [negative_slope]), "hardtanh" (scalars [min, max]). Any other name is refused, naming it.
struct Unary {
  enum Kind {
    kNone,
    kRelu,
    kSigmoid,
    kTanh,
    kHardswish,
    kHardsigmoid,
    kSwish,
    kGeluErf,
    kGeluTanh,
    kLeakyRelu,
    kHardtanh
  };
  Kind kind = kNone;
  double a = 0, b = 0;  // leaky_relu's slope; hardtanh's min and max
};
// attr null is "none"; scalars are optional doubles (null: None), read only by the attrs that take
// them (inductor passes a placeholder for the others); algorithm null or "" is "none".
Unary parse_unary(const char* op, const char* attr, const double** scalars, int64_t scalars_len,
                  const char** algorithm);

// u(x) computed as the fused ops do (double inside, float result).
float apply_unary(const Unary& u, float x);
// Element `at` of a float32/bf16/f16/f64 buffer, as float.
float load_float(const char* base, int64_t at, int32_t dtype);

// f(offset in a, offset in b) for every element of `sizes`, a and b with their own strides.
template <class F> inline void walk2(const std::vector<int64_t>& sizes, const std::vector<int64_t>& sa,
                                     const std::vector<int64_t>& sb, F&& f) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  const int64_t last = rank == 0 ? -1 : rank - 1;
  const int64_t n = rank == 0 ? 1 : sizes[last];
  const int64_t step_a = rank == 0 ? 0 : sa[last], step_b = rank == 0 ? 0 : sb[last];
  const std::vector<int64_t>* strides[2] = {&sa, &sb};
  for_each_line(sizes, last, strides, [&](const int64_t* base) {
    for (int64_t i = 0; i < n; ++i) f(base[0] + i * step_a, base[1] + i * step_b);
  });
}

// A binary post-op, result = computed OP other: "add", "sub", "mul", "div".
enum class Binary { kAdd, kSub, kMul, kDiv };
Binary parse_binary(const char* op, const char* attr);

// float32, bfloat16 or float16 (what oneDNN's fused CPU ops take); anything else Unsupported.
void require_fused_dtype(const char* op, const Tensor& t, const char* what);

// The operands every fused op reads, checked: X (a fused dtype), W and, for the binary ops, other
// (X's dtype), an optional bias B on the CPU (a fused dtype).
struct Operands {
  const Tensor& x;
  const Tensor& w;
  const Tensor* b;
  const Tensor* other;
};
Operands operands(const char* op, AtenTensorHandle X, AtenTensorHandle W, AtenTensorHandle* B,
                  AtenTensorHandle other = nullptr);

// A float32 copy of t with the given strides (any dtype the runtime's ops read as float).
std::unique_ptr<Tensor> float_copy(const Tensor& t, const std::vector<int64_t>& strides);
// t itself when it is float32, else a float32 copy in t's dense layout order.
struct AsFloat {
  std::unique_ptr<Tensor> owned;
  const Tensor* t = nullptr;
};
AsFloat as_float(const Tensor& t);

// acc (float32) = unary(binary(acc, other)) elementwise (other: acc's sizes, any strides and
// dtype; null: no binary), then written to a new tensor of `dtype` with acc's strides (acc itself
// when dtype is float32), or into `into` (acc's sizes, any strides) when given.
std::unique_ptr<Tensor> epilogue(std::unique_ptr<Tensor> acc, const Tensor* other, Binary binary, const Unary& unary,
                                 int32_t dtype, const Tensor* into = nullptr);

// A handle that borrows t (shares its storage); freed by ~Borrowed. For calling the runtime's own
// shims (aoti_torch_cpu_convolution) on tensors an op already holds.
struct Borrowed {
  AtenTensorHandle h = nullptr;
  explicit Borrowed(const Tensor& t);
  ~Borrowed();
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
};

// The convolution shared by the conv ops: x conv w (+ bias) in float32 through
// aoti_torch_cpu_convolution (weight in torch's layout for `transposed`), result float32,
// channels-last when x is, as the generated code expects of torch's op.
std::unique_ptr<Tensor> convolve_float(const char* op, const Tensor& x, const Tensor& w, const Tensor* bias,
                                       const int64_t* padding, int64_t padding_len, const int64_t* output_padding,
                                       int64_t output_padding_len, const int64_t* stride, int64_t stride_len,
                                       const int64_t* dilation, int64_t dilation_len, int64_t groups, bool transposed);

// X [..., K] times w [N, K] transposed, plus bias [N]: a new contiguous float32 [..., N].
std::unique_ptr<Tensor> linear_float(const char* op, const Tensor& x, const Tensor& w, const Tensor* bias);

}  // namespace shimgen::rt::cpu::fused
