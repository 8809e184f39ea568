"""torchaudio's Python models beside this machine's CPU torch: put this directory and a torchaudio
installed with ``pip install --no-deps --target DIR`` on PYTHONPATH (docs/aoti.md, "torchaudio's
models on the CPU runtime"). Only for checking tests/torchaudio_zoo.py's models here.

PyPI's torchaudio 2.11 wheel is a CUDA build (2.11.1+cu132): its extensions (``lib/_torchaudio.so``,
``libtorchaudio.so``) need ``libc10_cuda.so`` and ``libcudart.so.13``, so ``torchaudio/__init__.py``
fails in ``torchaudio._extension``, whose ``_load_lib`` lets the loader's OSError through. This module
wraps ``torchaudio._extension.utils._load_lib`` as it is imported: a library that does not load counts
as one that is not there (False), the state torchaudio itself handles for a build without its
extension (``_IS_TORCHAUDIO_EXT_AVAILABLE`` False: lfilter's Python loop, no forced_align or RNN-T
loss). The models are pure Python and need none of it. Where the extension loads (the GPU machine's
CUDA torch), nothing changes.
"""

import importlib.abc
import importlib.machinery
import sys

_NAME = "torchaudio._extension.utils"


class _Wrapped(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        load = module._load_lib

        def _load_lib(lib: str) -> bool:
            try:
                return load(lib)
            except OSError:  # a CUDA build's library beside CPU torch
                return False

        module._load_lib = _load_lib


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != _NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = _Wrapped(spec.loader)
        return spec


sys.meta_path.insert(0, _Finder())
