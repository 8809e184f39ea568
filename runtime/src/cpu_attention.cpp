// aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu: softmax(q k^T * scale + mask) v per
// (batch, head), scores and the value product through the BLAS. Returns PyTorch's two outputs: the
// attention output (laid out like empty_like(query)) and logsumexp [B, H, L] (strides of
// empty([B, L, H]).transpose(1, 2)), as torch's meta function promises the compiled model.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cpu_kernels.h"
#include "shimgen_runtime/shim_cpu_ops.h"

namespace shimgen::rt::cpu {
namespace {

template <typename T>
void attend(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal, double scale,
            const Tensor& out, const Tensor& lse) {
  const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2], E = q.sizes[3], S = k.sizes[2], Ev = v.sizes[3];
  std::vector<T> scores(static_cast<size_t>(L * S));
  const T* qp = reinterpret_cast<const T*>(q.data());
  const T* kp = reinterpret_cast<const T*>(k.data());
  const T* vp = reinterpret_cast<const T*>(v.data());
  T* op = reinterpret_cast<T*>(out.data());
  T* lp = reinterpret_cast<T*>(lse.data());
  // The mask broadcast to [B, H, L, S]: right-aligned, size-1 dimensions repeat (stride 0).
  std::vector<int64_t> ms(4, 0);
  if (mask) {
    const size_t md = mask->sizes.size();
    for (size_t i = 0; i < md; ++i) ms[4 - md + i] = mask->sizes[i] == 1 ? 0 : mask->strides[i];
  }
  const bool bool_mask = mask && mask->dtype == aoti_torch_dtype_bool();
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      Matrix<const T> qm{qp + b * q.strides[0] + h * q.strides[1], L, E, q.strides[2], q.strides[3]};
      Matrix<const T> km{kp + b * k.strides[0] + h * k.strides[1], S, E, k.strides[2], k.strides[3]};
      Matrix<const T> vm{vp + b * v.strides[0] + h * v.strides[1], S, Ev, v.strides[2], v.strides[3]};
      Matrix<T> sm{scores.data(), L, S, S, 1};
      gemm(qm, km.transposed(), sm, static_cast<T>(scale), T(0));
      for (int64_t i = 0; i < L; ++i) {
        T* row = scores.data() + i * S;
        T best = neg_inf;
        for (int64_t j = 0; j < S; ++j) {
          if (causal && j > i) row[j] = neg_inf;  // top-left aligned, as PyTorch's is_causal
          if (mask) {
            const char* m = mask->data() + (b * ms[0] + h * ms[1] + i * ms[2] + j * ms[3]) * static_cast<int64_t>(mask->itemsize());
            if (bool_mask) {
              if (!*reinterpret_cast<const bool*>(m)) row[j] = neg_inf;
            } else {
              row[j] += *reinterpret_cast<const T*>(m);
            }
          }
          best = std::max(best, row[j]);
        }
        T sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          row[j] = best == neg_inf ? T(0) : std::exp(row[j] - best);
          sum += row[j];
        }
        const T inv = sum > 0 ? T(1) / sum : T(0);
        for (int64_t j = 0; j < S; ++j) row[j] *= inv;
        lp[b * lse.strides[0] + h * lse.strides[1] + i * lse.strides[2]] = sum > 0 ? best + std::log(sum) : neg_inf;
      }
      Matrix<T> om{op + b * out.strides[0] + h * out.strides[1], L, Ev, out.strides[2], out.strides[3]};
      gemm(Matrix<const T>{scores.data(), L, S, S, 1}, vm, om, T(1), T(0));
    }
  }
}

}  // namespace
}  // namespace shimgen::rt::cpu

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" {

AOTITorchError aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value, double dropout_p, int32_t is_causal,
    AtenTensorHandle* attn_mask, double* scale, AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] {
    require(ret0 != nullptr && ret1 != nullptr, "ret0/ret1 is null");
    const Tensor& q = float_tensor(query, "query");
    const Tensor& k = float_tensor(key, "key");
    const Tensor& v = float_tensor(value, "value");
    const Tensor* mask = optional_tensor(attn_mask, "attn_mask");
    if (dropout_p != 0.0) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "dropout_p must be 0 (inference only)");
    require(q.sizes.size() == 4 && k.sizes.size() == 4 && v.sizes.size() == 4,
            "query, key and value must be 4-d [B, H, L, E], got " + shape_str(q.sizes) + ", " + shape_str(k.sizes) +
                ", " + shape_str(v.sizes));
    require(k.dtype == q.dtype && v.dtype == q.dtype, "query, key and value must have one dtype");
    require(k.sizes[0] == q.sizes[0] && v.sizes[0] == q.sizes[0] && k.sizes[1] == q.sizes[1] && v.sizes[1] == q.sizes[1] &&
                k.sizes[3] == q.sizes[3] && v.sizes[2] == k.sizes[2],
            "shapes do not match: query " + shape_str(q.sizes) + ", key " + shape_str(k.sizes) + ", value " +
                shape_str(v.sizes));
    if (mask) {
      require(mask->storage->device_type == kCPU, "attn_mask is not a CPU tensor");
      require(mask->dtype == q.dtype || mask->dtype == aoti_torch_dtype_bool(), "attn_mask must be bool or query's dtype");
      require(mask->sizes.size() <= 4, "attn_mask has more than 4 dimensions");
      const int64_t want[4] = {q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]};
      const size_t md = mask->sizes.size();
      for (size_t i = 0; i < md; ++i)
        require(mask->sizes[i] == 1 || mask->sizes[i] == want[4 - md + i],
                "attn_mask " + shape_str(mask->sizes) + " does not broadcast to [B, H, L, S]");
    }
    const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.sizes[3]));
    std::vector<int64_t> out_sizes{q.sizes[0], q.sizes[1], q.sizes[2], v.sizes[3]};
    std::vector<int64_t> out_strides = v.sizes[3] == q.sizes[3] ? dense_strides_like(q.sizes, q.strides)
                                                                 : contiguous_strides_of(out_sizes);
    auto out = empty_tensor(out_sizes, out_strides, q.dtype, kCPU, 0);
    const int64_t B = q.sizes[0], H = q.sizes[1], L = q.sizes[2];
    auto lse = empty_tensor({B, H, L}, {checked_mul(L, H, "logsumexp stride"), 1, H}, q.dtype, kCPU, 0);
    if (out->numel() > 0 && k.sizes[2] > 0) {
      if (q.dtype == aoti_torch_dtype_float32()) {
        attend<float>(q, k, v, mask, is_causal != 0, s, *out, *lse);
      } else {
        attend<double>(q, k, v, mask, is_causal != 0, s, *out, *lse);
      }
    }
    *ret0 = wrap(std::move(out));
    *ret1 = wrap(std::move(lse));
  });
}

}  // extern "C"
