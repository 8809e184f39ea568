# cuBLAS for the runtime's CUDA GEMM fallbacks, from the PyPI package nvidia-cublas (no system
# install): the Python interpreter that drives the build locates the package's headers and
# libcublas.so.<major>. Defines the IMPORTED target shimgen_cublas and SHIMGEN_CUBLAS_LIBRARY_DIR
# (which goes into the runtime's RUNPATH, so the library finds cuBLAS at run time without
# LD_LIBRARY_PATH). Override with -DSHIMGEN_CUBLAS_ROOT=<dir holding include/cublas_v2.h and lib/>.
include_guard(GLOBAL)

if(NOT SHIMGEN_CUBLAS_ROOT)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -c [=[
import importlib.metadata as md
for name in ("nvidia-cublas", "nvidia-cublas-cu13", "nvidia-cublas-cu12"):
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        continue
    for f in dist.files or ():
        if f.name == "cublas_v2.h":
            print(dist.locate_file(f).resolve().parent.parent)
            raise SystemExit(0)
raise SystemExit(1)
]=]
      OUTPUT_VARIABLE _shimgen_cublas_root OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _shimgen_cublas_rc)
    if(_shimgen_cublas_rc EQUAL 0)
      set(SHIMGEN_CUBLAS_ROOT "${_shimgen_cublas_root}")
    endif()
  endif()
endif()
if((NOT SHIMGEN_CUBLAS_ROOT OR NOT EXISTS "${SHIMGEN_CUBLAS_ROOT}/include/cublas_v2.h") AND TARGET CUDA::cublas)
  # No PyPI package with headers: the CUDA toolkit's own cuBLAS, when it has one.
  add_library(shimgen_cublas INTERFACE IMPORTED GLOBAL)
  target_link_libraries(shimgen_cublas INTERFACE CUDA::cublas)
  set(SHIMGEN_CUBLAS_LIBRARY_DIR "${CUDAToolkit_LIBRARY_DIR}")
  message(STATUS "shimgen_runtime: cuBLAS from the CUDA toolkit (${CUDAToolkit_LIBRARY_DIR})")
  return()
endif()
if(NOT SHIMGEN_CUBLAS_ROOT OR NOT EXISTS "${SHIMGEN_CUBLAS_ROOT}/include/cublas_v2.h")
  message(FATAL_ERROR "shimgen_runtime: cuBLAS not found (the CUDA build needs it for the GEMM fallbacks). "
                      "Try: python -m pip install nvidia-cublas, or pass -DSHIMGEN_CUBLAS_ROOT=<dir with include/cublas_v2.h and lib/>")
endif()
file(GLOB _shimgen_cublas_libs "${SHIMGEN_CUBLAS_ROOT}/lib/libcublas.so.[0-9]*")
list(FILTER _shimgen_cublas_libs EXCLUDE REGEX "libcublas\\.so\\.[0-9]+\\.")  # the soname file, not .so.13.x.y
if(NOT _shimgen_cublas_libs)
  message(FATAL_ERROR "shimgen_runtime: no lib/libcublas.so.<N> under ${SHIMGEN_CUBLAS_ROOT}")
endif()
list(GET _shimgen_cublas_libs 0 _shimgen_cublas_lib)
set(SHIMGEN_CUBLAS_LIBRARY_DIR "${SHIMGEN_CUBLAS_ROOT}/lib")
add_library(shimgen_cublas SHARED IMPORTED GLOBAL)
set_target_properties(shimgen_cublas PROPERTIES IMPORTED_LOCATION "${_shimgen_cublas_lib}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${SHIMGEN_CUBLAS_ROOT}/include")
message(STATUS "shimgen_runtime: cuBLAS ${_shimgen_cublas_lib}")
