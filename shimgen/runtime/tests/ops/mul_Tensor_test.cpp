#include "op_test.h"

using namespace op_test;

OP_TEST(mul_Tensor) {
  // [2, 2] complex times a broadcast [2] complex: (1+2i)(0+1i) = -2+i, (3+0i)(2+0i) = 6, ...
  std::vector<float> a{1, 2, 3, 0, 0, 1, 1, 1};
  std::vector<float> b{0, 1, 2, 0};
  AtenTensorHandle ta = over(a, {2, 2}, kComplex64), tb = over(b, {2}, kComplex64), out = nullptr;
  EXPECT(aoti_torch_cpu_mul_Tensor(ta, tb, &out) == 0);
  EXPECT(dtype_of(out) == kComplex64 && sizes_of(out) == (std::vector<int64_t>{2, 2}));
  EXPECT(near(complex_values(out), {-2, 1, 6, 0, -1, 0, 2, 2}, 1e-6));
  aoti_torch_delete_tensor_object(out);
  std::vector<float> r{2, 3};  // complex times real float32
  AtenTensorHandle tr = over(r, {2}, kFloat32);
  EXPECT(aoti_torch_cpu_mul_Tensor(ta, tr, &out) == 0);
  EXPECT(near(complex_values(out), {2, 4, 9, 0, 0, 2, 3, 3}, 1e-6));
  aoti_torch_delete_tensor_object(out);
  EXPECT(aoti_torch_cpu_mul_Tensor(tr, tr, &out) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);  // real: inductor's
  std::vector<float> c(6, 0.0f);
  AtenTensorHandle tc = over(c, {3}, kComplex64);
  EXPECT(aoti_torch_cpu_mul_Tensor(ta, tc, &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // 2 vs 3
  for (AtenTensorHandle h : {ta, tb, tr, tc}) aoti_torch_delete_tensor_object(h);
}

OP_TEST(mul_Tensor_zero_dim_scalar) {
  // complex64 [2] times a 0-d float64 (scalar_to_tensor's): complex64, as torch promotes.
  std::vector<float> a{1, 2, 3, 4};
  AtenTensorHandle ta = over(a, {2}, kComplex64), s = nullptr, out = nullptr;
  EXPECT(aoti_torch_scalar_to_tensor_float64(0.5, &s) == 0);
  EXPECT(aoti_torch_cpu_mul_Tensor(ta, s, &out) == 0);
  EXPECT(dtype_of(out) == kComplex64 && near(complex_values(out), {0.5f, 1, 1.5f, 2}, 1e-7));
  for (AtenTensorHandle h : {ta, s, out}) aoti_torch_delete_tensor_object(h);
}
