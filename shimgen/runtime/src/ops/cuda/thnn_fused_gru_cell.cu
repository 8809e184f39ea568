// aoti_torch_cuda__thnn_fused_gru_cell: the pointwise half of GRUCell on CUDA (torch's
// _thnn_fused_gru_cell). Chunks r, z, n of hidden each: r = sigmoid(ir + hr + b1r + b2r),
// z = sigmoid(iz + hz + b1z + b2z), n = tanh(in + b1n + r * (hn + b2n)), hy = n + z * (hx - n).
// Returns hy (contiguous, hx's shape) and the workspace torch's backward reads (contiguous
// [batch, 5 * hidden]: r, z, n, hx, hn + b2n). torch has no C shim for it (2.13's fallback_ops), so
// AOTInductor reaches it through the proxy executor, which calls this. float32/float64/float16/
// bfloat16, computing in float (double for float64) as torch's kernel; any strides.
#include "rnn_cell.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cuda_ops;
using namespace shimgen::rt::cuda_ops::rnn_cell;

namespace {

template <typename T> __global__ void gru_cell_kernel(Mat<T> ig, Mat<T> hg, Mat<T> b1, Mat<T> b2, Mat<T> hx,
                                                      int64_t hidden, int64_t n, T* hy, T* workspace) {
  using A = acc_of_t<T>;
  SHIMGEN_GRID_STRIDE_LOOP(k, n) {
    const int64_t r = k / hidden, j = k % hidden;
    const int64_t cr = j, cz = hidden + j, cn = 2 * hidden + j;
    const A rg = sigmoid<A>(ig.at(r, cr) + hg.at(r, cr) + b1.at(0, cr) + b2.at(0, cr));
    const A zg = sigmoid<A>(ig.at(r, cz) + hg.at(r, cz) + b1.at(0, cz) + b2.at(0, cz));
    const A hn = hg.at(r, cn) + b2.at(0, cn);
    const A ng = tanh(ig.at(r, cn) + b1.at(0, cn) + rg * hn);
    const A h = hx.at(r, j);
    hy[k] = store_as<T>(ng + zg * (h - ng));
    T* w = workspace + r * 5 * hidden + j;
    w[0] = store_as<T>(rg);
    w[hidden] = store_as<T>(zg);
    w[2 * hidden] = store_as<T>(ng);
    w[3 * hidden] = store_as<T>(h);
    w[4 * hidden] = store_as<T>(hn);
  }
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__thnn_fused_gru_cell(
    AtenTensorHandle input_gates, AtenTensorHandle hidden_gates, AtenTensorHandle hx, AtenTensorHandle* input_bias,
    AtenTensorHandle* hidden_bias, AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    const Args a = check_args(input_gates, hidden_gates, hx, "hx", input_bias, hidden_bias, 3);
    const auto launch = [&](auto tag, int64_t n, cudaStream_t stream, auto out) {
      using T = decltype(tag);
      gru_cell_kernel<T><<<grid_for(n), 256, 0, stream>>>(mat<T>(a.input_gates), mat<T>(a.hidden_gates),
                                                          mat<T>(a.input_bias), mat<T>(a.hidden_bias), mat<T>(a.state),
                                                          a.hidden, n, out[0], out[1]);
    };
    run_cell<2>(a, 5, {ret0, ret1}, "_thnn_fused_gru_cell", launch);
  });
}
