#include "op_test.h"

using namespace op_test;

OP_TEST(geqrf) {
  // [3, 4]^T: LAPACK's reflector makes R = -5, v = [1, 0.5] (stored below the diagonal), tau = 1.6.
  std::vector<float> a{3, 4};
  AtenTensorHandle ta = over(a, {2, 1}, kFloat32), h = nullptr, tau = nullptr;
  EXPECT(aoti_torch_cpu_geqrf(ta, &h, &tau) == 0);
  EXPECT(near(values<float>(h), {-5, 0.5f}, 1e-6) && near(values<float>(tau), {1.6f}, 1e-6));
  aoti_torch_delete_tensor_object(h);
  aoti_torch_delete_tensor_object(tau);
  std::vector<float> flat{1, 2};  // negative control: a vector is not a matrix
  AtenTensorHandle tf = over(flat, {2}, kFloat32);
  h = nullptr;
  EXPECT(aoti_torch_cpu_geqrf(tf, &h, &tau) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT && h == nullptr);
  aoti_torch_delete_tensor_object(tf);
  aoti_torch_delete_tensor_object(ta);
}
