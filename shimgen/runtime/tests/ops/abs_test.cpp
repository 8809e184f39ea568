#include "op_test.h"

using namespace op_test;

OP_TEST(abs) {
  std::vector<float> x{3, 4, -5, 12, 0, -1};  // complex64 3+4i, -5+12i, 0-1i
  AtenTensorHandle t = over(x, {3}, kComplex64), a = nullptr;
  EXPECT(aoti_torch_cpu_abs(t, &a) == 0);
  EXPECT(dtype_of(a) == kFloat32 && values<float>(a) == (std::vector<float>{5, 13, 1}));
  aoti_torch_delete_tensor_object(a);
  std::vector<int64_t> i{-1, 2};
  AtenTensorHandle n = over(i, {2}, kInt64);
  EXPECT(aoti_torch_cpu_abs(n, &a) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);  // inductor's own kernel
  aoti_torch_delete_tensor_object(n);
  aoti_torch_delete_tensor_object(t);
}
