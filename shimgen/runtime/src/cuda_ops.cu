// CUDA fallback ops (mm, addmm, bmm, convolution, attention): see shimgen_runtime/shim_cuda_ops.h.
//
// Everything runs on the effective stream of the tensors' device and never synchronises the host,
// so the ops work inside CUDA graph capture. GEMMs use cuBLAS (cublasGemmStridedBatchedEx), which
// reads any matrix with one unit stride in place; other layouts are packed into a scratch buffer
// first. Convolution lowers to im2col + the same GEMM. Attention is one online-softmax kernel.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda_internal.h"
#include "internal.h"
#include "ops/cuda/host_staged.h"
#include "ops/cuda/op_support.cuh"
#include "shimgen_runtime/shim_cuda_ops.h"

namespace shimgen::rt {
namespace {

using namespace cuda_ops;

void check_blas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  fail(status == CUBLAS_STATUS_ALLOC_FAILED ? SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY : SHIMGEN_RUNTIME_ERROR_CUDA,
       std::string(what) + ": " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

// One cuBLAS handle per thread and device, created on first use. Deliberately never destroyed:
// thread-exit and process-exit destructors may run after the CUDA context is gone (PyTorch keeps
// its handles alive for the same reason).
cublasHandle_t blas_handle(int32_t device, cudaStream_t stream) {
  thread_local std::vector<cublasHandle_t> handles;
  if (static_cast<size_t>(device) >= handles.size()) handles.resize(static_cast<size_t>(device) + 1, nullptr);
  cublasHandle_t& handle = handles[static_cast<size_t>(device)];
  if (handle == nullptr) check_blas(cublasCreate(&handle), "cublasCreate");
  check_blas(cublasSetStream(handle, stream), "cublasSetStream");
  return handle;
}

const Tensor& cuda_tensor(AtenTensorHandle handle, const char* what, int64_t dim) {
  const Tensor* t = unwrap(handle, what);
  SHIMGEN_REQUIRE(t->storage->device_type == kCUDA, std::string(what) + " is not a CUDA tensor");
  SHIMGEN_REQUIRE(floating(t->dtype), std::string(what) + " has dtype code " + str(t->dtype) +
                                          "; float32 (6), float16 (5) and bfloat16 (15) are supported");
  if (dim >= 0) {
    SHIMGEN_REQUIRE(
        static_cast<int64_t>(t->sizes.size()) == dim,
        std::string(what) + " must be " + str(dim) + "-d, not " + str(static_cast<int64_t>(t->sizes.size())) + "-d");
  }
  return *t;
}

void same_device_and_dtype(const Tensor& a, const Tensor& b, const char* what) {
  SHIMGEN_REQUIRE(a.storage->device_index == b.storage->device_index, std::string(what) + " is on another CUDA device");
  SHIMGEN_REQUIRE(a.dtype == b.dtype, std::string(what) + " has another dtype");
}

cudaDataType_t blas_type(int32_t dtype) {
  return dtype == kFloat32 ? CUDA_R_32F : dtype == kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
}

// ---- GEMM --------------------------------------------------------------------------------------

// A batch of row x col matrices at `data` (element pointer), strides in elements.
struct Mat {
  char* data;
  int64_t rows, cols, rs, cs, bs;  // row, column and batch strides
};

// How cuBLAS (column-major) can read a matrix in place: as itself (column-major) or as its
// transpose (row-major), with a leading dimension. ok=false: no unit stride, pack it first.
struct BlasView {
  bool ok;
  bool row_major;
  int64_t ld;
};

BlasView blas_view(const Mat& m) {
  if (m.cs == 1 && (m.rows <= 1 || m.rs >= std::max<int64_t>(m.cols, 1))) {
    return {true, true, std::max<int64_t>({m.rs, m.cols, 1})};
  }
  if (m.rs == 1 && (m.cols <= 1 || m.cs >= std::max<int64_t>(m.rows, 1))) {
    return {true, false, std::max<int64_t>({m.cs, m.rows, 1})};
  }
  return {false, false, 0};
}

int32_t as_int(int64_t v, const char* what) {
  SHIMGEN_REQUIRE(v <= std::numeric_limits<int32_t>::max(),
                  std::string(what) + " " + str(v) + " exceeds cuBLAS's int range");
  return static_cast<int32_t>(v);
}

// C = alpha * A @ B + beta * C for `batches` matrices; every operand usable in place (blas_view ok).
void gemm_in_place(int32_t device, cudaStream_t stream, int32_t dtype, const Mat& a, const Mat& b, const Mat& c,
                   float alpha, float beta, int64_t batches) {
  const BlasView va = blas_view(a), vb = blas_view(b), vc = blas_view(c);
  cublasHandle_t handle = blas_handle(device, stream);
  const cudaDataType_t type = blas_type(dtype);
  const int32_t n = as_int(c.rows, "rows"), p = as_int(c.cols, "columns"), k = as_int(a.cols, "inner size");
  const int32_t count = as_int(batches, "batch count");
  cublasStatus_t status;
  if (vc.row_major) {
    // Row-major C is column-major C^T = B^T A^T: B^T is column-major when B is row-major (no op).
    status = cublasGemmStridedBatchedEx(
        handle, vb.row_major ? CUBLAS_OP_N : CUBLAS_OP_T, va.row_major ? CUBLAS_OP_N : CUBLAS_OP_T, p, n, k, &alpha,
        b.data, type, as_int(vb.ld, "ld"), b.bs, a.data, type, as_int(va.ld, "ld"), a.bs, &beta, c.data, type,
        as_int(vc.ld, "ld"), c.bs, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  } else {
    status = cublasGemmStridedBatchedEx(
        handle, va.row_major ? CUBLAS_OP_T : CUBLAS_OP_N, vb.row_major ? CUBLAS_OP_T : CUBLAS_OP_N, n, p, k, &alpha,
        a.data, type, as_int(va.ld, "ld"), a.bs, b.data, type, as_int(vb.ld, "ld"), b.bs, &beta, c.data, type,
        as_int(vc.ld, "ld"), c.bs, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  check_blas(status, "cublasGemmStridedBatchedEx");
}

// Packs a batch of matrices into a contiguous row-major scratch buffer (on the stream, no host sync).
Mat packed(const Mat& m, int64_t batches, size_t itemsize, int32_t device, Scratch& scratch) {
  const std::vector<int64_t> sizes{batches, m.rows, m.cols};
  const int64_t src_strides[3] = {m.bs, m.rs, m.cs};
  const std::vector<int64_t> dst_strides = contiguous_strides_of(sizes);
  copy_views(device_view(scratch.data(), dst_strides.data(), device), device_view(m.data, src_strides, device), sizes,
             itemsize, true);
  return Mat{scratch.data(), m.rows, m.cols, m.cols, 1, m.rows * m.cols};
}

// C = alpha * A @ B + beta * C for any strides (packing operands and C where cuBLAS cannot read them).
void gemm(int32_t device, int32_t dtype, size_t itemsize, Mat a, Mat b, const Mat& c, float alpha, float beta,
          int64_t batches) {
  if (batches == 0 || c.rows == 0 || c.cols == 0) return;
  DeviceScope scope(device);
  cudaStream_t stream = static_cast<cudaStream_t>(effective_stream(device));
  const size_t bytes_a = static_cast<size_t>(batches * a.rows * a.cols) * itemsize;
  const size_t bytes_b = static_cast<size_t>(batches * b.rows * b.cols) * itemsize;
  const size_t bytes_c = static_cast<size_t>(batches * c.rows * c.cols) * itemsize;
  Scratch sa(device, blas_view(a).ok ? 0 : bytes_a), sb(device, blas_view(b).ok ? 0 : bytes_b);
  if (!blas_view(a).ok) a = packed(a, batches, itemsize, device, sa);
  if (!blas_view(b).ok) b = packed(b, batches, itemsize, device, sb);
  if (blas_view(c).ok) {
    gemm_in_place(device, stream, dtype, a, b, c, alpha, beta, batches);
    return;
  }
  Scratch sc(device, bytes_c);
  Mat tmp = beta != 0.0f ? packed(c, batches, itemsize, device, sc)
                         : Mat{sc.data(), c.rows, c.cols, c.cols, 1, c.rows * c.cols};
  gemm_in_place(device, stream, dtype, a, b, tmp, alpha, beta, batches);
  const std::vector<int64_t> sizes{batches, c.rows, c.cols};
  const int64_t dst_strides[3] = {c.bs, c.rs, c.cs};
  const std::vector<int64_t> src_strides = contiguous_strides_of(sizes);
  copy_views(device_view(c.data, dst_strides, device), device_view(tmp.data, src_strides.data(), device), sizes,
             itemsize, true);
}

Mat mat_of(const Tensor& t, int64_t rank) {
  const int64_t off = rank - 2;
  return Mat{t.data(),       t.sizes[off],       t.sizes[off + 1],
             t.strides[off], t.strides[off + 1], rank == 3 ? t.strides[0] : 0};
}

void matmul(AtenTensorHandle out_h, AtenTensorHandle a_h, AtenTensorHandle b_h, AtenTensorHandle bias_h, double beta,
            double alpha, int64_t rank) {
  const Tensor& out = cuda_tensor(out_h, "out", rank);
  const Tensor& a = cuda_tensor(a_h, bias_h ? "mat1" : "self", rank);
  const Tensor& b = cuda_tensor(b_h, "mat2", rank);
  same_device_and_dtype(out, a, bias_h ? "mat1" : "self");
  same_device_and_dtype(out, b, "mat2");
  const int64_t off = rank - 2;
  SHIMGEN_REQUIRE(a.sizes[off + 1] == b.sizes[off] && out.sizes[off] == a.sizes[off] &&
                      out.sizes[off + 1] == b.sizes[off + 1] &&
                      (rank != 3 || (a.sizes[0] == out.sizes[0] && b.sizes[0] == out.sizes[0])),
                  "shapes [" + str(a.sizes[off]) + ", " + str(a.sizes[off + 1]) + "] @ [" + str(b.sizes[off]) + ", " +
                      str(b.sizes[off + 1]) + "] do not multiply into out [" + str(out.sizes[off]) + ", " +
                      str(out.sizes[off + 1]) + "]");
  const int32_t device = out.storage->device_index;
  float effective_beta = 0.0f;
  if (bias_h != nullptr && beta != 0.0) {
    // out = bias broadcast to out's shape (stride 0 where broadcast), then out = alpha A B + beta out.
    const Tensor& bias = cuda_tensor(bias_h, "self", -1);
    same_device_and_dtype(out, bias, "self");
    const size_t bd = bias.sizes.size();
    SHIMGEN_REQUIRE(bd <= 2, "self must be 0-d, 1-d or 2-d");
    int64_t strides[2] = {0, 0};
    for (size_t i = 0; i < bd; ++i) {
      const size_t o = 2 - bd + i;
      SHIMGEN_REQUIRE(bias.sizes[i] == 1 || bias.sizes[i] == out.sizes[o], "self does not broadcast to out");
      strides[o] = bias.sizes[i] == 1 ? 0 : bias.strides[i];
    }
    if (out.numel() > 0) {
      DeviceScope scope(device);
      copy_views(device_view(out.data(), out.strides.data(), device), device_view(bias.data(), strides, device),
                 out.sizes, out.itemsize(), true);
    }
    effective_beta = static_cast<float>(beta);
  }
  const int64_t batches = rank == 3 ? out.sizes[0] : 1;
  gemm(device, out.dtype, out.itemsize(), mat_of(a, rank), mat_of(b, rank), mat_of(out, rank),
       static_cast<float>(alpha), effective_beta, batches);
}

// ---- convolution --------------------------------------------------------------------------------

template <typename T> __global__ void im2col_kernel(const T* in, T* col, int64_t total, int64_t C, int64_t H, int64_t W,
                                                    int64_t KH, int64_t KW, int64_t OH, int64_t OW, int64_t sh,
                                                    int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                                                    int64_t in_sn, int64_t in_sc, int64_t in_sh, int64_t in_sw) {
  // col[n][c*KH*KW + i*KW + j][oh*OW + ow] = in[n][c][oh*sh - ph + i*dh][ow*sw - pw + j*dw] (0 outside)
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = idx;
    const int64_t ow = rest % OW;
    rest /= OW;
    const int64_t oh = rest % OH;
    rest /= OH;
    const int64_t j = rest % KW;
    rest /= KW;
    const int64_t i = rest % KH;
    rest /= KH;
    const int64_t c = rest % C;
    rest /= C;
    const int64_t n = rest;
    const int64_t y = oh * sh - ph + i * dh, x = ow * sw - pw + j * dw;
    T value = T(0.0f);
    if (y >= 0 && y < H && x >= 0 && x < W) value = in[n * in_sn + c * in_sc + y * in_sh + x * in_sw];
    col[idx] = value;
  }
}

// out[idx] = bias[channel of idx]; the channel is (idx / inner) % C (inner: HW for NCHW, 1 for NHWC).
template <typename T>
__global__ void bias_fill_kernel(T* out, const T* bias, int64_t bias_stride, int64_t total, int64_t C, int64_t inner) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[idx] = bias[((idx / inner) % C) * bias_stride];
  }
}

template <typename T> void launch_im2col(const Tensor& in, char* col, int64_t N, int64_t C, int64_t H, int64_t W,
                                         int64_t KH, int64_t KW, int64_t OH, int64_t OW, const int64_t* s,
                                         const int64_t* p, const int64_t* d, bool one_d, cudaStream_t stream) {
  const int64_t total = N * C * KH * KW * OH * OW;
  if (total == 0) return;
  const int64_t sn = in.strides[0], sc = in.strides[1];
  const int64_t sh = one_d ? 0 : in.strides[2], sw = one_d ? in.strides[2] : in.strides[3];
  im2col_kernel<T><<<grid_for(total), 256, 0, stream>>>(reinterpret_cast<const T*>(in.data()),
                                                        reinterpret_cast<T*>(col), total, C, H, W, KH, KW, OH, OW, s[0],
                                                        s[1], p[0], p[1], d[0], d[1], sn, sc, sh, sw);
  check_cuda(cudaGetLastError(), "im2col kernel launch");
}

template <typename T>
void launch_bias_fill(char* out, const Tensor& bias, int64_t total, int64_t C, int64_t HW, cudaStream_t stream) {
  if (total == 0) return;
  bias_fill_kernel<T><<<grid_for(total), 256, 0, stream>>>(
      reinterpret_cast<T*>(out), reinterpret_cast<const T*>(bias.data()), bias.strides[0], total, C, HW);
  check_cuda(cudaGetLastError(), "bias kernel launch");
}

// Reads a per-spatial-dim parameter list: `len` values, or one value for every dim.
void spatial(const int64_t* values, int64_t len, int64_t dims, int64_t fallback, const char* what, int64_t* out,
             int64_t minimum) {
  SHIMGEN_REQUIRE(len == 0 || values != nullptr, std::string(what) + " is null");
  SHIMGEN_REQUIRE(len == 0 || len == 1 || len == dims,
                  std::string(what) + " has " + str(len) + " values for " + str(dims) + " spatial dim(s)");
  for (int64_t i = 0; i < dims; ++i) {
    out[i] = len == 0 ? fallback : values[len == 1 ? 0 : i];
    SHIMGEN_REQUIRE(out[i] >= minimum, std::string(what) + " value " + str(out[i]) + " is out of range");
  }
}

void convolution(AtenTensorHandle input_h, AtenTensorHandle weight_h, AtenTensorHandle* bias_p, const int64_t* stride,
                 int64_t stride_len, const int64_t* padding, int64_t padding_len, const int64_t* dilation,
                 int64_t dilation_len, int32_t transposed, const int64_t* output_padding, int64_t output_padding_len,
                 int64_t groups, AtenTensorHandle* ret0) {
  SHIMGEN_REQUIRE(ret0 != nullptr, "ret0 is null");
  // Transposed (decoders, vocoders) and 3-d convolutions: the CPU op on host copies (host_staged.h).
  if (transposed != 0 || unwrap(input_h, "input")->sizes.size() == 5) {
    HostStaged s;
    cuda_tensor(input_h, "input", -1);
    AtenTensorHandle r = nullptr;
    s.check(aoti_torch_cpu_convolution(s.host(input_h), s.host(weight_h), s.host(bias_p), stride, stride_len, padding,
                                       padding_len, dilation, dilation_len, transposed, output_padding,
                                       output_padding_len, groups, &r),
            "convolution");
    *ret0 = s.to_device(r);
    return;
  }
  const Tensor& in = cuda_tensor(input_h, "input", -1);
  const Tensor& w = cuda_tensor(weight_h, "weight", static_cast<int64_t>(in.sizes.size()));
  same_device_and_dtype(in, w, "weight");
  const int64_t dims = static_cast<int64_t>(in.sizes.size()) - 2;
  if (dims != 1 && dims != 2) {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "only 1-d and 2-d convolution (3-d or 4-d input) is supported, not " +
                                                str(static_cast<int64_t>(in.sizes.size())) + "-d input");
  }
  const bool one_d = dims == 1;
  int64_t s[2] = {1, 1}, p[2] = {0, 0}, d[2] = {1, 1};
  spatial(stride, stride_len, dims, 1, "stride", one_d ? s + 1 : s, 1);
  spatial(padding, padding_len, dims, 0, "padding", one_d ? p + 1 : p, 0);
  spatial(dilation, dilation_len, dims, 1, "dilation", one_d ? d + 1 : d, 1);
  const int64_t N = in.sizes[0], C = in.sizes[1], H = one_d ? 1 : in.sizes[2], W = in.sizes[one_d ? 2 : 3];
  const int64_t F = w.sizes[0], KH = one_d ? 1 : w.sizes[2], KW = w.sizes[one_d ? 2 : 3];
  SHIMGEN_REQUIRE(groups >= 1 && C % groups == 0 && F % groups == 0,
                  "groups " + str(groups) + " must divide input channels " + str(C) + " and output channels " + str(F));
  const int64_t Cg = C / groups, Fg = F / groups;
  SHIMGEN_REQUIRE(w.sizes[1] == Cg, "weight has " + str(w.sizes[1]) + " input channels per group, expected " + str(Cg));
  const int64_t OH = (H + 2 * p[0] - d[0] * (KH - 1) - 1) / s[0] + 1;
  const int64_t OW = (W + 2 * p[1] - d[1] * (KW - 1) - 1) / s[1] + 1;
  SHIMGEN_REQUIRE(OH > 0 && OW > 0, "the kernel (with dilation) is larger than the padded input");
  // PyTorch (cuDNN) answers a channels-last input or weight with a channels-last output (a 1-d one: a
  // channels-last weight), and the generated code indexes the result with the strides its meta function
  // predicted: follow it, size-1 channels included (inductor's layout optimisation hands a 1-channel
  // stem, AST's, channels-last).
  const bool nhwc = convolution_output_channels_last(in, w);
  const Tensor* bias = nullptr;
  if (bias_p != nullptr && *bias_p != nullptr) {
    bias = &cuda_tensor(*bias_p, "bias", 1);
    same_device_and_dtype(in, *bias, "bias");
    SHIMGEN_REQUIRE(bias->sizes[0] == F,
                    "bias has " + str(bias->sizes[0]) + " values for " + str(F) + " output channels");
  }
  const int32_t device = in.storage->device_index;
  std::vector<int64_t> out_sizes{N, F};
  if (!one_d) out_sizes.push_back(OH);
  out_sizes.push_back(OW);
  Owned out;
  const std::vector<int64_t> out_strides =
      nhwc ? channels_last_strides_of(out_sizes) : contiguous_strides_of(out_sizes);
  empty(out, out_sizes, out_strides, in.dtype, kCUDA, device);
  const int64_t HW = OH * OW, K = Cg * KH * KW, total = N * F * HW;
  if (total == 0) {
    *ret0 = out.release();
    return;
  }
  DeviceScope scope(device);
  cudaStream_t stream = static_cast<cudaStream_t>(effective_stream(device));
  const size_t itemsize = in.itemsize();
  if (bias != nullptr) {
    const int64_t inner = nhwc ? 1 : HW;
    if (in.dtype == kFloat32) launch_bias_fill<float>(out.get()->data(), *bias, total, F, inner, stream);
    else if (in.dtype == kFloat16) launch_bias_fill<__half>(out.get()->data(), *bias, total, F, inner, stream);
    else launch_bias_fill<__nv_bfloat16>(out.get()->data(), *bias, total, F, inner, stream);
  }
  // col: [N][C*KH*KW][OH*OW]; group g uses rows g*K .. (g+1)*K.
  Scratch col(device, static_cast<size_t>(N * C * KH * KW * HW) * itemsize);
  if (in.dtype == kFloat32) launch_im2col<float>(in, col.data(), N, C, H, W, KH, KW, OH, OW, s, p, d, one_d, stream);
  else if (in.dtype == kFloat16)
    launch_im2col<__half>(in, col.data(), N, C, H, W, KH, KW, OH, OW, s, p, d, one_d, stream);
  else launch_im2col<__nv_bfloat16>(in, col.data(), N, C, H, W, KH, KW, OH, OW, s, p, d, one_d, stream);
  // Weight [F, Cg, KH, KW] viewed as [F, K] (row stride w.strides[0]) needs unit stride over K.
  const bool weight_flat = w.is_contiguous();
  Scratch wpack(device, weight_flat ? 0 : static_cast<size_t>(F * K) * itemsize);
  char* wdata = w.data();
  if (!weight_flat) {
    const std::vector<int64_t> packed_strides = contiguous_strides_of(w.sizes);
    copy_views(device_view(wpack.data(), packed_strides.data(), device),
               device_view(w.data(), w.strides.data(), device), w.sizes, itemsize, true);
    wdata = wpack.data();
  }
  const int64_t isz = static_cast<int64_t>(itemsize);
  for (int64_t g = 0; g < groups; ++g) {
    // out[n][g*Fg + f][hw] = sum_k W[g*Fg + f][k] * col[n][g*K + k][hw], batched over n.
    Mat a{wdata + g * Fg * K * isz, Fg, K, K, 1, 0};
    Mat b{col.data() + g * K * HW * isz, K, HW, HW, 1, C * KH * KW * HW};
    // NCHW: rows (channels) HW apart; NHWC: channels adjacent, spatial positions F apart.
    Mat c = nhwc ? Mat{out.get()->data() + g * Fg * isz, Fg, HW, 1, F, F * HW}
                 : Mat{out.get()->data() + g * Fg * HW * isz, Fg, HW, HW, 1, F * HW};
    gemm(device, in.dtype, itemsize, a, b, c, 1.0f, bias != nullptr ? 1.0f : 0.0f, N);
  }
  *ret0 = out.release();
}

// ---- attention ----------------------------------------------------------------------------------

constexpr int kThreads = 128;     // keys per tile, one per thread
constexpr int kMaxPerThread = 4;  // output dims per thread: Kv <= 512

struct AttnArgs {
  int64_t B, H, M, N, K, Kv;
  int64_t group;                            // query heads per key/value head (GQA; 1 otherwise)
  int64_t q[4], k[4], v[4], o[4], bias[4];  // strides in elements (b, h, row, dim); bias may broadcast (0)
  int64_t lse_row;                          // logsumexp row length (0: not written)
  float scale;
  bool causal, has_bias;
};

__device__ float block_reduce(float value, float* scratch, bool is_max) {
  for (int offset = 16; offset > 0; offset /= 2) {
    float other = __shfl_down_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  float result = scratch[0];
  for (int i = 1; i < kThreads / 32; ++i) result = is_max ? fmaxf(result, scratch[i]) : result + scratch[i];
  return result;
}

// One block per (batch, head, query row): online softmax over key tiles (one key per thread), each
// thread accumulating up to kMaxPerThread output dims. Accumulates in float for every dtype.
template <typename T>
__global__ void attention_kernel(const T* q, const T* k, const T* v, const T* bias, T* o, float* lse, AttnArgs a) {
  extern __shared__ float shared[];
  float* qrow = shared;              // K
  float* probs = qrow + a.K;         // kThreads
  float* reduce = probs + kThreads;  // kThreads / 32
  const int64_t row = blockIdx.x;
  const int64_t i = row % a.M, h = (row / a.M) % a.H, b = row / (a.M * a.H);
  const T* qp = q + b * a.q[0] + h * a.q[1] + i * a.q[2];
  for (int64_t d = threadIdx.x; d < a.K; d += kThreads) qrow[d] = to_float(qp[d * a.q[3]]);
  __syncthreads();
  float running_max = -INFINITY, running_sum = 0.0f;
  float acc[kMaxPerThread] = {0.0f, 0.0f, 0.0f, 0.0f};
  const int64_t last = a.causal ? min(a.N, i + 1) : a.N;  // keys j > i are masked when causal
  for (int64_t start = 0; start < last; start += kThreads) {
    const int64_t j = start + threadIdx.x;
    float score = -INFINITY;
    if (j < last) {
      const T* kp = k + b * a.k[0] + (h / a.group) * a.k[1] + j * a.k[2];
      float dot = 0.0f;
      for (int64_t d = 0; d < a.K; ++d) dot += qrow[d] * to_float(kp[d * a.k[3]]);
      score = dot * a.scale;
      if (a.has_bias) score += to_float(bias[b * a.bias[0] + h * a.bias[1] + i * a.bias[2] + j * a.bias[3]]);
    }
    const float tile_max = block_reduce(score, reduce, true);
    const float new_max = fmaxf(running_max, tile_max);
    // A row whose scores are all -inf so far keeps a zero weight (no inf - inf).
    const float p = new_max == -INFINITY ? 0.0f : __expf(score - new_max);
    const float correction = running_max == -INFINITY ? 0.0f : __expf(running_max - new_max);
    const float tile_sum = block_reduce(p, reduce, false);
    running_sum = running_sum * correction + tile_sum;
    running_max = new_max;
    __syncthreads();
    probs[threadIdx.x] = p;
    __syncthreads();
    const int64_t count = min(static_cast<int64_t>(kThreads), last - start);
    for (int r = 0; r < kMaxPerThread; ++r) {
      const int64_t d = threadIdx.x + r * kThreads;
      if (d >= a.Kv) break;
      float sum = acc[r] * correction;
      const T* vp = v + b * a.v[0] + (h / a.group) * a.v[1] + start * a.v[2] + d * a.v[3];
      for (int64_t t = 0; t < count; ++t) sum += probs[t] * to_float(vp[t * a.v[2]]);
      acc[r] = sum;
    }
  }
  T* op = o + b * a.o[0] + h * a.o[1] + i * a.o[2];
  const float inv = running_sum > 0.0f ? 1.0f / running_sum : 0.0f;
  for (int r = 0; r < kMaxPerThread; ++r) {
    const int64_t d = threadIdx.x + r * kThreads;
    if (d < a.Kv) op[d * a.o[3]] = from_float<T>(acc[r] * inv);
  }
  if (lse != nullptr && threadIdx.x == 0) {
    lse[(b * a.H + h) * a.lse_row + i] = running_sum > 0.0f ? running_max + logf(running_sum) : INFINITY;
  }
}

__global__ void fill_kernel(float* data, int64_t n, float value) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    data[idx] = value;
  }
}

void copy4(int64_t* dst, const std::vector<int64_t>& strides) {
  for (int i = 0; i < 4; ++i) dst[i] = strides[static_cast<size_t>(i)];
}

// A 0-d int64 CPU tensor holding 0 (philox seed/offset without dropout, as PyTorch returns them).
AtenTensorHandle zero_scalar() {
  Owned t;
  empty(t, {}, {}, kInt64, kCPU, -1);
  *reinterpret_cast<int64_t*>(t.get()->data()) = 0;
  return t.release();
}

struct Attention {
  const Tensor *q, *k, *v;
  int64_t B, H, M, N, K, Kv;
};

Attention check_attention(AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p) {
  const Tensor& q = cuda_tensor(query, "query", 4);
  const Tensor& k = cuda_tensor(key, "key", 4);
  const Tensor& v = cuda_tensor(value, "value", 4);
  same_device_and_dtype(q, k, "key");
  same_device_and_dtype(q, v, "value");
  if (dropout_p != 0.0) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dropout_p must be 0 (inference only)");
  Attention a{&q, &k, &v, q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2], q.sizes[3], v.sizes[3]};
  // Grouped-query attention: H query heads share H / Hkv key/value heads (enable_gqa's layout).
  SHIMGEN_REQUIRE(
      k.sizes[0] == a.B && v.sizes[0] == a.B && k.sizes[1] == v.sizes[1] && k.sizes[1] >= 1 && a.H % k.sizes[1] == 0,
      "query, key and value must agree on batch, and key/value heads must divide query heads");
  SHIMGEN_REQUIRE(k.sizes[3] == a.K, "key's head dim " + str(k.sizes[3]) + " differs from query's " + str(a.K));
  SHIMGEN_REQUIRE(v.sizes[2] == a.N, "value has " + str(v.sizes[2]) + " keys, key has " + str(a.N));
  if (a.Kv > kThreads * kMaxPerThread) {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         "value head dim " + str(a.Kv) + " exceeds " + str(kThreads * kMaxPerThread));
  }
  SHIMGEN_REQUIRE(a.K <= 8192, "head dim " + str(a.K) + " is too large");
  return a;
}

void run_attention(const Attention& at, const Tensor* bias, const Tensor& out, float* lse, int64_t lse_row,
                   double* scale, bool causal) {
  if (at.B * at.H * at.M == 0 || at.Kv == 0) return;
  AttnArgs a{};
  a.B = at.B;
  a.H = at.H;
  a.M = at.M;
  a.N = at.N;
  a.K = at.K;
  a.Kv = at.Kv;
  a.group = at.H / at.k->sizes[1];
  copy4(a.q, at.q->strides);
  copy4(a.k, at.k->strides);
  copy4(a.v, at.v->strides);
  copy4(a.o, out.strides);
  a.has_bias = bias != nullptr;
  if (bias != nullptr) {
    // Right-aligned broadcast of attn_bias to [B, H, M, N].
    const size_t bd = bias->sizes.size();
    SHIMGEN_REQUIRE(bd >= 1 && bd <= 4, "attn_bias must be 1-d to 4-d");
    const int64_t full[4] = {at.B, at.H, at.M, at.N};
    for (size_t i = 0; i < bd; ++i) {
      const size_t o = 4 - bd + i;
      SHIMGEN_REQUIRE(bias->sizes[i] == 1 || bias->sizes[i] == full[o], "attn_bias does not broadcast to [B, H, M, N]");
      a.bias[o] = bias->sizes[i] == 1 ? 0 : bias->strides[i];
    }
  }
  a.lse_row = lse_row;
  a.scale = scale != nullptr ? static_cast<float>(*scale) : 1.0f / std::sqrt(static_cast<float>(at.K));
  a.causal = causal;
  const int32_t device = out.storage->device_index;
  DeviceScope scope(device);
  cudaStream_t stream = static_cast<cudaStream_t>(effective_stream(device));
  const size_t shared = (static_cast<size_t>(at.K) + kThreads + kThreads / 32) * sizeof(float);
  const unsigned blocks = static_cast<unsigned>(at.B * at.H * at.M);
  SHIMGEN_REQUIRE(at.B * at.H * at.M <= std::numeric_limits<int32_t>::max(), "too many attention rows");
  const void* bias_data = bias != nullptr ? bias->data() : nullptr;
  if (out.dtype == kFloat32) {
    attention_kernel<float><<<blocks, kThreads, shared, stream>>>(
        reinterpret_cast<const float*>(at.q->data()), reinterpret_cast<const float*>(at.k->data()),
        reinterpret_cast<const float*>(at.v->data()), reinterpret_cast<const float*>(bias_data),
        reinterpret_cast<float*>(out.data()), lse, a);
  } else if (out.dtype == kFloat16) {
    attention_kernel<__half><<<blocks, kThreads, shared, stream>>>(
        reinterpret_cast<const __half*>(at.q->data()), reinterpret_cast<const __half*>(at.k->data()),
        reinterpret_cast<const __half*>(at.v->data()), reinterpret_cast<const __half*>(bias_data),
        reinterpret_cast<__half*>(out.data()), lse, a);
  } else {
    attention_kernel<__nv_bfloat16><<<blocks, kThreads, shared, stream>>>(
        reinterpret_cast<const __nv_bfloat16*>(at.q->data()), reinterpret_cast<const __nv_bfloat16*>(at.k->data()),
        reinterpret_cast<const __nv_bfloat16*>(at.v->data()), reinterpret_cast<const __nv_bfloat16*>(bias_data),
        reinterpret_cast<__nv_bfloat16*>(out.data()), lse, a);
  }
  check_cuda(cudaGetLastError(), "attention kernel launch");
}

const Tensor* checked_bias(AtenTensorHandle* attn_bias, const Attention& at) {
  if (attn_bias == nullptr || *attn_bias == nullptr) return nullptr;
  const Tensor* bias = unwrap(*attn_bias, "attn_bias");
  SHIMGEN_REQUIRE(bias->storage->device_type == kCUDA && bias->storage->device_index == at.q->storage->device_index,
                  "attn_bias is not on the query's CUDA device");
  SHIMGEN_REQUIRE(bias->dtype == at.q->dtype, "attn_bias has another dtype than query");
  return bias;
}

// PyTorch's alloc_with_matching_layout (the cuDNN attention meta): query's dense layout when the
// result has query's shape, else dense strides in the order of query's strides (largest first).
std::vector<int64_t> layout_matching(const Tensor& q, const std::vector<int64_t>& sizes) {
  if (q.sizes == sizes) return dense_strides_like(q.sizes, q.strides);
  std::vector<size_t> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return q.strides[a] > q.strides[b]; });
  std::vector<int64_t> strides(4, 0);
  int64_t stride = 1;
  for (size_t i = 4; i-- > 0;) {
    strides[order[i]] = stride;
    stride *= sizes[order[i]];
  }
  return strides;
}

void fill(float* data, int64_t n, float value, int32_t device) {
  if (n == 0) return;
  DeviceScope scope(device);
  fill_kernel<<<grid_for(n), 256, 0, static_cast<cudaStream_t>(effective_stream(device))>>>(data, n, value);
  check_cuda(cudaGetLastError(), "fill kernel launch");
}

}  // namespace
// Loads this file's kernels on the current device now (see preload_kernels in backend_cuda.cpp).
void preload_op_kernels() {
  cudaFuncAttributes attributes{};
  (void)cudaFuncGetAttributes(&attributes, im2col_kernel<float>);
  (void)cudaFuncGetAttributes(&attributes, im2col_kernel<__half>);
  (void)cudaFuncGetAttributes(&attributes, im2col_kernel<__nv_bfloat16>);
  (void)cudaFuncGetAttributes(&attributes, bias_fill_kernel<float>);
  (void)cudaFuncGetAttributes(&attributes, bias_fill_kernel<__half>);
  (void)cudaFuncGetAttributes(&attributes, bias_fill_kernel<__nv_bfloat16>);
  (void)cudaFuncGetAttributes(&attributes, attention_kernel<float>);
  (void)cudaFuncGetAttributes(&attributes, attention_kernel<__half>);
  (void)cudaFuncGetAttributes(&attributes, attention_kernel<__nv_bfloat16>);
  (void)cudaFuncGetAttributes(&attributes, fill_kernel);
  (void)cudaGetLastError();
}

}  // namespace shimgen::rt

using namespace shimgen::rt;

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                       AtenTensorHandle mat2) {
  return guarded(__func__, [&] { matmul(out, self, mat2, nullptr, 0.0, 1.0, 2); });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                          AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                                          double alpha) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(self != nullptr, "self is a null tensor handle");
    matmul(out, mat1, mat2, self, beta, alpha, 2);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                                        AtenTensorHandle mat2) {
  return guarded(__func__, [&] { matmul(out, self, mat2, nullptr, 0.0, 1.0, 3); });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle* bias, const int64_t* stride, int64_t stride_len_,
    const int64_t* padding, int64_t padding_len_, const int64_t* dilation, int64_t dilation_len_, int32_t transposed,
    const int64_t* output_padding, int64_t output_padding_len_, int64_t groups, AtenTensorHandle* ret0) {
  return guarded(__func__, [&] {
    convolution(input, weight, bias, stride, stride_len_, padding, padding_len_, dilation, dilation_len_, transposed,
                output_padding, output_padding_len_, groups, ret0);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, double* scale, AtenTensorHandle* ret0,
    AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret0 && ret1 && ret2 && ret3, "an output pointer is null");
    const Attention at = check_attention(query, key, value, dropout_p);
    const Tensor* bias = checked_bias(attn_bias, at);
    const int32_t device = at.q->storage->device_index;
    // PyTorch's layout: [B, M, H, Kv] storage, returned as its [B, H, M, Kv] transpose.
    Owned out, lse;
    empty(out, {at.B, at.H, at.M, at.Kv}, {at.M * at.H * at.Kv, at.Kv, at.H * at.Kv, 1}, at.q->dtype, kCUDA, device);
    const int64_t lse_row = compute_log_sumexp != 0 ? (at.M + 31) / 32 * 32 : 0;
    empty(lse, {at.B, at.H, lse_row}, {}, kFloat32, kCUDA, device);
    float* lse_data = lse_row != 0 ? reinterpret_cast<float*>(lse.get()->data()) : nullptr;
    if (lse_data != nullptr && lse_row != at.M) fill(lse_data, at.B * at.H * lse_row, INFINITY, device);  // padding
    run_attention(at, bias, *out.get(), lse_data, lse_row, scale, is_causal != 0);
    Owned seed, offset;
    *seed.out() = zero_scalar();
    *offset.out() = zero_scalar();
    *ret0 = out.release();
    *ret1 = lse.release();
    *ret2 = seed.release();
    *ret3 = offset.release();
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_flash_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p, int32_t is_causal,
    int32_t return_debug_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2,
    AtenTensorHandle* ret3, int64_t* ret4, int64_t* ret5, AtenTensorHandle* ret6, AtenTensorHandle* ret7,
    AtenTensorHandle* ret8) {
  return guarded(__func__, [&] {
    // ret2/ret3 (cum_seq_q/k) are None for a dense batch: the generated code may pass null for them.
    SHIMGEN_REQUIRE(ret0 && ret1 && ret4 && ret5 && ret6 && ret7 && ret8, "an output pointer is null");
    if (return_debug_mask != 0) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "return_debug_mask is not supported");
    const Attention at = check_attention(query, key, value, dropout_p);
    SHIMGEN_REQUIRE(at.Kv == at.K, "flash attention needs value's head dim equal to query's");
    const int32_t device = at.q->storage->device_index;
    // PyTorch: empty_like(query.transpose(1, 2)).transpose(1, 2): query's strides when it is dense.
    Owned out, lse, mask;
    std::vector<int64_t> strides = at.q->is_non_overlapping_and_dense() ? at.q->strides : std::vector<int64_t>{};
    empty(out, at.q->sizes, strides, at.q->dtype, kCUDA, device);
    empty(lse, {at.B, at.H, at.M}, {}, kFloat32, kCUDA, device);
    empty(mask, {0}, {}, at.q->dtype, kCUDA, device);
    run_attention(at, nullptr, *out.get(), reinterpret_cast<float*>(lse.get()->data()), at.M, scale, is_causal != 0);
    Owned seed, offset;
    *seed.out() = zero_scalar();
    *offset.out() = zero_scalar();
    *ret0 = out.release();
    *ret1 = lse.release();
    // cum_seq_q / cum_seq_k: undefined for a dense (non-varlen) batch, as in PyTorch.
    if (ret2 != nullptr) *ret2 = nullptr;
    if (ret3 != nullptr) *ret3 = nullptr;
    *ret4 = at.M;
    *ret5 = at.N;
    *ret6 = seed.release();
    *ret7 = offset.release();
    *ret8 = mask.release();
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cuda__scaled_dot_product_cudnn_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, AtenTensorHandle* attn_bias,
    int32_t compute_log_sumexp, double dropout_p, int32_t is_causal, int32_t return_debug_mask, double* scale,
    AtenTensorHandle* ret0, AtenTensorHandle* ret1, AtenTensorHandle* ret2, AtenTensorHandle* ret3, int64_t* ret4,
    int64_t* ret5, AtenTensorHandle* ret6, AtenTensorHandle* ret7, AtenTensorHandle* ret8) {
  return guarded(__func__, [&] {
    // The generated code passes null for the outputs PyTorch's meta returns as None (ret2, ret3, ret8).
    SHIMGEN_REQUIRE(ret0 && ret1 && ret4 && ret5 && ret6 && ret7, "an output pointer is null");
    if (return_debug_mask != 0) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "return_debug_mask is not supported");
    (void)compute_log_sumexp;  // PyTorch's meta allocates the logsumexp either way; it is always written
    const Attention at = check_attention(query, key, value, dropout_p);
    const Tensor* bias = checked_bias(attn_bias, at);
    const int32_t device = at.q->storage->device_index;
    Owned out, lse;
    empty(out, {at.B, at.H, at.M, at.Kv}, layout_matching(*at.q, {at.B, at.H, at.M, at.Kv}), at.q->dtype, kCUDA,
          device);
    empty(lse, {at.B, at.H, at.M, 1}, {}, kFloat32, kCUDA, device);
    run_attention(at, bias, *out.get(), reinterpret_cast<float*>(lse.get()->data()), at.M, scale, is_causal != 0);
    Owned seed, offset;
    *seed.out() = zero_scalar();
    *offset.out() = zero_scalar();
    *ret0 = out.release();
    *ret1 = lse.release();
    // cum_seq_q / cum_seq_k and the debug mask: None, as PyTorch's meta returns them.
    if (ret2 != nullptr) *ret2 = nullptr;
    if (ret3 != nullptr) *ret3 = nullptr;
    *ret4 = at.M;
    *ret5 = at.N;
    *ret6 = seed.release();
    *ret7 = offset.release();
    if (ret8 != nullptr) *ret8 = nullptr;
  });
}

}  // extern "C"
