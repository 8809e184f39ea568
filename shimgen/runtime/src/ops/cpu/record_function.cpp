// aoti_record_function_start / _end: what a model compiled with cpp.enable_kernel_profile calls around
// each kernel and the whole run (torch's RecordFunction, which feeds torch.profiler). The runtime has
// no torch profiler to feed: a range is its name and start time, and with SHIMGEN_RUNTIME_PROFILE set
// (and not "0") its end writes "shimgen profile: <name> <microseconds> us" to stderr, one line per
// range, so the kernels' times can be read without libtorch. Keyword arguments and inputs are not read.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../../internal.h"
#include "shimgen_runtime/shim.h"

using namespace shimgen::rt;

namespace {

struct Range {
  std::string name;
  std::chrono::steady_clock::time_point start;
};

bool reporting() {
  static const bool on = [] {
    const char* env = std::getenv("SHIMGEN_RUNTIME_PROFILE");
    return env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  }();
  return on;
}

}  // namespace

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_record_function_start(const char* name, IValueMapHandle /*kwargs*/,
                                                                      const C10IValueHandle* /*inputs*/,
                                                                      const uint64_t /*n_inputs*/,
                                                                      AtenRecordFunctionHandle* guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    auto* range = new Range{name != nullptr ? name : "", std::chrono::steady_clock::now()};
    *guard = reinterpret_cast<AtenRecordFunctionHandle>(range);
  });
}

extern "C" AOTI_SHIM_EXPORT AOTITorchError aoti_record_function_end(AtenRecordFunctionHandle guard) {
  return guarded(__func__, [&] {
    SHIMGEN_REQUIRE(guard != nullptr, "guard is null");
    const auto* range = reinterpret_cast<const Range*>(guard);
    if (reporting()) {
      const auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - range->start);
      std::fprintf(stderr, "shimgen profile: %s %.1f us\n", range->name.c_str(), us.count());
    }
    delete range;
  });
}
