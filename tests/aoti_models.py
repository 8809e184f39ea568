"""AOTInductor models for the tests: compiled with the installed torch at test time, never checked in.

Run as a script (in its own process, so the process that runs the models never imports torch):

    python tests/aoti_models.py compile OUT_DIR [--link-libtorch] [--cuda] [NAME...]
        writes OUT_DIR/NAME.pt2, OUT_DIR/NAME.in<i>.npy (seeded inputs) and OUT_DIR/NAME.out<i>.npy
        (eager torch's outputs on those inputs), and OUT_DIR/NAME.json (input/output counts)
    python tests/aoti_models.py beside-libtorch SPEC.json
        the collision scenario (see ``beside_libtorch``); prints a JSON report

The helpers at the bottom (``bound_library``, ``mapped_base``) read which library a loaded model's
GOT entries point into: the dynamic linker's own answer to "who serves this call".
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

# name -> (forward source, input shapes, absolute tolerance against eager).
# The tolerances: inductor's C++ kernels and eager ATen round differently (eager's vectorised sin,
# reduction order, and this runtime's naive double-accumulating matmul vs. MKL/OpenBLAS sgemm).
MODELS: dict[str, tuple[str, list[tuple[int, ...]], float]] = {
    # Pointwise: the 20-shim baseline set.
    "pointwise": ("return (x.sin() * 2 + y).relu()", [(8, 16), (8, 16)], 1e-6),
    # Reductions along both axes.
    "reduction": ("return x.sum(dim=1) + x.amax(dim=0).sum()", [(8, 16)], 1e-5),
    # Broadcasting, and outputs that are views of one buffer: imports aoti_torch__reinterpret_tensor
    # (a transpose, and a strided slice at a storage offset).
    "broadcast": ("z = x * y.view(1, -1) + x[:, :1]\n        return z.t(), z[1:, ::2]", [(8, 16), (16,)], 0.0),
    # Matmul: a fallback op, aoti_torch_cpu_mm_out, then a generated relu kernel.
    "matmul": ("return (x @ y).relu()", [(8, 16), (16, 4)], 1e-5),
}

ARGS = ("x", "y")

# name -> (forward source, [(input shape, torch dtype name)]): models whose inputs and outputs are
# half-precision. Compiled only when named (``compile OUT_DIR mixed_half``), so the loops over
# MODELS stay as they are. Reference values are saved as their raw bits (``.npy`` of uint16, the
# dtype in NAME.json), so the expected values never pass through the code under test.
DTYPE_MODELS: dict[str, tuple[str, list[tuple[tuple[int, ...], str]]]] = {
    # bf16 in, bf16 out (dtype code 15); fp16 in, fp16 out; a float32 output from both.
    "mixed_half": ("return (x * 2 + 1).relu(), (y * 3).abs(), x.float() + y.float()",
                   [((8, 16), "bfloat16"), ((8, 16), "float16")]),
    # float8 in and out (e4m3fn, e5m2: ml_dtypes arrays), a float32 output from both.
    "float8_io": ("return (x.float() * 2).to(torch.float8_e5m2), (y.float() - 1).to(torch.float8_e4m3fn), "
                  "x.float() + y.float()",
                  [((8, 16), "float8_e4m3fn"), ((8, 16), "float8_e5m2")]),
}

# name -> (parameter shapes, forward source, input shapes, absolute tolerance against eager): models
# with weights, compiled only when named (``compile OUT_DIR mmap_weights``). mmap_weights is compiled
# with aot_inductor.force_mmap_weights, so that AOTInductor appends the weights to the model .so after
# its ELF image, 16 KiB-aligned, as it does by itself for weights over 2 GB, instead of linking them
# in. 65 KiB of weights: the overlay spans several 16 KiB blocks.
MMAP_MODELS: dict[str, tuple[dict[str, tuple[int, ...]], str, list[tuple[int, ...]], float]] = {
    "mmap_weights": ({"w": (64, 256), "b": (256,)}, "return (x * self.w + self.b).sin()", [(64, 256)], 1e-6),
    # The weights in a blob beside the .so (data/aotinductor/<model>/<so>_weights.blob), not in it.
    "blob_weights": ({"w": (64, 256), "b": (256,)}, "return (x * self.w + self.b).sin()", [(64, 256)], 1e-6),
}
# How each of them keeps its weights outside the .so's image.
WEIGHTS_PLACEMENT: dict[str, dict[str, object]] = {
    "mmap_weights": {"aot_inductor.force_mmap_weights": True},
    "blob_weights": {"aot_inductor.package_constants_in_so": False,
                     "aot_inductor.package_constants_on_disk_format": "binary_blob"},
}


def _module(name: str):
    import torch

    if name in MMAP_MODELS:
        body, shapes = MMAP_MODELS[name][1], MMAP_MODELS[name][2]
    elif name in DTYPE_MODELS:
        body, shapes = DTYPE_MODELS[name][0], DTYPE_MODELS[name][1]
    else:
        body, shapes = MODELS[name][:2]
    args = ", ".join(ARGS[: len(shapes)])
    namespace: dict = {"torch": torch}
    exec(f"class M(torch.nn.Module):\n    def forward(self, {args}):\n        {body}\n", namespace)
    module = namespace["M"]()
    for parameter, shape in (MMAP_MODELS[name][0] if name in MMAP_MODELS else {}).items():
        module.register_parameter(parameter, torch.nn.Parameter(torch.randn(*shape), requires_grad=False))
    return module


def _float64_reference(module, inputs):
    import copy

    return copy.deepcopy(module).double()(*(tensor.double() for tensor in inputs)).float()


def compile_models(out_dir: Path, names: list[str], link_libtorch: bool, device: str = "cpu") -> None:
    import numpy as np
    import torch
    import torch._inductor.config as inductor_config

    inductor_config.aot_inductor.link_libtorch = link_libtorch
    torch.manual_seed(0)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name in DTYPE_MODELS:
            _compile_half(out_dir, name, device)
            continue
        shapes = MMAP_MODELS[name][2] if name in MMAP_MODELS else MODELS[name][1]
        module = _module(name).to(device)
        inputs = tuple(torch.randn(*shape).to(device) for shape in shapes)
        with torch.no_grad():
            eager = module(*inputs)
            if name in MMAP_MODELS:
                # Its reference is float64 rounded once: one CI run's eager float32 sin came back 1.5e-4
                # off on the half of the rows torch's worker thread computed (2026-12-04, unexplained),
                # while the compiled model agreed with float64 to 3.6e-7.
                eager = _float64_reference(module, inputs)
        outputs = eager if isinstance(eager, tuple) else (eager,)
        program = torch.export.export(module, inputs)
        with inductor_config.patch(WEIGHTS_PLACEMENT.get(name, {})):
            torch._inductor.aoti_compile_and_package(program, package_path=str(out_dir / f"{name}.pt2"))
        for i, tensor in enumerate(inputs):
            np.save(out_dir / f"{name}.in{i}.npy", tensor.cpu().numpy())
        for i, tensor in enumerate(outputs):
            np.save(out_dir / f"{name}.out{i}.npy", tensor.contiguous().cpu().numpy())
        (out_dir / f"{name}.json").write_text(json.dumps({"inputs": len(inputs), "outputs": len(outputs)}))


def _compile_half(out_dir: Path, name: str, device: str = "cpu") -> None:
    import numpy as np
    import torch

    torch.manual_seed(0)
    module = _module(name)
    inputs = tuple(torch.randn(*shape).to(getattr(torch, dtype)).to(device) for shape, dtype in DTYPE_MODELS[name][1])
    with torch.no_grad():
        outputs = module(*inputs)
    inputs_cpu = tuple(t.cpu() for t in inputs)
    program = torch.export.export(module, inputs)
    torch._inductor.aoti_compile_and_package(program, package_path=str(out_dir / f"{name}.pt2"))

    def bits(tensor):  # half-precision and float8 values as their raw bits; other dtypes as they are
        t = tensor.contiguous().cpu()
        if t.is_floating_point() and t.element_size() == 2:
            return t.view(torch.int16).numpy().view(np.uint16)
        return t.view(torch.uint8).numpy() if t.is_floating_point() and t.element_size() == 1 else t.numpy()

    for i, tensor in enumerate(inputs_cpu):
        np.save(out_dir / f"{name}.in{i}.npy", bits(tensor))
    for i, tensor in enumerate(outputs):
        np.save(out_dir / f"{name}.out{i}.npy", bits(tensor))
    dtypes = {"inputs": [str(t.dtype).removeprefix("torch.") for t in inputs],
              "outputs": [str(t.dtype).removeprefix("torch.") for t in outputs]}
    (out_dir / f"{name}.json").write_text(json.dumps({"inputs": len(inputs), "outputs": len(outputs),
                                                      "dtypes": dtypes}))


# ---- who serves a loaded model's imports ----------------------------------------------------------


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def library_of(address: int) -> str:
    """The file of the loaded object containing ``address`` (dladdr)."""
    libc = ctypes.CDLL(None)
    info = _DlInfo()
    if not libc.dladdr(ctypes.c_void_p(address), ctypes.byref(info)) or not info.dli_fname:
        return "?"
    return info.dli_fname.decode()


def mapped_base(path: str) -> int:
    """Load address of the object mapped from ``path`` (its mapping at file offset 0)."""
    real = str(Path(path).resolve())
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5] == real and int(parts[2], 16) == 0:
            return int(parts[0].split("-")[0], 16)
    raise LookupError(f"{path} is not mapped in this process")


def bound_library(so_path: str, symbols: set[str]) -> dict[str, str]:
    """For each of ``symbols`` the object file its GOT slot in the loaded ``so_path`` points into.

    The model is dlopened with RTLD_NOW, so every slot is filled at load: reading it is the dynamic
    linker's actual binding, not a guess from symbol tables.
    """
    import lief

    lief.logging.disable()
    base = mapped_base(so_path)
    binary = lief.ELF.parse(so_path)
    found: dict[str, str] = {}
    for relocation in binary.relocations:  # .rela.dyn (GLOB_DAT) and .rela.plt (JUMP_SLOT)
        if not relocation.has_symbol or relocation.symbol.name not in symbols:
            continue
        symbol = relocation.symbol
        target = ctypes.c_uint64.from_address(base + relocation.address).value
        found[symbol.name] = library_of(target)
    return found


# ---- the collision scenario, run in a child process ----------------------------------------------


def _global_library(name: str) -> str:
    """Which loaded library the global scope resolves ``name`` to (dlsym(RTLD_DEFAULT))."""
    libc = ctypes.CDLL(None)
    libc.dlsym.restype = ctypes.c_void_p
    libc.dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    address = libc.dlsym(None, name.encode())
    return library_of(address) if address else "unresolved"


def _plain_run(torch_lib, so_path: str, inputs: list) -> list:
    """Runs an unrewritten model with tensors made by libtorch's own plain shims."""
    import numpy as np

    h = ctypes.c_void_p
    i64 = ctypes.c_int64
    model = ctypes.CDLL(so_path, mode=ctypes.RTLD_LOCAL)
    container = h()
    assert model.AOTInductorModelContainerCreateWithDevice(ctypes.byref(container), ctypes.c_size_t(1), b"cpu",
                                                           None) == 0
    count = ctypes.c_size_t()
    model.AOTInductorModelContainerGetNumOutputs(container, ctypes.byref(count))
    handles = (h * len(inputs))()
    for i, array in enumerate(inputs):
        sizes = (i64 * array.ndim)(*array.shape)
        strides = (i64 * array.ndim)(*(s // array.itemsize for s in array.strides))
        assert torch_lib.aoti_torch_create_tensor_from_blob_v2(
            h(array.ctypes.data), i64(array.ndim), sizes, strides, i64(0), ctypes.c_int32(6), ctypes.c_int32(0),
            ctypes.c_int32(0), ctypes.byref(handles, i * ctypes.sizeof(h)), ctypes.c_int32(0), None, i64(0)) == 0
    outputs = (h * count.value)()
    assert model.AOTInductorModelContainerRun(container, handles, ctypes.c_size_t(len(inputs)), outputs, count,
                                              None, None) == 0
    result = []
    for handle in outputs:
        data, numel = h(), i64()
        torch_lib.aoti_torch_get_data_ptr(h(handle), ctypes.byref(data))
        torch_lib.aoti_torch_get_numel(h(handle), ctypes.byref(numel))
        result.append(np.ctypeslib.as_array((ctypes.c_float * numel.value).from_address(data.value)).copy())
        torch_lib.aoti_torch_delete_tensor_object(h(handle))
    model.AOTInductorModelContainerDelete(container)
    return result


def beside_libtorch(spec: dict) -> dict:
    """Loads libtorch_cpu.so RTLD_GLOBAL, then shimgen's runtime, then runs every model in ``spec``."""
    import numpy as np

    from shimgen.aoti.capi import Runtime
    from shimgen.aoti.prefix_imports import imported_aoti_names
    from shimgen.aoti.runner import Model

    torch_lib = ctypes.CDLL(spec["libtorch"], mode=ctypes.RTLD_GLOBAL)
    runtime = Runtime(Path(spec["runtime"]), spec["prefix"])
    report: dict = {
        "plain_global": _global_library("aoti_torch_empty_strided"),
        "prefixed_global": _global_library(spec["prefix"] + "aoti_torch_empty_strided"),
        "models": {}, "negative": {},
    }
    for entry in spec["models"]:
        imports = imported_aoti_names(Path(entry["so"]))
        inputs = [np.load(p) for p in entry["inputs"]]
        with Model(runtime, Path(entry["path"])) as model:
            handles = [runtime.tensor_from_array(a) for a in inputs]
            before = runtime.shim_call_count()
            results = model.run_handles(handles)
            # The loader itself makes one new handle per input; every other call came from the model.
            served = runtime.shim_call_count() - before - len(handles)
            outputs = [runtime.array_from_tensor(h) for h in results]
            for h in [*handles, *results]:
                runtime.delete(h)
            bound = bound_library(str(model.so_path), imports)
        expected = [np.load(p) for p in entry["expected"]]
        report["models"][entry["key"]] = {
            "served": served,
            "imports": sorted(imports),
            "bound_to": sorted(set(bound.values())),
            "unbound": sorted(imports - set(bound)),
            "shapes_equal": [o.shape == e.shape for o, e in zip(outputs, expected)] + [len(outputs) == len(expected)],
            "max_error": max(float(np.abs(o.astype(np.float64) - e).max()) if o.shape == e.shape else float("inf")
                             for o, e in zip(outputs, expected)),
        }
    for entry in spec.get("negative", []):
        inputs = [np.load(p) for p in entry["inputs"]]
        before = runtime.shim_call_count()
        outputs = _plain_run(torch_lib, entry["so"], inputs)
        served = runtime.shim_call_count() - before
        plain = imported_aoti_names(Path(entry["so"]))
        bound = bound_library(entry["so"], plain)
        expected = [np.load(p).ravel() for p in entry["expected"]]
        report["negative"][entry["key"]] = {
            "served": served,
            "bound_to": sorted(set(bound.values())),
            "max_error": max(float(np.abs(o - e).max()) for o, e in zip(outputs, expected)),
        }
    return report


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "compile":
        rest = sys.argv[3:]
        link = "--link-libtorch" in rest
        device = "cuda" if "--cuda" in rest else "cpu"  # DTYPE_MODELS and the MMAP_MODELS
        chosen = [n for n in rest if n not in ("--link-libtorch", "--cuda")] or list(MODELS)
        compile_models(Path(sys.argv[2]), chosen, link, device)
    elif len(sys.argv) == 3 and sys.argv[1] == "beside-libtorch":
        print(json.dumps(beside_libtorch(json.loads(Path(sys.argv[2]).read_text()))))
    else:
        sys.exit(__doc__)
