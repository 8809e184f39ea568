// aoti_torch_save_tensor_handle: what a model compiled with
// aot_inductor.debug_intermediate_value_printer="1" calls on each kernel's tensors. Writes, as torch's
// does, <cwd>/tmp/aoti_torch/<launch_prefix>_<kernel_name>_<tensor_name>_<device>.pt in torch.save's
// format (a stored zip: data.pkl, one storage, byteorder, version), so `torch.load` reads it; then
// prints where. Differences: the tensor is saved contiguous (torch keeps its storage and strides) and
// on the CPU (a CUDA tensor through a host copy, loadable without a GPU); a '/' in a name part becomes
// '_', so every file stays in that folder. Never fails the model: what it cannot save it says.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "host_view.h"
#include "shimgen_runtime/shim.h"

using namespace shimgen::rt;
using namespace shimgen::rt::cpu;

namespace {

// torch's legacy storage class per dtype: the ScalarType's name + "Storage" (FloatStorage, ...), what
// torch.save pickles and torch.load's weights-only unpickler accepts; dtypes without one (float8, wide
// unsigned, complex32) are not saved.
bool has_storage_class(int32_t dtype) {
  switch (dtype) {
    case kFloat32:
    case kFloat64:
    case kFloat16:
    case kBFloat16:
    case kInt64:
    case kInt32:
    case kInt16:
    case kInt8:
    case kUInt8:
    case kBool:
    case kComplex64:
    case kComplex128: return true;
    default: return false;
  }
}

// ---- pickle, protocol 2: only the opcodes torch.save's tensor record uses ----
class Pickle {
 public:
  Pickle() { bytes_ += "\x80\x02"; }
  void global(const std::string& module, const std::string& name) { bytes_ += "c" + module + "\n" + name + "\n"; }
  void mark() { bytes_ += '('; }
  void tuple() { bytes_ += 't'; }
  void empty_tuple() { bytes_ += ')'; }
  void reduce() { bytes_ += 'R'; }
  void persistent_id() { bytes_ += 'Q'; }
  void false_value() { bytes_ += '\x89'; }
  void stop() { bytes_ += '.'; }
  void text(const std::string& s) {
    bytes_ += 'X';
    little_endian(static_cast<uint64_t>(s.size()), 4);
    bytes_ += s;
  }
  void integer(int64_t v) {  // LONG1 of 8 bytes: any int64, two's complement
    bytes_ += '\x8a';
    bytes_ += '\x08';
    little_endian(static_cast<uint64_t>(v), 8);
  }
  void integers(const std::vector<int64_t>& values) {
    mark();
    for (int64_t v : values) integer(v);
    tuple();
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void little_endian(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_ += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  std::string bytes_;
};

// ---- zip, every member stored (no compression), 32-bit sizes ----
uint32_t crc32(const char* data, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ static_cast<uint8_t>(data[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

class StoredZip {
 public:
  void add(const std::string& name, const char* data, size_t size) {
    const uint32_t crc = crc32(data, size);
    const auto offset = static_cast<uint32_t>(out_.size());
    header(out_, 0x04034b50u, name, crc, size, false, 0);
    out_.append(data, size);
    header(central_, 0x02014b50u, name, crc, size, true, offset);
    ++count_;
  }
  std::string finish() {
    const auto central_at = static_cast<uint32_t>(out_.size());
    std::string end;
    put(end, 0x06054b50u, 4);
    put(end, 0, 4);  // this disk, the central directory's disk
    put(end, count_, 2);
    put(end, count_, 2);
    put(end, static_cast<uint32_t>(central_.size()), 4);
    put(end, central_at, 4);
    put(end, 0, 2);  // no comment
    return out_ + central_ + end;
  }
  size_t size() const { return out_.size() + central_.size(); }

 private:
  static void put(std::string& s, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  static void header(std::string& s, uint32_t signature, const std::string& name, uint32_t crc, size_t size,
                     bool central, uint32_t offset) {
    put(s, signature, 4);
    if (central) put(s, 20, 2);  // made by: version 2.0
    put(s, 20, 2);               // needed to extract: 2.0
    put(s, 0, 2);                // flags
    put(s, 0, 2);                // method: stored
    put(s, 0, 4);                // time and date: none
    put(s, crc, 4);
    put(s, size, 4);
    put(s, size, 4);
    put(s, name.size(), 2);
    put(s, 0, 2);  // no extra field
    if (central) {
      put(s, 0, 2);  // no comment
      put(s, 0, 2);  // disk
      put(s, 0, 2);  // internal attributes
      put(s, 0, 4);  // external attributes
      put(s, offset, 4);
    }
    s += name;
  }
  std::string out_, central_;
  uint16_t count_ = 0;
};

std::string safe_part(const char* s) {
  std::string part = s != nullptr ? s : "";
  for (char& c : part)
    if (c == '/' || c == '\\' || c == '\0') c = '_';
  return part == "." || part == ".." ? "_" : part;
}

// The .pt file's bytes: torch.save's record of one tensor (archive folder "archive", as torch.load
// takes any single top folder).
std::string pt_file(const Tensor& t) {
  if (!has_storage_class(t.dtype))
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "torch.save has no storage class for its dtype");
  const size_t nbytes = static_cast<size_t>(t.numel()) * element_size(t.dtype);
  if (nbytes > std::numeric_limits<uint32_t>::max() / 2)
    fail(SHIMGEN_RUNTIME_ERROR_UNSUPPORTED, "it is over 2 GB (the file would need zip64)");
  Pickle p;
  p.global("torch._utils", "_rebuild_tensor_v2");
  p.mark();
  p.mark();
  p.text("storage");
  p.global("torch", std::string(scalar_type_name(t.dtype)) + "Storage");
  p.text("0");
  p.text("cpu");
  p.integer(t.numel());
  p.tuple();
  p.persistent_id();
  p.integer(0);  // storage offset
  p.integers(t.sizes);
  p.integers(t.strides);
  p.false_value();  // requires_grad
  p.global("collections", "OrderedDict");
  p.empty_tuple();
  p.reduce();
  p.tuple();
  p.reduce();
  p.stop();
  StoredZip zip;
  zip.add("archive/data.pkl", p.bytes().data(), p.bytes().size());
  zip.add("archive/byteorder", "little", 6);
  zip.add("archive/data/0", reinterpret_cast<const char*>(t.data()), nbytes);
  zip.add("archive/version", "3\n", 2);
  return zip.finish();
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT void aoti_torch_save_tensor_handle(AtenTensorHandle self, const char* tensor_name,
                                                               const char* launch_prefix, const char* kernel_name) {
  std::string message;
  try {
    const Tensor& t = *unwrap(self, "self");
    const std::string device =
        t.storage->device_type == kCPU ? std::string("cpu") : "cuda:" + std::to_string(t.storage->device_index);
    const HostView host(self, /*contiguous=*/true);
    const std::string bytes = pt_file(*host);
    const std::filesystem::path folder = std::filesystem::current_path() / "tmp" / "aoti_torch";
    std::filesystem::create_directories(folder);
    const std::filesystem::path path = folder / (safe_part(launch_prefix) + "_" + safe_part(kernel_name) + "_" +
                                                 safe_part(tensor_name) + "_" + device + ".pt");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) fail(SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT, "writing " + path.string() + " failed");
    message = "aoti_torch_save_tensor_handle: Saved tensor to " + path.string() + "\n";
  } catch (const std::exception& e) {
    message = std::string("aoti_torch_save_tensor_handle: cannot save ") + (tensor_name ? tensor_name : "") + ": " +
              e.what() + "\n";
  }
  std::fwrite(message.data(), 1, message.size(), stdout);
  std::fflush(stdout);
}
