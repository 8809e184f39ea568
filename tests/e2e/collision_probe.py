"""Load libraries in a given order in this (throw-away) process, then report where a plugin's shim
call landed. Run by test_collision.py in a subprocess, so a wrong binding cannot hurt pytest.

    python collision_probe.py [--global LIB]... [--local LIB]... PLUGIN

--global libraries are loaded first with RTLD_GLOBAL (the library exporting the plain names);
--local ones next with RTLD_LOCAL (the prefixed shim library); then the plugin. Prints one JSON
object: the plugin's model_run() result and, from dladdr() on the address the plugin bound its
float32 shim to, the file and symbol it resolved to.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys


class DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--global", dest="global_libs", action="append", default=[])
    parser.add_argument("--local", dest="local_libs", action="append", default=[])
    parser.add_argument("plugin")
    args = parser.parse_args(argv)

    keep = []  # the handles must stay open while the plugin runs
    for path in args.global_libs:
        keep.append(ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL))
    for path in args.local_libs:
        keep.append(ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL))
    try:
        plugin = ctypes.CDLL(args.plugin, mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as exc:
        print(json.dumps({"load_error": str(exc)}))
        return 0
    plugin.model_run.restype = ctypes.c_int32
    plugin.model_float32_shim.restype = ctypes.c_void_p

    libc = ctypes.CDLL(None)
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    info = DlInfo()
    address = plugin.model_float32_shim()
    if not libc.dladdr(address, ctypes.byref(info)):
        print(json.dumps({"load_error": "dladdr found no object for the shim address"}))
        return 0
    print(json.dumps({
        "value": plugin.model_run(),
        "file": os.path.realpath(info.dli_fname.decode()),
        "symbol": info.dli_sname.decode() if info.dli_sname else None,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
