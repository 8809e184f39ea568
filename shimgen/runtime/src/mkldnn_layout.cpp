// Constants in oneDNN's packed ("mkldnn") layout: what a model compiled with inductor's
// freezing=True passes to aoti_torch_create_tensor_from_blob_v2 for its prepacked Linear and
// convolution weights. The runtime has no oneDNN, so such a constant is unpacked once, at creation,
// into a dense row-major tensor the runtime owns; the ops then read plain strided weights.
//
// The metadata is the byte vector torch.ops.mkldnn._get_mkldnn_serialized_md writes (inductor's
// cpp_wrapper_cpu.py puts it in constants_info_[i].opaque_metadata). Its layout was established
// against torch 2.13's own packed tensors (tests/integration/test_frozen.py: this unpack of each,
// in the formats the CPU's oneDNN picks, equals torch's to_dense()): 772 bytes, oneDNN's
// dnnl_memory_desc_t fields naturally aligned after one leading 32-bit word (1 in every blob seen;
// not read), then ideep's 32-bit group count. The fields read, little-endian, at byte offsets:
//   [4]   int32 ndims                  [8]   int64 dims[12]         [104] int32 data_type
//   [112] int64 padded_dims[12]        [208] int64 padded_offsets[12]
//   [304] int64 offset0                [312] int32 format_kind (2: blocked)
//   [320] int64 blocking.strides[12]   [416] int32 blocking.inner_nblks
//   [424] int64 blocking.inner_blks[12] [520] int64 blocking.inner_idxs[12]
//   [768] int32 groups (ideep): a grouped convolution's weight has one more dim, dims[0] = groups
// An element's place (oneDNN's blocked addressing): for each dim d, with B_d the product of the
// inner blocks on d, offset0 + sum_d (i_d / B_d) * strides[d], plus the inner offset: the
// remainders i_d % B_d split over d's inner blocks (a block listed earlier is the outer one) and
// read as one mixed-radix number over all inner blocks in their listed order, the last fastest.
// Nothing else is read: torch's float weights carry no extra data, and the compensation oneDNN
// appends to an int8 weight (past the blocked data; torch's data_size counts it) is oneDNN's own
// correction for its u8 x s8 instructions, which the runtime's int32 products do not need.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"

namespace shimgen::rt {
namespace {

std::string dims_str(const int64_t* v, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

constexpr int64_t kDnnlMaxDims = 12;   // DNNL_MAX_NDIMS
constexpr int64_t kBlobBytes = 772;    // what torch 2.13 writes; the last field read ends here
constexpr int32_t kFormatBlocked = 2;  // dnnl_blocked

int32_t read_i32(const uint8_t* p, int64_t at) {
  int32_t v;
  std::memcpy(&v, p + at, 4);
  return v;
}
int64_t read_i64(const uint8_t* p, int64_t at) {
  int64_t v;
  std::memcpy(&v, p + at, 8);
  return v;
}

[[noreturn]] void refuse(const std::string& why) {
  fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "mkldnn constant: " + why);
}

// oneDNN's data type code -> the runtime's dtype code: the float types of freezing's weights and
// the integer ones of a PT2E-quantized model's (int8 weights; s32 and u8 for completeness).
int32_t dtype_of_dnnl(int32_t dt) {
  switch (dt) {
    case 1: return kFloat16;   // dnnl_f16
    case 2: return kBFloat16;  // dnnl_bf16
    case 3: return kFloat32;   // dnnl_f32
    case 4: return kInt32;     // dnnl_s32
    case 5: return kInt8;      // dnnl_s8
    case 6: return kUInt8;     // dnnl_u8
    default: break;
  }
  fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
       "mkldnn constant: oneDNN data type " + std::to_string(dt) + " is not supported (f32, bf16, f16, s32, s8, u8)");
}

}  // namespace

std::unique_ptr<Tensor> unpack_mkldnn(const void* data, int64_t ndim, const int64_t* sizes, int32_t dtype,
                                      const uint8_t* md, int64_t md_size) {
  if (md == nullptr || md_size < kBlobBytes)
    refuse("opaque metadata of " + std::to_string(md_size) + " bytes is shorter than oneDNN's " +
           std::to_string(kBlobBytes) + "-byte memory descriptor");
  const int32_t nd = read_i32(md, 4);
  if (nd < 1 || nd > kDnnlMaxDims) refuse("ndims " + std::to_string(nd) + " is outside [1, 12]");
  const int32_t fk = read_i32(md, 312);
  if (fk != kFormatBlocked)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED,
         "mkldnn constant: format kind " + std::to_string(fk) + " is not supported (only blocked, 2)");
  if (dtype_of_dnnl(read_i32(md, 104)) != dtype)
    refuse("oneDNN data type " + std::to_string(read_i32(md, 104)) + " does not match the constant's dtype code " +
           std::to_string(dtype));
  std::vector<int64_t> dims(static_cast<size_t>(nd)), padded(dims.size()), strides(dims.size());
  for (int32_t d = 0; d < nd; ++d) {
    dims[d] = read_i64(md, 8 + 8 * d);
    padded[d] = read_i64(md, 112 + 8 * d);
    strides[d] = read_i64(md, 320 + 8 * d);
    if (dims[d] < 1 || padded[d] < dims[d] || strides[d] < 0 || read_i64(md, 208 + 8 * d) != 0)
      refuse("dim " + std::to_string(d) + ": size " + std::to_string(dims[d]) + ", padded " +
             std::to_string(padded[d]) + ", stride " + std::to_string(strides[d]) +
             " (sizes must be positive, padded >= size, no padded offsets)");
  }
  const int64_t offset0 = read_i64(md, 304);
  const int32_t nblks = read_i32(md, 416);
  if (offset0 < 0 || nblks < 0 || nblks > kDnnlMaxDims)
    refuse("offset0 " + std::to_string(offset0) + " or " + std::to_string(nblks) + " inner blocks out of range");
  std::vector<int64_t> blks(static_cast<size_t>(nblks)), idxs(blks.size());
  std::vector<int64_t> block_of(dims.size(), 1);  // B_d
  int64_t inner = 1;
  for (int32_t k = 0; k < nblks; ++k) {
    blks[k] = read_i64(md, 424 + 8 * k);
    idxs[k] = read_i64(md, 520 + 8 * k);
    if (blks[k] < 1 || idxs[k] < 0 || idxs[k] >= nd)
      refuse("inner block " + std::to_string(k) + " (" + std::to_string(blks[k]) + " on dim " +
             std::to_string(idxs[k]) + ") is out of range");
    block_of[idxs[k]] = checked_mul(block_of[idxs[k]], blks[k], "inner block");
    inner = checked_mul(inner, blks[k], "inner block");
  }
  const int32_t groups = read_i32(md, 768);
  // The torch shape the model declares: oneDNN's dims, or with groups > 1 one more leading dim
  // ([g, O/g, ...] of a grouped convolution's weight read as torch's [O, ...]).
  std::vector<int64_t> want(dims);
  if (groups > 1 && nd >= 2 && dims[0] == groups) {
    want.erase(want.begin());
    want[0] = checked_mul(want[0], groups, "grouped dim");
  }
  const bool same = ndim == static_cast<int64_t>(want.size()) &&
                    std::equal(want.begin(), want.end(), sizes, sizes + std::max<int64_t>(ndim, 0));
  if (!same) {
    refuse("the descriptor's dims " + dims_str(dims.data(), dims.size()) + " (groups " + std::to_string(groups) +
           ") do not match the constant's sizes " + dims_str(sizes, static_cast<size_t>(std::max<int64_t>(ndim, 0))));
  }
  // The largest element offset the layout addresses, checked without overflow: a padded dim must
  // be a whole number of its blocks.
  int64_t last = checked_add(offset0, inner - 1, "descriptor extent");
  for (int32_t d = 0; d < nd; ++d) {
    if (padded[d] % block_of[d] != 0)
      refuse("padded dim " + std::to_string(d) + " (" + std::to_string(padded[d]) +
             ") is not a multiple of its block " + std::to_string(block_of[d]));
    last = checked_add(last, checked_mul(padded[d] / block_of[d] - 1, strides[d], "descriptor extent"),
                       "descriptor extent");
  }
  const size_t item = element_size(dtype);
  // The model passes no buffer size (model_base.h hands over the pointer and this descriptor; its
  // data_size was torch's mkldnn _nbytes of the same descriptor), so the extent is only checked to
  // be addressable.
  (void)checked_mul(checked_add(last, 1, "descriptor extent"), static_cast<int64_t>(item), "descriptor extent");
  SHIMGEN_REQUIRE(data != nullptr, "mkldnn constant: data is null");

  const std::vector<int64_t> contiguous = contiguous_strides_of(want);
  auto out = empty_tensor(want, contiguous, dtype, kCPU, -1);
  out->storage->unpacked_mkldnn = true;
  const auto* src = static_cast<const char*>(data);
  char* dst = out->data();
  std::vector<int64_t> index(dims.size(), 0), rest(dims.size()), sub(dims.size());
  const int64_t n = out->numel();
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = offset0;
    for (int32_t d = 0; d < nd; ++d) {
      at += (index[d] / block_of[d]) * strides[d];
      rest[d] = index[d] % block_of[d];
      sub[d] = block_of[d];
    }
    int64_t in = 0;
    for (int32_t k = 0; k < nblks; ++k) {
      const int64_t d = idxs[k];
      sub[d] /= blks[k];
      in = in * blks[k] + rest[d] / sub[d];
      rest[d] %= sub[d];
    }
    std::memcpy(dst + e * static_cast<int64_t>(item), src + (at + in) * static_cast<int64_t>(item), item);
    for (int32_t d = nd; d-- > 0;) {  // row-major over oneDNN's dims: the output's order
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace shimgen::rt
