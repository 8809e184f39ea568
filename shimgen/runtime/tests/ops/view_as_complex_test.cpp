#include "op_test.h"

using namespace op_test;

OP_TEST(view_as_complex) {
  // float32 [3, 2] -> complex64 [3], sharing the memory; a [2, 3] (last size 3) is refused.
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  AtenTensorHandle t = over(x, {3, 2}, kFloat32), c = nullptr;
  EXPECT(aoti_torch_cpu_view_as_complex(t, &c) == 0);
  EXPECT(dtype_of(c) == kComplex64 && sizes_of(c) == (std::vector<int64_t>{3}) &&
         strides_of(c) == (std::vector<int64_t>{1}));
  EXPECT(complex_values(c) == x);
  aoti_torch_delete_tensor_object(c);
  AtenTensorHandle u = over(x, {2, 3}, kFloat32);
  EXPECT(aoti_torch_cpu_view_as_complex(u, &c) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  AtenTensorHandle v = over(x, {2, 2}, kFloat32, {1, 2});  // last stride 2
  EXPECT(aoti_torch_cpu_view_as_complex(v, &c) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  for (AtenTensorHandle h : {t, u, v}) aoti_torch_delete_tensor_object(h);
}
