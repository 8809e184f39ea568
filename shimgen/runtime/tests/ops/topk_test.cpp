#include "op_test.h"

using namespace op_test;

OP_TEST(topk) {
  std::vector<float> x{3, 1, 4, 1, 5, 9, 2, 6};
  AtenTensorHandle t = over(x, {2, 4}, kFloat32), v = nullptr, i = nullptr;
  EXPECT(aoti_torch_cpu_topk(t, 2, -1, 1, 1, &v, &i) == 0);
  EXPECT(values<float>(v) == (std::vector<float>{4, 3, 9, 6}));
  EXPECT(values<int64_t>(i) == (std::vector<int64_t>{2, 0, 1, 3}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  EXPECT(aoti_torch_cpu_topk(t, 1, 0, 0, 1, &v, &i) == 0);  // smallest along dim 0
  EXPECT(values<float>(v) == (std::vector<float>{3, 1, 2, 1}));
  EXPECT(values<int64_t>(i) == (std::vector<int64_t>{0, 0, 1, 0}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  EXPECT(aoti_torch_cpu_topk(t, 5, -1, 1, 1, &v, &i) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
}
