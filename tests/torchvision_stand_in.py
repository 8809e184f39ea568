"""torchvision's operators (``torch.ops.torchvision.*``) for a compiling process: torchvision's own where
it is installed (the GPU machine), else stand-ins registered here under torchvision's exact schemas,
whose kernels are tests/torchvision_reference.py's loops and whose fake kernels give torchvision's
output shapes (``nms`` a data-dependent length, as torchvision's own fake kernel).

What this makes testable without torchvision: the path a real package takes. AOTInductor lowers each
call to the proxy executor from the *schema* (argument names and kinds, SymInt sizes in the int array,
the float and bool statics, a data-dependent output), so a model compiled against these stand-ins
hands the runtime the same extern-kernel nodes a model compiled against torchvision does; the
runtime's kernels are then compared with the loops (tests/arch_ring.py's ``torchvision_ops``), and on the
GPU machine with torchvision itself (tests/integration/test_cpu_torchvision_ops.py, the ``tv_*`` models).
"""

from __future__ import annotations

import importlib.util

import torch

SCHEMAS = {
    "roi_align": "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                 "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
    "ps_roi_align": "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                    "SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)",
    "roi_pool": "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                "SymInt pooled_width) -> (Tensor, Tensor)",
    "ps_roi_pool": "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                   "SymInt pooled_width) -> (Tensor, Tensor)",
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "deform_conv2d": "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
                     "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, "
                     "SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor",
}
REAL = importlib.util.find_spec("torchvision") is not None
_LIBRARY = None  # kept alive: dropping a torch.library.Library unregisters its ops


def _numpy(t: torch.Tensor):
    return t.detach().cpu().contiguous().numpy()


def _register() -> None:
    global _LIBRARY
    import torchvision_reference as ref

    # The namespace's definitions (torchvision is absent, so nothing else defines them).
    _LIBRARY = torch.library.Library("torchvision", "DEF")
    for schema in SCHEMAS.values():
        _LIBRARY.define(schema)

    def back(array, like):
        return torch.from_numpy(array).to(like.device)

    def roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
        return back(ref.roi_align(_numpy(input), _numpy(rois), spatial_scale, pooled_height, pooled_width,
                                  sampling_ratio, aligned), input)

    def ps_roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio):
        out, mapping = ref.ps_roi_align(_numpy(input), _numpy(rois), spatial_scale, pooled_height, pooled_width,
                                        sampling_ratio)
        return back(out, input), back(mapping, input)

    def roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
        out, argmax = ref.roi_pool(_numpy(input), _numpy(rois), spatial_scale, pooled_height, pooled_width)
        return back(out, input), back(argmax, input)

    def ps_roi_pool(input, rois, spatial_scale, pooled_height, pooled_width):
        out, mapping = ref.ps_roi_pool(_numpy(input), _numpy(rois), spatial_scale, pooled_height, pooled_width)
        return back(out, input), back(mapping, input)

    def nms(dets, scores, iou_threshold):
        return back(ref.nms(_numpy(dets), _numpy(scores), iou_threshold), dets)

    def deform_conv2d(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w,
                      groups, offset_groups, use_mask):
        return back(ref.deform_conv2d(_numpy(input), _numpy(weight), _numpy(offset), _numpy(mask), _numpy(bias),
                                      (stride_h, stride_w), (pad_h, pad_w), (dilation_h, dilation_w), groups,
                                      offset_groups, use_mask), input)

    kernels = {"roi_align": roi_align, "ps_roi_align": ps_roi_align, "roi_pool": roi_pool,
               "ps_roi_pool": ps_roi_pool, "nms": nms, "deform_conv2d": deform_conv2d}
    for name, kernel in kernels.items():
        _LIBRARY.impl(name, kernel, "CPU")

    def pooled(input, rois, channels, pooled_height, pooled_width, second_dtype=None):
        out = input.new_empty((rois.shape[0], channels, pooled_height, pooled_width))
        return out if second_dtype is None else (out, input.new_empty(out.shape, dtype=second_dtype))

    fakes = {
        "roi_align": lambda input, rois, scale, ph, pw, ratio, aligned: pooled(input, rois, input.shape[1], ph, pw),
        "ps_roi_align": lambda input, rois, scale, ph, pw, ratio: pooled(input, rois, input.shape[1] // (ph * pw),
                                                                         ph, pw, torch.int32),
        "roi_pool": lambda input, rois, scale, ph, pw: pooled(input, rois, input.shape[1], ph, pw, torch.int32),
        "ps_roi_pool": lambda input, rois, scale, ph, pw: pooled(input, rois, input.shape[1] // (ph * pw), ph, pw,
                                                                 torch.int32),
        "nms": lambda dets, scores, threshold: dets.new_empty((torch.library.get_ctx().new_dynamic_size(),),
                                                              dtype=torch.int64),
        "deform_conv2d": lambda input, weight, offset, mask, bias, sh, sw, ph, pw, dh, dw, g, og, use_mask:
            input.new_empty((input.shape[0], weight.shape[0], offset.shape[2], offset.shape[3])),
    }
    for name, fake in fakes.items():
        torch.library.register_fake(f"torchvision::{name}", fake, lib=_LIBRARY)


if REAL:
    import torchvision  # noqa: F401 (registers torchvision's own operators)
elif not hasattr(torch.ops.torchvision, "roi_align"):
    _register()
