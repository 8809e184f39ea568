/*
 * The AOTInductor C shim ABI subset this runtime implements. Every signature is identical to the
 * declaration of the same name in PyTorch's torch/csrc/inductor/aoti_torch/c/shim.h; numeric dtype,
 * device-type, layout and memory-format codes are PyTorch's.
 *
 * Each declaration carries AOTI_SHIM_EXPORT: shimgen scans this file for that macro to build the
 * shim set, and export.h renames every one of them when AOTI_SHIM_SYMBOL_PREFIX is defined.
 * Compiles as C and as C++.
 */
#ifndef SHIMGEN_RUNTIME_SHIM_H_
#define SHIMGEN_RUNTIME_SHIM_H_

#include "shimgen_runtime/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device types (c10::DeviceType). */
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cpu(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cuda(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_meta(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_xpu(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_mps(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_privateuse1(void);

/* Dtypes (c10::ScalarType). */
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float8_e5m2(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float8_e4m3fn(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float8_e5m2fnuz(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float8_e4m3fnuz(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float8_e8m0fnu(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float4_e2m1fn_x2(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_bfloat16(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float16(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float32(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_float64(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_uint8(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_uint16(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_uint32(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_uint64(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_int8(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_int16(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_int32(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_int64(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_bool(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_complex32(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_complex64(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_dtype_complex128(void);
/* Bytes per element of a dtype code; 0 for an unknown code. */
AOTI_SHIM_EXPORT size_t aoti_torch_dtype_element_size(int32_t dtype);

/* Layouts (c10::Layout) and memory formats (c10::MemoryFormat). */
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_strided(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_sparse_coo(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_sparse_csr(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_sparse_csc(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_sparse_bsr(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_sparse_bsc(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout__mkldnn(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_layout_jagged(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_memory_format_contiguous_format(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_memory_format_channels_last(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_memory_format_channels_last_3d(void);
AOTI_SHIM_EXPORT int32_t aoti_torch_memory_format_preserve_format(void);

/* Grad mode: a per-thread flag, enabled by default (this runtime computes no gradients). */
AOTI_SHIM_EXPORT bool aoti_torch_grad_mode_is_enabled(void);
AOTI_SHIM_EXPORT void aoti_torch_grad_mode_set_enabled(bool enabled);

/* Tensor metadata. Pointers returned by get_data_ptr/get_sizes/get_strides are borrowed: valid
 * while the handle lives. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor, void** ret_data_ptr);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_storage_size(AtenTensorHandle tensor, int64_t* ret_size);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_storage_numel(AtenTensorHandle tensor, int64_t* ret_numel);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t* ret_dim);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_numel(AtenTensorHandle tensor, int64_t* ret_numel);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor, int64_t** ret_sizes);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_size(AtenTensorHandle tensor, int64_t d, int64_t* ret_size);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor, int64_t** ret_strides);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_stride(AtenTensorHandle tensor, int64_t d, int64_t* ret_stride);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_dtype(AtenTensorHandle tensor, int32_t* ret_dtype);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_device_type(AtenTensorHandle tensor, int32_t* ret_device_type);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_device_index(AtenTensorHandle tensor, int32_t* ret_device_index);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_layout(AtenTensorHandle tensor, int32_t* ret_layout);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor, int64_t* ret_storage_offset);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_is_contiguous(AtenTensorHandle tensor, bool* ret_is_contiguous);

/* Debugging: a model compiled with aot_inductor.debug_intermediate_value_printer="2" prints its
 * tensors around each kernel with this (to stdout, as torch does: values of a tensor of 64 elements
 * or fewer, numel, dtype, mean/min/max, device, sizes, strides). Never fails the model. */
AOTI_SHIM_EXPORT void aoti_torch_print_tensor_handle(AtenTensorHandle self, const char* msg);
/* debug_intermediate_value_printer="1": saves the tensor as <cwd>/tmp/aoti_torch/<launch_prefix>_<kernel_name>_
 * <tensor_name>_<device>.pt in torch.save's format (contiguous, on the CPU), then prints the path. Never fails. */
AOTI_SHIM_EXPORT void aoti_torch_save_tensor_handle(AtenTensorHandle self, const char* tensor_name,
                                                    const char* launch_prefix, const char* kernel_name);
/* cpp.enable_kernel_profile: a range around each kernel and fallback op. The runtime has no profiler of
 * torch's; with SHIMGEN_RUNTIME_PROFILE set (not "0") each range's name and wall time go to stderr. */
AOTI_SHIM_EXPORT AOTITorchError aoti_record_function_start(const char* name, IValueMapHandle kwargs,
                                                           const C10IValueHandle* inputs, const uint64_t n_inputs,
                                                           AtenRecordFunctionHandle* guard);
AOTI_SHIM_EXPORT AOTITorchError aoti_record_function_end(AtenRecordFunctionHandle guard);
/* nan_asserts (TORCHINDUCTOR_NAN_ASSERTS=1): fails with "At least one NaN in <tensor_name>" or "At least one
 * INF in <tensor_name>", as torch's does. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_check_inf_and_nan(const char* tensor_name, AtenTensorHandle tensor);

/* Handles and views: every one shares (refcounts) the storage of the tensor it came from. */
/* A placeholder handle (no storage, like PyTorch's undefined tensor) that an op assigns into: the
 * generated code makes one per output of a call through the proxy executor. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_new_uninitialized_tensor(AtenTensorHandle* ret);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                                             AtenTensorHandle* new_handle);
/* storage_offset is added to self's storage offset (PyTorch's offset_increment semantics). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self, int64_t ndim,
                                                               const int64_t* sizes_ptr, const int64_t* strides_ptr,
                                                               int64_t storage_offset,
                                                               AtenTensorHandle* ret_new_tensor);

/* Allocation. device_type is aoti_torch_device_type_cpu() or _cuda(); a CUDA allocation runs on
 * the caller's stream when one is selected (see shimgen_runtime/runtime.h). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t* sizes_ptr,
                                                         const int64_t* strides_ptr, int32_t dtype, int32_t device_type,
                                                         int32_t device_index, AtenTensorHandle* ret_new_tensor);
/* Page-locked host memory (cudaHostAlloc in a CUDA build, mlock(2) in a CPU-only build); never a
 * silent pageable fallback. device_type must be CPU. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_empty_strided_pinned(int64_t ndim, const int64_t* sizes_ptr,
                                                                const int64_t* strides_ptr, int32_t dtype,
                                                                int32_t device_type, int32_t device_index,
                                                                AtenTensorHandle* ret_new_tensor);
/* Borrowed memory: data is the storage's start; the tensor never frees it. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob(void* data, int64_t ndim, const int64_t* sizes_ptr,
                                                                   const int64_t* strides_ptr, int64_t storage_offset,
                                                                   int32_t dtype, int32_t device_type,
                                                                   int32_t device_index, AtenTensorHandle* ret);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_create_tensor_from_blob_v2(
    void* data, int64_t ndim, const int64_t* sizes_ptr, const int64_t* strides_ptr, int64_t storage_offset,
    int32_t dtype, int32_t device_type, int32_t device_index, AtenTensorHandle* ret, int32_t layout,
    const uint8_t* opaque_metadata, int64_t opaque_metadata_size);

/* Copies. copy_ supports host<->host, host<->device and device<->device (also across devices),
 * equal dtypes, and src broadcast to self's sizes. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_clone(AtenTensorHandle self, AtenTensorHandle* ret);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self, AtenTensorHandle* ret);
// Every element of self set to zero (any device, dtype and strides). AOTInductor's CUDA wrapper
// zeroes a buffer with it before a kernel that accumulates into it (make_zero_buffer).
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_zero_(AtenTensorHandle self);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking);

/* out = self, then out[indices] = values (accumulate: +=): AOTInductor's call for index_put_ with a
 * boolean-mask index, accumulation into int64/bool, or deterministic algorithms (generated code passes
 * one tensor as out and self). indices[i] null (None), an int64/int32 index tensor or a bool/uint8
 * mask; values of self's dtype, broadcast to the shape of self[indices]. CPU, or CUDA staged through
 * the host. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_index_put_out(AtenTensorHandle out, AtenTensorHandle self,
                                                         const AtenTensorHandle* indices, const uint32_t num_indices,
                                                         const AtenTensorHandle values, bool accumulate);

/* Checks and scalars for generated code (cond/while_loop, .item(), bounds checks). check throws (a
 * std::runtime_error, as PyTorch throws c10::Error) when cond is false; the model's entry point turns
 * it into its error code. item_<dtype> needs a 1-element tensor of exactly that dtype (float16 and
 * bfloat16 as their 16 bits, complex64 as two floats). assign_tensors_out makes a new handle on
 * src's storage. */
AOTI_SHIM_EXPORT void aoti_torch_check(bool cond, const char* func, const char* file, uint32_t line, const char* msg);
/* scalar_to_tensor_<dtype>: a new 0-d CPU tensor holding value (complex64/128 not provided). */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_float32(float value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_float64(double value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_uint8(uint8_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_uint16(uint16_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_uint32(uint32_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_uint64(uint64_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_int8(int8_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_int16(int16_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_int32(int32_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_int64(int64_t value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_bool(bool value, AtenTensorHandle* ret_new_tensor);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_float16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_float32(AtenTensorHandle tensor, float* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_float64(AtenTensorHandle tensor, double* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_uint8(AtenTensorHandle tensor, uint8_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_uint16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_uint32(AtenTensorHandle tensor, uint32_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_uint64(AtenTensorHandle tensor, uint64_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_int8(AtenTensorHandle tensor, int8_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_int16(AtenTensorHandle tensor, int16_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_int32(AtenTensorHandle tensor, int32_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_int64(AtenTensorHandle tensor, int64_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_bool(AtenTensorHandle tensor, bool* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_bfloat16(AtenTensorHandle tensor, uint16_t* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_item_complex64(AtenTensorHandle tensor, float* ret_value);
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_assign_tensors_out(AtenTensorHandle src, AtenTensorHandle* ret_dst);

/* Writes "Warning: <msg> (<func> at <file>:<line>)" to stderr. */
AOTI_SHIM_EXPORT void aoti_torch_warn(const char* func, const char* file, uint32_t line, const char* msg);

/* AOTInductor's call of an op that has no C shim: extern node `extern_node_index` of the model's
 * extern-kernel JSON, its dynamic arguments flattened (ints, then input and output tensors).
 * shimgen_model_open reads that JSON and shimgen_model_run passes the executor; the served targets
 * are listed in docs/coverage.md. */
AOTI_SHIM_EXPORT AOTITorchError aoti_torch_proxy_executor_call_function(AOTIProxyExecutorHandle proxy_executor,
                                                                        int extern_node_index, int num_ints,
                                                                        int64_t* flatten_int_args, int num_tensors,
                                                                        AtenTensorHandle* flatten_tensor_args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SHIMGEN_RUNTIME_SHIM_H_ */
