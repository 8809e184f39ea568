#include "op_test.h"
#include "shimgen_runtime/runtime.h"

using namespace op_test;

OP_TEST(cholesky_inverse) {
  // L = [[2, 0], [1, sqrt 2]]: (L L^T)^-1 = [[4, 2], [2, 3]]^-1 = [[0.375, -0.25], [-0.25, 0.5]].
  const double r2 = std::sqrt(2.0);
  std::vector<double> l{2, 0, 1, r2}, u{2, 1, 0, r2}, singular{2, 0, 1, 0};
  AtenTensorHandle tl = over(l, {2, 2}, kFloat64), tu = over(u, {2, 2}, kFloat64),
                   ts = over(singular, {2, 2}, kFloat64);
  AtenTensorHandle inv = nullptr;
  EXPECT(aoti_torch_cpu_cholesky_inverse(tl, 0, &inv) == 0);
  EXPECT(near(values<double>(inv), {0.375, -0.25, -0.25, 0.5}, 1e-12));
  aoti_torch_delete_tensor_object(inv);
  EXPECT(aoti_torch_cpu_cholesky_inverse(tu, 1, &inv) == 0);
  EXPECT(near(values<double>(inv), {0.375, -0.25, -0.25, 0.5}, 1e-12));
  aoti_torch_delete_tensor_object(inv);
  inv = nullptr;  // a zero on the factor's diagonal: torch's message, nothing handed out
  EXPECT(aoti_torch_cpu_cholesky_inverse(ts, 0, &inv) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT && inv == nullptr);
  EXPECT(std::string(shimgen_runtime_last_error()).find("cholesky_inverse: The diagonal element 2 is zero") !=
         std::string::npos);
  for (AtenTensorHandle t : {tl, tu, ts}) aoti_torch_delete_tensor_object(t);
}
