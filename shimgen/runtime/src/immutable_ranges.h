// Address ranges whose bytes cannot change while they are registered: the parameters and tensor
// constants of the models shimgen_model_open loaded. AOTInductor copies a CPU model's weights into
// a blob the container owns and never writes again (export forbids mutating parameters; buffers,
// which a model may mutate, and folded constants, which a run computes, are not registered), and
// the loader offers no way to replace them. The packed-weight cache (cpu_packed_weights.h) skips its
// byte comparison for a weight inside one, as long as no model was opened or closed since it last
// compared. Nothing here is exported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace shimgen::rt {

using AddressRange = std::pair<uintptr_t, uintptr_t>;  // [first, second)

// Registers `ranges` under `owner` (a model); unregister_immutable drops them. Both move the
// generation, which ends any trust taken under the old set: a model unregisters before its
// container (and so its weights' memory) goes.
void register_immutable(const void* owner, const std::vector<AddressRange>& ranges);
void unregister_immutable(const void* owner);

// The current generation (never 0).
uint64_t immutable_generation() noexcept;

// The generation under which [data, data + bytes) lies inside one registered range, or 0.
uint64_t immutable_generation_of(const void* data, size_t bytes);

}  // namespace shimgen::rt
