#include <cstring>

#include "op_test.h"

using namespace op_test;

namespace {
uint16_t bf16(float f) {  // exact for the values used here
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}
float from_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace

OP_TEST(linear_pointwise) {
  // X [2, 3] @ W^T [3, 2] + B: {-1.5, -2, -1.5, 2.5} before the post-op.
  std::vector<float> x{1, 2, 3, 4, 5, 6}, w{1, 0, -1, 0.5f, 0.5f, 0.5f}, b{0.5f, -5};
  AtenTensorHandle X = over(x, {2, 3}, kFloat32), W = over(w, {2, 3}, kFloat32), B = over(b, {2}, kFloat32),
                   r = nullptr;
  const char* none = "";
  const double slope = 0.1, lo = -1, hi = 2, placeholder = -1;
  const double* no_scalar[1] = {&placeholder};
  auto run = [&](const char* attr, const double** scalars, int64_t n, AtenTensorHandle* bias) {
    r = nullptr;
    return aoti_torch_cpu__linear_pointwise(X, W, bias, attr, scalars, n, &none, &r);
  };
  EXPECT(run("none", no_scalar, 1, &B) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{2, 2}) &&
         values<float>(r) == (std::vector<float>{-1.5f, -2, -1.5f, 2.5f}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(run("relu", no_scalar, 1, &B) == 0 && values<float>(r) == (std::vector<float>{0, 0, 0, 2.5f}));
  aoti_torch_delete_tensor_object(r);
  const double* leaky[1] = {&slope};
  EXPECT(run("leaky_relu", leaky, 1, &B) == 0 && near(values<float>(r), {-0.15f, -0.2f, -0.15f, 2.5f}, 1e-6));
  aoti_torch_delete_tensor_object(r);
  const double* clamp[2] = {&lo, &hi};
  EXPECT(run("hardtanh", clamp, 2, &B) == 0 && values<float>(r) == (std::vector<float>{-1, -1, -1, 2}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(run("swish", no_scalar, 1, &B) == 0);
  EXPECT(near(values<float>(r),
              {-1.5f / (1 + std::exp(1.5f)), -2 / (1 + std::exp(2.0f)), -1.5f / (1 + std::exp(1.5f)),
               2.5f / (1 + std::exp(-2.5f))},
              1e-6));
  aoti_torch_delete_tensor_object(r);
  const char* tanh_algo = "tanh";
  r = nullptr;
  EXPECT(aoti_torch_cpu__linear_pointwise(X, W, &B, "gelu", no_scalar, 1, &tanh_algo, &r) == 0);
  auto gelu_tanh = [](double v) { return 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))); };
  EXPECT(near(values<float>(r),
              {static_cast<float>(gelu_tanh(-1.5)), static_cast<float>(gelu_tanh(-2)),
               static_cast<float>(gelu_tanh(-1.5)), static_cast<float>(gelu_tanh(2.5))},
              1e-6));
  aoti_torch_delete_tensor_object(r);
  // No bias; a 3-d input [1, 2, 3] gives [1, 2, 2].
  AtenTensorHandle X3 = over(x, {1, 2, 3}, kFloat32);
  EXPECT(aoti_torch_cpu__linear_pointwise(X3, W, nullptr, "none", no_scalar, 1, &none, &r) == 0);
  EXPECT(sizes_of(r) == (std::vector<int64_t>{1, 2, 2}) && values<float>(r) == (std::vector<float>{-2, 3, -2, 7.5f}));
  aoti_torch_delete_tensor_object(r);

  // Refused: an attr torch does not fuse (by name: unsupported), leaky_relu without its slope,
  // a weight that does not fit, a float64 input.
  EXPECT(run("mish", no_scalar, 1, &B) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  const double* absent[1] = {nullptr};
  EXPECT(run("leaky_relu", absent, 1, &B) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  AtenTensorHandle Wt = over(w, {3, 2}, kFloat32);
  EXPECT(aoti_torch_cpu__linear_pointwise(X, Wt, &B, "none", no_scalar, 1, &none, &r) ==
         SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  std::vector<double> xd(6, 1.0);
  AtenTensorHandle Xd = over(xd, {2, 3}, kFloat64);
  EXPECT(aoti_torch_cpu__linear_pointwise(Xd, W, &B, "none", no_scalar, 1, &none, &r) ==
         SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);

  // bfloat16: the same product, exact in bfloat16, with relu.
  std::vector<uint16_t> xb, wb, bb;
  for (float v : x) xb.push_back(bf16(v));
  for (float v : w) wb.push_back(bf16(v));
  for (float v : b) bb.push_back(bf16(v));
  AtenTensorHandle Xb = over(xb, {2, 3}, kBFloat16), Wb = over(wb, {2, 3}, kBFloat16), Bb = over(bb, {2}, kBFloat16);
  EXPECT(aoti_torch_cpu__linear_pointwise(Xb, Wb, &Bb, "relu", no_scalar, 1, &none, &r) == 0);
  EXPECT(dtype_of(r) == kBFloat16);
  std::vector<float> got;
  for (uint16_t v : values<uint16_t>(r)) got.push_back(from_bf16(v));
  EXPECT(got == (std::vector<float>{0, 0, 0, 2.5f}));
  aoti_torch_delete_tensor_object(r);
  for (AtenTensorHandle t : {X, W, B, X3, Wt, Xd, Xb, Wb, Bb}) aoti_torch_delete_tensor_object(t);
}

OP_TEST(linear_pointwise_binary) {
  std::vector<float> x{1, 2, 3, 4, 5, 6}, w{1, 0, -1, 0.5f, 0.5f, 0.5f}, b{0.5f, -5}, o{1, 2, 3, 4};
  AtenTensorHandle X = over(x, {2, 3}, kFloat32), W = over(w, {2, 3}, kFloat32), B = over(b, {2}, kFloat32);
  AtenTensorHandle O = over(o, {2, 2}, kFloat32), Ot = over(o, {2, 2}, kFloat32, {1, 2}), r = nullptr;
  EXPECT(aoti_torch_cpu__linear_pointwise_binary(X, O, W, &B, "add", &r) == 0);
  EXPECT(values<float>(r) == (std::vector<float>{-0.5f, 0, 1.5f, 6.5f}));
  aoti_torch_delete_tensor_object(r);
  // sub is computed - other (not the reverse); other read through its strides (transposed here).
  EXPECT(aoti_torch_cpu__linear_pointwise_binary(X, Ot, W, &B, "sub", &r) == 0);
  EXPECT(values<float>(r) == (std::vector<float>{-2.5f, -5, -3.5f, -1.5f}));
  aoti_torch_delete_tensor_object(r);
  EXPECT(aoti_torch_cpu__linear_pointwise_binary(X, O, W, &B, "max", &r) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  AtenTensorHandle small = over(o, {2, 1}, kFloat32);
  EXPECT(aoti_torch_cpu__linear_pointwise_binary(X, small, W, &B, "add", &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  for (AtenTensorHandle t : {X, W, B, O, Ot, small}) aoti_torch_delete_tensor_object(t);
}
