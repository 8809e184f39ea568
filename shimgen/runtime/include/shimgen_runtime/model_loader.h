/*
 * Runs AOTInductor-compiled models (a .pt2 package or the model .so itself) on this runtime.
 *
 * The model's .so must import the prefixed shims (shimgen prefix-imports, or a recompile with the
 * generated export.h); they resolve against this library, never against another library that
 * exports the plain aoti_torch_* names (libtorch). Each open extracts the .so into its own private
 * directory (mkdtemp, mode 0700), dlopens it RTLD_LOCAL and creates the model's container; close
 * undoes all of it.
 *
 * Every function returns 0 on success; on failure a non-zero code, and
 * shimgen_model_last_error() gives a message for the calling thread (including the model's own
 * AOTInductorGetLastError text when the model failed). Compiles as C and as C++.
 *
 * Handles are checked on entry against the set of open models: a model closed twice, used after
 * close, or a pointer shimgen_model_open never returned gives SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT
 * (shimgen_model_so_path: NULL) and is never dereferenced. Still undefined: closing a model while
 * another thread is inside a call on it, and a stale handle whose address a later open happened to
 * reuse (it then names that new model). See docs/runtime.md.
 */
#ifndef SHIMGEN_RUNTIME_MODEL_LOADER_H_
#define SHIMGEN_RUNTIME_MODEL_LOADER_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct shimgen_model shimgen_model;

/* Opens path (.pt2 zip or .so). model_name picks the model inside a .pt2 (NULL: the only one, or
 * "model"); device is the container's device string ("cpu", "cuda", "cuda:1"; NULL means "cpu").
 * num_models is the number of concurrent runs the container allows (0 means 1). */
SHIMGEN_RUNTIME_API int32_t shimgen_model_open(const char* path, const char* model_name, const char* device,
                                               size_t num_models, shimgen_model** ret_model);
/* Closes the container, dlcloses the .so and removes its private directory. NULL is accepted (0);
 * a handle that is not open (closed already) is refused with SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT. */
SHIMGEN_RUNTIME_API int32_t shimgen_model_close(shimgen_model* model);

SHIMGEN_RUNTIME_API int32_t shimgen_model_num_inputs(const shimgen_model* model, size_t* ret_count);
SHIMGEN_RUNTIME_API int32_t shimgen_model_num_outputs(const shimgen_model* model, size_t* ret_count);
/* Path of the extracted .so (borrowed; valid until close). It lies in a directory only this open
 * created, so concurrent opens of one model never share a file. */
SHIMGEN_RUNTIME_API const char* shimgen_model_so_path(const shimgen_model* model);

/* Runs the model once. inputs are borrowed: the loader hands the model new handles onto them (the
 * model consumes the handles it is given). On success outputs[0..num_outputs) receive new handles
 * the caller owns and frees with aoti_torch_delete_tensor_object. stream is the CUDA stream
 * (cudaStream_t) to run on, or NULL; it is ignored by CPU models. */
SHIMGEN_RUNTIME_API int32_t shimgen_model_run(shimgen_model* model, const AtenTensorHandle* inputs, size_t num_inputs,
                                              AtenTensorHandle* outputs, size_t num_outputs, void* stream);

/* The calling thread's message for the last failed shimgen_model_* call ("" if none). */
SHIMGEN_RUNTIME_API const char* shimgen_model_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_MODEL_LOADER_H_ */
