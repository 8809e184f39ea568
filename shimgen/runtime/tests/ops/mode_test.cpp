#include "op_test.h"

using namespace op_test;

OP_TEST(mode) {
  // Rows [2, 1, 2, 1, 3] (tie 1 vs 2: the smallest, 1; its last index 3) and [5, 5, 4, 4, 5].
  std::vector<int64_t> x{2, 1, 2, 1, 3, 5, 5, 4, 4, 5};
  AtenTensorHandle t = over(x, {2, 5}, kInt64), v = nullptr, i = nullptr;
  EXPECT(aoti_torch_cpu_mode(t, -1, 0, &v, &i) == 0);
  EXPECT(values<int64_t>(v) == (std::vector<int64_t>{1, 5}) && values<int64_t>(i) == (std::vector<int64_t>{3, 4}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  EXPECT(aoti_torch_cpu_mode(t, 0, 1, &v, &i) == 0);  // columns, keepdim: [1, 5]
  EXPECT(sizes_of(v) == (std::vector<int64_t>{1, 5}));
  EXPECT(values<int64_t>(v) == (std::vector<int64_t>{2, 1, 2, 1, 3}));
  aoti_torch_delete_tensor_object(v);
  aoti_torch_delete_tensor_object(i);
  EXPECT(aoti_torch_cpu_mode(t, 2, 0, &v, &i) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
}
