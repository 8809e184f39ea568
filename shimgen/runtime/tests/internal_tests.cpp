// Tests of the runtime's internal helpers (runtime/src/internal.h), linked against the static shim
// archive rather than the shared library, which exports none of them. One case per process:
// `shimgen_runtime_internal_tests <case>`; exit 0 = pass, 1 = fail (with the reason).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "expect.h"
#include "internal.h"
#include "ops/cpu/fft.h"
#include "ops/mode.h"
#include "ops/proxy_ops.h"
#include "shimgen_runtime/shim.h"

namespace {

using Dims = std::vector<int64_t>;
using shimgen::rt::non_overlapping_and_dense;

bool same(const Dims& sizes, const Dims& dst, const Dims& src) {
  return shimgen::rt::same_dense_layout(dst.data(), src.data(), sizes);
}

// The CUDA copy fast path (backend_cuda.cpp) moves one flat block exactly when this says so.
void same_dense_layout() {
  EXPECT(same({2, 3, 4}, {12, 4, 1}, {12, 4, 1}));  // contiguous
  EXPECT(same({3, 4}, {1, 3}, {1, 3}));             // transposed, still one dense block
  EXPECT(same({2, 3, 4}, {1, 8, 2}, {1, 8, 2}));    // any permutation of the dims
  EXPECT(same({1, 4}, {99, 1}, {7, 1}));            // a size-1 dim's stride never matters
  EXPECT(same({0, 5}, {5, 1}, {5, 1}));             // nothing to copy
  EXPECT(!same({2, 2, 2}, {1, 1, 5}, {1, 1, 5}));   // spans 8 = numel, yet overlaps and has gaps
  EXPECT(!same({3, 3}, {1, 1}, {1, 1}));            // overlapping
  EXPECT(!same({2, 2}, {4, 1}, {4, 1}));            // gapped rows
  EXPECT(!same({2, 3}, {3, 1}, {0, 1}));            // broadcast source
  EXPECT(!same({4, 2}, {0, 1}, {0, 1}));            // broadcast on both sides
  EXPECT(!same({2, 3}, {3, 1}, {1, 2}));            // both dense, different orders
  EXPECT(non_overlapping_and_dense(Dims{2, 3}, Dims{1, 2}));
  EXPECT(!non_overlapping_and_dense(Dims{2, 2, 2}, Dims{1, 1, 5}));
  EXPECT(!non_overlapping_and_dense(Dims{2, 2}, Dims{2, 2}));
  EXPECT(non_overlapping_and_dense(Dims{}, Dims{}));  // 0-d: one element
}

// ATen's has_internal_overlap == Yes, which writers (scatter on both devices) refuse and clone copies.
void internal_overlap() {
  using shimgen::rt::has_internal_overlap;
  EXPECT(has_internal_overlap(Dims{2, 3}, Dims{0, 1}));  // a row broadcast: two elements per place
  EXPECT(has_internal_overlap(Dims{3, 2}, Dims{1, 0}));
  EXPECT(!has_internal_overlap(Dims{1, 3}, Dims{0, 1}));  // one element at stride 0
  EXPECT(!has_internal_overlap(Dims{0, 3}, Dims{0, 0}));  // empty: dense, as ATen says
  EXPECT(!has_internal_overlap(Dims{2, 2}, Dims{4, 1}));  // a gapped slice (ATen: TooHard, accepted)
  EXPECT(!has_internal_overlap(Dims{2, 2}, Dims{1, 1}));  // overlapping rows ATen cannot prove (TooHard)
  EXPECT(!has_internal_overlap(Dims{2, 3}, Dims{3, 1}));
}

// The CUDA FFT ops' result layouts (ops/cpu/fft.h) against torch's meta function on a CUDA fake
// tensor (torch/_meta_registrations.py meta_fft_c2c / meta_fft_r2c, values printed by torch 2.13):
// cuFFT's staged plan, which the host-staged CUDA ops copy their results into.
void fft_cuda_layout() {
  using shimgen::rt::cpu::fft::cuda_c2c_strides;
  using shimgen::rt::cpu::fft::cuda_r2c_strides;
  EXPECT(cuda_c2c_strides({4, 16}, {16, 1}, {0, 1}) == (Dims{16, 1}));
  EXPECT(cuda_c2c_strides({2, 3, 5}, {1, 2, 6}, {0, 2}) == (Dims{1, 10, 2}));
  EXPECT(cuda_c2c_strides({2, 3, 4, 5, 6}, {360, 120, 30, 6, 1}, {0, 1, 2, 3, 4}) ==
         (Dims{3, 1, 180, 36, 6}));  // 2 stages
  EXPECT(cuda_c2c_strides({2, 3, 4, 5}, {1, 2, 6, 24}, {3, 1, 0, 2}) == (Dims{5, 10, 30, 1}));
  EXPECT(cuda_c2c_strides({3, 4}, {1, 3}, {0}) == (Dims{1, 3}));
  EXPECT(cuda_c2c_strides({3, 4}, {1, 3}, {}) == (Dims{1, 3}));              // no dims: a clone
  EXPECT(cuda_r2c_strides({4, 16}, {16, 1}, {0, 1}, true) == (Dims{1, 4}));  // rfft2: column-major on CUDA
  EXPECT(cuda_r2c_strides({4, 16}, {16, 1}, {0, 1}, false) == (Dims{16, 1}));
  EXPECT(cuda_r2c_strides({4, 16}, {16, 1}, {1}, true) == (Dims{9, 1}));
  EXPECT(cuda_r2c_strides({2, 3, 8}, {24, 8, 1}, {1, 2}, true) == (Dims{15, 5, 1}));
  EXPECT(cuda_r2c_strides({2, 3, 8}, {1, 2, 6}, {1, 2}, true) == (Dims{15, 5, 1}));
  EXPECT(cuda_r2c_strides({2, 3, 4, 8}, {96, 32, 8, 1}, {0, 1, 2, 3}, true) == (Dims{12, 4, 1, 24}));
  EXPECT(cuda_r2c_strides({2, 3, 4, 8}, {96, 32, 8, 1}, {0, 1, 3}, false) == (Dims{96, 32, 8, 1}));
  EXPECT(cuda_r2c_strides({2, 3, 8}, {24, 8, 1}, {2, 1}, true) == (Dims{16, 1, 2}));
  // Control: the CPU op's layout for rfft2 (torch's CPU fake tensor) is row-major; the two differ.
  using namespace shimgen::rt::cpu::fft;
  EXPECT(exec_fft_strides({16, 1}, {4, 9}, sort_dims({0, 1}, {16, 1}, true)) == (Dims{9, 1}));
}

// The CUDA mode shim's tie rule (ops/mode.h), run on host tensors: stdin holds one line of int64
// values per row, stdout gets "value index" per row. tests/unit/test_cuda_mode_rule.py compares it with
// a step-by-step model of torch's CUDA kernel (sort, run counts, warp-shuffle reduction trees).
void cuda_mode_rows() {
  std::string text;
  while (std::getline(std::cin, text)) {
    std::istringstream fields(text);
    std::vector<int64_t> row;
    for (int64_t v; fields >> v;) row.push_back(v);
    const int64_t size = static_cast<int64_t>(row.size());
    AtenTensorHandle t = nullptr, v = nullptr, i = nullptr;
    EXPECT(aoti_torch_empty_strided(1, &size, nullptr, 4 /* int64 */, 0, 0, &t) == 0);
    void* data = nullptr;
    EXPECT(aoti_torch_get_data_ptr(t, &data) == 0);
    std::copy(row.begin(), row.end(), static_cast<int64_t*>(data));
    shimgen::rt::mode_on_host(t, 0, 0, shimgen::rt::ModeTies::kCudaKernel, &v, &i);
    void *vp = nullptr, *ip = nullptr;
    EXPECT(aoti_torch_get_data_ptr(v, &vp) == 0 && aoti_torch_get_data_ptr(i, &ip) == 0);
    std::printf("%lld %lld\n", static_cast<long long>(*static_cast<int64_t*>(vp)),
                static_cast<long long>(*static_cast<int64_t*>(ip)));
    for (AtenTensorHandle h : {t, v, i}) aoti_torch_delete_tensor_object(h);
  }
}

// aten::embedding_renorm's CUDA-kernel norm rule (ops/cpu/embedding_renorm.cpp), run on host tensors:
// each stdin line is "norm_type max_norm x0 x1 ..." (one float32 row, renormed by index 0); stdout
// gets the row afterwards. tests/integration/test_runtime.py compares it with torch's CUDA kernel's
// arithmetic and, as the control, with the CPU rule.
void cuda_renorm_rows() {
  std::string text;
  while (std::getline(std::cin, text)) {
    std::istringstream fields(text);
    std::vector<double> numbers;  // std::stod reads "inf", which operator>> does not
    for (std::string token; fields >> token;) numbers.push_back(std::stod(token));
    EXPECT(numbers.size() >= 3);
    const double p = numbers[0], max_norm = numbers[1];
    std::vector<float> row(numbers.begin() + 2, numbers.end());
    const int64_t sizes[2] = {1, static_cast<int64_t>(row.size())}, one = 1;
    AtenTensorHandle w = nullptr, i = nullptr;
    EXPECT(aoti_torch_empty_strided(2, sizes, nullptr, 6 /* float32 */, 0, 0, &w) == 0);
    EXPECT(aoti_torch_empty_strided(1, &one, nullptr, 4 /* int64 */, 0, 0, &i) == 0);
    void *wp = nullptr, *ip = nullptr;
    EXPECT(aoti_torch_get_data_ptr(w, &wp) == 0 && aoti_torch_get_data_ptr(i, &ip) == 0);
    std::copy(row.begin(), row.end(), static_cast<float*>(wp));
    *static_cast<int64_t*>(ip) = 0;
    AtenTensorHandle out = shimgen::rt::proxy_ops::cpu_embedding_renorm(
        w, i, max_norm, p, shimgen::rt::proxy_ops::RenormRule::kCudaKernel);
    void* op = nullptr;
    EXPECT(aoti_torch_get_data_ptr(out, &op) == 0);
    for (size_t c = 0; c < row.size(); ++c) std::printf(c ? " %.9g" : "%.9g", static_cast<const float*>(op)[c]);
    std::printf("\n");
    for (AtenTensorHandle h : {w, i, out}) aoti_torch_delete_tensor_object(h);
  }
}

}  // namespace

// internal_cpu_tests.cpp: true when it knows the case (and ran it).
bool run_cpu_case(const std::string& name);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s same_dense_layout|internal_overlap|fft_cuda_layout|cuda_mode_rows|cuda_renorm_rows|"
                 "packed_weight_cache|packed_weight_immutable|small_attention|free_lists\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "same_dense_layout") same_dense_layout();
  else if (name == "internal_overlap") internal_overlap();
  else if (name == "fft_cuda_layout") fft_cuda_layout();
  else if (name == "cuda_mode_rows") cuda_mode_rows();
  else if (name == "cuda_renorm_rows") cuda_renorm_rows();
  else if (!run_cpu_case(name)) {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  std::printf("%s: %s\n", name.c_str(), g_failures ? "FAIL" : "ok");
  return g_failures ? 1 : 0;
}
