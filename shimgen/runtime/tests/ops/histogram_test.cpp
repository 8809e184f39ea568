#include "op_test.h"

using namespace op_test;

OP_TEST(histogram) {
  std::vector<float> x{0.0f, 0.2f, 0.5f, 1.0f, 2.0f, -1.0f, NAN};
  AtenTensorHandle t = over(x, {7}, kFloat32), hist = nullptr, edges = nullptr;
  // bins=2 over [0, 1]: [0, 0.5) holds 0, 0.2; [0.5, 1] holds 0.5 and 1 (the last bin is closed);
  // 2, -1 and NaN fall outside.
  const double range[] = {0.0, 1.0};
  const double* r = range;
  EXPECT(aoti_torch_cpu_histogram_bin_ct(t, 2, &r, 2, nullptr, 0, &hist, &edges) == 0);
  EXPECT(values<float>(hist) == (std::vector<float>{2, 2}) && values<float>(edges) == (std::vector<float>{0, 0.5f, 1}));
  aoti_torch_delete_tensor_object(hist);
  aoti_torch_delete_tensor_object(edges);
  // No range: a constant input widens to [c - 0.5, c + 0.5]; weights and density.
  std::vector<float> c{1, 1, 1}, w{1, 2, 3};
  AtenTensorHandle ct = over(c, {3}, kFloat32), wt = over(w, {3}, kFloat32);
  EXPECT(aoti_torch_cpu_histogram_bin_ct(ct, 2, nullptr, 0, &wt, 1, &hist, &edges) == 0);
  EXPECT(values<float>(edges) == (std::vector<float>{0.5f, 1.0f, 1.5f}) &&
         values<float>(hist) == (std::vector<float>{0, 2}));
  aoti_torch_delete_tensor_object(hist);
  aoti_torch_delete_tensor_object(edges);
  hist = edges = nullptr;
  EXPECT(aoti_torch_cpu_histogram_bin_ct(t, 0, &r, 2, nullptr, 0, &hist, &edges) ==
         SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(hist == nullptr && edges == nullptr);
  for (AtenTensorHandle h : {t, ct, wt}) aoti_torch_delete_tensor_object(h);
}
