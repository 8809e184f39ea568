// Slice sorting for topk and sort_stable: CUB's segmented stable radix sort over a contiguous copy
// with the sorted dim last (one segment per slice), then strided copies into the results.
#include "slice_sort.h"

#include <cub/device/device_segmented_sort.cuh>

#include <limits>

namespace shimgen::rt::cuda_ops {
namespace {

__global__ void positions_kernel(int64_t* positions, int64_t total, int64_t n) {
  SHIMGEN_GRID_STRIDE_LOOP(i, total) positions[i] = i % n;
}

__global__ void offsets_kernel(int64_t* offsets, int64_t rows, int64_t n) {
  SHIMGEN_GRID_STRIDE_LOOP(i, rows + 1) offsets[i] = i * n;
}

template <typename Key> void segmented_sort(const Key* keys_in, Key* keys_out, const int64_t* values_in,
                                            int64_t* values_out, int64_t total, int64_t rows, const int64_t* offsets,
                                            bool descending, int32_t device, cudaStream_t stream) {
  const int items = static_cast<int>(total), segments = static_cast<int>(rows);
  size_t temp_bytes = 0;
  auto run = [&](void* temp) {
    return descending
               ? cub::DeviceSegmentedSort::StableSortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                     values_out, items, segments, offsets, offsets + 1,
                                                                     stream)
               : cub::DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                                           items, segments, offsets, offsets + 1, stream);
  };
  check_cuda(run(nullptr), "cub::DeviceSegmentedSort (temporary storage size)");
  Scratch temp(device, std::max<size_t>(temp_bytes, 1));
  check_cuda(run(temp.data()), "cub::DeviceSegmentedSort");
}

}  // namespace

SliceLayout slice_layout(const Tensor& self, int64_t dim) {
  SliceLayout out;
  const size_t rank = self.sizes.size();
  for (size_t i = 0; i < rank; ++i) {
    if (static_cast<int64_t>(i) == dim) continue;
    out.sizes.push_back(self.sizes[i]);
    out.strides.push_back(self.strides[i]);
  }
  out.n = rank == 0 ? 1 : self.sizes[static_cast<size_t>(dim)];
  out.sizes.push_back(out.n);
  out.strides.push_back(rank == 0 ? 1 : self.strides[static_cast<size_t>(dim)]);
  out.rows = 1;
  for (size_t i = 0; i + 1 < out.sizes.size(); ++i) out.rows = checked_mul(out.rows, out.sizes[i], "rows");
  return out;
}

void sort_slices(const Tensor& self, const SliceLayout& layout, bool descending, char* keys_out,
                 int64_t* positions_out) {
  const int64_t total = checked_mul(layout.rows, layout.n, "elements");
  if (total == 0) return;
  SHIMGEN_REQUIRE(total < std::numeric_limits<int32_t>::max(),
                  "sorting " + str(total) + " elements at once is not supported");
  const int32_t device = self.storage->device_index;
  DeviceScope scope(device);
  cudaStream_t stream = stream_of(device);
  const size_t itemsize = self.itemsize();
  Scratch keys(device, static_cast<size_t>(total) * itemsize), positions(device, static_cast<size_t>(total) * 8),
      offsets(device, static_cast<size_t>(layout.rows + 1) * 8);
  const std::vector<int64_t> dense = contiguous_strides_of(layout.sizes);
  copy_strided(keys.data(), dense.data(), self.data(), layout.strides.data(), layout.sizes, itemsize, device);
  positions_kernel<<<grid_for(total), 256, 0, stream>>>(positions.as<int64_t>(), total, layout.n);
  offsets_kernel<<<grid_for(layout.rows + 1), 256, 0, stream>>>(offsets.as<int64_t>(), layout.rows, layout.n);
  check_cuda(cudaGetLastError(), "sort setup kernel launch");
  const int64_t* offs = offsets.as<const int64_t>();
  auto sort = [&](auto key) {
    using Key = decltype(key);
    segmented_sort<Key>(keys.as<const Key>(), reinterpret_cast<Key*>(keys_out), positions.as<const int64_t>(),
                        positions_out, total, layout.rows, offs, descending, device, stream);
  };
  switch (self.dtype) {
    case kFloat32: sort(float{}); break;
    case kFloat16: sort(__half{}); break;
    case kBFloat16: sort(__nv_bfloat16{}); break;
    case kFloat64: sort(double{}); break;
    case kInt64: sort(int64_t{}); break;
    case kInt32: sort(int32_t{}); break;
    default: fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "sorting dtype code " + str(self.dtype) + " is not supported");
  }
}

void scatter_columns(char* dst, const std::vector<int64_t>& dst_strides, int64_t dim, const char* src,
                     const SliceLayout& layout, int64_t take, size_t itemsize, int32_t device) {
  std::vector<int64_t> sizes = layout.sizes;
  sizes.back() = take;
  std::vector<int64_t> src_strides = contiguous_strides_of(layout.sizes);  // rows of n, read `take` of them
  std::vector<int64_t> permuted;
  for (size_t i = 0; i < dst_strides.size(); ++i)
    if (static_cast<int64_t>(i) != dim) permuted.push_back(dst_strides[i]);
  permuted.push_back(dst_strides.empty() ? 1 : dst_strides[static_cast<size_t>(dim)]);
  if (layout.rows * take == 0) return;
  DeviceScope scope(device);
  copy_strided(dst, permuted.data(), src, src_strides.data(), sizes, itemsize, device);
}

}  // namespace shimgen::rt::cuda_ops
