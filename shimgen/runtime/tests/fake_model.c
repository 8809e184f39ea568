/* The smallest library shimgen_model_open accepts: the AOTInductorModelContainer* C API with no
 * inputs, no outputs and a run that does nothing. Lets the handle-misuse test open and close real
 * models without torch. With SHIMGEN_FAKE_MODEL_IGNORE naming a getter shim (as exported, prefix
 * included), its run calls that shim on a null handle and ignores the error, then reports success: what
 * torch's generated code does with the calls it leaves unchecked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static int g_container;

int AOTInductorModelContainerCreateWithDevice(void** container, size_t num_models, const char* device,
                                              const char* cubin_dir) {
  (void)num_models, (void)device, (void)cubin_dir;
  *container = &g_container;
  return 0;
}
int AOTInductorModelContainerDelete(void* container) { return container == &g_container ? 0 : 1; }
int AOTInductorModelContainerRun(void* container, void** inputs, size_t num_inputs, void** outputs, size_t num_outputs,
                                 void* stream, void* proxy_executor) {
  (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)stream, (void)proxy_executor;
  const char* ignored = getenv("SHIMGEN_FAKE_MODEL_IGNORE");
  if (ignored != NULL) {
    int (*getter)(void*, int64_t*) = (int (*)(void*, int64_t*))dlsym(RTLD_DEFAULT, ignored);
    if (getter == NULL) return 1;
    int64_t value = 0;
    (void)getter(NULL, &value); /* unchecked, as the generated call is */
  }
  return container == &g_container ? 0 : 1;
}
int AOTInductorModelContainerGetNumInputs(void* container, size_t* count) {
  *count = 0;
  return container == &g_container ? 0 : 1;
}
int AOTInductorModelContainerGetNumOutputs(void* container, size_t* count) {
  *count = 0;
  return container == &g_container ? 0 : 1;
}
