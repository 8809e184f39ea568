"""torchvision's Python models beside this machine's CPU torch: put this directory and a torchvision
installed with ``pip install --no-deps --target DIR`` on PYTHONPATH (docs/aoti.md, "torchvision's
models on the CPU runtime"). Only for checking tests/torchvision_zoo.py's models here.

PyPI's torchvision wheels are CUDA builds: their ``_C`` extension does not load beside CPU torch, and
``torchvision/__init__.py`` then fails in ``_meta_registrations``, which registers fake kernels for the
operators that ``_C`` defines. This module stands in for ``_meta_registrations``: when torchvision
imports it, torchvision's operators are registered from tests/torchvision_stand_in.py instead
(torchvision's schemas, tests/torchvision_reference.py's loops as kernels, torchvision's output
shapes as fake kernels) and torchvision is told it has its ops, so the operator models run too,
against those loops, and the detectors reach torch's export.
"""

import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[2] / "tests"


class _StandIn(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name == "torchvision._meta_registrations" else None

    def create_module(self, spec):
        return types.ModuleType(spec.name)

    def exec_module(self, module):
        import torchvision.extension

        if not torchvision.extension._has_ops():  # a CUDA build's _C that did not load
            sys.path.insert(0, str(_TESTS))
            import torchvision_stand_in

            if not hasattr(sys.modules["torch"].ops.torchvision, "roi_align"):
                torchvision_stand_in._register()
            torchvision.extension._has_ops = lambda: True
            torchvision.extension._check_cuda_version = lambda: -1  # version.py asks _C (absent) otherwise


sys.meta_path.insert(0, _StandIn())
