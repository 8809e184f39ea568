// aoti_torch_cuda__thnn_fused_lstm_cell: the pointwise half of LSTMCell on CUDA (torch's
// _thnn_fused_lstm_cell; inductor falls back to it after the two GEMMs). gates = input_gates +
// hidden_gates (+ input_bias + hidden_bias), chunks i, f, g, o of hidden each; i, f, o through
// sigmoid, g through tanh; cy = f * cx + i * g, hy = o * tanh(cy). Returns hy and cy (contiguous,
// cx's shape) and the workspace torch's backward reads (contiguous [batch, 4 * hidden]: the four
// activated gates in that order). float32/float64/float16/bfloat16, computing in float (double for
// float64) as torch's kernel; any strides.
#include "rnn_cell.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;
using namespace shimgen::rt::cuda_ops::rnn_cell;

namespace {

template <typename T> __global__ void lstm_cell_kernel(Mat<T> ig, Mat<T> hg, Mat<T> b1, Mat<T> b2, Mat<T> cx,
                                                       int64_t hidden, int64_t n, T* hy, T* cy, T* workspace) {
  using A = acc_of_t<T>;
  SHIMGEN_GRID_STRIDE_LOOP(k, n) {
    const int64_t r = k / hidden, j = k % hidden;
    auto gate = [&](int64_t g) {
      const int64_t c = g * hidden + j;
      return ig.at(r, c) + hg.at(r, c) + b1.at(0, c) + b2.at(0, c);
    };
    const A i = sigmoid<A>(gate(0)), f = sigmoid<A>(gate(1)), g = tanh(gate(2)), o = sigmoid<A>(gate(3));
    const A c = f * cx.at(r, j) + i * g;
    const A h = o * tanh(c);
    hy[k] = store_as<T>(h);
    cy[k] = store_as<T>(c);
    T* w = workspace + r * 4 * hidden + j;
    w[0] = store_as<T>(i);
    w[hidden] = store_as<T>(f);
    w[2 * hidden] = store_as<T>(g);
    w[3 * hidden] = store_as<T>(o);
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__thnn_fused_lstm_cell(
    AtenTensorHandle input_gates, AtenTensorHandle hidden_gates, AtenTensorHandle cx, AtenTensorHandle* input_bias,
    AtenTensorHandle* hidden_bias, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2) {
  return guarded(__func__, [&] {
    const Args a = check_args(input_gates, hidden_gates, cx, "cx", input_bias, hidden_bias, 4);
    const auto launch = [&](auto tag, int64_t n, cudaStream_t stream, auto out) {
      using T = decltype(tag);
      lstm_cell_kernel<T><<<grid_for(n), 256, 0, stream>>>(mat<T>(a.input_gates), mat<T>(a.hidden_gates),
                                                           mat<T>(a.input_bias), mat<T>(a.hidden_bias), mat<T>(a.state),
                                                           a.hidden, n, out[0], out[1], out[2]);
    };
    run_cell<3>(a, 4, {ret0, ret1, ret2}, "_thnn_fused_lstm_cell", launch);
  });
}
