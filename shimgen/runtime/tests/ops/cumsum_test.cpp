#include "op_test.h"

using namespace op_test;

// Along each dim of a 2x3, on a transposed view, integers to int64, and a bad dim.
OP_TEST(cumsum) {
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  AtenTensorHandle t = over(x, {2, 3}, kFloat32), out = nullptr;
  EXPECT(aoti_torch_cpu_cumsum(t, 1, nullptr, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{1, 3, 6, 4, 9, 15}));
  aoti_torch_delete_tensor_object(out);
  EXPECT(aoti_torch_cpu_cumsum(t, -2, nullptr, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{1, 2, 3, 5, 7, 9}));
  aoti_torch_delete_tensor_object(out);
  AtenTensorHandle tt = over(x, {3, 2}, kFloat32, {1, 3});  // x^T: [[1,4],[2,5],[3,6]]
  EXPECT(aoti_torch_cpu_cumsum(tt, 0, nullptr, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{1, 4, 3, 9, 6, 15}));
  aoti_torch_delete_tensor_object(out);
  std::vector<int32_t> mask{0, 1, 1, 1};
  AtenTensorHandle m = over(mask, {4}, 3);
  EXPECT(aoti_torch_cpu_cumsum(m, 0, nullptr, &out) == 0);
  int32_t dtype = -1;
  EXPECT(aoti_torch_get_dtype(out, &dtype) == 0 && dtype == kInt64);
  EXPECT(values<int64_t>(out) == (std::vector<int64_t>{0, 1, 2, 3}));
  aoti_torch_delete_tensor_object(out);
  AtenTensorHandle untouched = nullptr;
  EXPECT(aoti_torch_cpu_cumsum(t, 2, nullptr, &untouched) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(untouched == nullptr);
  for (AtenTensorHandle h : {t, tt, m}) aoti_torch_delete_tensor_object(h);
}
