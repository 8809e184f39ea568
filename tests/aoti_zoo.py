"""The model zoo: six small realistic models, compiled by stock torch (default inductor settings).

Device-agnostic definitions (the CPU tests and the GPU tests both use them). Each model is source
text, so the on-disk cache can be keyed by it, and so the process that runs the models never needs
to import torch. Run as a script, in its own process:

    python tests/aoti_zoo.py compile OUT_DIR [--device cpu|cuda] [--link-libtorch] [--keep-going] [NAME...]
        for each NAME (default: all) writes OUT_DIR/NAME/{model.pt2, in<i>.npy, out<i>.npy, meta.json};
        meta.json records the inputs/outputs count and the aoti_torch_* shims the model .so imports.
        A model with dynamic dims (ZooModel.dims) is exported with them, and each of its further run
        shapes gets OUT_DIR/NAME/run<r>/{in<i>.npy, out<i>.npy} (eager at that shape); meta.json then
        also records the run count and the ranges export kept for each dynamic symbol.
        A model whose cache key (torch version, device, link flag, model source, this format's
        version) matches what OUT_DIR/NAME holds is not compiled again.

From Python: ``ensure_compiled(names, device=..., link_libtorch=...)`` compiles what the cache lacks
(in a child process) and returns ``{name: Path to its directory}``. The cache lives in
``$SHIMGEN_ZOO_CACHE``, else ``<user cache dir>/shimgen/aoti-zoo``.

``$SHIMGEN_ZOO_VEC`` pins inductor's CPU code: ``on`` vectorized for the best ISA this CPU has (at::vec,
whose exp/log/tanh are SLEEF calls the model imports), ``avx2`` vectorized 256 bits wide, ``off`` scalar.
Unset, inductor decides; with ``link_libtorch=False`` in a fresh inductor cache its ISA probe (an
``exp`` through SLEEF, built without libtorch) fails to load and it falls back to scalar code, while a
cache that once held a libtorch-linked build hands it a probe that loads: vectorized. The setting is
part of the cache key.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

FORMAT = "1"  # bump when the layout of a cached model directory changes
# Inductor settings a model with dynamic dims compiles with. AOTInductor's input check (which
# `shimgen run` turns on) asserts every backed dynamic size >= 2, inductor's own assumption, though
# export declares the dim from its min (1: one prompt, one image); torch's documented switch drops
# that lower bound from the check alone (the upper bounds and static sizes stay checked).
# Read-only: aoti_compile_and_package writes its own keys into the dict it is given, which changed
# the cache key of every later model compiled in the same process (hence a copy is passed).
DYNAMIC_CONFIG = MappingProxyType({"aot_inductor.check_lowerbound": False})


@dataclass(frozen=True)
class Dim:
    """A named dynamic dimension (``torch.export.Dim(name, min=min, max=max)``) that inputs' sizes are
    written in. min and max both None: ``torch.export.Dim.AUTO`` (export decides whether the size stays
    dynamic and over which range; meta.json records what it kept)."""
    name: str
    min: int | None = None
    max: int | None = None


@dataclass(frozen=True)
class Input:
    shape: tuple[int, ...]
    """The export's example shape (the model's first run)."""
    kind: str = "randn"
    """'randn': float32 normal; 'index:<n>': int64 uniform in [0, n); 'ones': int64 ones (a mask);
    'leftpad:<n>': an int64 attention mask of ones whose first row starts with n zeros (left padding)."""
    dynamic: tuple[tuple[int, str], ...] = field(default=(), repr=False)
    """Dynamic dims of this input: (dim index, size expression over the model's Dim names: "S",
    "8 * P", "S + 1"). Kept out of repr, which the cache key of every static model is made of (their
    keys stay as they were); ``cache_key`` adds it for a dynamic model."""


@dataclass(frozen=True)
class ZooModel:
    init: str
    """Body of __init__ after super().__init__() (may be empty): layers are built here."""
    forward: str
    """Body of forward(self, x, y, z, w) (as many arguments as inputs)."""
    inputs: tuple[Input, ...]
    atol: float
    """Absolute tolerance against eager torch (float32; inductor's kernels and the runtime's
    BLAS/attention round differently from eager ATen)."""
    rtol: float = 0.0
    """Relative tolerance on top of atol (|got - eager| <= atol + rtol * |eager|): for outputs whose
    magnitude makes one float32 ulp exceed atol (a determinant of 3e4: LAPACKs round differently)."""
    freezing: bool = False
    """Compile with inductor's freezing=True (tests/frozen_zoo.py): oneDNN-fused ops and prepacked
    weights. Part of the cache key."""
    quantize: str = ""
    """"static" or "dynamic": PT2E int8 quantization before compiling (torchao's X86InductorQuantizer,
    its default config; calibrated on the inputs and two random draws of their shapes); the eager
    reference is the converted model. Needs freezing (the int8 oneDNN ops come from its passes).
    A key of ``TORCHAO_CONFIGS`` ("int8wo", "int8dyn", ...): ``torchao.quantization.quantize_`` with
    that config (tests/torchao_zoo.py); the eager reference is the quantized module (torchao's tensor
    subclasses), and the float model's outputs are kept beside it as ``float_out<i>.npy`` (a control:
    the quantization must show at the model's tolerance). Part of the cache key, with torchao's version."""
    dims: tuple[Dim, ...] = ()
    """The dynamic dims the inputs' ``dynamic`` expressions name; empty: a static export."""
    runs: tuple[tuple[tuple[str, int], ...], ...] = ()
    """Shapes to run at besides the example one: each binds every Dim name to a size (``at(B=3, S=20)``),
    and eager computes the expected outputs at it in the compiling process."""


# Appended to a model's source whose network is ``self.m``: every all-zero parameter (zero-initialised
# heads, layer-scale and adaLN-style gates) drawn anew, so that it takes part in what a ring compares
# (tests/arch_ring.py's timm and diffusers entries, tests/torchvision_zoo.py's ViT).
REDRAW_ZEROS = "\nfor p in self.m.parameters():\n    if not p.any():\n        torch.nn.init.normal_(p, std=0.05)"


def at(**sizes: int) -> tuple[tuple[str, int], ...]:
    """A run of a dynamic model: its dims' sizes (``at(B=3, S=20)``), as hashable data."""
    return tuple(sorted(sizes.items()))


_SIZE_NODES = (ast.Expression, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Name, ast.Load, ast.Constant)


def size_of(expression: str, names: dict) -> Any:
    """A size expression ("S", "8 * P", "S + 1") evaluated over ``names``: ints (a run's sizes) or
    torch.export.Dim objects (derived dims at export). Only names, integers and + - * // are accepted:
    an expression is data, not code."""
    tree = ast.parse(expression, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _SIZE_NODES) or (isinstance(node, ast.Constant) and type(node.value) is not int):
            raise ValueError(f"size expression {expression!r}: only dim names, integers and + - * // are allowed")
        if isinstance(node, ast.Name) and node.id not in names:
            raise ValueError(f"size expression {expression!r}: no dim named {node.id!r} (the model has {sorted(names)})")
    return eval(compile(tree, "<size>", "eval"), {"__builtins__": {}}, dict(names))


def run_count(model: ZooModel) -> int:
    """How many shapes the model runs at: the example's and its further runs."""
    return 1 + len(model.runs)


def shapes_at(model: ZooModel, run: int) -> list[tuple[int, ...]]:
    """Every input's shape at run ``run`` (0: the export's example shapes)."""
    if run == 0:
        return [spec.shape for spec in model.inputs]
    sizes = dict(model.runs[run - 1])
    shapes = []
    for spec in model.inputs:
        shape = list(spec.shape)
        for index, expression in spec.dynamic:
            shape[index] = size_of(expression, sizes)
        shapes.append(tuple(shape))
    return shapes


def lost_dims(model: ZooModel, ranges: dict[str, list[str]]) -> list[str]:
    """The declared dims (those with a range; Dim.AUTO's are export's to choose) whose [min, max] the
    exported program does not keep as a symbol's range (meta.json's "ranges"; pure): export
    specialized them to the example, or unified two of them, and the package cannot run the shapes
    the declaration promises. Each kept range answers for one dim."""
    kept = [tuple(bounds) for bounds in ranges.values()]
    lost = []
    for dim in model.dims:
        if dim.min is None and dim.max is None:
            continue
        wanted = (str(dim.min), str(dim.max))
        if wanted in kept:
            kept.remove(wanted)
        else:
            lost.append(dim.name)
    return lost


def check_dynamic(name: str, model: ZooModel) -> None:
    """A dynamic model's declaration is consistent (pure: no torch): every expression names declared
    dims of existing axes, every run binds exactly the declared dims within their ranges, and a model
    with runs has dims. ValueError naming the model otherwise."""
    declared = {dim.name: dim for dim in model.dims}
    if model.runs and not model.dims:
        raise ValueError(f"{name}: runs at other shapes need dynamic dims (ZooModel.dims)")
    for position, spec in enumerate(model.inputs):
        for index, expression in spec.dynamic:
            if not 0 <= index < len(spec.shape):
                raise ValueError(f"{name}: input {position} has {len(spec.shape)} dims; dynamic dim {index} does not exist")
            size_of(expression, dict.fromkeys(declared, 1))
    for run in model.runs:
        sizes = dict(run)
        if set(sizes) != set(declared):
            raise ValueError(f"{name}: run {sizes} must bind exactly the dims {sorted(declared)}")
        for key, size in sizes.items():
            dim = declared[key]
            if (dim.min is not None and size < dim.min) or (dim.max is not None and size > dim.max):
                raise ValueError(f"{name}: run {sizes} puts {key} outside [{dim.min}, {dim.max}]")


# The six models of issue 13, deliverable 3.
ZOO: dict[str, ZooModel] = {
    "mlp": ZooModel(
        "self.fc1 = torch.nn.Linear(32, 64)\nself.fc2 = torch.nn.Linear(64, 16)",
        "return self.fc2(torch.nn.functional.gelu(self.fc1(x)))",
        (Input((8, 32)),), 1e-5),
    "layernorm_softmax": ZooModel(
        "self.norm = torch.nn.LayerNorm(32)",
        "return torch.softmax(self.norm(x), dim=-1)",
        (Input((4, 8, 32)),), 1e-6),
    "causal_sdpa": ZooModel(
        "",
        "return torch.nn.functional.scaled_dot_product_attention(x, y, z, is_causal=True)",
        (Input((2, 4, 16, 8)), Input((2, 4, 16, 8)), Input((2, 4, 16, 8))), 1e-5),
    "conv_relu_mean": ZooModel(
        "self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)",
        "return torch.relu(self.conv(x)).mean(dim=(2, 3))",
        (Input((2, 3, 16, 16)),), 1e-5),
    "embedding": ZooModel(
        "self.table = torch.nn.Embedding(100, 16)",
        "return self.table(x)",
        (Input((4, 8), "index:100"),), 0.0),
    "transformer_block": ZooModel(
        "self.heads = 4\n"
        "self.norm1 = torch.nn.LayerNorm(32)\n"
        "self.qkv = torch.nn.Linear(32, 96)\n"
        "self.proj = torch.nn.Linear(32, 32)\n"
        "self.norm2 = torch.nn.LayerNorm(32)\n"
        "self.up = torch.nn.Linear(32, 128)\n"
        "self.down = torch.nn.Linear(128, 32)",
        "b, t, c = x.shape\n"
        "q, k, v = self.qkv(self.norm1(x)).split(c, dim=-1)\n"
        "q, k, v = (u.view(b, t, self.heads, c // self.heads).transpose(1, 2) for u in (q, k, v))\n"
        "a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        "x = x + self.proj(a.transpose(1, 2).reshape(b, t, c))\n"
        "return x + self.down(torch.nn.functional.silu(self.up(self.norm2(x))))",
        (Input((2, 16, 32)),), 2e-5),
}

ARGS = ("x", "y", "z", "w")

# What each model's .so imports beyond / short of the 20-shim baseline (tests/integration/test_aoti.py
# BASELINE), measured on torch 2.13.0 CPU with link_libtorch=False (meta.json records the full set of
# every compile). name -> (extra shims, baseline shims not imported).
CPU_IMPORTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "mlp": (frozenset({"aoti_torch_cpu_addmm_out", "aoti_torch__reinterpret_tensor", "aoti_torch_layout_strided"}),
            frozenset()),
    "layernorm_softmax": (frozenset({"aoti_torch_layout_strided"}), frozenset()),
    # SDPA's fallback allocates its own outputs: no empty_strided at all.
    "causal_sdpa": (frozenset({"aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"}),
                    frozenset({"aoti_torch_empty_strided"})),
    "conv_relu_mean": (frozenset({"aoti_torch_cpu_convolution", "aoti_torch_layout_strided"}), frozenset()),
    # The gather is a generated kernel; its bounds check calls aoti_torch_check.
    "embedding": (frozenset({"aoti_torch_check", "aoti_torch_dtype_int64", "aoti_torch_layout_strided"}),
                  frozenset()),
    "transformer_block": (frozenset({"aoti_torch_cpu_addmm_out", "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu",
                                     "aoti_torch__reinterpret_tensor", "aoti_torch_layout_strided"}), frozenset()),
}


def models() -> dict[str, ZooModel]:
    """The six models above, the real architectures of tests/arch_zoo.py, the wider ring of
    tests/arch_ring.py, the frozen models of tests/frozen_zoo.py, the dynamic-shape ring of
    tests/dynamic_ring.py, the torchao-quantized models of tests/torchao_zoo.py, torchvision's
    models and ops of tests/torchvision_zoo.py, torchaudio's models of tests/torchaudio_zoo.py and
    other libraries' models of tests/libs_zoo.py (torch_geometric, kornia, x-transformers, open_clip, MONAI,
    e3nn, SpeechBrain, PEFT, Ultralytics), by name."""
    from arch_ring import RING  # both import this module: loaded lazily
    from arch_zoo import ARCH
    from dynamic_ring import DYNAMIC
    from frozen_zoo import FROZEN
    from libs_zoo import LIBS
    from torchao_zoo import TORCHAO
    from torchaudio_zoo import TORCHAUDIO
    from torchvision_zoo import TORCHVISION

    return {**ZOO, **ARCH, **RING, **FROZEN, **DYNAMIC, **TORCHAO, **TORCHVISION, **TORCHAUDIO, **LIBS}


def source(name: str) -> str:
    """The model's complete Python source: what the cache key and the compile both use."""
    model = models()[name]
    args = ", ".join(ARGS[: len(model.inputs)])
    init = "".join(f"        {line}\n" for line in model.init.splitlines())
    forward = "".join(f"        {line}\n" for line in model.forward.splitlines())
    return (f"class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n{init}"
            f"    def forward(self, {args}):\n{forward}")


def torch_version() -> str:
    from importlib.metadata import version

    return version("torch")


_VEC_MODES = {"on": {"TORCHINDUCTOR_VEC_ISA_OK": "1"},
              "avx2": {"TORCHINDUCTOR_VEC_ISA_OK": "1", "ATEN_CPU_CAPABILITY": "avx2"},
              "off": {"TORCHINDUCTOR_VEC_ISA_OK": "0"}}


def vec_mode() -> str:
    """``$SHIMGEN_ZOO_VEC`` ('' when unset); anything but on/avx2/off is refused."""
    mode = os.environ.get("SHIMGEN_ZOO_VEC", "")
    if mode and mode not in _VEC_MODES:
        raise ValueError(f"SHIMGEN_ZOO_VEC={mode!r}: expected one of {', '.join(_VEC_MODES)}")
    return mode


def vec_env() -> dict[str, str]:
    """The environment that makes a compiling process follow ``vec_mode()``."""
    return dict(_VEC_MODES.get(vec_mode(), {}))


def local_imports(text: str) -> list[Path]:
    """The modules of tests/ that a model's source imports (tests/hf_auto.py): part of what it compiles."""
    here = Path(__file__).resolve().parent
    names = re.findall(r"^\s*(?:from|import)\s+(\w+)", text, re.MULTILINE)
    return [here / f"{module}.py" for module in sorted(set(names)) if (here / f"{module}.py").is_file()]


def cache_key(name: str, device: str, link_libtorch: bool) -> str:
    text = source(name)
    parts = [FORMAT, torch_version(), device, str(link_libtorch), repr(models()[name].inputs), text]
    # A helper the source imports changes the compiled model as much as the source does.
    parts += [hashlib.sha256(path.read_bytes()).hexdigest() for path in local_imports(text)]
    model = models()[name]
    if model.dims:  # appended only here: a static model's key is what it always was
        parts.append(repr((model.dims, model.runs, [spec.dynamic for spec in model.inputs], dict(DYNAMIC_CONFIG))))
    if vec_mode():
        parts.append(f"vec={vec_mode()}")
    if models()[name].freezing:  # only then: every other model keeps its cached key
        parts.append("freezing")
    if models()[name].quantize:
        parts.append(f"quantize={models()[name].quantize}")
    if models()[name].quantize in TORCHAO_CONFIGS:  # only these: the PT2E models keep their keys
        parts += [TORCHAO_CONFIGS[models()[name].quantize], f"torchao={torchao_version()}"]
    text = "\n".join(parts)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cache_root() -> Path:
    explicit = os.environ.get("SHIMGEN_ZOO_CACHE")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir("shimgen")) / "aoti-zoo"


def model_dir(root: Path, name: str, device: str, link_libtorch: bool) -> Path:
    return root / f"{name}-{device}{'-linked' if link_libtorch else ''}-{cache_key(name, device, link_libtorch)}"


def meta(directory: Path) -> dict:
    return json.loads((directory / "meta.json").read_text())


def runs_of(directory: Path) -> int:
    """How many shapes the compiled model was run at by eager (1 for a static model)."""
    return int(meta(directory).get("runs", 1))


def run_dir(directory: Path, run: int = 0) -> Path:
    """Where run ``run``'s inputs and eager outputs lie: the model's directory for the example shape,
    run<r>/ under it for the others."""
    return directory if run == 0 else directory / f"run{run}"


def inputs_of(directory: Path, run: int = 0) -> list[Path]:
    return [run_dir(directory, run) / f"in{i}.npy" for i in range(meta(directory)["inputs"])]


def expected_of(directory: Path, run: int = 0) -> list[Path]:
    return [run_dir(directory, run) / f"out{i}.npy" for i in range(meta(directory)["outputs"])]


def float_expected_of(directory: Path) -> list[Path]:
    """The float model's outputs of a torchao-quantized model (run 0): the control's reference."""
    return [directory / f"float_out{i}.npy" for i in range(meta(directory)["outputs"])]


def error_of(directory: Path) -> Path:
    """Where a keep-going compile records why ``directory``'s model did not export or compile."""
    return directory.with_name(directory.name + ".error")


def library_absent(error: Path) -> str | None:
    """The module a recorded compile error says is not installed (a ring entry of a library the
    compiling environment lacks: timm, diffusers), else None. Such an error is not kept as the model's
    verdict: the cache key does not name the library, so installing it compiles the model next time."""
    match = re.match(r"ModuleNotFoundError: No module named '([\w.]+)'", error.read_text())
    return match.group(1) if match else None


def ensure_compiled(names: list[str], *, device: str = "cpu", link_libtorch: bool = False,
                    root: Path | None = None, timeout: float = 1800, keep_going: bool = False) -> dict[str, Path]:
    """Compile the models the cache lacks (one child process for all of them); name -> directory.
    keep_going: a model that fails to export or compile leaves ``error_of(directory)`` (the reason,
    cached like a model) instead of failing the rest."""
    root = root or cache_root()
    wanted = {name: model_dir(root, name, device, link_libtorch) for name in names}
    missing = [name for name, d in wanted.items()
               if not (d / "meta.json").is_file() and not (keep_going and error_of(d).is_file()
                                                           and not library_absent(error_of(d)))]
    if missing:
        root.mkdir(parents=True, exist_ok=True)
        # Several compiling children where the machine has the cores (the GPU machine: 16), one on CI's
        # two: a model's compile is mostly single-threaded C++ and Triton work.
        jobs = max(1, min(len(missing), int(os.environ.get("SHIMGEN_ZOO_JOBS", 0)) or (os.cpu_count() or 1) // 4))
        running = []
        for index in range(jobs):
            chunk = missing[index::jobs]
            command = [sys.executable, str(Path(__file__).resolve()), "compile", str(root), "--device", device]
            command += (["--link-libtorch"] if link_libtorch else []) + (["--keep-going"] if keep_going else []) + chunk
            # A private inductor cache per root and child: no cross-talk with other users of the default one.
            env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(root / "inductor-cache" / str(index)), **vec_env()}
            running.append((chunk, subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                                    text=True, env=env)))
        failed = []
        for chunk, child in running:
            try:
                _, stderr = child.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                _, stderr = child.communicate()
                stderr += f"\n(timed out after {timeout} s)"
            if child.returncode != 0:
                failed.append(f"compiling {chunk} failed:\n{stderr[-4000:]}")
        if failed:
            raise RuntimeError("\n".join(failed))
    return wanted


# ---- the compiling side (imports torch) ------------------------------------------------------------


def _make_inputs(model: ZooModel, device: str, run: int = 0):
    import torch

    made = []
    for spec, shape in zip(model.inputs, shapes_at(model, run)):
        if spec.kind == "randn":
            made.append(torch.randn(*shape, device=device))
        elif spec.kind == "ones":
            made.append(torch.ones(*shape, dtype=torch.int64, device=device))
        elif spec.kind.startswith("leftpad:"):
            mask = torch.ones(*shape, dtype=torch.int64, device=device)
            mask[0, : int(spec.kind.split(":")[1])] = 0
            made.append(mask)
        elif spec.kind.startswith("index:"):
            made.append(torch.randint(0, int(spec.kind.split(":")[1]), shape, dtype=torch.int64, device=device))
        else:
            raise ValueError(f"unknown input kind {spec.kind}")
    return tuple(made)


# ZooModel.quantize -> the torchao 0.18 config that ``quantize_`` applies (source text, evaluated with
# torch and torchao.quantization as ``q`` in scope). Defaults of each config except where named; the
# set_inductor_config=True default is kept (what a user gets; compile_one restores inductor's config
# after each model).
TORCHAO_CONFIGS: MappingProxyType[str, str] = MappingProxyType({
    "int8wo": "q.Int8WeightOnlyConfig()",
    "int8dyn": "q.Int8DynamicActivationInt8WeightConfig()",
    "fp8wo": "q.Float8WeightOnlyConfig()",
    "intx4wo": "q.IntxWeightOnlyConfig(weight_dtype=torch.int4)",
    "int8dyn-intx4": "q.Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4)",
})


def torchao_version() -> str:
    from importlib.metadata import version

    return version("torchao")


def unquantized_module(name: str, device: str):
    """The zoo model as its compile builds it, seeded the same way (so the same weights as its
    packages): the module from its source on ``device``, in eval mode."""
    import torch

    torch.manual_seed(0)
    namespace: dict = {"torch": torch}
    exec(source(name), namespace)
    return namespace["M"]().to(device).eval()


def eager_module(name: str, device: str):
    """What the model's package computes, in eager torch: unquantized_module, quantized when the
    model says so (the benchmarks' eager row)."""
    module = unquantized_module(name, device)
    model = models()[name]
    if model.quantize:
        module = _quantized(module, _make_inputs(model, device), model, device)
    return module


def _quantized(module, inputs, model: ZooModel, device: str):
    """The quantized model. PT2E ("static", "dynamic": torch's documented X86-through-Inductor path):
    export, prepare with X86InductorQuantizer's default config, calibrate, convert. A key of
    TORCHAO_CONFIGS: ``torchao.quantization.quantize_`` with that config, in place."""
    import torch

    if model.quantize in TORCHAO_CONFIGS:
        import torchao.quantization as q

        q.quantize_(module, eval(TORCHAO_CONFIGS[model.quantize], {"torch": torch, "q": q}))
        return module
    if model.quantize not in ("static", "dynamic"):
        raise ValueError(f"quantize={model.quantize!r}: expected static, dynamic or one of {sorted(TORCHAO_CONFIGS)}")
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer import x86_inductor_quantizer as xiq

    config = xiq.get_default_x86_inductor_quantization_config(is_dynamic=model.quantize == "dynamic")
    with torch.no_grad():
        graph = torch.export.export(module, inputs).module()
        prepared = prepare_pt2e(graph, xiq.X86InductorQuantizer().set_global(config))
        prepared(*inputs)
        for _ in range(2):
            prepared(*_make_inputs(model, device))
        return convert_pt2e(prepared)


def _dynamic_shapes(model: ZooModel):
    """torch.export's dynamic_shapes for the model: per input {dim index: Dim or derived Dim}, or None."""
    import torch

    Dim = torch.export.Dim
    dims = {d.name: Dim.AUTO if d.min is None and d.max is None else Dim(d.name, min=d.min, max=d.max)
            for d in model.dims}
    return tuple({index: size_of(expression, dims) for index, expression in spec.dynamic} or None
                 for spec in model.inputs)


def _export(name: str, module, inputs, model: ZooModel):
    """torch.export's program for the model, and whether its guards became runtime asserts.

    Some torch versions (2.11 on CUDA, measured) refuse a dynamic export over guards that hold for every
    value in the declared range but that their solver cannot prove ("Not all values of S ... satisfy
    the generated guard min(16*S, 32*S) == 16*S"). torch's documented answer is
    ``prefer_deferred_runtime_asserts_over_guards``: the guard becomes a check in the compiled model, so a
    shape that breaks it fails there with torch's message rather than at export. Tried only after the
    plain export refused, so that a model torch exports as it is compiles as before."""
    import torch

    if not model.dims:
        return torch.export.export(module, inputs), False
    shapes = _dynamic_shapes(model)
    try:
        return torch.export.export(module, inputs, dynamic_shapes=shapes), False
    except Exception as refusal:  # torch's UserError (constraint violation); anything else re-raised below
        if not any(words in str(refusal) for words in ("Constraints violated", "Not all values of")):
            raise
        try:
            program = torch.export.export(module, inputs, dynamic_shapes=shapes,
                                          prefer_deferred_runtime_asserts_over_guards=True)
        except Exception:
            raise refusal from None  # torch's first reason is the one to read
        print(f"{name}: exported with deferred runtime asserts (torch refused the guards: "
              f"{str(refusal).splitlines()[0]})", file=sys.stderr)
        return program, True


def _ranges(program) -> dict[str, list[str]]:
    """The range export kept for each symbol of the program (a dim it specialized has none)."""
    return {str(symbol): [str(bounds.lower), str(bounds.upper)] for symbol, bounds in program.range_constraints.items()}


def shim_imports(pt2: Path) -> list[str]:
    """The shim names (plain or prefixed) the package's model .so imports, sorted."""
    import zipfile

    repo = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(repo))
    from shimgen.aoti.prefix_imports import imported_aoti_names

    with zipfile.ZipFile(pt2) as archive, tempfile.TemporaryDirectory() as scratch:
        (member,) = [n for n in archive.namelist() if n.endswith(".so")]
        so = Path(scratch) / "model.so"
        so.write_bytes(archive.read(member))
        return sorted(imported_aoti_names(so))


def compile_one(root: Path, name: str, device: str, link_libtorch: bool) -> Path:
    import numpy as np
    import torch
    import torch._inductor.config as inductor_config

    inductor_config.aot_inductor.link_libtorch = link_libtorch
    inductor_config.freezing = models()[name].freezing
    # The reference is float32 arithmetic: eager cuDNN (RNNs, convolutions) may use TF32 by default,
    # which differs from exact float32 by ~1e-4, while the compiled model's cuBLAS calls do not.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    # Likewise nn.MultiheadAttention's eval fast path (native MHA, _transformer_encoder_layer_fwd),
    # which export never traces: on an H100, transformer_encoder's fast path lay 2.4e-4 from a
    # float64 reference, while the traced math, shimgen and torch's loader lay within 4e-7 of it
    # (scripts/cuda_arbiter.py, 2026-12-08). The reference is the computation the package holds.
    torch.backends.mha.set_fastpath_enabled(False)
    final = model_dir(root, name, device, link_libtorch)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    # torchao's quantize_ configs set inductor options for the process (set_inductor_config=True):
    # restored after this model, whether it compiled or not, so that they reach only its compile.
    saved_config = inductor_config.save_config()
    try:
        model = models()[name]
        check_dynamic(name, model)
        module = unquantized_module(name, device)
        # The float model, kept for the control's reference outputs (quantize_ works in place).
        float_module = copy.deepcopy(module) if model.quantize in TORCHAO_CONFIGS else None
        if model.quantize:
            module = _quantized(module, _make_inputs(model, device), model, device)
        # Every run's inputs and eager outputs before the export (which may leave traces on the module).
        runs = []
        for run in range(run_count(model)):
            inputs = _make_inputs(model, device, run)
            with torch.no_grad():
                eager = module(*inputs)
            runs.append((inputs, eager if isinstance(eager, tuple) else (eager,)))
        inputs, outputs = runs[0]
        floats = ()
        if float_module is not None:
            with torch.no_grad():
                floats = float_module(*inputs)
            floats = floats if isinstance(floats, tuple) else (floats,)
        # Inductor freezes only a graph compiled with grad disabled (the inference path).
        with torch.no_grad() if model.freezing else contextlib.nullcontext():
            program, deferred = _export(name, module, inputs, model)
            torch._inductor.aoti_compile_and_package(program, package_path=str(work / "model.pt2"),
                                                     inductor_configs=dict(DYNAMIC_CONFIG) if model.dims else None)
        for i, tensor in enumerate(floats):
            np.save(work / f"float_out{i}.npy", tensor.contiguous().cpu().numpy())
        for run, (run_inputs, run_outputs) in enumerate(runs):
            run_dir(work, run).mkdir(exist_ok=True)
            for i, tensor in enumerate(run_inputs):
                np.save(run_dir(work, run) / f"in{i}.npy", tensor.cpu().numpy())
            for i, tensor in enumerate(run_outputs):
                np.save(run_dir(work, run) / f"out{i}.npy", tensor.contiguous().cpu().numpy())
        info = {"name": name, "device": device, "link_libtorch": link_libtorch, "torch": torch.__version__,
                "inputs": len(inputs), "outputs": len(outputs), "imports": shim_imports(work / "model.pt2")}
        if model.dims:
            info.update(runs=len(runs), ranges=_ranges(program), deferred_asserts=deferred)
        (work / "meta.json").write_text(json.dumps(info, indent=1))
        if final.exists():
            shutil.rmtree(final)
        os.replace(work, final)  # a directory appears complete or not at all
        error_of(final).unlink(missing_ok=True)  # an earlier attempt's reason (its library was absent)
    finally:
        inductor_config.load_config(saved_config)
        shutil.rmtree(work, ignore_errors=True)
    return final


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "compile":
        sys.stderr.write(__doc__ or "")
        return 2
    root = Path(argv[1])
    rest = argv[2:]
    os.environ.update(vec_env())  # before torch reads its configuration
    device = "cpu"
    if "--device" in rest:
        at = rest.index("--device")
        device = rest[at + 1]
        del rest[at:at + 2]
    link = "--link-libtorch" in rest
    keep_going = "--keep-going" in rest
    names = [n for n in rest if n not in ("--link-libtorch", "--keep-going")] or list(ZOO)
    unknown = [n for n in names if n not in models()]
    if unknown:
        sys.stderr.write(f"unknown model(s) {unknown}; the zoo has {sorted(models())}\n")
        return 2
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        if not keep_going:
            print(compile_one(root, name, device, link))
            continue
        try:
            print(compile_one(root, name, device, link), flush=True)
        except Exception as error:  # one model's failure is recorded, the rest go on
            reason = f"{type(error).__name__}: {error}".strip().splitlines()
            # A C++ compile error's first "error:" line says what failed (torch 2.11's CUDA header lacks
            # aoti_torch_cuda__grouped_mm, say); the message's last lines are only the macro's note.
            first_error = next((line.split(" error: ", 1)[1].strip() for line in reason if " error: " in line), "")
            headline = f"{reason[0]} ({first_error[:240]})" if first_error else reason[0]
            error_of(model_dir(root, name, device, link)).write_text("\n".join([headline, *reason[-3:]]) + "\n")
            print(f"{name}: {reason[0][:300]}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
