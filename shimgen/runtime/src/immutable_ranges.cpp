// Registered immutable address ranges (immutable_ranges.h).
#include "immutable_ranges.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace shimgen::rt {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<const void*, AddressRange>> ranges;
};

// Leaked on purpose, like the loader's live-model set: a model closed from a static destructor
// after this one ran would otherwise touch a dead registry.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::atomic<uint64_t> g_generation{1};

}  // namespace

void register_immutable(const void* owner, const std::vector<AddressRange>& ranges) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const AddressRange& range : ranges) r.ranges.emplace_back(owner, range);
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

void unregister_immutable(const void* owner) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.ranges.erase(std::remove_if(r.ranges.begin(), r.ranges.end(), [owner](const auto& e) { return e.first == owner; }),
                 r.ranges.end());
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

uint64_t immutable_generation() noexcept { return g_generation.load(std::memory_order_acquire); }

uint64_t immutable_generation_of(const void* data, size_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(data);
  if (bytes == 0 || first + bytes < first) return 0;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& entry : r.ranges)
    if (first >= entry.second.first && first + bytes <= entry.second.second)
      return g_generation.load(std::memory_order_acquire);
  return 0;
}

}  // namespace shimgen::rt
