// aoti_torch_cpu_mkldnn_rnn_layer: one LSTM layer, one direction, as inductor lowers nn.LSTM on the
// CPU (torch/_decomp's one_layer_lstm_mkldnn: input [T, B, I] contiguous, hx/cx [1, B, H],
// weight0 = w_ih [4H, I], weight1 = w_hh [4H, H], weight2/3 = b_ih/b_hh [4H], gates i, f, g, o).
// Outputs: ret0 y [T, B, H], ret1 hy and ret2 cy [1, B, H], all contiguous; ret3 the workspace,
// which only training reads: an empty uint8 tensor here (train must be 0). float32, and bfloat16 (a
// bf16 nn.LSTM on the CPU): computed in float32 from the widened operands, each output rounded once to
// bfloat16 (torch's oneDNN kernel also keeps its gates and cell in float32). The GEMMs go through the
// runtime's BLAS (cpu_kernels.h).
#include <cmath>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

inline float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

Matrix<const float> matrix_of(const Tensor& t, int64_t rows_dim, int64_t cols_dim, int64_t offset = 0) {
  return {reinterpret_cast<const float*>(t.data()) + offset, t.sizes[rows_dim], t.sizes[cols_dim], t.strides[rows_dim],
          t.strides[cols_dim]};
}

void lstm(const Tensor& x, const Tensor& w_ih, const Tensor& w_hh, const Tensor* b_ih, const Tensor* b_hh,
          const Tensor& hx, const Tensor& cx, bool reverse, Tensor& y, Tensor& hy, Tensor& cy) {
  const int64_t T = x.sizes[0], B = x.sizes[1], H = hx.sizes[2];
  std::vector<float> gates(static_cast<size_t>(B * 4 * H));
  std::vector<float> h(static_cast<size_t>(B * H)), c(static_cast<size_t>(B * H));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < H; ++j) {
      h[b * H + j] = reinterpret_cast<const float*>(hx.data())[b * hx.strides[1] + j * hx.strides[2]];
      c[b * H + j] = reinterpret_cast<const float*>(cx.data())[b * cx.strides[1] + j * cx.strides[2]];
    }
  auto bias = [](const Tensor* t, int64_t k) {
    return t == nullptr ? 0.0f : reinterpret_cast<const float*>(t->data())[k * t->strides[0]];
  };
  std::vector<float> bias_sum(static_cast<size_t>(4 * H));
  for (int64_t k = 0; k < 4 * H; ++k) bias_sum[k] = bias(b_ih, k) + bias(b_hh, k);
  const Matrix<float> g{gates.data(), B, 4 * H, 4 * H, 1};
  const Matrix<const float> h_mat{h.data(), B, H, H, 1};
  auto* out = reinterpret_cast<float*>(y.data());
  for (int64_t step = 0; step < T; ++step) {
    const int64_t t = reverse ? T - 1 - step : step;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < 4 * H; ++k) gates[b * 4 * H + k] = bias_sum[k];
    // gates += x[t] @ w_ih^T + h @ w_hh^T
    gemm(matrix_of(x, 1, 2, t * x.strides[0]), matrix_of(w_ih, 0, 1).transposed(), g, 1.0f, 1.0f);
    if (H > 0) gemm(h_mat, matrix_of(w_hh, 0, 1).transposed(), g, 1.0f, 1.0f);
    for (int64_t b = 0; b < B; ++b) {
      const float* gb = gates.data() + b * 4 * H;
      for (int64_t j = 0; j < H; ++j) {
        const float i = sigmoid(gb[j]), f = sigmoid(gb[H + j]), gg = std::tanh(gb[2 * H + j]);
        const float o = sigmoid(gb[3 * H + j]);
        float& cell = c[b * H + j];
        cell = f * cell + i * gg;
        h[b * H + j] = o * std::tanh(cell);
        out[(t * B + b) * H + j] = h[b * H + j];
      }
    }
  }
  std::copy(h.begin(), h.end(), reinterpret_cast<float*>(hy.data()));
  std::copy(c.begin(), c.end(), reinterpret_cast<float*>(cy.data()));
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mkldnn_rnn_layer(
    AtenTensorHandle input, AtenTensorHandle weight0, AtenTensorHandle weight1, AtenTensorHandle weight2,
    AtenTensorHandle weight3, AtenTensorHandle hx_, AtenTensorHandle cx_, int32_t reverse, const int64_t* batch_sizes,
    int64_t batch_sizes_len_, int64_t mode, int64_t hidden_size, int64_t num_layers, int32_t has_biases,
    int32_t bidirectional, int32_t batch_first, int32_t train, AtenTensorHandle* ret0, AtenTensorHandle* ret1,
    AtenTensorHandle* ret2, AtenTensorHandle* ret3) {
  (void)batch_sizes;
  return guarded(__func__, [&] {
    const Tensor& x = cpu_tensor(input, "input");
    const Tensor& w_ih = cpu_tensor(weight0, "weight0");
    const Tensor& w_hh = cpu_tensor(weight1, "weight1");
    const Tensor* b_ih = has_biases ? &cpu_tensor(weight2, "weight2") : nullptr;
    const Tensor* b_hh = has_biases ? &cpu_tensor(weight3, "weight3") : nullptr;
    const Tensor& hx = cpu_tensor(hx_, "hx_");
    const Tensor& cx = cpu_tensor(cx_, "cx_");
    for (AtenTensorHandle* r : {ret0, ret1, ret2, ret3}) require_out(r, "an output pointer");
    SHIMGEN_REQUIRE(mode == 2, "mode " + std::to_string(mode) + " is not LSTM (2); only LSTM layers are served");
    SHIMGEN_REQUIRE(batch_sizes_len_ == 0, "packed sequences (batch_sizes) are not supported");
    SHIMGEN_REQUIRE(!train, "train must be 0: the runtime runs inference only (no workspace)");
    SHIMGEN_REQUIRE(num_layers == 1 && !bidirectional && !batch_first,
                    "expects one layer, one direction, [T, B, I] input (what inductor's decomposition passes)");
    SHIMGEN_REQUIRE(x.sizes.size() == 3 && hx.sizes.size() == 3 && cx.sizes.size() == 3,
                    "input, hx_ and cx_ must be 3-d");
    const int64_t B = x.sizes[1], I = x.sizes[2], H = hidden_size;
    SHIMGEN_REQUIRE(hx.sizes == (std::vector<int64_t>{1, B, H}) && cx.sizes == hx.sizes,
                    "hx_ and cx_ must be [1, " + std::to_string(B) + ", " + std::to_string(H) + "]");
    SHIMGEN_REQUIRE(w_ih.sizes == (std::vector<int64_t>{4 * H, I}) && w_hh.sizes == (std::vector<int64_t>{4 * H, H}),
                    "weight0 must be [4H, I] and weight1 [4H, H]");
    SHIMGEN_REQUIRE(!has_biases || (b_ih->sizes == std::vector<int64_t>{4 * H} && b_hh->sizes == b_ih->sizes),
                    "weight2 and weight3 must be [4H]");
    const int32_t dtype = x.dtype;
    for (const Tensor* t : {&x, &w_ih, &w_hh, b_ih, b_hh, &hx, &cx}) {
      if (t != nullptr && (t->dtype != kFloat32 && t->dtype != kBFloat16))
        fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
             std::string("mkldnn_rnn_layer: only float32 and bfloat16 are supported, got ") +
                 scalar_type_name(t->dtype));
      SHIMGEN_REQUIRE(t == nullptr || t->dtype == dtype,
                      "mkldnn_rnn_layer: input, weights and states must have one dtype");
    }
    const std::vector<int64_t> y_sizes{x.sizes[0], B, H}, h_sizes{1, B, H};
    auto y = empty_tensor(y_sizes, contiguous_strides_of(y_sizes), kFloat32, kCPU, -1);
    auto hy = empty_tensor(h_sizes, contiguous_strides_of(h_sizes), kFloat32, kCPU, -1);
    auto cy = empty_tensor(h_sizes, contiguous_strides_of(h_sizes), kFloat32, kCPU, -1);
    auto workspace = empty_tensor({0}, {1}, kUInt8, kCPU, -1);
    if (dtype == kFloat32) {
      lstm(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse != 0, *y, *hy, *cy);
    } else {  // bfloat16: float32 operands, outputs rounded once
      const auto wide = [](const Tensor* t) { return t != nullptr ? widened(*t) : nullptr; };
      const auto fx = widened(x), fih = widened(w_ih), fhh = widened(w_hh), fhx = widened(hx), fcx = widened(cx);
      const auto fbi = wide(b_ih), fbh = wide(b_hh);
      lstm(*fx, *fih, *fhh, fbi.get(), fbh.get(), *fhx, *fcx, reverse != 0, *y, *hy, *cy);
      for (auto* slot : {&y, &hy, &cy}) {
        auto narrow = empty_tensor((*slot)->sizes, (*slot)->strides, kBFloat16, kCPU, -1);
        store_narrowed(**slot, *narrow);
        *slot = std::move(narrow);
      }
    }
    *ret0 = wrap(std::move(y));
    *ret1 = wrap(std::move(hy));
    *ret2 = wrap(std::move(cy));
    *ret3 = wrap(std::move(workspace));
  });
}
