#include "op_test.h"

using namespace op_test;

OP_TEST(view_as_real) {
  // A [2] complex64 column of a [2, 2] (strides [2]) seen as float32 [2, 2] with strides [4, 1],
  // sharing the memory.
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  AtenTensorHandle t = over(x, {2}, kComplex64, {2}), r = nullptr;
  EXPECT(aoti_torch_cpu_view_as_real(t, &r) == 0);
  EXPECT(dtype_of(r) == kFloat32 && sizes_of(r) == (std::vector<int64_t>{2, 2}));
  EXPECT(strides_of(r) == (std::vector<int64_t>{4, 1}));
  void* a = nullptr;
  EXPECT(aoti_torch_get_data_ptr(r, &a) == 0 && a == x.data());
  aoti_torch_delete_tensor_object(r);
  AtenTensorHandle f = over(x, {8}, kFloat32);
  EXPECT(aoti_torch_cpu_view_as_real(f, &r) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(f);
  aoti_torch_delete_tensor_object(t);
}
