"""timm models for tests/arch_ring.py's ``timm_*`` entries: ``create(name, **kwargs)`` is
``timm.create_model(name, pretrained=False, **kwargs).eval()``, importable where torchvision is not.

Only the compiling child imports this (from a ring model's source text), so neither timm nor
torchvision is a test dependency. timm 1.0.31 imports torchvision at import time for two things the
ring's models never use: ``torchvision.ops.misc.FrozenBatchNorm2d`` (timm's freeze helpers and its
norm-layer registry) and, through ``timm/data/__init__.py``, torchvision's datasets and transforms
(timm's data pipeline; the models import only ``timm.data``'s constants). PyPI's torchvision wheels
are built for CUDA torch and fail to import beside CPU torch 2.13, so where torchvision does not
import, this module registers, before timm is first imported: a ``torchvision.ops.misc`` holding its
own ``FrozenBatchNorm2d`` (torchvision's behaviour, written here), and a ``timm.data`` package whose namespace is
``timm/data/constants.py`` (its submodules, ``timm.data.model_config`` among them, still import from
timm's own directory); the torchvision stand-in is removed again once timm is imported. timm's model
code itself runs unchanged. Without timm: ``ModuleNotFoundError: No module named 'timm'``, which
tests/aoti_zoo.py records as the entry's compile error and scripts/zoo_cpu.py reports as skipped.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path


def _torchvision_imports() -> bool:
    try:
        import torchvision.ops.misc
        import torchvision.transforms  # noqa: F401
    except Exception:  # absent, or built for another torch (ImportError, RuntimeError, OSError)
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
        return False
    return True


def _register_stand_ins() -> None:
    import torch

    class FrozenBatchNorm2d(torch.nn.Module):
        """torchvision.ops.misc.FrozenBatchNorm2d: BatchNorm2d with fixed statistics and affine."""

        def __init__(self, num_features: int, eps: float = 1e-5):
            super().__init__()
            self.eps = eps
            self.register_buffer("weight", torch.ones(num_features))
            self.register_buffer("bias", torch.zeros(num_features))
            self.register_buffer("running_mean", torch.zeros(num_features))
            self.register_buffer("running_var", torch.ones(num_features))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
            bias = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
            return x * scale + bias

    vision, ops, misc = (types.ModuleType(n) for n in ("torchvision", "torchvision.ops", "torchvision.ops.misc"))
    vision.__path__, ops.__path__ = [], []
    misc.FrozenBatchNorm2d = FrozenBatchNorm2d
    vision.ops, ops.misc = ops, misc
    sys.modules.update({"torchvision": vision, "torchvision.ops": ops, "torchvision.ops.misc": misc})

    data_dir = Path(importlib.util.find_spec("timm").origin).parent / "data"
    data = types.ModuleType("timm.data")
    data.__path__ = [str(data_dir)]
    data.__package__ = "timm.data"
    data.__file__ = str(data_dir / "__init__.py")
    exec(compile((data_dir / "constants.py").read_text(), str(data_dir / "constants.py"), "exec"), data.__dict__)
    sys.modules["timm.data"] = data


def timm_module():
    """``import timm``, with the stand-ins registered first where torchvision does not import. The
    torchvision stand-in leaves ``sys.modules`` once timm is imported, so the rest of the process (a
    compiling child builds transformers and diffusers models too, whose availability checks call
    ``importlib.util.find_spec("torchvision")``) sees no torchvision, as before."""
    if importlib.util.find_spec("timm") is None:
        raise ModuleNotFoundError("No module named 'timm'", name="timm")
    if "timm" in sys.modules or _torchvision_imports():
        import timm

        return timm
    _register_stand_ins()
    try:
        import timm
    finally:
        for name in ("torchvision.ops.misc", "torchvision.ops", "torchvision"):
            sys.modules.pop(name, None)
    return timm


def create(name: str, **kwargs):
    """``timm.create_model(name, pretrained=False, **kwargs)`` in eval mode (random weights)."""
    return timm_module().create_model(name, pretrained=False, **kwargs).eval()


def unit_scale(model, shape: tuple[int, ...], seed: int = 0):
    """``model`` with every convolution's and linear layer's weight rescaled, in the order one forward
    calls them, so that its input-dependent part is of order one on a random batch of ``shape``;
    returns ``model``.

    Deep networks at their random initialisation can lose the input: each layer's default init
    shrinks what varies with the input (a ReLU network at PyTorch's default conv init keeps about half
    of it per layer), while biases and norm shifts add constants, so after 32 ConvMixer blocks the
    outputs are the same for every image (1e-8 apart) and a ring comparison tests nothing. The
    difference of two batch rows cancels every bias (W x0 + b - (W x1 + b) = W (x0 - x1)), so its
    spread measures exactly the part of a layer's output that depends on the input: each weight is
    divided by it (biases kept), and the pass continues with the rescaled output, so later layers are
    measured on what they will see. A module called more than once is scaled at its first call."""
    import torch

    layers = (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d, torch.nn.Linear)
    done: set[int] = set()

    def rescale(module, _inputs, output):
        if id(module) in done or not isinstance(output, torch.Tensor) or output.shape[0] < 2:
            return None
        done.add(id(module))
        spread = float((output[0] - output[1]).std()) / 2 ** 0.5
        if not spread > 0:  # a layer that ignores its input (or a NaN): left as it is
            return None
        bias = 0 if module.bias is None else module.bias if isinstance(module, torch.nn.Linear) else \
            module.bias.reshape(-1, *[1] * (output.dim() - 2))  # channels last for a linear, at dim 1 for a conv
        with torch.no_grad():
            module.weight.div_(spread)
        return (output - bias) / spread + bias

    hooks = [m.register_forward_hook(rescale) for m in model.modules() if isinstance(m, layers)]
    try:
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            model(torch.randn(shape, generator=generator))
    finally:
        for hook in hooks:
            hook.remove()
    return model
