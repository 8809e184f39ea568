// Grad mode: a per-thread flag, as in PyTorch (enabled by default). Nothing here computes gradients;
// the flag exists because AOTInductor models save, clear and restore it around every run.
#include "internal.h"

namespace {
thread_local bool t_grad_enabled = true;
}

extern "C" {

AOTI_SHIM_EXPORT bool aoti_torch_grad_mode_is_enabled(void) {
  shimgen::rt::count_shim_call();
  return t_grad_enabled;
}

AOTI_SHIM_EXPORT void aoti_torch_grad_mode_set_enabled(bool enabled) {
  shimgen::rt::count_shim_call();
  t_grad_enabled = enabled;
}

}  // extern "C"
