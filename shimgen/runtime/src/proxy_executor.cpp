// See proxy_executor.h. The flattened-call convention (torch's OSSProxyExecutor, whose behaviour
// the generated code assumes): the node's serialized inputs, in order, consume the arrays —
// as_tensor one tensor, as_tensors n, as_optional_tensors one per present item, as_int/as_sym_int
// one int, as_ints/as_sym_ints n ints; everything else (floats, bools, strings, dtypes, None) is
// static and comes from the JSON. After the inputs, the tensor array holds one handle per tensor
// output (made by aoti_torch_new_uninitialized_tensor), which the executor fills.
#include "proxy_executor.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <utility>

#include "internal.h"
#include "json.h"
#include "ops/cpu/cpu_op.h"
#include "ops/proxy_ops.h"
#include "ops/views.h"

namespace shimgen::rt::proxy {
namespace {

using json::Value;
using Kind = Value::Kind;

enum class ArgKind {
  kTensor,
  kTensors,
  kOptionalTensors,
  kInt,
  kInts,
  kFloat,
  kFloats,
  kBool,
  kBools,
  kString,
  kScalarType,
  kMemoryFormat,
  kDevice,
  kNone,
  kOther
};

struct Arg {
  std::string name;
  ArgKind kind = ArgKind::kOther;
  std::vector<bool> present;  // kOptionalTensors: which items are tensors
  size_t count = 0;           // kTensors / kInts: list length
  double real = 0.0;
  std::vector<double> reals;  // kFloats
  bool flag = false;
  int32_t dtype = -1;         // kScalarType, as a c10 code
  int64_t memory_format = 0;  // kMemoryFormat, as torch.export serializes it (proxy_ops::kPreserveFormat, ...)
  std::string text;           // kString; kDevice: the device type ("cpu", "cuda")
  int32_t device_index = -1;  // kDevice: the index (-1: none given, the current device)
};

struct Node;
class Call;
using Handler = void (*)(Call&);

struct Node {
  std::string target;
  std::vector<Arg> inputs;
  size_t output_tensors = 0;
  std::vector<bool> output_is_tensor;  // per serialized output: a tensor slot, or None
  Handler handler = nullptr;
};

// One bound argument at call time.
struct Bound {
  const Arg* arg = nullptr;
  std::vector<AtenTensorHandle> tensors;  // kTensor: 1; kTensors/kOptionalTensors: items (null = None)
  std::vector<int64_t> ints;
};

// The arguments of one call, by name, and its output slots.
class Call {
 public:
  Call(const Node& node, std::map<std::string, Bound> args, std::vector<AtenTensorHandle> outputs)
      : node_(node), args_(std::move(args)), outputs_(std::move(outputs)) {}

  const std::string& target() const { return node_.target; }

  AtenTensorHandle tensor(const char* name) const {
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind != ArgKind::kTensor || b->tensors.size() != 1)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a tensor");
    return b->tensors[0];
  }
  int64_t integer(const char* name, int64_t fallback) const {
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return fallback;
    if (b->arg->kind != ArgKind::kInt || b->ints.size() != 1)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not an int");
    return b->ints[0];
  }
  double real(const char* name, double fallback) const {  // a float or int Scalar
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return fallback;
    if (b->arg->kind == ArgKind::kInt && b->ints.size() == 1) return static_cast<double>(b->ints[0]);
    if (b->arg->kind == ArgKind::kFloat) return b->arg->real;
    fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a number");
  }
  bool flag(const char* name, bool fallback) const {
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return fallback;
    if (b->arg->kind != ArgKind::kBool)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a bool");
    return b->arg->flag;
  }
  std::string text(const char* name, const std::string& fallback) const {  // a static str argument
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return fallback;
    if (b->arg->kind != ArgKind::kString)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a string");
    return b->arg->text;
  }
  const std::vector<double>* floats(const char* name) const {  // a float list (as_floats); null for None / absent
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return nullptr;
    if (b->arg->kind != ArgKind::kFloats)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a float list");
    return &b->arg->reals;
  }
  std::vector<int64_t> ints(const char* name) const {  // an int list (as_ints / as_sym_ints)
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind != ArgKind::kInts)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not an int list");
    return b->ints;
  }
  std::string device(const char* name) const {  // a static device argument's type; "cpu" when absent
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return "cpu";
    if (b->arg->kind != ArgKind::kDevice)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a device");
    return b->arg->text;
  }
  int32_t device_index(const char* name) const {  // a static device argument's index; -1 when none
    const Bound* b = find(name);
    return b == nullptr || b->arg->kind != ArgKind::kDevice ? -1 : b->arg->device_index;
  }
  AtenTensorHandle optional_tensor(const char* name) const {  // null for None
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return nullptr;
    return tensor(name);
  }
  bool has(const char* name) const {
    const Bound* b = find(name);
    return b != nullptr && b->arg->kind != ArgKind::kNone;
  }
  int64_t memory_format(const char* name) const {  // a static memory format; preserve_format when absent
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind == ArgKind::kNone) return proxy_ops::kPreserveFormat;
    if (b->arg->kind != ArgKind::kMemoryFormat)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a memory format");
    return b->arg->memory_format;
  }
  int32_t dtype(const char* name) const {
    const Bound* b = find(name);
    if (b == nullptr || b->arg->kind != ArgKind::kScalarType)
      fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, node_.target + ": argument '" + name + "' is not a dtype");
    return b->arg->dtype;
  }

  size_t num_outputs() const { return outputs_.size(); }
  // Moves `result` (a new handle from a shim) into output slot `index` and frees the handle.
  void set_output(size_t index, AtenTensorHandle result) {
    if (index >= outputs_.size())
      fail(SHIMGEN_RUNTIME_ERROR_INTERNAL, node_.target + ": output " + std::to_string(index) + " has no slot");
    Tensor* slot = unwrap(outputs_[index], "output slot");
    Tensor* value = unwrap(result, "result");
    *slot = std::move(*value);
    (void)aoti_torch_delete_tensor_object(result);
  }

 private:
  const Bound* find(const char* name) const {
    auto it = args_.find(name);
    return it == args_.end() ? nullptr : &it->second;
  }
  const Node& node_;
  std::map<std::string, Bound> args_;
  std::vector<AtenTensorHandle> outputs_;
};

// ---- the runtime's own shims, found by name (a shim this build lacks is an error, not a link failure)

void* own_library() {
  static void* handle = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_library), &info) != 0 && info.dli_fname != nullptr)
      handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  });
  return handle;
}

// The shim prefix this library was built with: the exported name of a known shim, minus its name.
std::string prefix() {
  static const std::string value = [] {
    const std::string full = SHIMGEN_PREFIXED_STRING(aoti_torch_empty_strided);
    const std::string plain = "aoti_torch_empty_strided";
    return full.size() >= plain.size() ? full.substr(0, full.size() - plain.size()) : std::string();
  }();
  return value;
}

template <typename Fn> Fn shim(const std::string& name) {
  void* lib = own_library();
  void* sym = lib != nullptr ? dlsym(lib, (prefix() + name).c_str()) : nullptr;
  if (sym == nullptr) fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "this runtime build has no " + name);
  return reinterpret_cast<Fn>(sym);
}

void check(AOTITorchError code, const std::string& what) {
  if (code != AOTI_TORCH_SUCCESS) fail(code, what + ": " + shimgen_runtime_last_error());
}

// "cpu" or "cuda": the device family of a tensor, which picks the shim.
std::string device_of(AtenTensorHandle handle) {
  return unwrap(handle, "tensor")->storage->device_type == kCUDA ? "cuda" : "cpu";
}

// ---- handlers ----------------------------------------------------------------------------------

void topk(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const std::string name = "aoti_torch_" + device_of(self) + "_topk";
  using Fn =
      AOTITorchError (*)(AtenTensorHandle, int64_t, int64_t, int32_t, int32_t, AtenTensorHandle*, AtenTensorHandle*);
  AtenTensorHandle values = nullptr, indices = nullptr;
  check(shim<Fn>(name)(self, call.integer("k", 1), call.integer("dim", -1), call.flag("largest", true),
                       call.flag("sorted", true), &values, &indices),
        name);
  call.set_output(0, values);
  call.set_output(1, indices);
}

void sort(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const std::string name = "aoti_torch_" + device_of(self) + "_sort_stable";
  using Fn = AOTITorchError (*)(AtenTensorHandle, int32_t*, int64_t, int32_t, AtenTensorHandle*, AtenTensorHandle*);
  int32_t stable = call.flag("stable", false) ? 1 : 0;
  AtenTensorHandle values = nullptr, indices = nullptr;
  check(shim<Fn>(name)(self, call.has("stable") ? &stable : nullptr, call.integer("dim", -1),
                       call.flag("descending", false), &values, &indices),
        name);
  call.set_output(0, values);
  call.set_output(1, indices);
}

void histc(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const std::string name = "aoti_torch_" + device_of(self) + "_histc";
  using Fn = AOTITorchError (*)(AtenTensorHandle, int64_t, double, double, AtenTensorHandle*);
  AtenTensorHandle out = nullptr;
  check(shim<Fn>(name)(self, call.integer("bins", 100), call.real("min", 0.0), call.real("max", 0.0), &out), name);
  call.set_output(0, out);
}

void cumsum(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const std::string name = "aoti_torch_" + device_of(self) + "_cumsum";
  using Fn = AOTITorchError (*)(AtenTensorHandle, int64_t, int32_t*, AtenTensorHandle*);
  int32_t dtype = call.has("dtype") ? call.dtype("dtype") : 0;
  AtenTensorHandle out = nullptr;
  check(shim<Fn>(name)(self, call.integer("dim", 0), call.has("dtype") ? &dtype : nullptr, &out), name);
  call.set_output(0, out);
}

void weight_int4pack_mm(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const std::string name = "aoti_torch_" + device_of(self) + "__weight_int4pack_mm";
  using Fn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, int64_t, AtenTensorHandle, AtenTensorHandle*);
  AtenTensorHandle out = nullptr;
  check(shim<Fn>(name)(self, call.tensor("mat2"), call.integer("qGroupSize", 32), call.tensor("qScaleAndZeros"), &out),
        name);
  call.set_output(0, out);
}

// A strided view of `base` through the runtime's _reinterpret_tensor shim.
AtenTensorHandle view_of(AtenTensorHandle base, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                         int64_t offset) {
  AtenTensorHandle out = nullptr;
  check(aoti_torch__reinterpret_tensor(base, static_cast<int64_t>(sizes.size()), sizes.data(), strides.data(), offset,
                                       &out),
        "_reinterpret_tensor");
  return out;
}

// ---- ops with no C shim on any device: computed on the host (ops/cpu/, proxy_ops.h). A CUDA
// input is copied to the host first and each result back to the input's device: correct, not fast,
// and these ops (sampling, counting, statistics) run once per step on small tensors.

struct Owned {  // a handle freed at scope exit unless released
  AtenTensorHandle h = nullptr;
  explicit Owned(AtenTensorHandle handle = nullptr) : h(handle) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
  }
  AtenTensorHandle release() { return std::exchange(h, nullptr); }
};

// A new tensor on (device_type, device_index) with src's sizes and dtype and the given strides, holding
// a copy of src's elements: every move between devices here goes through this one copy.
AtenTensorHandle copy_onto(AtenTensorHandle src, const std::vector<int64_t>& strides, int32_t device_type,
                           int32_t device_index) {
  const Tensor& s = *unwrap(src, "tensor");
  AtenTensorHandle out = nullptr;
  check(aoti_torch_empty_strided(static_cast<int64_t>(s.sizes.size()), s.sizes.data(), strides.data(), s.dtype,
                                 device_type, device_index, &out),
        "empty_strided");
  Owned own(out);
  check(aoti_torch_copy_(out, src, 0), "copy_");
  return own.release();
}

// `t` itself when it is on the host, else a new host copy held by `keep`.
AtenTensorHandle on_host(AtenTensorHandle t, Owned& keep) {
  if (t == nullptr) return nullptr;
  const Tensor& x = *unwrap(t, "tensor");
  if (x.storage->device_type == kCPU) return t;
  keep.h = copy_onto(t, x.strides, kCPU, -1);
  return keep.h;
}

// `host` (a new handle) moved onto the device of `like` (a new handle; `host` is freed), or itself.
AtenTensorHandle to_device_of(AtenTensorHandle host, AtenTensorHandle like) {
  const Tensor& l = *unwrap(like, "tensor");
  if (l.storage->device_type == kCPU) return host;
  Owned own(host);
  return copy_onto(host, unwrap(host, "result")->strides, l.storage->device_type, l.storage->device_index);
}

// A host op's call: host copies of its tensor arguments (h(t), owned here), then run<N>(op): op(r)
// fills r[0 .. N) with new host tensors, each put in the call's output slot on `like`'s device.
class OnHost {
 public:
  OnHost(Call& call, AtenTensorHandle like) : call_(call), like_(like) {}
  // For ops whose host kernels take float32 and float64 only (torchvision's): a float16 or bfloat16
  // tensor argument reaches the op as a float32 copy and each float32 result is rounded back to that
  // type. Mixed float types are refused, as torchvision refuses them. Returns `like`'s dtype when it is
  // one of the two (the op's `rounding`: it computes as torchvision's CUDA half kernels do), else -1.
  int32_t widening_16bit() {
    widen_ = true;
    const int32_t dtype = unwrap(like_, "tensor")->dtype;
    return dtype == kFloat16 || dtype == kBFloat16 ? dtype : -1;
  }
  AtenTensorHandle operator()(AtenTensorHandle t) {
    keep_.emplace_back();
    AtenTensorHandle host = on_host(t, keep_.back());
    return widen_ && host != nullptr ? widened(host) : host;
  }
  template <size_t N, class Op> void run(Op&& op) {
    AtenTensorHandle results[N] = {};
    op(results);
    Owned owned[N];
    for (size_t i = 0; i < N; ++i) owned[i].h = results[i];
    for (size_t i = 0; i < N; ++i) {
      if (narrow_to_ >= 0 && owned[i].h != nullptr && unwrap(owned[i].h, "result")->dtype == kFloat32) {
        Owned wide(owned[i].release());
        owned[i].h = proxy_ops::cpu_float_cast(wide.h, narrow_to_);
      }
      owned[i].h = to_device_of(owned[i].release(), like_);
    }
    for (size_t i = 0; i < N && i < call_.num_outputs(); ++i) call_.set_output(i, owned[i].release());
  }

 private:
  AtenTensorHandle widened(AtenTensorHandle host) {
    const auto is16 = [](int32_t d) { return d == kFloat16 || d == kBFloat16; };
    const int32_t dtype = unwrap(host, "tensor")->dtype;
    const bool half = is16(dtype);
    if (!half && dtype != kFloat32 && dtype != kFloat64) return host;
    if (first_float_ < 0) first_float_ = dtype;
    SHIMGEN_REQUIRE(dtype == first_float_ || (!half && !is16(first_float_)),
                    call_.target() + ": its tensor arguments must share one float type (got " +
                        cpu::scalar_type_name(first_float_) + " and " + cpu::scalar_type_name(dtype) + ")");
    if (!half) return host;
    narrow_to_ = dtype;
    keep_.emplace_back(proxy_ops::cpu_float_cast(host, kFloat32));
    return keep_.back().h;
  }

  Call& call_;
  AtenTensorHandle like_;
  std::deque<Owned> keep_;
  bool widen_ = false;
  int32_t first_float_ = -1, narrow_to_ = -1;
};

void multinomial(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle host = on_host(self, keep);
  call.set_output(
      0, to_device_of(proxy_ops::cpu_multinomial(host, call.integer("num_samples", 1), call.flag("replacement", false)),
                      self));
}

void bincount(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep_self, keep_weights;
  AtenTensorHandle weights = on_host(call.optional_tensor("weights"), keep_weights);
  call.set_output(
      0, to_device_of(proxy_ops::cpu_bincount(on_host(self, keep_self), weights, call.integer("minlength", 0)), self));
}

void median_dim(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle values = nullptr, indices = nullptr;
  proxy_ops::cpu_median_dim(on_host(self, keep), call.integer("dim", 0), call.flag("keepdim", false), &values,
                            &indices);
  Owned own_indices(indices);
  AtenTensorHandle v = to_device_of(values, self);
  Owned own_v(v);
  AtenTensorHandle i = to_device_of(own_indices.release(), self);
  call.set_output(0, own_v.release());
  call.set_output(1, i);
}

void unique2(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle results[3] = {nullptr, nullptr, nullptr};
  proxy_ops::cpu_unique2(on_host(self, keep), call.flag("return_inverse", false), call.flag("return_counts", false),
                         &results[0], &results[1], &results[2]);
  Owned owned[3] = {Owned(results[0]), Owned(results[1]), Owned(results[2])};
  for (size_t i = 0; i < 3; ++i) owned[i].h = to_device_of(owned[i].release(), self);
  for (size_t i = 0; i < 3 && i < call.num_outputs(); ++i) call.set_output(i, owned[i].release());
}

void unique_consecutive(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle results[3] = {nullptr, nullptr, nullptr};
  if (call.has("dim"))  // slices along a dim (torch returns inverse and counts either way)
    proxy_ops::cpu_unique_dim(on_host(self, keep), call.integer("dim", 0), true, &results[0], &results[1], &results[2]);
  else
    proxy_ops::cpu_unique_consecutive(on_host(self, keep), call.flag("return_inverse", false),
                                      call.flag("return_counts", false), &results[0], &results[1], &results[2]);
  Owned owned[3] = {Owned(results[0]), Owned(results[1]), Owned(results[2])};
  for (size_t i = 0; i < 3; ++i) owned[i].h = to_device_of(owned[i].release(), self);
  for (size_t i = 0; i < 3 && i < call.num_outputs(); ++i) call.set_output(i, owned[i].release());
}

void unique_dim(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle results[3] = {nullptr, nullptr, nullptr};
  proxy_ops::cpu_unique_dim(on_host(self, keep), call.integer("dim", 0), false, &results[0], &results[1], &results[2]);
  Owned owned[3] = {Owned(results[0]), Owned(results[1]), Owned(results[2])};
  for (size_t i = 0; i < 3; ++i) owned[i].h = to_device_of(owned[i].release(), self);
  for (size_t i = 0; i < 3 && i < call.num_outputs(); ++i) call.set_output(i, owned[i].release());
}

void nanmedian_dim(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  AtenTensorHandle values = nullptr, indices = nullptr;
  proxy_ops::cpu_nanmedian_dim(on_host(self, keep), call.integer("dim", 0), call.flag("keepdim", false), &values,
                               &indices);
  Owned own_v(values), own_i(indices);
  own_v.h = to_device_of(own_v.release(), self);
  own_i.h = to_device_of(own_i.release(), self);
  call.set_output(0, own_v.release());
  call.set_output(1, own_i.release());
}

void complex_(Call& call) {
  AtenTensorHandle real = call.tensor("real");
  Owned keep_real, keep_imag;
  AtenTensorHandle imag = on_host(call.tensor("imag"), keep_imag);
  call.set_output(0, to_device_of(proxy_ops::cpu_complex(on_host(real, keep_real), imag), real));
}

void fft_c2r(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  call.set_output(
      0, to_device_of(proxy_ops::cpu_fft_c2r(on_host(self, keep), call.ints("dim"), call.integer("normalization", 0),
                                             call.integer("last_dim_size", 0)),
                      self));
}

// A view (metadata only, ops/views.h): the same on every device, nothing copied.
void unsqueeze(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  call.set_output(0, wrap(views::unsqueeze(*unwrap(self, "self"), call.integer("dim", 0))));
}

void index_add(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep_self, keep_index, keep_source;
  AtenTensorHandle index = on_host(call.tensor("index"), keep_index);
  AtenTensorHandle source = on_host(call.tensor("source"), keep_source);
  call.set_output(0, to_device_of(proxy_ops::cpu_index_add(on_host(self, keep_self), call.integer("dim", 0), index,
                                                           source, call.real("alpha", 1.0)),
                                  self));
}

void embedding_renorm(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep_self, keep_indices;
  AtenTensorHandle indices = on_host(call.tensor("indices"), keep_indices);
  const auto rule = unwrap(self, "self")->storage->device_type == kCUDA ? proxy_ops::RenormRule::kCudaKernel
                                                                        : proxy_ops::RenormRule::kCpu;
  call.set_output(
      0, to_device_of(proxy_ops::cpu_embedding_renorm(on_host(self, keep_self), indices, call.real("max_norm", 0.0),
                                                      call.real("norm_type", 2.0), rule),
                      self));
}

void upsample_aa(Call& call, bool bicubic) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  call.set_output(0, to_device_of(proxy_ops::cpu_upsample_aa(
                                      on_host(self, keep), call.ints("output_size"), call.flag("align_corners", false),
                                      call.real("scales_h", 0.0), call.real("scales_w", 0.0), bicubic),
                                  self));
}
void upsample_bilinear2d_aa(Call& call) { upsample_aa(call, false); }

// Complex arithmetic without a CPU C shim, on the host (a CUDA input makes the round trip).
void complex_binary(Call& call, char op) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep_self, keep_other;
  AtenTensorHandle other = on_host(call.tensor("other"), keep_other);
  call.set_output(0, to_device_of(proxy_ops::cpu_complex_binary(on_host(self, keep_self), other, op,
                                                                op == '-' ? call.real("alpha", 1.0) : 1.0),
                                  self));
}
void complex_sub(Call& call) { complex_binary(call, '-'); }
void complex_div(Call& call) { complex_binary(call, '/'); }
void complex_unary(Call& call, char op) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  call.set_output(0, to_device_of(proxy_ops::cpu_complex_unary(on_host(self, keep), op), self));
}
void complex_exp(Call& call) { complex_unary(call, 'e'); }
void conj_physical(Call& call) { complex_unary(call, 'c'); }
void complex_log(Call& call) { complex_unary(call, 'l'); }
void complex_sqrt(Call& call) { complex_unary(call, 's'); }
void complex_sin(Call& call) { complex_unary(call, 'S'); }
void complex_cos(Call& call) { complex_unary(call, 'C'); }
void complex_tanh(Call& call) { complex_unary(call, 't'); }
void complex_sigmoid(Call& call) { complex_unary(call, 'g'); }
void complex_reciprocal(Call& call) { complex_unary(call, 'r'); }
void complex_rsqrt(Call& call) { complex_unary(call, 'R'); }
void complex_neg(Call& call) { complex_unary(call, 'n'); }
void complex_expm1(Call& call) { complex_unary(call, 'm'); }
void complex_log1p(Call& call) { complex_unary(call, 'p'); }

// ---- complex layers (FNO spectral convolutions, complex linears; proxy_ops.h): what inductor
// falls back to for complex tensors only. Computed on the host (a CUDA input makes the round trip,
// a whole storage where the result keeps self's offset) except clone, a copy on self's device, and
// the views expand and select. ----

void complex_mm(Call& call, bool batched) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) { r[0] = proxy_ops::cpu_complex_mm(h(self), h(call.tensor("mat2")), batched); });
}
void mm(Call& call) { complex_mm(call, false); }
void bmm(Call& call) { complex_mm(call, true); }

void clone_(Call& call) {
  call.set_output(0, proxy_ops::clone(call.tensor("self"), call.memory_format("memory_format")));
}

void constant_pad_nd(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_constant_pad_nd(h(self), call.ints("pad"), call.real("value", 0.0));
  });
}

void reduce(Call& call, bool mean) {
  AtenTensorHandle self = call.tensor("self");
  const std::vector<int64_t> dims = call.has("dim") ? call.ints("dim") : std::vector<int64_t>{};
  const int32_t dtype = call.has("dtype") ? call.dtype("dtype") : -1;
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_complex_sum(h(self), call.has("dim") ? &dims : nullptr, call.flag("keepdim", false), dtype,
                                      mean);
  });
}
void sum(Call& call) { reduce(call, false); }
void mean(Call& call) { reduce(call, true); }

// Results laid out on a whole storage (torch's _conj view, slice_scatter's clone_preserve_strides):
// x's storage seen as a 1-d tensor of x's dtype, and a handle with x's sizes, strides and storage
// offset on the storage of `flat` (such a 1-d tensor).
AtenTensorHandle whole_storage(const Tensor& x) {
  auto flat = views::alias(x);
  flat->sizes = {x.storage->nbytes / static_cast<int64_t>(x.itemsize())};
  flat->strides = {1};
  flat->storage_offset = 0;
  return wrap(std::move(flat));
}
AtenTensorHandle with_layout_of(AtenTensorHandle flat, const Tensor& x) {
  auto out = views::alias(*unwrap(flat, "result"));
  out->sizes = x.sizes;
  out->strides = x.strides;
  out->storage_offset = x.storage_offset;
  return wrap(std::move(out));
}

// aten::_conj: torch answers a view of self with the conjugate bit set, which the runtime's tensors
// do not carry, so the conjugate is materialised where torch's view would read: a new storage as
// large as self's, every element of it conjugated (conj_physical over the storage seen as 1-d),
// and the result self's sizes, strides and offset on it. A consumer reads the values torch's
// conjugate view gives (clone materialises them, as torch's clone resolves the bit), and one that
// reinterprets the buffer as inductor may (it takes _conj for an alias of self) finds every element
// of self's storage conjugated too. Not an alias: a later write to self would not show through it,
// which a functional graph never does. CUDA: the storage makes the host round trip.
void conj(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  const Tensor& x = *unwrap(self, "self");
  if (x.dtype != kComplex64 && x.dtype != kComplex128)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, call.target() + ": dtype code " + std::to_string(x.dtype) +
                                                " is not complex (torch's _conj takes complex64/128 only)");
  Owned whole(whole_storage(x)), keep;
  Owned conjugate(to_device_of(proxy_ops::cpu_complex_unary(on_host(whole.h, keep), 'c'), self));
  call.set_output(0, with_layout_of(conjugate.h, x));
}

// aten::slice_scatter and aten::copy into a complex self (torch's clone_preserve_strides results:
// ops/cpu/slice_scatter.cpp, copy.cpp): op(self on the host, src on the host) with self seen over
// its whole storage there (a CUDA self's storage makes the round trip), so the result keeps self's
// storage offset on either device.
template <class Op> void on_whole_storage(Call& call, Op&& op) {
  AtenTensorHandle self = call.tensor("self");
  const Tensor& x = *unwrap(self, "self");
  Owned whole(whole_storage(x)), keep_whole, keep_src;
  Owned host_self(with_layout_of(on_host(whole.h, keep_whole), x));
  Owned result(op(host_self.h, on_host(call.tensor("src"), keep_src)));
  if (x.storage->device_type == kCPU) {
    call.set_output(0, result.release());
    return;
  }
  const Tensor& r = *unwrap(result.h, "result");
  Owned on_device(to_device_of(whole_storage(r), self));
  call.set_output(0, with_layout_of(on_device.h, r));
}

void slice_scatter(Call& call) {
  const int64_t start = call.integer("start", 0), end = call.integer("end", 0);
  on_whole_storage(call, [&](AtenTensorHandle self, AtenTensorHandle src) {
    return proxy_ops::cpu_complex_slice_scatter(self, src, call.integer("dim", 0), call.has("start") ? &start : nullptr,
                                                call.has("end") ? &end : nullptr, call.integer("step", 1));
  });
}

void copy(Call& call) {
  on_whole_storage(call,
                   [](AtenTensorHandle self, AtenTensorHandle src) { return proxy_ops::cpu_complex_copy(self, src); });
}

void addmm(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_complex_addmm(h(self), h(call.tensor("mat1")), h(call.tensor("mat2")), call.real("beta", 1.0),
                                        call.real("alpha", 1.0));
  });
}

// A new host tensor (a handle) on the device a factory op names ("cpu", or "cuda": copied to the
// current CUDA device): prims::normal's and full's results.
AtenTensorHandle on_named_device(AtenTensorHandle host, const std::string& device, const std::string& target) {
  if (device == "cpu") return host;
  Owned own(host);
  SHIMGEN_REQUIRE(device == "cuda", target + ": device '" + device + "' is not supported");
  return copy_onto(host, unwrap(host, "result")->strides, kCUDA, -1);
}

// prims::device_put: a tensor moved to another device (Qwen-Image's complex rotary table, built on the
// CPU and moved to the model's GPU: inductor falls back for complex tensors). A copy on the named
// device (cuda without an index: the current one) laid out as torch's _to_copy lays it: a's strides
// where a is dense, else its suggested memory format (channels-last or contiguous); any dtype.
void device_put(Call& call) {
  AtenTensorHandle a = call.tensor("a");
  const Tensor& x = *unwrap(a, "a");
  const std::string device = call.device("device");
  SHIMGEN_REQUIRE(device == "cpu" || device == "cuda", call.target() + ": device '" + device + "' is not supported");
  std::vector<int64_t> strides = contiguous_strides_of(x.sizes);
  if (x.is_non_overlapping_and_dense()) strides = x.strides;
  else if (channels_last_strides(x.sizes, x.strides))
    strides = proxy_ops::clone_strides(x.sizes, {},
                                       x.sizes.size() == 4 ? proxy_ops::kChannelsLast : proxy_ops::kChannelsLast3d);
  call.set_output(
      0, copy_onto(a, strides, device == "cpu" ? kCPU : kCUDA, device == "cpu" ? -1 : call.device_index("device")));
}

void full(Call& call) {
  const int32_t dtype = call.has("dtype") ? call.dtype("dtype") : -1;  // none: a real dtype, inductor's own
  call.set_output(0,
                  on_named_device(proxy_ops::cpu_complex_full(call.ints("size"), call.real("fill_value", 0.0), dtype),
                                  call.device("device"), call.target()));
}

// Views (ops/views.h), any device: complex tensors broadcast before a batched complex matmul, a
// complex batch indexed.
void expand(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  call.set_output(0, wrap(views::expand(*unwrap(self, "self"), call.ints("size"))));
}
void select(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  call.set_output(0, wrap(views::select(*unwrap(self, "self"), call.integer("dim", 0), call.integer("index", 0))));
}
// aten::split_with_sizes / aten::split.Tensor: views of self, one per output slot (the call's list).
void set_pieces(Call& call, std::vector<std::unique_ptr<Tensor>> pieces) {
  SHIMGEN_REQUIRE(pieces.size() == call.num_outputs(), call.target() + ": the call expects " +
                                                           std::to_string(call.num_outputs()) + " pieces, made " +
                                                           std::to_string(pieces.size()));
  std::vector<AtenTensorHandle> handles;
  for (auto& piece : pieces) handles.push_back(wrap(std::move(piece)));
  for (size_t i = 0; i < handles.size(); ++i) call.set_output(i, handles[i]);
}
void split_with_sizes(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  set_pieces(call, views::split_with_sizes(*unwrap(self, "self"), call.ints("split_sizes"), call.integer("dim", 0)));
}
void split(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  set_pieces(call, views::split(*unwrap(self, "self"), call.integer("split_size", 0), call.integer("dim", 0)));
}

void histogramdd_bin_edges(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  Owned keep;
  std::vector<AtenTensorHandle> edges =
      proxy_ops::cpu_histogramdd_bin_edges(on_host(self, keep), call.ints("bins"), call.floats("range"));
  std::deque<Owned> owned;  // Owned does not move: a deque builds in place
  for (AtenTensorHandle e : edges) owned.emplace_back(e);
  SHIMGEN_REQUIRE(owned.size() == call.num_outputs(), call.target() + ": the call expects " +
                                                          std::to_string(call.num_outputs()) + " edge tensors, made " +
                                                          std::to_string(owned.size()));
  for (Owned& o : owned) o.h = to_device_of(o.release(), self);
  for (size_t i = 0; i < owned.size(); ++i) call.set_output(i, owned[i].release());
}
void upsample_bicubic2d_aa(Call& call) { upsample_aa(call, true); }

// Window and frequency factories (ops/cpu/window_functions.cpp), made on the host and copied to the
// device the call names. hamming_window's overloads pass alpha / beta only from .periodic_alpha on.
void window(Call& call, char kind, double alpha, double beta) {
  const int32_t dtype = call.has("dtype") ? call.dtype("dtype") : -1;
  call.set_output(
      0, on_named_device(proxy_ops::cpu_window(kind, call.integer("window_length", 0), call.flag("periodic", true),
                                               call.real("alpha", alpha), call.real("beta", beta), dtype),
                         call.device("device"), call.target()));
}
void hamming_window(Call& call) { window(call, 'h', 0.54, 0.46); }
void hann_window(Call& call) { window(call, 'h', 0.5, 0.5); }
void blackman_window(Call& call) { window(call, 'b', 0.0, 0.0); }
void bartlett_window(Call& call) { window(call, 't', 0.0, 0.0); }
void kaiser_window(Call& call) { window(call, 'k', 0.0, 12.0); }
void fftfreq(Call& call, bool real_input) {
  const int32_t dtype = call.has("dtype") ? call.dtype("dtype") : -1;
  call.set_output(0,
                  on_named_device(proxy_ops::cpu_fftfreq(call.integer("n", 0), call.real("d", 1.0), real_input, dtype),
                                  call.device("device"), call.target()));
}
void fft_fftfreq(Call& call) { fftfreq(call, false); }
void fft_rfftfreq(Call& call) { fftfreq(call, true); }

void poisson(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  SHIMGEN_REQUIRE(!call.has("generator"), call.target() + ": an explicit generator is not supported");
  Owned keep;
  call.set_output(0, to_device_of(proxy_ops::cpu_poisson(on_host(self, keep)), self));
}

// The distributions' samplers (torch.distributions: Gamma, Beta, Dirichlet, Binomial), drawn on the
// host like poisson; a CUDA tensor is staged through it.
void standard_gamma(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  SHIMGEN_REQUIRE(!call.has("generator"), call.target() + ": an explicit generator is not supported");
  Owned keep;
  call.set_output(0, to_device_of(proxy_ops::cpu_standard_gamma(on_host(self, keep)), self));
}
void sample_dirichlet(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  SHIMGEN_REQUIRE(!call.has("generator"), call.target() + ": an explicit generator is not supported");
  Owned keep;
  call.set_output(0, to_device_of(proxy_ops::cpu_sample_dirichlet(on_host(self, keep)), self));
}
void binomial(Call& call) {
  AtenTensorHandle count = call.tensor("count"), prob = call.tensor("prob");
  SHIMGEN_REQUIRE(!call.has("generator"), call.target() + ": an explicit generator is not supported");
  Owned keep_count, keep_prob;
  call.set_output(0,
                  to_device_of(proxy_ops::cpu_binomial(on_host(count, keep_count), on_host(prob, keep_prob)), count));
}

// ---- linalg: LAPACK on the host (ops/cpu/linalg.h); CUDA tensors are staged through it ----

// aten::_is_all_true(self) -> 0-d bool: on the host, the result back on self's device.
void is_all_true(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) { r[0] = proxy_ops::cpu_is_all_true(h(self)); });
}

void linalg_check_errors(Call& call) {
  AtenTensorHandle info = call.tensor("info");
  OnHost h(call, info);
  proxy_ops::cpu_linalg_check_errors(h(info), call.text("api_name", ""), call.flag("is_matrix", false));
}

void linalg_cholesky_ex(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<2>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_cholesky_ex(h(self), call.flag("upper", false), call.flag("check_errors", false), r);
  });
}

void linalg_qr(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<2>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_qr(h(a), call.text("mode", "reduced"), r); });
}

void linalg_svd(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<3>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_svd(h(a), call.flag("full_matrices", false), call.flag("compute_uv", true),
                              call.has("driver"), r);
  });
}

void linalg_eigh(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<2>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_eigh(h(a), call.text("UPLO", "L"), call.flag("compute_v", true), r);
  });
}

void linalg_solve_ex(Call& call) {
  AtenTensorHandle a = call.tensor("A"), b = call.tensor("B");
  OnHost h(call, a);
  h.run<4>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_solve_ex(h(a), h(b), call.flag("left", true), call.flag("check_errors", false), r);
  });
}

void linalg_det(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<3>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_det(h(a), r); });
}

void linalg_slogdet(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<4>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_slogdet(h(a), r); });
}

void linalg_inv_ex(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<2>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_inv_ex(h(a), call.flag("check_errors", false), r); });
}

void linalg_pinv(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_pinv(h(self), h(call.optional_tensor("atol")), h(call.optional_tensor("rtol")),
                               call.flag("hermitian", false), r);
  });
}

void linalg_lu_factor_ex(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<3>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_lu_factor_ex(h(a), call.flag("pivot", true), call.flag("check_errors", false), r);
  });
}

void linalg_ldl_factor_ex(Call& call) {
  AtenTensorHandle a = call.tensor("self");
  OnHost h(call, a);
  h.run<3>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_ldl_factor_ex(h(a), call.flag("hermitian", false), call.flag("check_errors", false), r);
  });
}

void linalg_lu(Call& call) {
  AtenTensorHandle a = call.tensor("A");
  OnHost h(call, a);
  h.run<3>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_lu(h(a), call.flag("pivot", true), r); });
}

void linalg_lu_solve(Call& call) {
  AtenTensorHandle lu = call.tensor("LU"), pivots = call.tensor("pivots"), b = call.tensor("B");
  OnHost h(call, b);
  h.run<1>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_lu_solve(h(lu), h(pivots), h(b), call.flag("left", true), call.flag("adjoint", false), r);
  });
}

void linalg_solve_triangular(Call& call) {
  AtenTensorHandle a = call.tensor("self"), b = call.tensor("B");
  OnHost h(call, b);
  h.run<1>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_linalg_solve_triangular(h(a), h(b), call.flag("upper", false), call.flag("left", true),
                                           call.flag("unitriangular", false), r);
  });
}

void linalg_eig(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<2>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_eig(h(self), true, r); });
}

void linalg_eigvals(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_eig(h(self), false, r); });
}

void linalg_householder_product(Call& call) {
  AtenTensorHandle input = call.tensor("input"), tau = call.tensor("tau");
  OnHost h(call, input);
  h.run<1>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_householder_product(h(input), h(tau), r); });
}

void linalg_matrix_exp(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) { proxy_ops::cpu_linalg_matrix_exp(h(self), r); });
}

void prims_normal(Call& call) {
  AtenTensorHandle host = proxy_ops::cpu_normal(call.ints("shape"), call.real("mean", 0.0), call.real("std", 1.0),
                                                call.has("dtype") ? call.dtype("dtype") : kFloat32);
  call.set_output(0, on_named_device(host, call.device("device"), call.target()));
}

// The elementwise special functions (proxy_ops.h's one table): computed on the host, a CUDA
// operand copied there and the result back (torch falls back to aten for them on CUDA only).
std::string without_default(std::string target) {
  const std::string suffix = ".default";
  if (target.size() > suffix.size() && target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0)
    target.resize(target.size() - suffix.size());
  return target;
}

void special(Call& call) {
  const proxy_ops::SpecialFunction* fn = proxy_ops::find_special(without_default(call.target()));
  SHIMGEN_REQUIRE(fn != nullptr, call.target() + ": not a special function");
  AtenTensorHandle a = call.tensor(proxy_ops::special_argument(*fn, 0));
  Owned keep_a, keep_b;
  AtenTensorHandle b =
      proxy_ops::special_is_binary(*fn) ? on_host(call.tensor(proxy_ops::special_argument(*fn, 1)), keep_b) : nullptr;
  const int64_t n = proxy_ops::special_is_binary(*fn) ? 0 : call.integer("n", 0);  // polygamma's order
  call.set_output(0, to_device_of(proxy_ops::cpu_special(*fn, on_host(a, keep_a), b, n), a));
}

// LSTMCell / GRUCell's pointwise half on CUDA (ops/cuda/thnn_fused_*_cell.cu); torch 2.13 has a C
// shim for the LSTM one only, so GRUCell reaches it here.
void thnn_fused_cell(Call& call, bool lstm) {
  const char* state = lstm ? "cx" : "hx";
  AtenTensorHandle gates = call.tensor("input_gates");
  SHIMGEN_REQUIRE(device_of(gates) == "cuda",
                  call.target() + ": only CUDA tensors are served (torch has no CPU kernel)");
  AtenTensorHandle input_bias = call.optional_tensor("input_bias"), hidden_bias = call.optional_tensor("hidden_bias");
  AtenTensorHandle out[3] = {nullptr, nullptr, nullptr};
  if (lstm) {
    using Fn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*,
                                  AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*);
    check(shim<Fn>("aoti_torch_cuda__thnn_fused_lstm_cell")(
              gates, call.tensor("hidden_gates"), call.tensor(state), input_bias != nullptr ? &input_bias : nullptr,
              hidden_bias != nullptr ? &hidden_bias : nullptr, &out[0], &out[1], &out[2]),
          call.target());
  } else {
    using Fn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle, AtenTensorHandle*,
                                  AtenTensorHandle*, AtenTensorHandle*, AtenTensorHandle*);
    check(shim<Fn>("aoti_torch_cuda__thnn_fused_gru_cell")(
              gates, call.tensor("hidden_gates"), call.tensor(state), input_bias != nullptr ? &input_bias : nullptr,
              hidden_bias != nullptr ? &hidden_bias : nullptr, &out[0], &out[1]),
          call.target());
  }
  Owned owned[3] = {Owned(out[0]), Owned(out[1]), Owned(out[2])};
  for (size_t i = 0; i < 3 && owned[i].h != nullptr && i < call.num_outputs(); ++i)
    call.set_output(i, owned[i].release());
}
void thnn_fused_lstm_cell(Call& call) { thnn_fused_cell(call, true); }
void thnn_fused_gru_cell(Call& call) { thnn_fused_cell(call, false); }

// F.grid_sample of a volume: torch on CUDA calls grid_sampler_3d through the proxy, not its C shim.
// The runtime's own shim of the tensor's device serves it.
AtenTensorHandle grid_sampler_3d_of(AtenTensorHandle input, AtenTensorHandle grid, int64_t interpolation_mode,
                                    int64_t padding_mode, bool align_corners) {
  const std::string name = "aoti_torch_" + device_of(input) + "_grid_sampler_3d";
  using Fn = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, int64_t, int64_t, int32_t, AtenTensorHandle*);
  AtenTensorHandle out = nullptr;
  check(shim<Fn>(name)(input, grid, interpolation_mode, padding_mode, align_corners ? 1 : 0, &out), name);
  return out;
}

void grid_sampler_3d(Call& call) {
  call.set_output(0,
                  grid_sampler_3d_of(call.tensor("input"), call.tensor("grid"), call.integer("interpolation_mode", 0),
                                     call.integer("padding_mode", 0), call.flag("align_corners", false)));
}

// cudnn_grid_sampler(self [N, C, H, W], grid [N, H', W', 2]) -> [N, C, H', W']: torch on CUDA routes
// 4-D bilinear / zeros / align_corners=True grid_sample to cuDNN. Served by the 3-D sampler: self
// viewed as a depth-1 volume [N, C, 1, H, W], the grid given z = 0 ([N, 1, H', W', 3], built on the
// host: with align_corners=True z = 0 samples depth index 0 exactly), the result [N, C, 1, H', W']
// viewed as [N, C, H', W'] (contiguous).
void cudnn_grid_sampler(Call& call) {
  AtenTensorHandle self = call.tensor("self"), grid = call.tensor("grid");
  const Tensor& x = *unwrap(self, "self");
  const Tensor& g = *unwrap(grid, "grid");
  SHIMGEN_REQUIRE(x.sizes.size() == 4 && g.sizes.size() == 4 && g.sizes[3] == 2 && g.sizes[0] == x.sizes[0],
                  call.target() + ": expected self [N, C, H, W] and grid [N, H', W', 2]");
  SHIMGEN_REQUIRE(x.storage->device_type == g.storage->device_type,
                  call.target() + ": self and grid must be on the same device");
  Owned volume(wrap(views::unsqueeze(x, 2)));
  // The 3-channel grid on the host: zeros, then the (x, y) pairs copied into channels 0 and 1.
  Owned keep_grid;
  AtenTensorHandle host_grid = on_host(grid, keep_grid);
  Owned grid2(wrap(views::unsqueeze(*unwrap(host_grid, "grid"), 1)));  // [N, 1, H', W', 2]
  const std::vector<int64_t> sizes{g.sizes[0], 1, g.sizes[1], g.sizes[2], 3};
  const std::vector<int64_t> strides{g.sizes[1] * g.sizes[2] * 3, g.sizes[1] * g.sizes[2] * 3, g.sizes[2] * 3, 3, 1};
  Owned grid3;
  check(aoti_torch_empty_strided(5, sizes.data(), strides.data(), g.dtype, kCPU, -1, &grid3.h), "empty_strided");
  const Tensor& g3 = *unwrap(grid3.h, "grid");
  std::fill_n(g3.data(), static_cast<size_t>(sizes[0] * strides[0]) * g3.itemsize(), char{0});
  const std::vector<int64_t> xy_sizes{sizes[0], 1, sizes[2], sizes[3], 2};
  Owned xy(view_of(grid3.h, xy_sizes, strides, 0));
  check(aoti_torch_copy_(xy.h, grid2.h, 0), "copy_");
  Owned device_grid(to_device_of(grid3.release(), grid));
  Owned sampled(grid_sampler_3d_of(volume.h, device_grid.h, 0, 0, true));  // bilinear, zeros, align_corners
  call.set_output(0, wrap(views::squeeze_dim(*unwrap(sampled.h, "result"), 2)));
}

void conv_tbc(Call& call) {
  AtenTensorHandle self = call.tensor("self");
  OnHost h(call, self);
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_conv_tbc(h(self), h(call.tensor("weight")), h(call.tensor("bias")), call.integer("pad", 0));
  });
}

void grouped_mm_fallback(Call& call) {
  call.set_output(0, grouped_mm(call.tensor("input"), call.tensor("weight"), call.tensor("offs")));
}

// torchvision's operators (torchvision::roi_align, ...: custom ops, so every device reaches them
// here): computed on the host (ops/cpu/roi_align.cpp, roi_pool.cpp, nms.cpp, deform_conv2d.cpp), a
// CUDA tensor staged through it and each result put back on the input's device; float16 and bfloat16
// tensors widened to float32 and computed with their type's rounding (OnHost::widening_16bit, the
// ops' `rounding`). Detection heads call them once per image on a few hundred boxes.
void tv_roi_align(Call& call) {
  AtenTensorHandle input = call.tensor("input");
  OnHost h(call, input);
  const int32_t rounding = h.widening_16bit();
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_roi_align(h(input), h(call.tensor("rois")), call.real("spatial_scale", 1.0),
                                    call.integer("pooled_height", 1), call.integer("pooled_width", 1),
                                    call.integer("sampling_ratio", -1), call.flag("aligned", false), rounding);
  });
}

void tv_ps_roi_align(Call& call) {
  AtenTensorHandle input = call.tensor("input");
  OnHost h(call, input);
  const int32_t rounding = h.widening_16bit();
  h.run<2>([&](AtenTensorHandle* r) {
    proxy_ops::cpu_ps_roi_align(h(input), h(call.tensor("rois")), call.real("spatial_scale", 1.0),
                                call.integer("pooled_height", 1), call.integer("pooled_width", 1),
                                call.integer("sampling_ratio", -1), &r[0], &r[1], rounding);
  });
}

// roi_pool and ps_roi_pool take the same arguments and give two outputs.
using RoiPoolFn = void (*)(AtenTensorHandle, AtenTensorHandle, double, int64_t, int64_t, AtenTensorHandle*,
                           AtenTensorHandle*, int32_t);
void tv_pool(Call& call, RoiPoolFn pool) {
  AtenTensorHandle input = call.tensor("input");
  OnHost h(call, input);
  const int32_t rounding = h.widening_16bit();
  h.run<2>([&](AtenTensorHandle* r) {
    pool(h(input), h(call.tensor("rois")), call.real("spatial_scale", 1.0), call.integer("pooled_height", 1),
         call.integer("pooled_width", 1), &r[0], &r[1], rounding);
  });
}
void tv_roi_pool(Call& call) { tv_pool(call, proxy_ops::cpu_roi_pool); }
void tv_ps_roi_pool(Call& call) { tv_pool(call, proxy_ops::cpu_ps_roi_pool); }

void tv_nms(Call& call) {
  AtenTensorHandle dets = call.tensor("dets");
  OnHost h(call, dets);
  const int32_t rounding = h.widening_16bit();
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_nms(h(dets), h(call.tensor("scores")), call.real("iou_threshold", 0.0), rounding);
  });
}

void tv_deform_conv2d(Call& call) {
  AtenTensorHandle input = call.tensor("input");
  proxy_ops::DeformConvParams p;
  p.stride_h = call.integer("stride_h", 1), p.stride_w = call.integer("stride_w", 1);
  p.pad_h = call.integer("pad_h", 0), p.pad_w = call.integer("pad_w", 0);
  p.dilation_h = call.integer("dilation_h", 1), p.dilation_w = call.integer("dilation_w", 1);
  p.groups = call.integer("groups", 1), p.offset_groups = call.integer("offset_groups", 1);
  p.use_mask = call.flag("use_mask", false);
  OnHost h(call, input);
  p.rounding = h.widening_16bit();
  h.run<1>([&](AtenTensorHandle* r) {
    r[0] = proxy_ops::cpu_deform_conv2d(h(input), h(call.tensor("weight")), h(call.tensor("offset")),
                                        h(call.tensor("mask")), h(call.tensor("bias")), p);
  });
}

struct Served {
  const char* target;
  Handler handler;
  // The target's int-valued arguments (int, SymInt, an int Scalar, int[]) in schema order. torch.export
  // leaves an argument at its default out of the JSON, but the generated call still passes an int
  // default in the flattened int array (inductor fills defaults from the schema): a name missing from
  // the JSON is read as one int at its place in this order (histc's min/max, index_add's alpha,
  // bincount's minlength, topk's and sort's dim).
  const char* ints[3] = {};
};

// Targets are matched without a ".default" overload suffix.
const Served kServed[] = {
    {"aten::topk", topk, {"k", "dim"}},
    {"aten::sort", sort, {"dim"}},
    {"aten::sort.stable", sort, {"dim"}},
    {"aten::histc", histc, {"bins", "min", "max"}},
    {"aten::cumsum", cumsum, {"dim"}},
    {"aten::_weight_int4pack_mm", weight_int4pack_mm, {"qGroupSize"}},
    {"transformers::grouped_mm_fallback", grouped_mm_fallback},
    {"torchvision::roi_align", tv_roi_align},
    {"torchvision::ps_roi_align", tv_ps_roi_align},
    {"torchvision::roi_pool", tv_roi_pool},
    {"torchvision::ps_roi_pool", tv_ps_roi_pool},
    {"torchvision::nms", tv_nms},
    {"torchvision::deform_conv2d", tv_deform_conv2d},
    {"aten::multinomial", multinomial, {"num_samples"}},
    {"aten::bincount", bincount, {"minlength"}},
    {"aten::median.dim", median_dim, {"dim"}},
    {"aten::_unique2", unique2},
    {"prims::normal", prims_normal, {"shape"}},
    {"aten::unique_consecutive", unique_consecutive},
    {"aten::unique_dim", unique_dim, {"dim"}},
    {"aten::nanmedian.dim", nanmedian_dim, {"dim"}},
    {"aten::poisson", poisson},
    {"aten::_standard_gamma", standard_gamma},
    {"aten::binomial", binomial},
    {"aten::_sample_dirichlet", sample_dirichlet},
    {"aten::complex", complex_},
    {"aten::_fft_c2r", fft_c2r, {"dim", "normalization", "last_dim_size"}},
    {"aten::unsqueeze", unsqueeze, {"dim"}},
    {"aten::index_add", index_add, {"dim", "alpha"}},
    {"aten::embedding_renorm", embedding_renorm},
    {"aten::_upsample_bilinear2d_aa", upsample_bilinear2d_aa, {"output_size"}},
    {"aten::_upsample_bicubic2d_aa", upsample_bicubic2d_aa, {"output_size"}},
    {"aten::_histogramdd_bin_edges", histogramdd_bin_edges, {"bins"}},
    {"aten::sub.Tensor", complex_sub, {"alpha"}},
    {"aten::div.Tensor", complex_div},
    {"aten::exp", complex_exp},
    {"aten::_conj_physical", conj_physical},
    {"aten::log", complex_log},
    {"aten::sqrt", complex_sqrt},
    {"aten::sin", complex_sin},
    {"aten::cos", complex_cos},
    {"aten::tanh", complex_tanh},
    {"aten::sigmoid", complex_sigmoid},
    {"aten::reciprocal", complex_reciprocal},
    {"aten::rsqrt", complex_rsqrt},
    {"aten::neg", complex_neg},
    {"aten::expm1", complex_expm1},
    {"aten::log1p", complex_log1p},
    {"aten::mm", mm},
    {"aten::bmm", bmm},
    {"aten::clone", clone_},
    {"aten::constant_pad_nd", constant_pad_nd, {"pad", "value"}},
    {"aten::_conj", conj},
    {"aten::sum", sum},
    {"aten::sum.dim_IntList", sum, {"dim"}},
    {"aten::mean", mean},
    {"aten::mean.dim", mean, {"dim"}},
    {"aten::expand", expand, {"size"}},
    {"aten::select.int", select, {"dim", "index"}},
    {"aten::split_with_sizes", split_with_sizes, {"split_sizes", "dim"}},
    {"aten::split.Tensor", split, {"split_size", "dim"}},
    {"aten::addmm", addmm, {"beta", "alpha"}},
    {"aten::full", full, {"size", "fill_value"}},
    {"aten::copy", copy},
    {"prims::device_put", device_put},
    {"aten::slice_scatter", slice_scatter},  // every int positional, in the JSON (start/end None: no int)
    {"aten::_thnn_fused_lstm_cell", thnn_fused_lstm_cell},
    {"aten::_thnn_fused_gru_cell", thnn_fused_gru_cell},
    {"aten::_linalg_check_errors", linalg_check_errors},
    {"aten::_is_all_true", is_all_true},
    {"aten::linalg_cholesky_ex", linalg_cholesky_ex},
    {"aten::linalg_qr", linalg_qr},
    {"aten::_linalg_svd", linalg_svd},
    {"aten::_linalg_eigh", linalg_eigh},
    {"aten::_linalg_solve_ex", linalg_solve_ex},
    {"aten::_linalg_det", linalg_det},
    {"aten::_linalg_slogdet", linalg_slogdet},
    {"aten::linalg_inv_ex", linalg_inv_ex},
    {"aten::linalg_pinv.atol_rtol_tensor", linalg_pinv},
    {"aten::linalg_lu_factor_ex", linalg_lu_factor_ex},
    {"aten::linalg_ldl_factor_ex", linalg_ldl_factor_ex},
    {"aten::linalg_lu", linalg_lu},
    {"aten::linalg_lu_solve", linalg_lu_solve},
    {"aten::linalg_solve_triangular", linalg_solve_triangular},
    {"aten::linalg_eig", linalg_eig},
    {"aten::_linalg_eigvals", linalg_eigvals},
    {"aten::linalg_householder_product", linalg_householder_product},
    {"aten::linalg_matrix_exp", linalg_matrix_exp},
    {"aten::grid_sampler_3d", grid_sampler_3d, {"interpolation_mode", "padding_mode"}},
    {"aten::cudnn_grid_sampler", cudnn_grid_sampler},
    {"aten::conv_tbc", conv_tbc, {"pad"}},
    {"aten::hamming_window", hamming_window, {"window_length"}},
    {"aten::hamming_window.periodic", hamming_window, {"window_length"}},
    {"aten::hamming_window.periodic_alpha", hamming_window, {"window_length"}},
    {"aten::hamming_window.periodic_alpha_beta", hamming_window, {"window_length"}},
    {"aten::hann_window", hann_window, {"window_length"}},
    {"aten::hann_window.periodic", hann_window, {"window_length"}},
    {"aten::blackman_window", blackman_window, {"window_length"}},
    {"aten::blackman_window.periodic", blackman_window, {"window_length"}},
    {"aten::bartlett_window", bartlett_window, {"window_length"}},
    {"aten::bartlett_window.periodic", bartlett_window, {"window_length"}},
    {"aten::kaiser_window", kaiser_window, {"window_length"}},
    {"aten::kaiser_window.periodic", kaiser_window, {"window_length"}},
    {"aten::kaiser_window.beta", kaiser_window, {"window_length"}},
    {"aten::fft_fftfreq", fft_fftfreq, {"n"}},
    {"aten::fft_rfftfreq", fft_rfftfreq, {"n"}},
};  // and the special functions of proxy_ops::special_targets()

const Served* served_for(const std::string& node_target) {
  const std::string target = without_default(node_target);
  for (const Served& s : kServed)
    if (target == s.target) return &s;
  return nullptr;
}

Handler handler_for(const std::string& node_target) {
  if (const Served* s = served_for(node_target)) return s->handler;
  return proxy_ops::find_special(without_default(node_target)) != nullptr ? special : nullptr;
}

// The int-valued arguments of a node in the order the generated call flattens them: `served.ints`
// (schema order), each from the JSON or, where the JSON left it out at its default, one int read from
// the call; int-valued arguments the table does not name follow in JSON order. Other arguments keep
// their order (tensors and ints come from separate arrays, so only the order within each matters).
void add_defaulted_ints(const Served& served, std::vector<Arg>* inputs) {
  std::vector<Arg> rest, ints;
  for (Arg& a : *inputs) (a.kind == ArgKind::kInt || a.kind == ArgKind::kInts ? ints : rest).push_back(std::move(a));
  for (const char* name : served.ints) {
    if (name == nullptr) break;
    auto it = std::find_if(ints.begin(), ints.end(), [&](const Arg& a) { return a.name == name; });
    if (it != ints.end()) {
      rest.push_back(std::move(*it));
      ints.erase(it);
      continue;
    }
    // In the JSON as another kind (None, a float Scalar: constant_pad_nd's value=0.5, a sum's dim=None):
    // static, no int in the call. Before, such an argument was taken for a missing int.
    if (std::any_of(rest.begin(), rest.end(), [&](const Arg& a) { return a.name == name; })) continue;
    Arg missing;
    missing.name = name;
    missing.kind = ArgKind::kInt;
    rest.push_back(std::move(missing));
  }
  for (Arg& a : ints) rest.push_back(std::move(a));
  *inputs = std::move(rest);
}

// c10::ScalarType code of torch.export's serialized ScalarType (torch/_export/serde/schema.py).
int32_t c10_dtype(int64_t serialized) {
  if (serialized >= 1 && serialized <= 11) return static_cast<int32_t>(serialized - 1);  // BYTE .. COMPLEXDOUBLE
  if (serialized == 12) return 11;                                                       // BOOL
  if (serialized == 13) return 15;                                                       // BFLOAT16
  return -1;
}

// A serialized float: a JSON number, or one of the strings torch.export's serializer writes for the
// non-finite ones ("Infinity", "-Infinity", "NaN": norm_type=inf in F.embedding's max_norm, torch.norm);
// before round 4 of the ring those strings were read as 0.
bool float_of(const Value& v, double* out) {
  if (v.is(Kind::kDouble) || v.is(Kind::kInt)) {
    *out = v.number;
    return true;
  }
  if (!v.is(Kind::kString)) return false;
  if (v.text == "Infinity") *out = HUGE_VAL;
  else if (v.text == "-Infinity") *out = -HUGE_VAL;
  else if (v.text == "NaN") *out = std::nan("");
  else return false;
  return true;
}

bool read_arg(const Value& named, Arg* out, std::string* problem) {
  const Value* name = named.find("name");
  const Value* arg = named.find("arg");
  if (name == nullptr || !name->is(Kind::kString) || arg == nullptr || !arg->is(Kind::kObject) ||
      arg->members.size() != 1) {
    *problem = "an input has no name or no single-typed 'arg'";
    return false;
  }
  out->name = name->text;
  const std::string& type = arg->members[0].first;
  const Value& v = arg->members[0].second;
  if (type == "as_tensor") {
    out->kind = ArgKind::kTensor;
  } else if (type == "as_tensors") {
    out->kind = ArgKind::kTensors;
    out->count = v.items.size();
  } else if (type == "as_optional_tensors") {
    out->kind = ArgKind::kOptionalTensors;
    for (const Value& item : v.items)
      out->present.push_back(item.is(Kind::kObject) && !item.members.empty() && item.members[0].first == "as_tensor");
  } else if (type == "as_int" || type == "as_sym_int") {
    out->kind = ArgKind::kInt;
  } else if (type == "as_ints" || type == "as_sym_ints") {
    out->kind = ArgKind::kInts;
    out->count = v.items.size();
  } else if (type == "as_float") {
    out->kind = ArgKind::kFloat;
    if (!float_of(v, &out->real)) {
      *problem = "input '" + out->name + "': as_float is not a number" +
                 (v.is(Kind::kString) ? " (the string '" + v.text.substr(0, 40) + "')" : std::string());
      return false;
    }
  } else if (type == "as_floats") {
    out->kind = ArgKind::kFloats;
    for (const Value& item : v.items) {
      out->reals.emplace_back();
      if (!float_of(item, &out->reals.back())) {
        *problem = "input '" + out->name + "': as_floats holds something that is not a number";
        return false;
      }
    }
  } else if (type == "as_bool") {
    out->kind = ArgKind::kBool;
    out->flag = v.boolean;
  } else if (type == "as_string") {
    out->kind = ArgKind::kString;
    out->text = v.text;
  } else if (type == "as_scalar_type") {
    out->kind = ArgKind::kScalarType;
    out->dtype = c10_dtype(v.integer);
  } else if (type == "as_memory_format") {
    out->kind = ArgKind::kMemoryFormat;
    out->memory_format = v.integer;
  } else if (type == "as_device") {
    const Value* device_type = v.find("type");
    out->kind = ArgKind::kDevice;
    out->text = device_type != nullptr && device_type->is(Kind::kString) ? device_type->text : "cpu";
    const Value* index = v.find("index");
    if (index != nullptr && index->is(Kind::kInt)) {
      if (index->integer < 0 || index->integer > 1024) {
        *problem = "input '" + out->name + "': device index " + std::to_string(index->integer) + " is out of range";
        return false;
      }
      out->device_index = static_cast<int32_t>(index->integer);
    }
  } else if (type == "as_none") {
    out->kind = ArgKind::kNone;
  } else {
    out->kind = ArgKind::kOther;  // static (floats, bools, devices, layouts...): no array slots
  }
  return true;
}

}  // namespace

// Grouped GEMM (transformers' MoE fallback op, transformers/integrations/moe.py, and
// aten._grouped_mm's 2-d x 3-d case): rows [offs[e-1], offs[e]) of
// `input` (sorted by expert) times weight[e], each a GEMM through the device's mm_out shim; rows
// past the last offset stay zero. offs is read on the host (as transformers' .tolist() does).
AtenTensorHandle grouped_mm(AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle offs) {
  const Tensor& in = *unwrap(input, "input");
  const Tensor& w = *unwrap(weight, "weight");
  const Tensor& o = *unwrap(offs, "offs");
  SHIMGEN_REQUIRE(in.sizes.size() == 2 && w.sizes.size() == 3 && o.sizes.size() == 1,
                  "grouped mm: input [S, K], weight [E, K, N] and offs [E] expected");
  SHIMGEN_REQUIRE(in.sizes[1] == w.sizes[1] && o.sizes[0] == w.sizes[0], "grouped mm: shapes do not agree");
  SHIMGEN_REQUIRE(o.dtype == kInt32 || o.dtype == kInt64, "grouped mm: offs must be int32 or int64");
  const int64_t S = in.sizes[0], N = w.sizes[2], E = w.sizes[0];
  const std::string device = device_of(input);
  const int32_t device_type = in.storage->device_type, device_index = in.storage->device_index;
  AtenTensorHandle out = nullptr;
  const int64_t out_sizes[2] = {S, N};
  check(aoti_torch_empty_strided(2, out_sizes, nullptr, in.dtype, device_type, device_index, &out), "empty_strided");
  struct Free {
    AtenTensorHandle h;
    ~Free() {
      if (h != nullptr) (void)aoti_torch_delete_tensor_object(h);
    }
  } own_out{out};
  // offs on the host.
  AtenTensorHandle host_offs = nullptr;
  check(aoti_torch_empty_strided(1, o.sizes.data(), nullptr, o.dtype, kCPU, -1, &host_offs), "empty_strided");
  Free own_offs{host_offs};
  check(aoti_torch_copy_(host_offs, offs, 0), "copy_");
  const Tensor& ho = *unwrap(host_offs, "offs");
  auto offset_at = [&](int64_t e) -> int64_t {
    return o.dtype == kInt32 ? reinterpret_cast<const int32_t*>(ho.data())[e]
                             : reinterpret_cast<const int64_t*>(ho.data())[e];
  };
  using Mm = AOTITorchError (*)(AtenTensorHandle, AtenTensorHandle, AtenTensorHandle);
  const Mm mm = shim<Mm>("aoti_torch_" + device + "_mm_out");
  int64_t start = 0;
  for (int64_t e = 0; e < E; ++e) {
    const int64_t end = offset_at(e);
    SHIMGEN_REQUIRE(end >= start && end <= S, "grouped mm: offs must be non-decreasing and at most S");
    if (end == start) continue;
    Free a{view_of(input, {end - start, in.sizes[1]}, {in.strides[0], in.strides[1]}, start * in.strides[0])};
    Free b{view_of(weight, {w.sizes[1], N}, {w.strides[1], w.strides[2]}, e * w.strides[0])};
    Free c{view_of(out, {end - start, N}, {N, 1}, start * N)};
    check(mm(c.h, a.h, b.h), "aoti_torch_" + device + "_mm_out");
    start = end;
  }
  if (start < S) {  // rows no expert took: zeros, copied from a zeroed host buffer
    AtenTensorHandle zeros = nullptr;
    const int64_t tail[2] = {S - start, N};
    check(aoti_torch_empty_strided(2, tail, nullptr, in.dtype, kCPU, -1, &zeros), "empty_strided");
    Free own_zeros{zeros};
    const Tensor& z = *unwrap(zeros, "zeros");
    std::fill(z.data(), z.data() + z.numel() * static_cast<int64_t>(z.itemsize()), char(0));
    Free rest{view_of(out, {S - start, N}, {N, 1}, start * N)};
    check(aoti_torch_copy_(rest.h, zeros, 0), "copy_");
  }
  own_out.h = nullptr;
  return out;
}

struct Executor { std::vector<Node> nodes; };

void release(Executor* executor) noexcept { delete executor; }

std::vector<std::string> served_targets() {
  std::vector<std::string> out;
  for (const Served& s : kServed) out.emplace_back(s.target);
  for (std::string& t : proxy_ops::special_targets()) out.push_back(std::move(t));
  return out;
}

ExecutorPtr load(const char* text, size_t size, std::string* problem) {
  Value doc;
  std::string why;
  if (!json::parse(text, size, &doc, &why)) {
    *problem = "the extern-kernel JSON is malformed: " + why;
    return nullptr;
  }
  const Value* nodes = doc.find("nodes");
  if (nodes == nullptr || !nodes->is(Kind::kArray)) {
    *problem = "the extern-kernel JSON has no 'nodes' list";
    return nullptr;
  }
  ExecutorPtr executor(new Executor());
  std::vector<std::string> unserved;
  for (const Value& entry : nodes->items) {
    const Value* node = entry.find("node");
    const Value* target = node != nullptr ? node->find("target") : nullptr;
    const Value* inputs = node != nullptr ? node->find("inputs") : nullptr;
    const Value* outputs = node != nullptr ? node->find("outputs") : nullptr;
    if (target == nullptr || !target->is(Kind::kString) || inputs == nullptr || !inputs->is(Kind::kArray) ||
        outputs == nullptr || !outputs->is(Kind::kArray)) {
      *problem = "an extern-kernel node lacks target, inputs or outputs";
      return nullptr;
    }
    Node n;
    n.target = target->text;
    const Served* served = served_for(n.target);
    n.handler = handler_for(n.target);
    if (n.handler == nullptr) unserved.push_back(n.target);
    for (const Value& input : inputs->items) {
      n.inputs.emplace_back();
      if (!read_arg(input, &n.inputs.back(), &why)) {
        *problem = n.target + ": " + why;
        return nullptr;
      }
    }
    for (const Value& output : outputs->items) {
      const std::string type = output.is(Kind::kObject) && output.members.size() == 1 ? output.members[0].first : "";
      if (type == "as_tensor") {
        n.output_is_tensor.push_back(true);
        ++n.output_tensors;
      } else if (type == "as_tensors") {
        for (size_t i = 0; i < output.members[0].second.items.size(); ++i) n.output_is_tensor.push_back(true);
        n.output_tensors += output.members[0].second.items.size();
      } else if (type == "as_optional_tensor") {
        const Value& inner = output.members[0].second;
        const bool tensor = inner.is(Kind::kObject) && !inner.members.empty() && inner.members[0].first == "as_tensor";
        n.output_is_tensor.push_back(tensor);
        n.output_tensors += tensor ? 1 : 0;
      } else if (type == "as_none") {
        n.output_is_tensor.push_back(false);
      } else {
        *problem = n.target + ": output kind '" + type + "' is not supported";
        return nullptr;
      }
    }
    if (served != nullptr) add_defaulted_ints(*served, &n.inputs);
    executor->nodes.push_back(std::move(n));
  }
  if (!unserved.empty()) {
    std::string names;
    for (const std::string& t : unserved) names += (names.empty() ? "" : ", ") + t;
    *problem = "the model calls " + names +
               " through AOTInductor's proxy executor, which shimgen's runtime does not serve (it serves " +
               std::to_string(served_targets().size()) +
               " targets, listed in docs/aoti.md, 'The proxy executor'; docs/coverage.md has what each model "
               "family imports)";
    return nullptr;
  }
  return executor;
}

}  // namespace shimgen::rt::proxy

using namespace shimgen::rt;

extern "C" {

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_proxy_executor_call_function(AOTIProxyExecutorHandle proxy_executor,
                                                                        int extern_node_index, int num_ints,
                                                                        int64_t* flatten_int_args, int num_tensors,
                                                                        AtenTensorHandle* flatten_tensor_args) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(proxy_executor != nullptr,
                    "the model needs a proxy executor; run it with shimgen_model_run, which provides one");
    const auto& nodes = reinterpret_cast<proxy::Executor*>(proxy_executor)->nodes;
    SHIMGEN_REQUIRE(extern_node_index >= 0 && static_cast<size_t>(extern_node_index) < nodes.size(),
                    "extern node index " + std::to_string(extern_node_index) + " is out of range");
    SHIMGEN_REQUIRE(num_ints >= 0 && num_tensors >= 0 && (num_ints == 0 || flatten_int_args != nullptr) &&
                        (num_tensors == 0 || flatten_tensor_args != nullptr),
                    "null argument arrays");
    const proxy::Node& node = nodes[static_cast<size_t>(extern_node_index)];
    std::map<std::string, proxy::Bound> args;
    int ti = 0, ii = 0;
    auto take_tensor = [&]() {
      SHIMGEN_REQUIRE(ti < num_tensors, node.target + ": fewer tensors than its arguments need");
      return flatten_tensor_args[ti++];
    };
    auto take_int = [&]() {
      SHIMGEN_REQUIRE(ii < num_ints, node.target + ": fewer ints than its arguments need");
      return flatten_int_args[ii++];
    };
    for (const proxy::Arg& arg : node.inputs) {
      proxy::Bound b;
      b.arg = &arg;
      switch (arg.kind) {
        case proxy::ArgKind::kTensor: b.tensors.push_back(take_tensor()); break;
        case proxy::ArgKind::kTensors:
          for (size_t i = 0; i < arg.count; ++i) b.tensors.push_back(take_tensor());
          break;
        case proxy::ArgKind::kOptionalTensors:
          for (bool present : arg.present) b.tensors.push_back(present ? take_tensor() : nullptr);
          break;
        case proxy::ArgKind::kInt: b.ints.push_back(take_int()); break;
        case proxy::ArgKind::kInts:
          for (size_t i = 0; i < arg.count; ++i) b.ints.push_back(take_int());
          break;
        default: break;
      }
      args[arg.name] = std::move(b);
    }
    SHIMGEN_REQUIRE(num_tensors - ti == static_cast<int>(node.output_tensors) && ii == num_ints,
                    node.target + ": the call passes " + std::to_string(num_tensors) + " tensors and " +
                        std::to_string(num_ints) + " ints, its extern-kernel description " +
                        std::to_string(ti + static_cast<int>(node.output_tensors)) + " and " + std::to_string(ii));
    std::vector<AtenTensorHandle> outputs(flatten_tensor_args + ti, flatten_tensor_args + num_tensors);
    proxy::Call call(node, std::move(args), std::move(outputs));
    node.handler(call);
  });
}

AOTI_SHIM_EXPORT AOTITorchError aoti_torch_new_uninitialized_tensor(AtenTensorHandle* ret) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(ret != nullptr, "ret is null");
    // PyTorch's undefined tensor: no storage bytes, a placeholder for an op to assign into.
    auto t = std::make_unique<Tensor>();
    t->storage = std::make_shared<Storage>();
    t->sizes = {0};
    t->strides = {1};
    *ret = wrap(std::move(t));
  });
}

}  // extern "C"
