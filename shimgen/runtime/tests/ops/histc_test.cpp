#include "op_test.h"

using namespace op_test;

OP_TEST(histc) {
  // MoE expert ids 0..3 in 4 bins over [0, 3]: 3 lands in the last bin, -1 and 7 are not counted.
  std::vector<float> x{0, 1, 1, 3, 3, 3, -1, 7};
  AtenTensorHandle t = over(x, {8}, kFloat32), out = nullptr;
  EXPECT(aoti_torch_cpu_histc(t, 4, 0, 3, &out) == 0);
  EXPECT(values<float>(out) == (std::vector<float>{1, 2, 0, 3}));
  aoti_torch_delete_tensor_object(out);
  EXPECT(aoti_torch_cpu_histc(t, 2, 0, 0, &out) == 0);       // min == max: the data's range [-1, 7]
  EXPECT(values<float>(out) == (std::vector<float>{4, 4}));  // edges -1, 3, 7
  aoti_torch_delete_tensor_object(out);
  EXPECT(aoti_torch_cpu_histc(t, 0, 0, 1, &out) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
}
