#include <cstring>

#include "op_test.h"

using namespace op_test;

namespace {

// A oneDNN memory-descriptor blob as torch.ops.mkldnn._get_mkldnn_serialized_md writes it (772
// bytes; src/mkldnn_layout.cpp lists the offsets): float32 (dnnl_f32 = 3), format blocked (2).
struct Blob {
  std::vector<uint8_t> b = std::vector<uint8_t>(772, 0);
  template <class T> void put(size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof v); }
  Blob(std::vector<int64_t> dims, std::vector<int64_t> padded, std::vector<int64_t> strides,
       std::vector<int64_t> blks = {}, std::vector<int64_t> idxs = {}, int32_t groups = 1) {
    put<int32_t>(0, 1);
    put<int32_t>(4, static_cast<int32_t>(dims.size()));
    put<int32_t>(104, 3);
    put<int32_t>(312, 2);
    for (size_t d = 0; d < dims.size(); ++d) {
      put<int64_t>(8 + 8 * d, dims[d]);
      put<int64_t>(112 + 8 * d, padded[d]);
      put<int64_t>(320 + 8 * d, strides[d]);
    }
    put<int32_t>(416, static_cast<int32_t>(blks.size()));
    for (size_t k = 0; k < blks.size(); ++k) {
      put<int64_t>(424 + 8 * k, blks[k]);
      put<int64_t>(520 + 8 * k, idxs[k]);
    }
    put<int32_t>(768, groups);
  }
};

AOTITorchError make(std::vector<float>& data, std::vector<int64_t> sizes, const Blob& blob, AtenTensorHandle* t,
                    int64_t blob_size = -1, int32_t dtype = kFloat32) {
  std::vector<int64_t> junk(sizes.size(), 0);  // inductor writes {1, 0, ...}: never read
  return aoti_torch_create_tensor_from_blob_v2(data.data(), static_cast<int64_t>(sizes.size()), sizes.data(),
                                               junk.data(), 0, dtype, 0, 0, t, 3, blob.b.data(),
                                               blob_size < 0 ? static_cast<int64_t>(blob.b.size()) : blob_size);
}

}  // namespace

OP_TEST(mkldnn_layout) {
  // [3, 5] in "Ab2a": dim 0 padded to 4 and blocked by 2 innermost; element (i, j) at
  // (i / 2) * 10 + j * 2 + i % 2; the padding holds -1.
  std::vector<float> ab2a(20, -1.0f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      ab2a[static_cast<size_t>((i / 2) * 10 + j * 2 + i % 2)] = static_cast<float>(10 * i + j);
  AtenTensorHandle t = nullptr;
  EXPECT(make(ab2a, {3, 5}, Blob({3, 5}, {4, 5}, {10, 2}, {2}, {0}), &t) == 0);
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) want.push_back(static_cast<float>(10 * i + j));
  EXPECT(sizes_of(t) == (std::vector<int64_t>{3, 5}) && strides_of(t) == (std::vector<int64_t>{5, 1}));
  EXPECT(values<float>(t) == want);
  aoti_torch_delete_tensor_object(t);

  // Two blocks on one dim, as oneDNN's bf16 Linear weights (AB16b32a2b): here [2, 6] with blocks
  // (3 on dim 1, 2 on dim 0, 2 on dim 1), the earlier dim-1 block the outer one: j = 2 a + c, and
  // element (i, j) at a * 4 + i * 2 + c. Unequal block sizes, so walking the blocks in any other
  // order reads other places (the walk reversed gives (j / 3) * 6 + i * 3 + j % 3).
  std::vector<float> mixed(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 6; ++j)
      mixed[static_cast<size_t>((j / 2) * 4 + i * 2 + j % 2)] = static_cast<float>(10 * i + j);
  EXPECT(make(mixed, {2, 6}, Blob({2, 6}, {2, 6}, {12, 12}, {3, 2, 2}, {1, 0, 1}), &t) == 0);
  EXPECT(values<float>(t) == (std::vector<float>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}));
  aoti_torch_delete_tensor_object(t);

  // A grouped convolution's weight: oneDNN dims [g=2, O/g=3, I/g=1, 1], torch's [6, 1, 1].
  std::vector<float> grouped{0, 1, 2, 3, 4, 5};
  EXPECT(make(grouped, {6, 1, 1}, Blob({2, 3, 1, 1}, {2, 3, 1, 1}, {3, 1, 1, 1}, {}, {}, 2), &t) == 0);
  EXPECT(sizes_of(t) == (std::vector<int64_t>{6, 1, 1}) && values<float>(t) == grouped);
  aoti_torch_delete_tensor_object(t);

  // Refused, with nothing read from the data: a blob one byte short, another format kind, too many
  // dims, dims that are not the declared sizes, an inner block on a dim that does not exist, a
  // padded dim smaller than the dim, a dtype other than the descriptor's, a padded dim that is not
  // whole blocks.
  Blob ok({3, 5}, {4, 5}, {10, 2}, {2}, {0});
  EXPECT(make(ab2a, {3, 5}, ok, &t, 771) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  Blob opaque = ok;
  opaque.put<int32_t>(312, 3);
  EXPECT(make(ab2a, {3, 5}, opaque, &t) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
  Blob deep = ok;
  deep.put<int32_t>(4, 13);
  EXPECT(make(ab2a, {3, 5}, deep, &t) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(make(ab2a, {5, 3}, ok, &t) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(make(ab2a, {3, 5}, Blob({3, 5}, {4, 5}, {10, 2}, {2}, {2}), &t) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(make(ab2a, {3, 5}, Blob({3, 5}, {2, 5}, {10, 2}, {2}, {0}), &t) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(make(ab2a, {3, 5}, ok, &t, -1, kBFloat16) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(make(ab2a, {3, 5}, Blob({3, 5}, {3, 5}, {10, 2}, {2}, {0}), &t) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  EXPECT(aoti_torch_create_tensor_from_blob_v2(ab2a.data(), 2, std::vector<int64_t>{3, 5}.data(),
                                               std::vector<int64_t>{5, 1}.data(), 0, kFloat32, 0, 0, &t, 3, nullptr,
                                               0) == SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
  // Other layouts (sparse) stay unsupported.
  EXPECT(aoti_torch_create_tensor_from_blob_v2(ab2a.data(), 2, std::vector<int64_t>{3, 5}.data(),
                                               std::vector<int64_t>{5, 1}.data(), 0, kFloat32, 0, 0, &t, 1, nullptr,
                                               0) == SHIMGEN_RUNTIME_ERROR_UNSUPPORTED);
}
