"""shimgen run: run an AOTInductor model on shimgen's runtime and write each output as .npy.

The smoke test for a machine without torch: only numpy and the built runtime library are needed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from shimgen.commands.common import add_config_option, load


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run an AOTInductor model (.pt2 or .so) on shimgen's runtime; write outputs as .npy",
        description="Load MODEL with the runtime's model loader, feed it the given .npy inputs (in order) "
        "and write output_<i>.npy for each output. The model must import the prefixed shims (see "
        "'shimgen prefix-imports'). The runtime is --runtime, else $SHIMGEN_RUNTIME, else the one 'shimgen build' "
        "made for the config (found from any directory), else one built into the per-user cache on first use.",
    )
    parser.add_argument("model", type=Path, metavar="MODEL", help=".pt2 package or model .so")
    parser.add_argument("-i", "--input", type=Path, action="append", default=[], metavar="FILE.npy",
                        help="an input array (repeat, in the model's input order)")
    parser.add_argument("-o", "--output-dir", type=Path, default=Path("."), metavar="OUT_DIR",
                        help="where output_<i>.npy go (default: current directory)")
    parser.add_argument("--runtime", type=Path, metavar="LIB",
                        help="libshimgen_runtime.so to use (default: $SHIMGEN_RUNTIME, else the one "
                        "'shimgen build' made for the config, else one built into the per-user cache on first use)")
    parser.add_argument("--device", default="cpu", help="device string for the model container (default: cpu)")
    parser.add_argument("--model", dest="model_name", metavar="NAME",
                        help="which model of a .pt2 package holding several (the error lists their names)")
    add_config_option(parser)
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    import os

    from shimgen.aoti.runner import (
        CHECK_INPUTS_ENV,
        check_output_dir,
        load_inputs,
        native_stderr,
        open_model,
        replay,
        save_outputs,
        with_model_output,
    )
    from shimgen.errors import ShimgenError, UsageError

    try:
        import numpy  # noqa: F401 - the one extra dependency of this command
    except ImportError:
        raise UsageError("shimgen run needs numpy: python -m pip install numpy") from None

    # AOTInductor models check their inputs' dtype, sizes and strides only when this is set; without
    # it a wrong-shaped .npy is read out of bounds. A smoke test should check (user's setting wins).
    os.environ.setdefault(CHECK_INPUTS_ENV, "1")
    check_output_dir(args.output_dir, args.input)
    inputs = load_inputs(args.input)
    config = load(args, default_to_bundled=True)  # the prefix, and which runtime to look for
    with open_model(args.model, runtime=args.runtime, device=args.device, config=config,
                    model_name=args.model_name) as model:
        failure: ShimgenError | None = None
        with native_stderr() as printed:  # a model's own error lines: after shimgen's, escaped
            try:
                outputs = model.run(inputs)
            except ShimgenError as exc:
                failure = exc
        if failure is not None:
            raise type(failure)([*failure.problems, *with_model_output(" ".join(failure.problems), printed)[1:]])
        replay(printed)
    for path in save_outputs(outputs, args.output_dir):
        print(f"wrote {path}")
    return 0
