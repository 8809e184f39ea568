"""torchvision's Python models beside this machine's CPU torch: put this directory and a torchvision
installed with ``pip install --no-deps --target DIR`` on PYTHONPATH (docs/aoti.md, "torchvision's
models on the CPU runtime"). Only for checking tests/torchvision_zoo.py's models here.

PyPI's torchvision wheels are CUDA builds: their ``_C`` extension does not load beside CPU torch, and
``torchvision/__init__.py`` then fails in ``_meta_registrations``, which registers fake kernels for the
operators that ``_C`` defines. An empty module stands in for it, so the pure-Python models import; the
operators themselves (nms, roi_align, deform_conv2d, the detectors) still need ``_C`` and fail with
torchvision's own "Couldn't load custom C++ ops".
"""

import sys
import types

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
