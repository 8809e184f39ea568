// CPU fallback ops (mm, addmm, bmm) for AOTInductor models: see shimgen_runtime/shim_cpu_ops.h.
//
// Works on any strides and storage offset, so views (transposes, slices) are read in place.
#include "shimgen_runtime/shim_cpu_ops.h"

#include <cstdint>
#include <string>

#include "internal.h"

namespace {

using shimgen::rt::require;

struct View {
  char* data = nullptr;
  int64_t dim = 0;
  const int64_t* sizes = nullptr;
  const int64_t* strides = nullptr;
  int32_t dtype = 0;
};

View describe(AtenTensorHandle handle, const std::string& what) {
  const shimgen::rt::Tensor* t = shimgen::rt::unwrap(handle, what.c_str());
  require(t->storage->device_type == shimgen::rt::kCPU, what + " is not a CPU tensor");
  require(t->dtype == aoti_torch_dtype_float32() || t->dtype == aoti_torch_dtype_float64(),
          what + " has dtype code " + std::to_string(t->dtype) + "; only float32 and float64 are supported");
  View v;
  v.data = t->data();
  v.dim = static_cast<int64_t>(t->sizes.size());
  v.sizes = t->sizes.data();
  v.strides = t->strides.data();
  v.dtype = t->dtype;
  return v;
}

template <typename T>
T& at(const View& v, int64_t offset) {
  return reinterpret_cast<T*>(v.data)[offset];
}

// out[b] = beta * bias + alpha * (a[b] @ m[b]) over batches; bias may be null. Accumulates in double.
template <typename T>
void gemm(const View& out, const View& a, const View& m, const View* bias, double beta, double alpha,
          int64_t batches) {
  const int64_t off = out.dim - 2;  // 0 for mm/addmm, 1 for bmm
  const int64_t n = out.sizes[off], p = out.sizes[off + 1], k = a.sizes[off + 1];
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t ob = off ? b * out.strides[0] : 0, ab = off ? b * a.strides[0] : 0, mb = off ? b * m.strides[0] : 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        double sum = 0.0;
        for (int64_t q = 0; q < k; ++q) {
          sum += static_cast<double>(at<T>(a, ab + i * a.strides[off] + q * a.strides[off + 1])) *
                 static_cast<double>(at<T>(m, mb + q * m.strides[off] + j * m.strides[off + 1]));
        }
        double value = alpha * sum;
        if (bias != nullptr && beta != 0.0) {
          // Broadcast: a 0-d, [p] or [n, p] bias (size-1 dims have stride ignored).
          int64_t bo = 0;
          if (bias->dim == 1) bo = (bias->sizes[0] == 1 ? 0 : j * bias->strides[0]);
          if (bias->dim == 2) {
            bo = (bias->sizes[0] == 1 ? 0 : i * bias->strides[0]) + (bias->sizes[1] == 1 ? 0 : j * bias->strides[1]);
          }
          value += beta * static_cast<double>(at<T>(*bias, bo));
        }
        at<T>(out, ob + i * out.strides[off] + j * out.strides[off + 1]) = static_cast<T>(value);
      }
    }
  }
}

AOTITorchError matmul(const char* op, AtenTensorHandle out_h, AtenTensorHandle self_h, AtenTensorHandle mat2_h,
                      AtenTensorHandle bias_h, double beta, double alpha, int64_t rank) {
  return shimgen::rt::guarded(op, [&] {
    const View out = describe(out_h, "out");
    const View a = describe(self_h, bias_h ? "mat1" : "self");
    const View m = describe(mat2_h, "mat2");
    View bias;
    if (bias_h != nullptr) bias = describe(bias_h, "self");
    const std::string r = std::to_string(rank);
    require(out.dim == rank && a.dim == rank && m.dim == rank, "expects " + r + "-d out and operands");
    require(a.dtype == out.dtype && m.dtype == out.dtype && (!bias_h || bias.dtype == out.dtype),
            "operands and out must have one dtype");
    const int64_t off = rank - 2;
    require(a.sizes[off + 1] == m.sizes[off] && out.sizes[off] == a.sizes[off] && out.sizes[off + 1] == m.sizes[off + 1] &&
                (rank != 3 || (a.sizes[0] == out.sizes[0] && m.sizes[0] == out.sizes[0])),
            "shapes do not multiply into out");
    if (bias_h != nullptr) {
      const bool ok = bias.dim == 0 || (bias.dim == 1 && (bias.sizes[0] == 1 || bias.sizes[0] == out.sizes[1])) ||
                      (bias.dim == 2 && (bias.sizes[0] == 1 || bias.sizes[0] == out.sizes[0]) &&
                       (bias.sizes[1] == 1 || bias.sizes[1] == out.sizes[1]));
      require(ok, "self does not broadcast to out");
    }
    const int64_t batches = rank == 3 ? out.sizes[0] : 1;
    if (out.dtype == aoti_torch_dtype_float32()) {
      gemm<float>(out, a, m, bias_h ? &bias : nullptr, beta, alpha, batches);
    } else {
      gemm<double>(out, a, m, bias_h ? &bias : nullptr, beta, alpha, batches);
    }
  });
}

}  // namespace

extern "C" {

AOTITorchError aoti_torch_cpu_mm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2) {
  return matmul("aoti_torch_cpu_mm_out", out, self, mat2, nullptr, 0.0, 1.0, 2);
}

AOTITorchError aoti_torch_cpu_addmm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat1,
                                        AtenTensorHandle mat2, double beta, double alpha) {
  return matmul("aoti_torch_cpu_addmm_out", out, mat1, mat2, self, beta, alpha, 2);
}

AOTITorchError aoti_torch_cpu_bmm_out(AtenTensorHandle out, AtenTensorHandle self, AtenTensorHandle mat2) {
  return matmul("aoti_torch_cpu_bmm_out", out, self, mat2, nullptr, 0.0, 1.0, 3);
}

}  // extern "C"
