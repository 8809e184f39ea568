"""One proxy-executor call at a time, without compiling a model: the native-op tests of the proxy
targets (tests/integration/test_cpu_complex_layers.py) call a target with the arguments they choose
(strided and offset tensors, both complex dtypes, arguments left at their defaults, bad ones) and
compare what it returns with torch.

A driver model stands in for AOTInductor's generated code: a small C library with the model
container's C API (as shimgen/runtime/tests/fake_model.c), built here with the system C compiler,
whose run hands its inputs to ``aoti_torch_proxy_executor_call_function`` as the generated code
would: input 0 is an int64 tensor holding the flattened int arguments, the others are the call's
tensors, then one new uninitialized handle per output. It is packaged with an extern-kernel JSON of
one node, written from the arguments, and opened by the runtime's own loader, which builds its proxy
executor from that JSON as it does for a real package."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from ctypes import byref, c_int64, c_void_p
from pathlib import Path

import torch

from tests.aoti_helpers import shim

# The model container's C API a stand-in model exports, but for its run (AOTInductorModelContainerRun,
# which the stand-in writes): NUM_INPUTS and NUM_OUTPUTS are defined when it is compiled.
CONTAINER_C = r"""
#include <stddef.h>
#include <stdint.h>

typedef void* Handle;
static int g_container;

int AOTInductorModelContainerCreateWithDevice(void** container, size_t num_models, const char* device,
                                              const char* cubin_dir) {
  (void)num_models, (void)device, (void)cubin_dir;
  *container = &g_container;
  return 0;
}
int AOTInductorModelContainerDelete(void* container) { return container == &g_container ? 0 : 1; }
int AOTInductorModelContainerGetNumInputs(void* container, size_t* count) {
  *count = NUM_INPUTS;
  return container == &g_container ? 0 : 1;
}
int AOTInductorModelContainerGetNumOutputs(void* container, size_t* count) {
  *count = NUM_OUTPUTS;
  return container == &g_container ? 0 : 1;
}
"""


def compile_stand_in(work: Path, name: str, run_c: str, defines: dict[str, object]) -> Path:
    """CONTAINER_C plus ``run_c`` compiled with ``defines`` by the system C compiler: a model .so."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError("no C compiler (cc) for the stand-in model")
    source, library = work / f"{name}.c", work / f"{name}.so"
    source.write_text(CONTAINER_C + run_c)
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", *(f"-D{k}={v}" for k, v in defines.items()), str(source),
                    "-o", str(library)], check=True, capture_output=True, text=True)
    return library


def write_stand_in(library: Path, package: Path, nodes: list) -> Path:
    """A .pt2 holding ``library`` as its model and ``nodes`` as its extern-kernel JSON: what the
    runtime's loader opens as a package torch wrote."""
    with zipfile.ZipFile(package, "w", zipfile.ZIP_STORED) as archive:
        archive.write(library, f"{package.stem}/data/aotinductor/model/model.wrapper.so")
        archive.writestr(f"{package.stem}/data/aotinductor/model/model.wrapper.json", json.dumps({"nodes": nodes}))
    return package


DRIVER_C = r"""
#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)
#define SHIM(name) PASTE(SHIM_PREFIX, name)

int SHIM(aoti_torch_proxy_executor_call_function)(void*, int, int, int64_t*, int, Handle*);
int SHIM(aoti_torch_new_uninitialized_tensor)(Handle*);
int SHIM(aoti_torch_delete_tensor_object)(Handle);
int SHIM(aoti_torch_get_numel)(Handle, int64_t*);
int SHIM(aoti_torch_get_data_ptr)(Handle, void**);

/* inputs[0]: the flattened ints (int64, 1-d); inputs[1..]: the call's tensors. Like generated code,
 * the run takes (frees) its input handles when it succeeds; on failure the loader frees them. */
int AOTInductorModelContainerRun(void* container, Handle* inputs, size_t num_inputs, Handle* outputs,
                                 size_t num_outputs, void* stream, void* proxy_executor) {
  (void)stream;
  if (container != &g_container || num_inputs != NUM_TENSORS + 1 || num_outputs != NUM_OUTPUTS) return 1;
  int64_t count = 0;
  void* ints = NULL;
  if (SHIM(aoti_torch_get_numel)(inputs[0], &count) || SHIM(aoti_torch_get_data_ptr)(inputs[0], &ints)) return 1;
  Handle tensors[NUM_TENSORS + NUM_OUTPUTS + 1];
  for (int i = 0; i < NUM_TENSORS; ++i) tensors[i] = inputs[i + 1];
  for (int i = 0; i < NUM_OUTPUTS; ++i) {
    if (SHIM(aoti_torch_new_uninitialized_tensor)(&outputs[i])) return 1;
    tensors[NUM_TENSORS + i] = outputs[i];
  }
  int code = SHIM(aoti_torch_proxy_executor_call_function)(proxy_executor, 0, (int)count, (int64_t*)ints,
                                                          NUM_TENSORS + NUM_OUTPUTS, tensors);
  if (code != 0) return code;
  for (size_t i = 0; i < num_inputs; ++i) {
    SHIM(aoti_torch_delete_tensor_object)(inputs[i]);
    inputs[i] = NULL;
  }
  return 0;
}
"""

# torch.export's serialized ScalarType and MemoryFormat codes (torch/_export/serde/schema.py).
SCALAR_TYPES = {torch.float32: 7, torch.float64: 8, torch.complex64: 10, torch.complex128: 11, torch.int64: 5,
                torch.float16: 6, torch.bfloat16: 13}
MEMORY_FORMATS = {torch.contiguous_format: 1, torch.channels_last: 2, torch.channels_last_3d: 3,
                  torch.preserve_format: 4}


class ProxyCallError(Exception):
    """The call failed; the message is the runtime's (the proxy target's own words in it)."""


def refused(driver: ProxyDriver, hs, target: str, arguments) -> str:
    """The runtime's message for a call of ``target`` that must fail."""
    import pytest

    with pytest.raises(ProxyCallError) as caught:
        driver.call(hs, target, arguments)
    return str(caught.value)


class ProxyDriver:
    """Calls proxy targets of the runtime ``rt`` (tests.cpu_shim_tensors.Handles ``hs`` makes the
    tensor handles) through driver models built under ``work``."""

    def __init__(self, rt, work: Path) -> None:
        self.rt, self.work = rt, work
        self.libraries: dict[tuple[int, int], Path] = {}

    def _library(self, tensors: int, outputs: int) -> Path:
        key = (tensors, outputs)
        if key not in self.libraries:
            self.libraries[key] = compile_stand_in(self.work, f"driver_{tensors}_{outputs}", DRIVER_C, {
                "SHIM_PREFIX": self.rt.prefix, "NUM_TENSORS": tensors, "NUM_INPUTS": tensors + 1,
                "NUM_OUTPUTS": outputs})
        return self.libraries[key]

    def call(self, hs, target: str, arguments: list[tuple[str, object]], outputs: int = 1, *,
             defaulted_ints: tuple[int, ...] = (), output_list: bool = False) -> list[torch.Tensor]:
        """``target`` called with ``arguments`` (name, value) in schema order: a tensor (or handle) is as_tensor,
        an int as_int, a list of ints as_ints, a float as_float, a bool as_bool, None as_none, a
        torch.dtype as_scalar_type, a torch.memory_format as_memory_format, a torch.device as_device; an argument left out is
        left out of the JSON, as torch.export leaves one at its default; the generated code still passes
        an int default in the int array (inductor fills it from the schema): ``defaulted_ints``, after
        the given ints (the omitted argument is the schema's last int); ``output_list``: the ``outputs``
        tensors are one Tensor[] result (as_tensors, torch.split's), not one as_tensor each. Returns the outputs as
        torch tensors with the runtime's strides; raises ProxyCallError with the runtime's message."""
        inputs, tensors, ints = [], [], []
        for name, value in arguments:
            if isinstance(value, (torch.Tensor, c_void_p)):  # a torch tensor, or a handle the caller made
                arg, _ = {"as_tensor": {"name": name}}, tensors.append(value)
            elif isinstance(value, bool):
                arg = {"as_bool": value}
            elif isinstance(value, int):
                arg, _ = {"as_int": value}, ints.append(value)
            elif isinstance(value, float):
                arg = {"as_float": value}
            elif isinstance(value, list):
                arg, _ = {"as_ints": value}, ints.extend(value)
            elif value is None:
                arg = {"as_none": True}
            elif isinstance(value, torch.dtype):
                arg = {"as_scalar_type": SCALAR_TYPES[value]}
            elif isinstance(value, torch.memory_format):
                arg = {"as_memory_format": MEMORY_FORMATS[value]}
            elif isinstance(value, torch.device):  # as torch.export writes one: its type and index (null: none)
                arg = {"as_device": {"type": value.type, "index": value.index}}
            else:
                raise TypeError(f"{name}: {value!r}")
            inputs.append({"name": name, "arg": arg, "kind": 1})
        names = [{"name": f"out{i}"} for i in range(outputs)]
        results = [{"as_tensors": names}] if output_list else [{"as_tensor": name} for name in names]
        return self.call_raw(hs, {"target": target, "inputs": inputs, "outputs": results},
                             tensors, ints + list(defaulted_ints))

    def call_raw(self, hs, node: dict, tensors: list, ints: list[int]) -> list[torch.Tensor]:
        """One node as given (its JSON), the flattened tensors (torch tensors, or handles the caller
        made) and ints as the generated code passes them. Each output also records where the runtime
        put it: ``.address`` (its data pointer, the first element's), ``.offset`` (its storage offset)
        and ``.handle`` (freed with ``hs``), for the views' tests."""
        from shimgen.aoti.runner import Model

        outputs = sum(len(o["as_tensors"]) if "as_tensors" in o else "as_tensor" in o for o in node["outputs"])
        package = write_stand_in(self._library(len(tensors), outputs), self.work / "call.pt2", [{"node": node}])
        model = Model(self.rt, package)
        try:
            handles = [hs.of(torch.tensor(ints, dtype=torch.int64))]
            handles += [hs.of(t) if isinstance(t, torch.Tensor) else t for t in tensors]
            try:
                results = model.run_handles(handles)
            except Exception as error:  # the runtime's message, naming what the target refused
                raise ProxyCallError(str(error)) from None
            out = []
            for h in results:
                address, offset = c_void_p(), c_int64()
                assert shim(self.rt, "aoti_torch_get_data_ptr")(c_void_p(h), byref(address)) == 0
                assert shim(self.rt, "aoti_torch_get_storage_offset")(c_void_p(h), byref(offset)) == 0
                tensor = hs.tensor(c_void_p(h))
                tensor.address, tensor.offset, tensor.handle = address.value or 0, offset.value, c_void_p(h)
                out.append(tensor)
            return out
        finally:
            model.close()
