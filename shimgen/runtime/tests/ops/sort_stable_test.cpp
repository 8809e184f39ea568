#include "op_test.h"

using namespace op_test;

OP_TEST(sort_stable) {
  std::vector<int64_t> x{2, 1, 2, 0, 1};
  AtenTensorHandle t = over(x, {5}, kInt64), v = nullptr, i = nullptr;
  int32_t stable = 1;
  EXPECT(aoti_torch_cpu_sort_stable(t, &stable, 0, 1, &v, &i) == 0);  // descending: ties keep their order
  EXPECT(values<int64_t>(v) == (std::vector<int64_t>{2, 2, 1, 1, 0}));
  EXPECT(values<int64_t>(i) == (std::vector<int64_t>{0, 2, 1, 4, 3}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  EXPECT(aoti_torch_cpu_sort_stable(t, nullptr, 0, 0, &v, &i) == 0);
  EXPECT(values<int64_t>(i) == (std::vector<int64_t>{3, 1, 4, 0, 2}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  aoti_torch_delete_tensor_object(t);
}
