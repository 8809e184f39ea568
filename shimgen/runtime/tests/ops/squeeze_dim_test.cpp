#include "op_test.h"

using namespace op_test;

OP_TEST(squeeze_dim) {
  std::vector<float> x(6, 0.0f);
  AtenTensorHandle t = over(x, {2, 1, 3}, kFloat32), s = nullptr;
  EXPECT(aoti_torch_cpu_squeeze_dim(t, -2, &s) == 0);
  EXPECT(sizes_of(s) == (std::vector<int64_t>{2, 3}) && strides_of(s) == (std::vector<int64_t>{3, 1}));
  aoti_torch_delete_tensor_object(s);
  EXPECT(aoti_torch_cpu_squeeze_dim(t, 0, &s) == 0);  // size 2: unchanged
  EXPECT(sizes_of(s) == (std::vector<int64_t>{2, 1, 3}));
  aoti_torch_delete_tensor_object(s);
  EXPECT(aoti_torch_cpu_squeeze_dim(t, 3, &s) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
}
