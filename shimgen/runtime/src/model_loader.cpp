// Loads and runs AOTInductor-compiled models on this runtime: see shimgen_runtime/model_loader.h.
//
// A .pt2 is a zip that torch writes with stored (uncompressed) members; the model's .so is copied
// out of the mapped archive into a directory private to this open. The .so is dlopened RTLD_LOCAL:
// its own exports (the AOTInductorModelContainer* API) stay out of the global scope, so two models
// never bind to each other, while its prefixed shim imports resolve against this library, which
// the loader makes global first.
#include "shimgen_runtime/model_loader.h"

#include "shimgen_runtime/runtime.h"
#include "shimgen_runtime/shim.h"

#include "immutable_ranges.h"
#include "internal.h"
#include "proxy_executor.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

thread_local std::string g_last_error;

int32_t fail(const std::string& message, int32_t code = SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT) {
  g_last_error = message;
  return code;
}

std::string errno_text() { return std::strerror(errno); }

// The AOTInductorModelContainer C API the model .so exports (torch/csrc/inductor/aoti_runtime/interface.h).
using Container = void*;
using CreateWithDeviceFn = int32_t (*)(Container*, size_t, const char*, const char*);
using DeleteFn = int32_t (*)(Container);
using RunFn = int32_t (*)(Container, AtenTensorHandle*, size_t, AtenTensorHandle*, size_t, void*, void*);
using CountFn = int32_t (*)(Container, size_t*);
using LastErrorFn = int32_t (*)(const char**);
using ConstantNameFn = int32_t (*)(Container, size_t, const char**);
using ConstantTypeFn = int32_t (*)(Container, size_t, int32_t*);
struct ConstantMapEntry {  // AOTInductorConstantMapEntry
  const char* name;
  AtenTensorHandle handle;
};
using ConstantEntriesFn = int32_t (*)(Container, const ConstantMapEntry**, size_t*, bool);
using ConstantMapFn = int32_t (*)(Container, void*, bool);  // std::unordered_map<std::string, AtenTensorHandle>*
using ConstantFoldedFn = int32_t (*)(Container, size_t, bool*);
using ConstantSizeFn = int32_t (*)(Container, size_t, size_t*);
using UpdateFromBlobFn = int32_t (*)(Container, const uint8_t*);

// ------------------------------------------------------------------------------------------------
// A read-only mapping of the input file.
struct Mapping {
  const unsigned char* data = nullptr;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (data != nullptr) munmap(const_cast<unsigned char*>(data), size);
  }
};

std::string map_file(const std::string& path, Mapping* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return path + ": cannot open: " + errno_text();
  struct stat st{};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 4) {
    close(fd);
    return path + ": not a regular, non-empty file";
  }
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return path + ": cannot map: " + errno_text();
  out->data = static_cast<const unsigned char*>(p);
  out->size = static_cast<size_t>(st.st_size);
  return {};
}

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint16_t le16(const unsigned char* p) { return uint16_t(p[0] | p[1] << 8); }

struct Member {
  std::string name;
  const unsigned char* data;
  size_t size;
};

uint64_t le64(const unsigned char* p) { return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32; }

// A ZIP64 central directory entry keeps its sizes and local offset in extra field 0x0001 when the
// 32-bit fields hold 0xffffffff (a model .so over 2 GiB: AOTInductor links the weights into it), in
// the order usize, csize, offset, each present only where its field is saturated.
bool zip64_fields(const unsigned char* extra, size_t extra_len, uint64_t* usize, uint64_t* csize, uint64_t* local) {
  size_t at = 0;
  while (at + 4 <= extra_len) {
    const uint16_t id = le16(extra + at), len = le16(extra + at + 2);
    if (at + 4 + len > extra_len) return false;
    if (id == 0x0001) {
      const unsigned char* f = extra + at + 4;
      size_t used = 0;
      for (uint64_t* field : {usize, csize, local}) {
        if (*field != 0xffffffffu) continue;
        if (used + 8 > len) return false;
        *field = le64(f + used);
        used += 8;
      }
      return true;
    }
    at += 4 + size_t(len);
  }
  return *usize != 0xffffffffu && *csize != 0xffffffffu && *local != 0xffffffffu;
}

// The stored members of a zip (ZIP64 too), with every offset bounds-checked (the file is untrusted input).
std::string read_zip(const std::string& path, const Mapping& m, std::vector<Member>* members) {
  const size_t n = m.size;
  const unsigned char* d = m.data;
  if (n < 22) return path + ": not a zip archive";
  size_t eocd = std::string::npos;
  const size_t lowest = n > 22 + 65535 ? n - 22 - 65535 : 0;
  for (size_t i = n - 22 + 1; i-- > lowest;) {
    if (le32(d + i) == 0x06054b50u) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) return path + ": not a zip archive (no end of central directory)";
  uint64_t entries = le16(d + eocd + 10), cd_size = le32(d + eocd + 12), cd_offset = le32(d + eocd + 16);
  size_t cd_end = eocd;  // the central directory ends where the record after it begins
  if (entries == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    // ZIP64: a locator just before the record points at the 64-bit end-of-central-directory record.
    if (eocd < 20 || le32(d + eocd - 20) != 0x07064b50u) return path + ": corrupt zip (no zip64 locator)";
    const uint64_t record = le64(d + eocd - 20 + 8);
    if (record > eocd - 20 || eocd - 20 - record < 56 || le32(d + record) != 0x06064b50u)
      return path + ": corrupt zip (bad zip64 end of central directory)";
    entries = le64(d + record + 32);
    cd_size = le64(d + record + 40);
    cd_offset = le64(d + record + 48);
    cd_end = static_cast<size_t>(record);
  }
  if (cd_offset > cd_end || cd_size > cd_end - cd_offset)
    return path + ": corrupt zip (central directory out of bounds)";
  if (entries > cd_size / 46) return path + ": corrupt zip (more entries than the central directory holds)";
  size_t at = static_cast<size_t>(cd_offset);
  for (uint64_t e = 0; e < entries; ++e) {
    if (at + 46 > cd_end || le32(d + at) != 0x02014b50u) return path + ": corrupt zip (bad central directory entry)";
    const uint16_t method = le16(d + at + 10);
    uint64_t csize = le32(d + at + 20), usize = le32(d + at + 24), local = le32(d + at + 42);
    const uint16_t name_len = le16(d + at + 28), extra_len = le16(d + at + 30), comment_len = le16(d + at + 32);
    if (at + 46 + name_len + extra_len > cd_end) return path + ": corrupt zip (name out of bounds)";
    std::string name(reinterpret_cast<const char*>(d + at + 46), name_len);
    if (!zip64_fields(d + at + 46 + name_len, extra_len, &usize, &csize, &local))
      return path + ": corrupt zip (bad zip64 sizes of " + name + ")";
    at += 46 + size_t(name_len) + extra_len + comment_len;
    if (local > n || n - local < 30 || le32(d + local) != 0x04034b50u)
      return path + ": corrupt zip (bad local header of " + name + ")";
    const uint64_t start = local + 30 + le16(d + local + 26) + le16(d + local + 28);
    if (start > n || csize > n - start) return path + ": corrupt zip (" + name + " is truncated)";
    if (method != 0 || csize != usize) {
      // Only members the loader needs must be stored; others (compressed metadata) are skipped.
      members->push_back(Member{name, nullptr, static_cast<size_t>(usize)});
      continue;
    }
    members->push_back(Member{name, d + start, static_cast<size_t>(csize)});
  }
  return {};
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string base_name(const std::string& s) {
  const size_t slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// Within a .pt2: "<archive>/data/aotinductor/<model>/<file>". Returns <model> or "".
std::string model_of(const std::string& name) {
  const std::string marker = "data/aotinductor/";
  const size_t at = name.find(marker);
  if (at == std::string::npos || (at != 0 && name[at - 1] != '/')) return {};
  const size_t begin = at + marker.size();
  const size_t slash = name.find('/', begin);
  if (slash == std::string::npos || name.find('/', slash + 1) != std::string::npos) return {};
  return name.substr(begin, slash - begin);
}

std::string write_private(const std::string& path, const unsigned char* data, size_t size) {
  // O_EXCL in a directory only we can enter: nobody else can have created or swapped this file.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (fd < 0) return path + ": cannot create: " + errno_text();
  std::string problem;
  for (size_t done = 0; done < size && problem.empty();) {
    const ssize_t w = write(fd, data + done, size - done);
    if (w >= 0) {
      done += size_t(w);
    } else if (errno != EINTR) {
      problem = path + ": cannot write: " + errno_text();
    }
  }
  if (close(fd) != 0 && problem.empty()) problem = path + ": cannot write: " + errno_text();
  if (!problem.empty()) unlink(path.c_str());  // a part of a model (a full disk: gigabytes) is of no use
  return problem;
}

// Makes this library's symbols global, so a model .so loaded RTLD_LOCAL finds the prefixed shims
// even when the caller loaded the runtime RTLD_LOCAL (Python's ctypes does by default).
std::string promote_runtime_to_global() {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&shimgen_model_open), &info) == 0 || info.dli_fname == nullptr) {
      problem = "cannot find the runtime library's own path (dladdr failed)";
      return;
    }
    // RTLD_NOLOAD: no second copy; only the existing one's scope changes. The handle is kept on
    // purpose (dlclose would drop the reference that keeps it global).
    if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();
      problem = std::string("cannot make ") + info.dli_fname + " global: " + (why ? why : "dlopen failed");
    }
  });
  return problem;
}

std::string temp_root() {
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && *env != '\0' ? env : "/tmp";
}

}  // namespace

struct shimgen_model {
  std::string dir;                 // private directory (mkdtemp), removed at close
  std::vector<std::string> files;  // extracted files inside dir
  std::string so_path;
  void* library = nullptr;
  Container container = nullptr;
  size_t num_inputs = 0, num_outputs = 0;
  DeleteFn delete_fn = nullptr;
  RunFn run_fn = nullptr;
  // Serves the model's calls of ops without a C shim (from the extern-kernel JSON); null when the
  // package has none.
  shimgen::rt::proxy::ExecutorPtr proxy;
  LastErrorFn last_error_fn = nullptr;

  // The model's own message for its last failure, if it exports AOTInductorGetLastError.
  std::string model_error() const {
    const char* message = nullptr;
    if (last_error_fn == nullptr || last_error_fn(&message) != 0 || message == nullptr) return {};
    std::string text(message);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text.empty() ? text : ": " + text;
  }

  ~shimgen_model() {
    // Its weights stop being trusted before the container frees their memory.
    shimgen::rt::unregister_immutable(this);
    // The container goes first: it may hold the executor until it is deleted.
    if (container != nullptr && delete_fn != nullptr) delete_fn(container);
    if (library != nullptr) dlclose(library);
    for (const std::string& f : files) unlink(f.c_str());
    if (!dir.empty()) rmdir(dir.c_str());
  }
};

namespace {

// Every open model, so that a handle is checked before it is used: a double close, a call after
// close or a pointer that never came from shimgen_model_open is refused with an error code instead
// of being dereferenced. A registry rather than a magic number inside the object: reading a magic
// field through a freed or garbage pointer is itself the crash. It costs one lock and one hash
// lookup per call (tens of nanoseconds against a model run of microseconds). Leaked on purpose: it
// stays usable while other static objects are destroyed at exit.
std::mutex& live_models_mutex() {
  static std::mutex* mutex = new std::mutex();
  return *mutex;
}
std::unordered_set<const shimgen_model*>& live_models() {
  static auto* models = new std::unordered_set<const shimgen_model*>();
  return *models;
}

bool is_open(const shimgen_model* model) {
  std::lock_guard<std::mutex> lock(live_models_mutex());
  return live_models().count(model) != 0;
}

int32_t not_open(const char* function) {
  return fail(std::string(function) + ": not an open model (closed already, or never returned by shimgen_model_open)",
              SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
}

// The extern-kernel JSON of a real model is a few KiB per fallback call; the cap bounds what an
// untrusted package can make the loader parse.
constexpr size_t kMaxExternKernelJson = size_t(64) << 20;

// Where a package keeps the chosen model's weights when they are not in its .so.
struct ExternalWeights {
  const unsigned char* blob = nullptr;  // the *_weights.blob member (inside the caller's mapping)
  size_t size = 0;
  bool pickled = false;  // the package has data/weights/ (pickle_weights: only Python torch reads those)
};

// `mapping` stays the caller's: the weights blob is read from it after the container exists.
std::string extract(const std::string& path, const char* model_name, shimgen_model* model, Mapping& mapping,
                    ExternalWeights* weights) {
  std::string problem = map_file(path, &mapping);
  if (!problem.empty()) return problem;

  // Which bytes become files in the private directory: the .so and, for CUDA models, the kernel
  // binaries beside it (the container loads them from cubin_dir).
  std::vector<Member> wanted;
  const bool is_elf = std::memcmp(mapping.data,
                                  "\x7f"
                                  "ELF",
                                  4) == 0;
  if (is_elf) {
    wanted.push_back(Member{"model.so", mapping.data, mapping.size});
  } else if (le32(mapping.data) == 0x04034b50u) {
    std::vector<Member> members;
    problem = read_zip(path, mapping, &members);
    if (!problem.empty()) return problem;
    std::map<std::string, std::vector<const Member*>> sos;  // model name -> its .so members
    for (const Member& m : members) {
      if (ends_with(m.name, ".so") && !model_of(m.name).empty()) sos[model_of(m.name)].push_back(&m);
    }
    if (sos.empty()) return path + ": the package holds no AOTInductor model (*/data/aotinductor/<model>/*.so)";
    std::string chosen;
    if (model_name != nullptr && *model_name != '\0') {
      chosen = model_name;
    } else if (sos.size() == 1) {
      chosen = sos.begin()->first;
    } else if (sos.count("model") != 0) {
      chosen = "model";
    }
    if (sos.count(chosen) == 0) {
      std::string names;
      for (const auto& entry : sos) names += (names.empty() ? "" : ", ") + entry.first;
      return path + ": choose a model by name; the package holds: " + names;
    }
    // One .so per model is the rule; should there be several, the model is the *.wrapper.so.
    const Member* library = sos[chosen].size() == 1 ? sos[chosen][0] : nullptr;
    for (const Member* m : sos[chosen]) {
      if (library == nullptr && ends_with(m->name, ".wrapper.so")) library = m;
    }
    if (library == nullptr) return path + ": model '" + chosen + "' has several .so files and no *.wrapper.so";
    // The extern-kernel JSON: the .so's name with .json (AOTInductor writes it for the proxy executor).
    const std::string json_name = library->name.substr(0, library->name.size() - 3) + ".json";
    for (const Member& m : members) {
      if (m.name != json_name) continue;
      if (m.data == nullptr) return path + ": member " + m.name + " is compressed; the loader needs it stored";
      if (m.size > kMaxExternKernelJson) return path + ": member " + m.name + " is larger than 64 MiB";
      std::string problem_text;
      model->proxy = shimgen::rt::proxy::load(reinterpret_cast<const char*>(m.data), m.size, &problem_text);
      if (!model->proxy) return path + ": " + problem_text;
    }
    // package_constants_on_disk_format="binary_blob": the .so's name with _weights.blob.
    const std::string blob_name = library->name.substr(0, library->name.size() - 3) + "_weights.blob";
    for (const Member& m : members) {
      if (m.name.find("/data/weights/") != std::string::npos) weights->pickled = true;
      if (m.name != blob_name) continue;
      if (m.data == nullptr) return path + ": member " + m.name + " is compressed; the loader needs it stored";
      weights->blob = m.data;
      weights->size = m.size;
    }
    for (const Member& m : members) {
      if (model_of(m.name) != chosen) continue;
      const bool is_so = &m == library;
      if (!is_so && ends_with(m.name, ".so")) continue;
      if (!is_so && !ends_with(m.name, ".cubin") && !ends_with(m.name, ".fatbin")) continue;
      if (m.data == nullptr) return path + ": member " + m.name + " is compressed; the loader needs it stored";
      wanted.push_back(Member{is_so ? std::string("model.so") : base_name(m.name), m.data, m.size});
    }
  } else {
    return path + ": neither a .pt2 (zip) package nor an ELF shared object";
  }

  std::string dir_template = temp_root() + "/shimgen-model-XXXXXX";
  std::vector<char> buffer(dir_template.begin(), dir_template.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) return dir_template + ": cannot create a private directory: " + errno_text();
  model->dir = buffer.data();  // mkdtemp creates it with mode 0700
  for (const Member& m : wanted) {
    const std::string target = model->dir + "/" + m.name;
    problem = write_private(target, m.data, m.size);
    if (!problem.empty()) return problem;
    model->files.push_back(target);
    if (m.name == "model.so") model->so_path = target;
  }
  return {};
}

template <typename Fn> Fn symbol(void* library, const char* name) { return reinterpret_cast<Fn>(dlsym(library, name)); }

// How many constants the model declares and how many its container holds now (with the entries
// themselves where the model can list them); ok is false when the model lacks these entry points or
// they fail. Models of torch 2.11 and older have no ExtractConstantsMapEntries: their container's map
// is counted through ExtractConstantsMap, which fills a std::unordered_map<std::string,
// AtenTensorHandle> (libstdc++'s layout, as torch's own loader hands it across its libraries).
struct Constants {
  bool ok = false;
  size_t count = 0, num_entries = 0;
  const ConstantMapEntry* entries = nullptr;
};
Constants constants_of(void* library, Container container) {
  auto count = symbol<CountFn>(library, "AOTInductorModelContainerGetNumConstants");
  auto entries_of = symbol<ConstantEntriesFn>(library, "AOTInductorModelContainerExtractConstantsMapEntries");
  auto map_of = symbol<ConstantMapFn>(library, "AOTInductorModelContainerExtractConstantsMap");
  Constants c;
  if (!count || count(container, &c.count) != 0) return c;
  if (entries_of) {
    c.ok = entries_of(container, &c.entries, &c.num_entries, false) == 0;
  } else if (map_of) {
    std::unordered_map<std::string, AtenTensorHandle> map;
    c.ok = map_of(container, &map, false) == 0;
    c.num_entries = map.size();
  }
  return c;
}

// The memory of the model's parameters and tensor constants (AOTInductor's ConstantType 1 and 3),
// which nothing writes while it is open: the GEMM may trust its packed copies of them
// (immutable_ranges.h). Buffers (2) may be mutated by the model and folded constants (4) are
// computed by a run, so they are left out; so is everything when the model lacks the API (older
// torch): then every weight is compared, as before.
std::vector<shimgen::rt::AddressRange> immutable_constants(void* library, Container container) {
  // The map names a constant by its original FQN (qkv.weight), not its internal name (qkv_weight).
  auto name_of = symbol<ConstantNameFn>(library, "AOTInductorModelContainerGetConstantOriginalFQN");
  auto type_of = symbol<ConstantTypeFn>(library, "AOTInductorModelContainerGetConstantType");
  const Constants constants = constants_of(library, container);
  if (!name_of || !type_of || !constants.ok || constants.entries == nullptr) return {};
  const size_t n = constants.count, num_entries = constants.num_entries;
  const ConstantMapEntry* entries = constants.entries;
  std::unordered_set<std::string> fixed;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    int32_t type = 0;
    if (name_of(container, i, &name) == 0 && type_of(container, i, &type) == 0 && name != nullptr &&
        (type == 1 || type == 3))
      fixed.insert(name);
  }
  std::vector<shimgen::rt::AddressRange> ranges;
  for (size_t i = 0; i < num_entries; ++i) {
    if (entries[i].name == nullptr || entries[i].handle == nullptr || fixed.count(entries[i].name) == 0) continue;
    const auto* t = reinterpret_cast<const shimgen::rt::Tensor*>(entries[i].handle);
    if (!t->storage || t->storage->device_type != shimgen::rt::kCPU || t->storage->data == nullptr) continue;
    const auto first = reinterpret_cast<uintptr_t>(t->storage->data);
    ranges.emplace_back(first, first + static_cast<uintptr_t>(t->storage->nbytes));
  }
  return ranges;
}

// A model compiled with package_constants_on_disk_format="binary_blob" is built without its weights
// (USE_MMAP_EXTERNAL): its container holds no constant until AOTInductorModelUpdateConstantsFromBlob
// copies them from the package's blob, as torch's package loader does. Used only when constants are
// missing, so a package whose .so holds its weights ignores a stray blob. The model reads each
// non-folded constant's data_size bytes from the blob in order: the blob must hold their sum, or
// the copy would read past it.
std::string load_external_weights(shimgen_model* model, const ExternalWeights& weights, const std::string& path) {
  void* lib = model->library;
  auto folded = symbol<ConstantFoldedFn>(lib, "AOTInductorModelContainerGetConstantFromFolded");
  auto size_of = symbol<ConstantSizeFn>(lib, "AOTInductorModelContainerGetConstantDataSize");
  auto update = symbol<UpdateFromBlobFn>(lib, "AOTInductorModelUpdateConstantsFromBlob");
  const Constants constants = constants_of(lib, model->container);
  // Older models without these entry points cannot say what they lack; they load as before.
  if (!folded || !size_of || !constants.ok) return {};
  const size_t n = constants.count, num_entries = constants.num_entries;
  size_t needed = 0, stored = 0;
  for (size_t i = 0; i < n; ++i) {
    bool from_folded = false;
    size_t bytes = 0;
    if (folded(model->container, i, &from_folded) != 0 || size_of(model->container, i, &bytes) != 0)
      return path + ": the model cannot describe its constants" + model->model_error();
    if (from_folded) continue;
    ++stored;
    if (bytes > SIZE_MAX - needed) return path + ": the model's constant sizes overflow";
    needed += bytes;
  }
  if (stored == 0 || num_entries != 0) return {};  // weights in the .so (or none): nothing to load
  if (weights.blob == nullptr) {
    return path + ": the model's weights are not in its .so and the package holds no *_weights.blob" +
           (weights.pickled ? " (its data/weights/ are pickled, which only Python torch reads; compile with "
                              "aot_inductor.package_constants_on_disk_format=\"binary_blob\")"
                            : "");
  }
  if (weights.size < needed)
    return path + ": the weights blob holds " + std::to_string(weights.size) + " bytes; the model's constants need " +
           std::to_string(needed);
  if (!update) return path + ": the model has no AOTInductorModelUpdateConstantsFromBlob to take its weights blob";
  if (update(model->container, weights.blob) != 0)
    return path + ": loading the weights blob failed" + model->model_error();
  return {};
}

// Frees each distinct handle among a run's outputs once (a model may write one handle to several
// slots) and nulls every slot: the outputs of a run that is failed after the model returned.
void free_outputs(AtenTensorHandle* outputs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    bool seen = outputs[i] == nullptr;
    for (size_t j = 0; j < i && !seen; ++j) seen = outputs[j] == outputs[i];
    if (!seen) aoti_torch_delete_tensor_object(outputs[i]);
  }
  for (size_t i = 0; i < count; ++i) outputs[i] = nullptr;
}

}  // namespace

extern "C" {

int32_t shimgen_model_open(const char* path, const char* model_name, const char* device, size_t num_models,
                           shimgen_model** ret_model) {
  if (path == nullptr || ret_model == nullptr) return fail("shimgen_model_open: path and ret_model must not be null");
  try {
    std::string problem = promote_runtime_to_global();
    if (!problem.empty()) return fail(problem, SHIMGEN_RUNTIME_ERROR_INTERNAL);
    // Owned until handed out: every failure below, thrown or returned, removes what was extracted.
    std::unique_ptr<shimgen_model> owner(new shimgen_model());
    shimgen_model* model = owner.get();
    auto discard = [&](const std::string& message, int32_t code) {
      owner.reset();
      return fail(message, code);
    };
    Mapping package;  // kept until the weights blob, if any, is copied into the container
    ExternalWeights weights;
    problem = extract(path, model_name, model, package, &weights);
    if (!problem.empty()) return discard(problem, SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);

    dlerror();
    model->library = dlopen(model->so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (model->library == nullptr) {
      const char* why = dlerror();
      return discard(std::string(path) + ": cannot load the model: " + (why ? why : "dlopen failed"),
                     SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    }
    auto create = symbol<CreateWithDeviceFn>(model->library, "AOTInductorModelContainerCreateWithDevice");
    auto num_inputs = symbol<CountFn>(model->library, "AOTInductorModelContainerGetNumInputs");
    auto num_outputs = symbol<CountFn>(model->library, "AOTInductorModelContainerGetNumOutputs");
    model->delete_fn = symbol<DeleteFn>(model->library, "AOTInductorModelContainerDelete");
    model->run_fn = symbol<RunFn>(model->library, "AOTInductorModelContainerRun");
    model->last_error_fn = symbol<LastErrorFn>(model->library, "AOTInductorGetLastError");  // newer torch only
    if (!create || !num_inputs || !num_outputs || !model->delete_fn || !model->run_fn) {
      return discard(std::string(path) + ": not an AOTInductor model (no AOTInductorModelContainer* API)",
                     SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    }
    const std::string device_str = device != nullptr && *device != '\0' ? device : "cpu";
    if (create(&model->container, num_models == 0 ? 1 : num_models, device_str.c_str(), model->dir.c_str()) != 0) {
      model->container = nullptr;
      return discard(std::string(path) + ": creating the model container failed" + model->model_error(),
                     SHIMGEN_RUNTIME_ERROR_INTERNAL);
    }
    if (num_inputs(model->container, &model->num_inputs) != 0 ||
        num_outputs(model->container, &model->num_outputs) != 0) {
      return discard(std::string(path) + ": the model cannot report its inputs and outputs" + model->model_error(),
                     SHIMGEN_RUNTIME_ERROR_INTERNAL);
    }
    problem = load_external_weights(model, weights, path);
    if (!problem.empty()) return discard(problem, SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT);
    shimgen::rt::register_immutable(model, immutable_constants(model->library, model->container));
    {
      std::lock_guard<std::mutex> lock(live_models_mutex());
      live_models().insert(model);
    }
    *ret_model = owner.release();
    g_last_error.clear();
    return 0;
  } catch (const std::bad_alloc&) {
    return fail("shimgen_model_open: out of memory", SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY);
  } catch (const std::exception& e) {
    return fail(std::string("shimgen_model_open: ") + e.what(), SHIMGEN_RUNTIME_ERROR_INTERNAL);
  }
}

int32_t shimgen_model_close(shimgen_model* model) {
  if (model == nullptr) return 0;
  {
    std::lock_guard<std::mutex> lock(live_models_mutex());
    if (live_models().erase(model) == 0) return not_open(__func__);
  }
  delete model;
  return 0;
}

int32_t shimgen_model_num_inputs(const shimgen_model* model, size_t* ret_count) {
  if (model == nullptr || ret_count == nullptr) return fail("shimgen_model_num_inputs: null argument");
  if (!is_open(model)) return not_open(__func__);
  *ret_count = model->num_inputs;
  return 0;
}

int32_t shimgen_model_num_outputs(const shimgen_model* model, size_t* ret_count) {
  if (model == nullptr || ret_count == nullptr) return fail("shimgen_model_num_outputs: null argument");
  if (!is_open(model)) return not_open(__func__);
  *ret_count = model->num_outputs;
  return 0;
}

const char* shimgen_model_so_path(const shimgen_model* model) {
  return model == nullptr || !is_open(model) ? nullptr : model->so_path.c_str();
}

int32_t shimgen_model_run(shimgen_model* model, const AtenTensorHandle* inputs, size_t num_inputs,
                          AtenTensorHandle* outputs, size_t num_outputs, void* stream) {
  if (model == nullptr || (num_inputs != 0 && inputs == nullptr) || (num_outputs != 0 && outputs == nullptr)) {
    return fail("shimgen_model_run: null argument");
  }
  if (!is_open(model)) return not_open(__func__);
  if (num_inputs != model->num_inputs || num_outputs != model->num_outputs) {
    return fail("shimgen_model_run: the model takes " + std::to_string(model->num_inputs) + " input(s) and gives " +
                std::to_string(model->num_outputs) + " output(s); got " + std::to_string(num_inputs) + " and " +
                std::to_string(num_outputs));
  }
  // The model steals the handles it is given (model_base.h: "handles are stolen"), so it gets new
  // handles onto the caller's tensors: the caller's own handles stay valid. Small inputs use the
  // stack, as torch's runner does.
  AtenTensorHandle local[16];
  std::vector<AtenTensorHandle> heap;
  AtenTensorHandle* given = local;
  if (num_inputs > 16) {
    heap.resize(num_inputs);
    given = heap.data();
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr || aoti_torch_new_tensor_handle(inputs[i], &given[i]) != 0) {
      for (size_t j = 0; j < i; ++j) aoti_torch_delete_tensor_object(given[j]);
      return fail("shimgen_model_run: input " + std::to_string(i) + " is not a valid tensor handle");
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) outputs[i] = nullptr;
  if (stream == nullptr) {
    // No stream argument: the caller's selection (CallerStreamGuard) is the stream to run on, as it
    // is for every other runtime call on this thread; without one, the legacy default stream.
    int32_t selected = 0;
    void* caller = nullptr;
    if (shimgen_runtime_get_caller_stream(&selected, &caller) == 0 && selected != 0) stream = caller;
  }
  shimgen_runtime_clear_last_error();
  if (model->run_fn(model->container, given, num_inputs, outputs, num_outputs, stream,
                    reinterpret_cast<void*>(model->proxy.get())) != 0) {
    // The model takes an input handle by nulling its slot (aoti_runtime/utils.h,
    // steal_from_raw_handles_to_raii_handles) and frees what it took as the exception unwinds. A
    // model that fails its input checks throws before taking them: those slots still hold our new
    // handles, each a reference that would keep the caller's storage alive forever.
    for (size_t i = 0; i < num_outputs; ++i) {
      bool repeated = false;  // a handle the model wrote to an earlier slot too: freed there
      for (size_t j = 0; j < i && !repeated; ++j) repeated = outputs[j] == outputs[i];
      if (outputs[i] != nullptr && !repeated) aoti_torch_delete_tensor_object(outputs[i]);
      for (size_t j = 0; j < num_inputs; ++j)
        if (given[j] == outputs[i]) given[j] = nullptr;  // an input passed through: freed just now
    }
    for (size_t i = 0; i < num_outputs; ++i) outputs[i] = nullptr;  // after: the loop compares the slots
    for (size_t i = 0; i < num_inputs; ++i)
      if (given[i] != nullptr) aoti_torch_delete_tensor_object(given[i]);
    // The shim that failed inside the model said why (the model's own message names only the call).
    const std::string shim_error = shimgen_runtime_last_error();
    return fail("the model failed" + model->model_error() + (shim_error.empty() ? "" : " (" + shim_error + ")"),
                SHIMGEN_RUNTIME_ERROR_INTERNAL);
  }
  // torch's wrapper does not check every shim call's error code (torch 2.13 writes scatter_reduce_two_out
  // unchecked when it scatters into a slice of a cat's buffer): a shim that failed inside a run the model
  // then reports as successful left its output unwritten, so the outputs are wrong. Its failure is
  // still this thread's last error (cleared before the run): the run fails, naming it.
  const std::string ignored = shimgen_runtime_last_error();
  if (!ignored.empty()) {
    free_outputs(outputs, num_outputs);
    const std::string why =
        "the model went on after a shim call failed (its generated code does not check that "
        "call's error code), so its outputs would be wrong: ";
    return fail(why + ignored, SHIMGEN_RUNTIME_ERROR_INTERNAL);
  }
  // A model returning one tensor as two outputs writes the same handle to both slots (the generated
  // code's `output_handles[1] = output_handles[0];`, e.g. an encoder-decoder's last hidden state and
  // its decoder's): torch's runner steals such a handle once. Each slot here is the caller's to free,
  // so a repeated one becomes a new handle onto the same tensor.
  for (size_t i = 1; i < num_outputs; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (outputs[i] == nullptr || outputs[j] != outputs[i]) continue;
      if (aoti_torch_new_tensor_handle(outputs[j], &outputs[i]) != 0) {
        outputs[i] = nullptr;  // the earlier slots still own theirs; free them and every later one
        free_outputs(outputs, num_outputs);
        return fail("shimgen_model_run: cannot hand out output " + std::to_string(i) +
                        " (the model returned the handle of output " + std::to_string(j) + " again)",
                    SHIMGEN_RUNTIME_ERROR_INTERNAL);
      }
      break;
    }
  }
  return 0;
}

const char* shimgen_model_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
