#include "op_test.h"

using namespace op_test;

OP_TEST(random) {
  std::vector<int64_t> seeds(64, -100);
  int64_t size[] = {64};
  AtenTensorHandle t = over(seeds, {64}, kInt64);
  EXPECT(aoti_torch_cpu_randint_low_out(t, 0, 4, size, 1) == 0);
  bool seen[4] = {};
  for (int64_t v : seeds) {
    EXPECT(v >= 0 && v < 4);
    if (v >= 0 && v < 4) seen[v] = true;
  }
  EXPECT(seen[0] && seen[1] && seen[2] && seen[3]);
  EXPECT(aoti_torch_cpu_randint_low_out(t, 4, 4, size, 1) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  aoti_torch_delete_tensor_object(t);
  AtenTensorHandle r = nullptr;
  int64_t shape[] = {100};
  EXPECT(aoti_torch_cpu_rand(shape, 1, nullptr, nullptr, nullptr, 0, nullptr, &r) == 0);
  const std::vector<float> u = values<float>(r);
  float lo = 1, hi = 0;
  for (float v : u) lo = v < lo ? v : lo, hi = v > hi ? v : hi;
  EXPECT(u.size() == 100 && lo >= 0 && hi < 1 && hi - lo > 0.5f);
  aoti_torch_delete_tensor_object(r);
}
