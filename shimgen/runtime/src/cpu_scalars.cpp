// aoti_torch_check, aoti_torch_item_<dtype> and aoti_torch_assign_tensors_out: what generated
// wrapper and kernel code calls for bounds checks, .item() and control flow (cond, while_loop).
#include <cstring>
#include <stdexcept>
#include <string>

#include "internal.h"

namespace shimgen::rt {
namespace {

// Copies the one element of a tensor (any device) into ret, after checking numel and dtype.
void item(const char* shim, AtenTensorHandle handle, int32_t dtype, void* ret) {
  const Tensor* t = unwrap(handle, "tensor");
  SHIMGEN_REQUIRE(ret != nullptr, "ret_value is null");
  SHIMGEN_REQUIRE(t->numel() == 1,
                  std::string("a tensor with ") + std::to_string(t->numel()) + " elements has no single item");
  if (t->dtype != dtype) {
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, std::string(shim) + " of a tensor of dtype code " +
                                                std::to_string(t->dtype) + ": dtype conversion is not supported");
  }
  std::vector<int64_t> one(t->sizes.size(), 1);
  std::vector<int64_t> zeros(t->sizes.size(), 0);
  View dst{static_cast<char*>(ret), zeros.data(), kCPU, -1, false};
  View src{t->data(), t->strides.data(), t->storage->device_type, t->storage->device_index,
           t->storage->kind == MemoryKind::kHostPinned};
  copy_views(dst, src, one, t->itemsize(), false);
}

}  // namespace
}  // namespace shimgen::rt

using namespace shimgen::rt;

extern "C" {

// PyTorch throws (c10::Error) when cond is false; generated code relies on that to stop before an
// out-of-bounds access, and the model's entry point turns the exception into its error code. This
// does the same with a std::runtime_error, and keeps the message as the thread's last error.
AOTI_SHIM_EXPORT void aoti_torch_check(bool cond, const char* func, const char* file, uint32_t line, const char* msg) {
  count_shim_call();
  if (cond) return;
  std::string text = std::string(msg ? msg : "check failed") + " (" + (func ? func : "?") + " at " +
                     (file ? file : "?") + ":" + std::to_string(line) + ")";
  set_last_error("aoti_torch_check", text.c_str());
  throw std::runtime_error(text);
}

#define SHIMGEN_ITEM(name, ctype, code)                                                                         \
  AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_##name(AtenTensorHandle tensor, ctype* ret_value) {           \
    return guarded("aoti_torch_item_" #name, [&] { item("aoti_torch_item_" #name, tensor, code, ret_value); }); \
  }

SHIMGEN_ITEM(float16, uint16_t, 5)
SHIMGEN_ITEM(float32, float, 6)
SHIMGEN_ITEM(float64, double, 7)
SHIMGEN_ITEM(uint8, uint8_t, 0)
SHIMGEN_ITEM(uint16, uint16_t, 27)
SHIMGEN_ITEM(uint32, uint32_t, 28)
SHIMGEN_ITEM(uint64, uint64_t, 29)
SHIMGEN_ITEM(int8, int8_t, 1)
SHIMGEN_ITEM(int16, int16_t, 2)
SHIMGEN_ITEM(int32, int32_t, 3)
SHIMGEN_ITEM(int64, int64_t, 4)
SHIMGEN_ITEM(bool, bool, 11)
SHIMGEN_ITEM(bfloat16, uint16_t, 15)
SHIMGEN_ITEM(complex64, float, 9)

// scalar_to_tensor_<dtype>: a new 0-d CPU tensor holding value (at::scalar_tensor), which generated
// code makes for a Python scalar that meets a tensor op it does not lower (DeepSeek-V2's rotary).
#define SHIMGEN_SCALAR_TO_TENSOR(name, ctype, code)                                                        \
  AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_##name(ctype value, AtenTensorHandle* ret) { \
    return guarded("aoti_torch_scalar_to_tensor_" #name, [&] {                                             \
      SHIMGEN_REQUIRE(ret != nullptr, "ret_new_tensor is null");                                           \
      auto t = empty_tensor(std::vector<int64_t>{}, std::vector<int64_t>{}, code, kCPU, -1);               \
      std::memcpy(t->data(), &value, sizeof(ctype));                                                       \
      *ret = wrap(std::move(t));                                                                           \
    });                                                                                                    \
  }

SHIMGEN_SCALAR_TO_TENSOR(float32, float, kFloat32)
SHIMGEN_SCALAR_TO_TENSOR(float64, double, kFloat64)
SHIMGEN_SCALAR_TO_TENSOR(uint8, uint8_t, kUInt8)
SHIMGEN_SCALAR_TO_TENSOR(uint16, uint16_t, kUInt16)
SHIMGEN_SCALAR_TO_TENSOR(uint32, uint32_t, kUInt32)
SHIMGEN_SCALAR_TO_TENSOR(uint64, uint64_t, kUInt64)
SHIMGEN_SCALAR_TO_TENSOR(int8, int8_t, kInt8)
SHIMGEN_SCALAR_TO_TENSOR(int16, int16_t, kInt16)
SHIMGEN_SCALAR_TO_TENSOR(int32, int32_t, kInt32)
SHIMGEN_SCALAR_TO_TENSOR(int64, int64_t, kInt64)
SHIMGEN_SCALAR_TO_TENSOR(bool, bool, kBool)

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src, AtenTensorHandle* ret_dst) {
  return guarded(__func__, [&] {
    const Tensor* t = unwrap(src, "src");
    SHIMGEN_REQUIRE(ret_dst != nullptr, "ret_dst is null");
    *ret_dst = wrap(std::make_unique<Tensor>(*t));  // a new handle on the same storage
  });
}

}  // extern "C"
