/* The smallest library shimgen_model_open accepts: the AOTInductorModelContainer* C API with no
 * inputs, no outputs and a run that does nothing. Lets the handle-misuse test open and close real
 * models without torch. */
#include <stddef.h>

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
