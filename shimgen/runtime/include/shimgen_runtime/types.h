/*
 * Types shared by every shimgen runtime header: the AOTInductor shim ABI's error code and opaque
 * handles (spelled so they are compatible with PyTorch's aoti_torch/c/macros.h), and the export
 * macro for the runtime's own, non-shim C API.
 *
 * Compiles as C and as C++.
 */
#ifndef SHIMGEN_RUNTIME_TYPES_H_
#define SHIMGEN_RUNTIME_TYPES_H_

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* The generated header: AOTI_SHIM_EXPORT and, under -DAOTI_SHIM_SYMBOL_PREFIX=<prefix>, the macro
 * renames that make every shim below compile to <prefix><name>. */
#include "export.h"

/* The runtime's own C API (caller stream, last error, call counter) is exported under its own,
 * unprefixed names: it is no shim, so libtorch never defines it. A separate macro keeps the header
 * scan from mistaking it for a shim. */
#ifndef SHIMGEN_RUNTIME_API
#if defined(_WIN32) || defined(__CYGWIN__)
#ifdef AOTI_SHIM_BUILDING
#define SHIMGEN_RUNTIME_API __declspec(dllexport)
#else
#define SHIMGEN_RUNTIME_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define SHIMGEN_RUNTIME_API __attribute__((visibility("default")))
#else
#define SHIMGEN_RUNTIME_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 0 is success; anything else is an error (see SHIMGEN_RUNTIME_ERROR_* below). */
typedef int32_t AOTITorchError;
#ifndef AOTI_TORCH_SUCCESS
#define AOTI_TORCH_SUCCESS 0
#endif
#ifndef AOTI_TORCH_FAILURE
#define AOTI_TORCH_FAILURE 1
#endif

/* Finer error codes. Callers compiled against PyTorch's headers only test "!= AOTI_TORCH_SUCCESS",
 * so these stay compatible while telling a native caller what went wrong. */
#define SHIMGEN_RUNTIME_ERROR_INTERNAL 1         /* == AOTI_TORCH_FAILURE */
#define SHIMGEN_RUNTIME_ERROR_INVALID_ARGUMENT 2 /* null handle/output, bad dtype, negative size... */
#define SHIMGEN_RUNTIME_ERROR_UNSUPPORTED 3      /* CUDA asked of a CPU-only build, dtype conversion... */
#define SHIMGEN_RUNTIME_ERROR_OUT_OF_MEMORY 4    /* host or device allocation failed */
#define SHIMGEN_RUNTIME_ERROR_CUDA 5             /* a CUDA runtime call failed */
#define SHIMGEN_RUNTIME_ERROR_STATE 6            /* guards deleted out of order or on another thread */

typedef struct AtenTensorOpaque* AtenTensorHandle;
typedef struct CUDAGuardOpaque* CUDAGuardHandle;
typedef struct CUDAStreamGuardOpaque* CUDAStreamGuardHandle;
typedef struct AOTIProxyExecutorOpaque* AOTIProxyExecutorHandle;
typedef struct AtenGeneratorOpaque* AtenGeneratorHandle; /* random ops: only null (the runtime's own engine) */
typedef struct AtenRecordFunctionOpaque* AtenRecordFunctionHandle; /* a profiling range (record_function.cpp) */
typedef struct IValueMapOpaque* IValueMapHandle;                   /* keyword arguments of a range: unread */
typedef struct C10IValueOpaque* C10IValueHandle;                   /* inputs of a range: unread */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_TYPES_H_ */
