#include "op_test.h"

using namespace op_test;

OP_TEST(fft_r2c) {
  // rfft([1, 2, 3, 4]) = [10, -2+2i, -2] (onesided: 4/2 + 1 entries); full: + [-2-2i].
  std::vector<float> x{1, 2, 3, 4};
  AtenTensorHandle t = over(x, {4}, kFloat32), f = nullptr;
  const int64_t dim[] = {-1};
  EXPECT(aoti_torch_cpu__fft_r2c(t, dim, 1, 0, 1, &f) == 0);
  EXPECT(dtype_of(f) == kComplex64 && sizes_of(f) == (std::vector<int64_t>{3}));
  EXPECT(near(complex_values(f), {10, 0, -2, 2, -2, 0}, 1e-5));
  aoti_torch_delete_tensor_object(f);
  EXPECT(aoti_torch_cpu__fft_r2c(t, dim, 1, 2, 0, &f) == 0);  // two-sided, by n
  EXPECT(near(complex_values(f), {2.5f, 0, -0.5f, 0.5f, -0.5f, 0, -0.5f, -0.5f}, 1e-6));
  aoti_torch_delete_tensor_object(f);
  // Batched [2, 4]: rows transform independently; contiguous [2, 3] out.
  std::vector<float> y{1, 2, 3, 4, 1, 1, 1, 1};
  AtenTensorHandle u = over(y, {2, 4}, kFloat32);
  EXPECT(aoti_torch_cpu__fft_r2c(u, dim, 1, 0, 1, &f) == 0);
  EXPECT(strides_of(f) == (std::vector<int64_t>{3, 1}));
  EXPECT(near(complex_values(f), {10, 0, -2, 2, -2, 0, 4, 0, 0, 0, 0, 0}, 1e-5));
  aoti_torch_delete_tensor_object(f);
  EXPECT(aoti_torch_cpu__fft_r2c(t, dim, 0, 0, 1, &f) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // no dim
  aoti_torch_delete_tensor_object(t);
  aoti_torch_delete_tensor_object(u);
}
