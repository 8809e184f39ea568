#include "op_test.h"

using namespace op_test;

OP_TEST(polar) {
  std::vector<float> m{2, 1};
  std::vector<float> a{0, 1.5707963267948966f};
  AtenTensorHandle tm = over(m, {2}, kFloat32), ta = over(a, {2}, kFloat32), out = nullptr;
  EXPECT(aoti_torch_cpu_polar(tm, ta, &out) == 0);
  EXPECT(dtype_of(out) == kComplex64 && near(complex_values(out), {2, 0, 0, 1}, 1e-6));
  aoti_torch_delete_tensor_object(out);
  std::vector<double> d{1.0};
  AtenTensorHandle td = over(d, {1}, kFloat64);
  EXPECT(aoti_torch_cpu_polar(tm, td, &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // dtypes differ
  for (AtenTensorHandle h : {tm, ta, td}) aoti_torch_delete_tensor_object(h);
}
