#include "op_test.h"

using namespace op_test;

OP_TEST(permute) {
  std::vector<float> x(24, 0.0f);
  AtenTensorHandle t = over(x, {2, 3, 4}, kFloat32), p = nullptr;
  const int64_t dims[] = {2, 0, -2};
  EXPECT(aoti_torch_cpu_permute(t, dims, 3, &p) == 0);
  EXPECT(sizes_of(p) == (std::vector<int64_t>{4, 2, 3}) && strides_of(p) == (std::vector<int64_t>{1, 12, 4}));
  aoti_torch_delete_tensor_object(p);
  const int64_t repeated[] = {0, 0, 1};
  EXPECT(aoti_torch_cpu_permute(t, repeated, 3, &p) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_cpu_permute(t, dims, 2, &p) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
}
