// What the fused RNN cells share (aoti_torch_cuda__thnn_fused_lstm_cell, _thnn_fused_gru_cell: the
// pointwise half of LSTMCell / GRUCell on CUDA, after the two GEMMs): argument checks, a 2-d strided
// operand passed to kernels by value, torch's sigmoid. CUDA builds only; nothing here is exported.
#pragma once

#include <string>

#include "op_support.cuh"
#include "strided.cuh"

namespace shimgen::rt::cuda_ops::rnn_cell {

// A [rows, cols] operand (a bias: one row, row step 0); null data for an absent bias.
template <typename T> struct Mat {
  const T* data = nullptr;
  int64_t row = 0, col = 0;
  __device__ acc_of_t<T> at(int64_t r, int64_t c) const {  // 0 for an absent bias
    return data != nullptr ? load_as<acc_of_t<T>>(data[r * row + c * col]) : acc_of_t<T>(0);
  }
};

template <typename T> __device__ inline T sigmoid(T x) {  // torch's RNN.cu: one / (one + exp(-x))
  return T(1) / (T(1) + exp(-x));
}

// The cell's gates: two [batch, gates * hidden] tensors, the state [batch, hidden] (cx for LSTM, hx
// for GRU), optional biases of [gates * hidden]; one floating dtype on one device. Checked here,
// before any output exists.
struct Args {
  const Tensor* input_gates;
  const Tensor* hidden_gates;
  const Tensor* state;
  const Tensor* input_bias;   // null: none
  const Tensor* hidden_bias;  // null: none
  int64_t batch, hidden;
};

inline Args check_args(AtenTensorHandle input_gates, AtenTensorHandle hidden_gates, AtenTensorHandle state,
                       const char* state_name, AtenTensorHandle* input_bias, AtenTensorHandle* hidden_bias,
                       int64_t gates) {
  Args a{};
  a.input_gates = &cuda_arg(input_gates, "input_gates", 2);
  a.hidden_gates = &cuda_arg(hidden_gates, "hidden_gates", 2);
  a.state = &cuda_arg(state, state_name, 2);
  a.input_bias = input_bias != nullptr && *input_bias != nullptr ? &cuda_arg(*input_bias, "input_bias", 1) : nullptr;
  a.hidden_bias =
      hidden_bias != nullptr && *hidden_bias != nullptr ? &cuda_arg(*hidden_bias, "hidden_bias", 1) : nullptr;
  SHIMGEN_REQUIRE((a.input_bias == nullptr) == (a.hidden_bias == nullptr),
                  "input_bias and hidden_bias must be both given or both absent");
  a.batch = a.state->sizes[0];
  a.hidden = a.state->sizes[1];
  const std::vector<int64_t> gate_sizes{a.batch, gates * a.hidden};
  SHIMGEN_REQUIRE(a.input_gates->sizes == gate_sizes && a.hidden_gates->sizes == gate_sizes,
                  "input_gates and hidden_gates must be [" + str(a.batch) + ", " + str(gates * a.hidden) + "] (" +
                      std::string(state_name) + " is [" + str(a.batch) + ", " + str(a.hidden) + "])");
  for (const Tensor* b : {a.input_bias, a.hidden_bias})
    SHIMGEN_REQUIRE(b == nullptr || b->sizes[0] == gates * a.hidden,
                    "a bias must have " + str(gates * a.hidden) + " elements");
  const int32_t device = a.state->storage->device_index;
  for (const Tensor* t : {a.input_gates, a.hidden_gates, a.input_bias, a.hidden_bias}) {
    if (t == nullptr) continue;
    SHIMGEN_REQUIRE(t->dtype == a.state->dtype, "every operand must have " + std::string(state_name) + "'s dtype");
    SHIMGEN_REQUIRE(t->storage->device_index == device, "every operand must be on one device");
  }
  return a;
}

template <typename T> Mat<T> mat(const Tensor* t) {
  if (t == nullptr) return {};
  if (t->sizes.size() == 1) return {reinterpret_cast<const T*>(t->data()), 0, t->strides[0]};
  return {reinterpret_cast<const T*>(t->data()), t->strides[0], t->strides[1]};
}

// The cell's outputs, new contiguous tensors of the state's dtype on its device (as torch's
// empty_like with the legacy contiguous format): Outputs - 1 of the state's shape (hy; LSTM: hy,
// cy), then the workspace [batch, workspace_chunks * hidden]. launch(T{}, n, stream, data) starts
// the kernel over the n = batch * hidden state elements; data[i] is output i's. Stored in ret last.
template <size_t Outputs, class Launch> void run_cell(const Args& a, int64_t workspace_chunks,
                                                      AtenTensorHandle* const (&ret)[Outputs], const char* op,
                                                      Launch&& launch) {
  for (AtenTensorHandle* r : ret) SHIMGEN_REQUIRE(r != nullptr, "an output pointer is null");
  const int32_t device = a.state->storage->device_index;
  dispatch_floating_all(a.state->dtype, op, [&](auto tag) {
    using T = decltype(tag);
    Owned out[Outputs];
    for (size_t i = 0; i + 1 < Outputs; ++i) empty(out[i], a.state->sizes, {}, a.state->dtype, kCUDA, device);
    empty(out[Outputs - 1], {a.batch, workspace_chunks * a.hidden}, {}, a.state->dtype, kCUDA, device);
    T* data[Outputs];
    for (size_t i = 0; i < Outputs; ++i) data[i] = reinterpret_cast<T*>(out[i].get()->data());
    const int64_t n = a.batch * a.hidden;
    if (n > 0) {
      DeviceScope scope(device);
      launch(tag, n, stream_of(device), data);
      check_cuda(cudaGetLastError(), op);  // the kernel launch
    }
    for (size_t i = 0; i < Outputs; ++i) *ret[i] = out[i].release();
  });
}

}  // namespace shimgen::rt::cuda_ops::rnn_cell
