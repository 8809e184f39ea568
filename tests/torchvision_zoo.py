"""torchvision's models and ops for the zoo (tests/aoti_zoo.py): classification, segmentation, video,
optical flow and detection architectures with random weights (``weights=None``, no download), and
torchvision's own operators (``torchvision::roi_align``, ``nms``, ``deform_conv2d``, ...), which are
custom ops with no C shim: AOTInductor hands them to the proxy executor.

torchvision is imported only by the compiling child, from the model's source text. PyPI's torchvision
is built for CUDA torch, so it imports on the GPU machine (torch 2.11 + torchvision 0.26) and not
beside this machine's CPU torch 2.13: there every entry's compile is recorded as the library's
absence and its test skips (as the timm and diffusers entries without their libraries).

Sizes are small (64 px images, a few classes) so that a model compiles in under a minute; each model
keeps its architecture's own layers (shifted windows, channel shuffle, deformable sampling, ...).
"""

from __future__ import annotations

from aoti_zoo import REDRAW_ZEROS, Input, ZooModel

_IMAGE = (Input((2, 3, 64, 64)),)
_ATOL = 1e-4


def _model(module: str, builder: str, forward: str, inputs: tuple[Input, ...], atol: float, rtol: float,
           scale: tuple[int, ...] | None, redraw: bool = False) -> ZooModel:
    """``torchvision.<module>.<builder>``. ``scale``: a batch shape for tests/timm_models.py's
    unit_scale (in eval mode: batch norm's running statistics, no dropout), for the networks whose
    random initialisation loses the input (scripts/ring_sensitivity.py --table torchvision flagged
    them INSENSITIVE or WEAK); their outputs then grow to tens, so the tolerances become timm's
    rescaled ones, atol at least 1e-3 and rtol 1e-5. ``redraw``: every all-zero parameter drawn anew
    first (std 0.05), for a zero-initialised head (torchvision's ViT), which unit_scale cannot scale."""
    init = f"import torchvision\nself.m = torchvision.{module}.{builder}"
    if redraw:
        init += REDRAW_ZEROS
    if scale:
        init += _rescaled(scale)
        atol, rtol = max(atol, 1e-3), 1e-5
    return ZooModel(init, forward, inputs, atol, rtol)


def _rescaled(shape: tuple[int, ...]) -> str:
    """Source appended to a model whose network is ``self.m``: tests/timm_models.py's unit_scale on a
    batch of ``shape``, in eval mode."""
    return f"\nfrom timm_models import unit_scale\nunit_scale(self.m.eval(), {shape})"


def _classifier(builder: str, size: int = 64, atol: float = _ATOL, rtol: float = 1e-4,
                scale: bool = False, redraw: bool = False) -> ZooModel:
    """``torchvision.models.<builder>`` (weights=None) on 2 x 3 x size x size; the logits."""
    shape = (2, 3, size, size)
    return _model("models", builder, "return self.m(x)", (Input(shape),), atol, rtol, shape if scale else None,
                  redraw)


def _segmenter(builder: str, scale: bool = False) -> ZooModel:
    """``torchvision.models.segmentation.<builder>`` (no weights, no auxiliary head); its 'out' map."""
    return _model("models.segmentation", builder, "return self.m(x)['out']", _IMAGE, _ATOL, 1e-4,
                  _IMAGE[0].shape if scale else None)


def _video(builder: str, frames: int = 8, size: int = 32, scale: bool = False) -> ZooModel:
    """``torchvision.models.video.<builder>`` on 1 x 3 x frames x size x size clips; the logits
    (``scale``: measured on two clips, unit_scale's row difference needs a second)."""
    return _model("models.video", builder, "return self.m(x)", (Input((1, 3, frames, size, size)),), _ATOL, 1e-4,
                  (2, 3, frames, size, size) if scale else None)


def _detector(builder: str, scale: bool = False) -> ZooModel:
    """``torchvision.models.detection.<builder>`` on one 3 x 96 x 96 image; the boxes, scores and labels
    it keeps (every score kept: random weights score low). Data-dependent sizes (nms). ``scale``:
    measured on a batch of two images (the model takes a 4-d batch as its list of images)."""
    return _model("models.detection", builder, "d = self.m([x[0]])[0]\nreturn d['boxes'], d['scores'], d['labels']",
                  (Input((1, 3, 96, 96)),), _ATOL, 1e-4, (2, 3, 96, 96) if scale else None)


def _float16(model: ZooModel, atol: float = 2e-2) -> ZooModel:
    """``model`` in float16 (its parameters and inputs; torchvision's CUDA kernels take half), its
    floating outputs compared in float32."""
    names = ", ".join("xyzw"[:len(model.inputs)])
    body = "\n".join("    " + line for line in model.forward.splitlines())
    forward = (f"def body({names}):\n{body}\n"
               f"out = body(*(t.half() for t in ({names},)))\n"
               "out = out if isinstance(out, tuple) else (out,)\n"
               "return tuple(t.float() if t.is_floating_point() else t for t in out)")
    return ZooModel(model.init + "\nself.half()", forward, model.inputs, atol, atol)


# Boxes (x1, y1, x2, y2) over a 16 x 16 map made from a normal draw: corners in [0, 12), sizes in
# (0.5, 6.5); the first column an image index (0 or 1) where the op takes one.
_BOXES = ("xy = (y[:, :2].sigmoid() * 12)\nwh = y[:, 2:].sigmoid() * 6 + 0.5\n"
          "boxes = torch.cat([xy, xy + wh], dim=1)\n"
          "rois = torch.cat([(torch.arange(y.shape[0], device=y.device) % 2).to(y.dtype)[:, None], boxes], dim=1)\n")

TORCHVISION: dict[str, ZooModel] = {
    # ---- classification ----
    "tv_resnet18": _classifier("resnet18(num_classes=10)"),
    "tv_resnext50": _classifier("resnext50_32x4d(num_classes=10)"),
    "tv_mobilenet_v2": _classifier("mobilenet_v2(num_classes=10)", scale=True),
    "tv_mobilenet_v3_small": _classifier("mobilenet_v3_small(num_classes=10)", scale=True),
    "tv_efficientnet_b0": _classifier("efficientnet_b0(num_classes=10)", scale=True),
    "tv_efficientnet_v2_s": _classifier("efficientnet_v2_s(num_classes=10)", scale=True),
    "tv_regnet_y_400mf": _classifier("regnet_y_400mf(num_classes=10)"),
    "tv_shufflenet_v2": _classifier("shufflenet_v2_x0_5(num_classes=10)", scale=True),
    "tv_squeezenet": _classifier("squeezenet1_1(num_classes=10)"),
    "tv_densenet121": _classifier("densenet121(num_classes=10)"),
    "tv_googlenet": _classifier("googlenet(num_classes=10, aux_logits=False, init_weights=True)", scale=True),
    "tv_inception_v3": _classifier("inception_v3(num_classes=10, aux_logits=False, init_weights=True)", size=96,
                                   scale=True),
    "tv_mnasnet": _classifier("mnasnet0_5(num_classes=10)", scale=True),
    "tv_alexnet": _classifier("alexnet(num_classes=10)"),
    "tv_convnext_tiny": _classifier("convnext_tiny(num_classes=10)", atol=1e-3),
    "tv_swin_t": _classifier("swin_t(num_classes=10)", atol=1e-3),
    "tv_swin_v2_t": _classifier("swin_v2_t(num_classes=10)", atol=1e-3),
    # MaxViT's layout at a small width (maxvit_t's partition of 7 needs 224 px inputs): partitions of 4
    "tv_maxvit": _classifier("MaxVit(input_size=(64, 64), stem_channels=16, partition_size=4, block_channels=[16, 32],"
                             " block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10)", scale=True),
    # ViT-B's layout at a small width: patches of 8 over 32 px, 2 layers, 4 heads (its head is
    # zero-initialised: redrawn, or the logits are 0 for every image)
    "tv_vit": _classifier("VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,"
                          " hidden_dim=64, mlp_dim=128, num_classes=10)", size=32, scale=True, redraw=True),
    # ---- segmentation (dilated backbones, ASPP, bilinear upsampling) ----
    "tv_fcn_resnet50": _segmenter("fcn_resnet50(weights=None, weights_backbone=None, num_classes=5)"),
    "tv_deeplabv3_mobilenet": _segmenter(
        "deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5)", scale=True),
    "tv_lraspp": _segmenter("lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5)"),
    # ---- video (3-d convolutions, separable and factorized) ----
    "tv_r3d_18": _video("r3d_18(num_classes=10)"),
    "tv_r2plus1d_18": _video("r2plus1d_18(num_classes=10)"),
    "tv_s3d": _video("s3d(num_classes=10)", frames=16, size=224, scale=True),  # its last pool takes a 7 x 7 map
    "tv_swin3d_t": _video("swin3d_t(num_classes=10)", size=64),
    # ---- optical flow (RAFT: correlation pyramid, grid_sample lookups, a GRU update) ----
    "tv_raft_small": ZooModel("import torchvision\nself.m = torchvision.models.optical_flow.raft_small()",
                              "return self.m(x, y, num_flow_updates=3)[-1]",
                              # its correlation pyramid wants feature maps of 16 (images of 128) at least
                              (Input((1, 3, 128, 128)), Input((1, 3, 128, 128))), 1e-3, 1e-3),
    # ---- detection (RPN + RoI heads, anchors, nms) ----
    "tv_fasterrcnn_mobilenet": _detector(
        "fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=5,"
        " box_score_thresh=0.0, min_size=96, max_size=96)"),
    "tv_retinanet": _detector("retinanet_resnet50_fpn(weights=None, weights_backbone=None, num_classes=5,"
                              " score_thresh=0.0, min_size=96, max_size=96)"),
    "tv_ssdlite": _detector("ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5,"
                            " score_thresh=0.0)", scale=True),
    "tv_fcos": _detector("fcos_resnet50_fpn(weights=None, weights_backbone=None, num_classes=5,"
                         " score_thresh=0.0, min_size=96, max_size=96)"),
    # ---- libraries built on torchvision ----
    # Meta's Segment Anything (segment_anything 1.0 on PyPI, which imports torchvision's transforms at
    # import time), at a small width: the windowed ViT image encoder with relative positions and one
    # global block, the prompt encoder on two points, the two-way mask decoder (three masks and their
    # IoU scores). Zero-initialised parameters are redrawn. transformers' own SAM is in the ring
    # ("sam"); this is the original code.
    "sam_meta": ZooModel(
        "from functools import partial\n"
        "from segment_anything.modeling import ImageEncoderViT, PromptEncoder, MaskDecoder, TwoWayTransformer\n"
        "self.enc = ImageEncoderViT(img_size=64, patch_size=8, embed_dim=48, depth=2, num_heads=2, out_chans=32,"
        " norm_layer=partial(torch.nn.LayerNorm, eps=1e-6), window_size=4, global_attn_indexes=(1,), use_rel_pos=True)\n"
        "self.pe = PromptEncoder(embed_dim=32, image_embedding_size=(8, 8), input_image_size=(64, 64), mask_in_chans=8)\n"
        "self.md = MaskDecoder(num_multimask_outputs=3, transformer=TwoWayTransformer(depth=2, embedding_dim=32,"
        " mlp_dim=64, num_heads=2), transformer_dim=32, iou_head_depth=3, iou_head_hidden_dim=32)\n"
        "for p in self.parameters():\n    if not p.any():\n        torch.nn.init.normal_(p, std=0.05)",
        "emb = self.enc(x)\ncoords = y.sigmoid() * 64\n"
        "labels = torch.ones(coords.shape[:2], dtype=torch.int64, device=x.device)\n"
        "sparse, dense = self.pe(points=(coords, labels), boxes=None, masks=None)\n"
        "masks, iou = self.md(image_embeddings=emb, image_pe=self.pe.get_dense_pe(), sparse_prompt_embeddings=sparse,"
        " dense_prompt_embeddings=dense, multimask_output=True)\n"
        "return emb, masks, iou",
        (Input((1, 3, 64, 64)), Input((1, 2, 2))), _ATOL, 1e-4),
    # Ultralytics YOLOv8-n from its own model file (ultralytics 8.4 from PyPI, which imports torchvision
    # and OpenCV), five classes, on one 64 x 64 image: the C2f/SPPF backbone, the PAN neck and the
    # decoupled anchor-free head with its DFL box decoding; the decoded boxes and class scores
    "yolov8_ultralytics": ZooModel(
        "from ultralytics.nn.tasks import DetectionModel\n"
        "self.m = DetectionModel('yolov8n.yaml', nc=5, verbose=False)" + _rescaled((2, 3, 64, 64)),
        "return self.m(x)[0]", (Input((1, 3, 64, 64)),), 1e-3, 1e-5),
    # ---- torchvision's operators (custom ops: the proxy executor) ----
    # RoI pooling in each of its forms, over a 2-image feature map and rois drawn inside it
    "tv_roi_ops": ZooModel(
        "from torchvision import ops\nself.ops = ops",
        _BOXES + "o = self.ops\n"
        "a = o.roi_align(x, rois, (4, 4), spatial_scale=1.0, sampling_ratio=2, aligned=True)\n"
        "b = o.roi_align(x, rois, 3, spatial_scale=0.5, sampling_ratio=-1, aligned=False)\n"
        "c = o.roi_pool(x, rois, (3, 3), spatial_scale=1.0)\n"
        "d = o.ps_roi_align(x, rois, 2, spatial_scale=1.0, sampling_ratio=2)\n"
        "e = o.ps_roi_pool(x, rois, 2, spatial_scale=1.0)\n"
        "return a, b, c, d, e",
        (Input((2, 8, 16, 16)), Input((6, 4))), 1e-5, 1e-5),
    # A deformable convolution (DCNv2: offsets and a modulation mask predicted by ordinary convolutions)
    "tv_deform_conv": ZooModel(
        "from torchvision.ops import DeformConv2d\n"
        "self.offset = torch.nn.Conv2d(8, 2 * 2 * 9, 3, padding=1)\n"
        "self.mask = torch.nn.Conv2d(8, 2 * 9, 3, padding=1)\n"
        "self.dcn = DeformConv2d(8, 12, 3, padding=1, groups=2)\n"
        "self.plain = DeformConv2d(8, 6, 3, padding=2, dilation=2, bias=False)",
        "offset = self.offset(x) * 2\n"
        "return self.dcn(x, offset, self.mask(x).sigmoid()), self.plain(x, self.offset(x)[:, :18] * 0.5)",
        (Input((2, 8, 12, 10)),), 1e-4, 1e-4),
    # Box utilities and non-maximum suppression (data-dependent: how many boxes survive)
    "tv_box_ops": ZooModel(
        "from torchvision import ops\nself.ops = ops",
        _BOXES + "o = self.ops\nscores = x.sigmoid()\n"
        "keep = o.nms(boxes, scores, 0.3)\n"
        "kept = o.batched_nms(boxes, scores, rois[:, 0].long(), 0.3)\n"
        "return (keep, kept, o.box_iou(boxes, boxes), o.generalized_box_iou(boxes, boxes),"
        " o.box_area(boxes), o.box_convert(boxes, 'xyxy', 'cxcywh'))",
        (Input((6,)), Input((6, 4))), 1e-5, 1e-5),
    # A multi-scale RoI align over an FPN's levels (Faster R-CNN's box head input)
    "tv_multiscale_roi": ZooModel(
        "from torchvision.ops import FeaturePyramidNetwork, MultiScaleRoIAlign\n"
        "self.fpn = FeaturePyramidNetwork([8, 16], 8)\n"
        "self.pool = MultiScaleRoIAlign(['a', 'b'], 4, 2)",
        "from collections import OrderedDict\n"
        "feats = self.fpn(OrderedDict(a=x, b=torch.nn.functional.avg_pool2d(x.repeat(1, 2, 1, 1), 2)))\n"
        "xy = y[:, :2].sigmoid() * 40\nboxes = torch.cat([xy, xy + y[:, 2:].sigmoid() * 20 + 1], dim=1)\n"
        "return feats['a'], self.pool(feats, [boxes], [(64, 64)])",
        (Input((1, 8, 16, 16)), Input((5, 4))), 1e-4, 1e-4),
}
# The operators in float16 (a half-precision model's RoI head on the GPU; docs/aoti.md "float16 and
# bfloat16" under torchvision's operators): eager is torchvision's CUDA float16 kernels.
# Boxes from _BOXES' arithmetic differ by a half ulp between eager and inductor's fused kernels (and
# roi_pool rounds their edges to pixels): the float16 RoI entries take boxes on a 0.25 grid from integers,
# exact on both sides, so the comparison is of the operators alone.
_GRID_BOXES = ("c = y * 0.5\nxy = c[:, :2]\nwh = c[:, 2:] * 0.5 + 0.5\nboxes = torch.cat([xy, xy + wh], dim=1)\n"
               "rois = torch.cat([(torch.arange(y.shape[0], device=y.device) % 2).to(y.dtype)[:, None], boxes], dim=1)\n")


def _on_grid_boxes(model: ZooModel) -> ZooModel:
    assert model.forward.startswith(_BOXES)
    return ZooModel(model.init, _GRID_BOXES + model.forward[len(_BOXES):],
                    (*model.inputs[:-1], Input((6, 4), "index:24")), model.atol, model.rtol)


TORCHVISION.update({
    "tv_roi_ops_fp16": _float16(_on_grid_boxes(TORCHVISION["tv_roi_ops"])),
    "tv_box_ops_fp16": _float16(_on_grid_boxes(TORCHVISION["tv_box_ops"])),
    "tv_deform_conv_fp16": _float16(TORCHVISION["tv_deform_conv"]),
    "tv_multiscale_roi_fp16": _float16(TORCHVISION["tv_multiscale_roi"]),
})
