#include <cmath>

#include "op_test.h"

using namespace op_test;

// One step, one unit, weights chosen so the gates are known: i = f = o = sigmoid(1), g = tanh(1).
OP_TEST(mkldnn_rnn_layer) {
  std::vector<float> x{1}, w_ih{1, 1, 1, 1}, w_hh{0, 0, 0, 0}, b{0, 0, 0, 0}, h0{0}, c0{0.5f};
  AtenTensorHandle hx = over(x, {1, 1, 1}, kFloat32), hw0 = over(w_ih, {4, 1}, kFloat32);
  AtenTensorHandle hw1 = over(w_hh, {4, 1}, kFloat32), hb0 = over(b, {4}, kFloat32), hb1 = over(b, {4}, kFloat32);
  AtenTensorHandle hh = over(h0, {1, 1, 1}, kFloat32), hc = over(c0, {1, 1, 1}, kFloat32);
  AtenTensorHandle y = nullptr, hy = nullptr, cy = nullptr, ws = nullptr;
  EXPECT(aoti_torch_cpu_mkldnn_rnn_layer(hx, hw0, hw1, hb0, hb1, hh, hc, 0, nullptr, 0, 2, 1, 1, 1, 0, 0, 0, &y, &hy,
                                         &cy, &ws) == 0);
  const float s = 1.0f / (1.0f + std::exp(-1.0f)), c = s * 0.5f + s * std::tanh(1.0f), h = s * std::tanh(c);
  EXPECT(std::fabs(values<float>(cy)[0] - c) < 1e-6f);
  EXPECT(std::fabs(values<float>(hy)[0] - h) < 1e-6f && std::fabs(values<float>(y)[0] - h) < 1e-6f);
  for (AtenTensorHandle t : {y, hy, cy, ws}) aoti_torch_delete_tensor_object(t);
  EXPECT(aoti_torch_cpu_mkldnn_rnn_layer(hx, hw0, hw1, hb0, hb1, hh, hc, 0, nullptr, 0, 1, 1, 1, 1, 0, 0, 0, &y, &hy,
                                         &cy, &ws) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);  // mode 1: a GRU
  for (AtenTensorHandle t : {hx, hw0, hw1, hb0, hb1, hh, hc}) aoti_torch_delete_tensor_object(t);
}
