// aoti_torch_cpu_mode: the most frequent value along dim and an index of it (majority votes, label
// smoothing of predictions). Ties between values go to the smallest value and the index is the one
// torch's CPU kernel returns (below); each NaN is its own value. New contiguous
// tensors, dim kept as size 1 when keepdim. The CUDA op computes here too, with its kernel's tie
// rule (../mode.h).
#include "../mode.h"

#include <algorithm>

#include "cpu_op.h"
#include "shimgen_runtime/shim_cpu_ops.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_torch_cpu_mode(AtenTensorHandle self, int64_t dim, int32_t keepdim,
                                                               AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  return guarded(__func__, [&] { mode_on_host(self, dim, keepdim, ModeTies::kSmallest, ret0, ret1); });
}

void shimgen::rt::mode_on_host(AtenTensorHandle self, int64_t dim, int32_t keepdim, ModeTies ties,
                               AtenTensorHandle* ret0, AtenTensorHandle* ret1) {
  {
    const Tensor& in = cpu_tensor(self, "self");
    require_out(ret0, "ret0");
    require_out(ret1, "ret1");
    const int64_t rank = static_cast<int64_t>(in.sizes.size());
    const int64_t d = wrap_dim(dim, rank, "dim");
    const int64_t n = rank == 0 ? 1 : in.sizes[static_cast<size_t>(d)];
    SHIMGEN_REQUIRE(n > 0, "mode(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
    std::vector<int64_t> out_sizes = in.sizes;
    if (rank > 0) {
      if (keepdim != 0) out_sizes[static_cast<size_t>(d)] = 1;
      else out_sizes.erase(out_sizes.begin() + d);
    }
    auto values = empty_tensor(out_sizes, contiguous_strides_of(out_sizes), in.dtype, kCPU, -1);
    auto indices = empty_tensor(out_sizes, contiguous_strides_of(out_sizes), kInt64, kCPU, -1);
    // The outputs seen with dim kept (stride 0 along it), so one line walk serves all three.
    std::vector<int64_t> kept_sizes = in.sizes, v_strides = contiguous_strides_of(in.sizes.empty() ? in.sizes : [&] {
                                                  std::vector<int64_t> s = in.sizes;
                                                  s[static_cast<size_t>(d)] = 1;
                                                  return s;
                                                }());
    if (rank > 0) v_strides[static_cast<size_t>(d)] = 0;
    const int64_t step = rank == 0 ? 0 : in.strides[static_cast<size_t>(d)];
    dispatch_real(in.dtype, "mode", [&](auto t) {
      using T = decltype(t);
      const auto* src = reinterpret_cast<const T*>(in.data());
      auto* v_out = reinterpret_cast<T*>(values->data());
      auto* i_out = reinterpret_cast<int64_t*>(indices->data());
      std::vector<std::pair<decltype(value_of(T{})), int64_t>> line(static_cast<size_t>(n));
      std::vector<int64_t> ends;
      const std::vector<int64_t>* strides[2] = {&in.strides, &v_strides};
      for_each_line(kept_sizes, rank == 0 ? -1 : d, strides, [&](const int64_t* base) {
        for (int64_t i = 0; i < n; ++i) line[static_cast<size_t>(i)] = {value_of(src[base[0] + i * step]), i};
        // torch's CPU kernel: std::sort of (value, index) in index order on `value <` alone, then the
        // last sorted position of the first longest run; the same calls give its index exactly (its
        // sort is unstable: for lines over 16 the index is no simple rule). The CUDA rule is modelled
        // on a stable order.
        if (ties == ModeTies::kSmallest)
          std::sort(line.begin(), line.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        else
          std::stable_sort(line.begin(), line.end(),
                           [](const auto& a, const auto& b) { return nan_last_less(a.first, b.first); });
        // Run ends (sorted positions) of the longest runs, in sorted order; the tie rule picks one.
        int64_t best_count = 0, run = 0;
        ends.clear();
        for (int64_t i = 0; i < n; ++i) {
          ++run;
          const auto& here = line[static_cast<size_t>(i)].first;
          const bool ends_here =
              i == n - 1 || (ties == ModeTies::kSmallest
                                 ? here != line[static_cast<size_t>(i + 1)].first  // NaN != NaN: each its own run
                                 : nan_last_less(here, line[static_cast<size_t>(i + 1)].first) || here != here);
          if (ends_here) {
            if (run > best_count) ends.clear();
            if (run >= best_count) {
              best_count = run;
              ends.push_back(i);
            }
            run = 0;
          }
        }
        int64_t best = ends.front(), at = best;  // at: the sorted position whose input index is returned
        if (ties == ModeTies::kCudaKernel && n <= kCudaFusedModeMax) {
          for (int64_t e : ends)
            if (cuda_tree_rank(e) < cuda_tree_rank(best)) best = e;
          at = best;
        } else if (ties == ModeTies::kCudaKernel) {
          at = best - best_count + 1;  // thrust's path: the first position of the run
        }
        v_out[base[1]] = src[base[0] + line[static_cast<size_t>(at)].second * step];
        i_out[base[1]] = line[static_cast<size_t>(at)].second;
      });
    });
    *ret0 = wrap(std::move(values));
    *ret1 = wrap(std::move(indices));
  }
}
