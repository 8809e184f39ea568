"""Nine more libraries' models for the zoo (tests/aoti_zoo.py), at small sizes with random weights
(no download):

- torch_geometric 2.8's graph neural networks (message passing: gathers over an edge list, then
  scatter/index_add/scatter_reduce per node);
- kornia 0.9's geometric and image operators and feature networks;
- x-transformers 2.31's transformer building blocks (rotary, ALiBi, T5 relative bias, ViT,
  encoder-decoder);
- open_clip 3.3's CLIP towers (ViT, ModifiedResNet, its custom attention block, attentional pooling)
  and CoCa;
- MONAI 1.6's medical-imaging networks (3-d UNets, SwinUNETR, UNETR, DynUNet, a 3-d DenseNet);
- e3nn 0.6's equivariant blocks (tensor products, spherical harmonics, gates: NequIP's and MACE's);
- SpeechBrain 1.1's speech models (ECAPA-TDNN, CRDNN, light GRU, Conformer ASR, SepFormer);
- PEFT 0.22's adapters, unmerged, on a small Llama and a conv net (LoRA, DoRA, IA3, LoHa, LoKr,
  VeRA, BOFT, OFT, HRA, FourierFT);
- Ultralytics 8.4's detectors (YOLOv8, YOLO11 for detection, segmentation, pose, oriented boxes and
  classification, YOLOv10, YOLO12, YOLO26, RT-DETR).

The libraries are imported only by the compiling child, from the model's source text. None is in the
venv: they are installed beside it with ``pip install --no-deps --target DIR`` and put on PYTHONPATH.
torch_geometric needs xxhash, psutil and pyparsing; x-transformers needs einops, einx, frozendict,
loguru and torch-einops-utils; kornia needs kornia_rs; open_clip needs ftfy, regex, wcwidth and timm;
MONAI needs einops; e3nn needs opt_einsum and opt_einsum_fx; SpeechBrain needs hyperpyyaml,
ruamel.yaml, sentencepiece, joblib and torchaudio; PEFT needs accelerate (and the venv's
transformers); Ultralytics needs opencv-python-headless and torchvision (timm too). PyPI's torchvision
and torchaudio are CUDA builds: ``--no-deps`` installs of them load beside CPU torch through
scripts/zoo_site/ on PYTHONPATH. Where a library is absent every entry's compile is recorded as its
absence and its row is SKIPPED.

Graphs are two of ten nodes each (20 nodes, 60 random edges, self-loops and repeats possible);
kornia's and open_clip's images are 32 x 32 (inputs go through a sigmoid where an operator wants
[0, 1]); sequences are 16 tokens; the other libraries' shapes are at their sections. Left out,
upstream: torch_geometric's SchNet/DimeNet (radius_graph needs pyg-lib) and DynamicEdgeConv (knn
needs torch_cluster); kornia's SOLD2 (export refuses a data-dependent size: "Could not extract
specialized integer from data-dependent expression u0", torch 2.13) and DISK's forward (its
DISKFeatures output is no pytree type export knows; its dense heads are kept below); SpeechBrain's
Xvector (export: "Unexpected key _export_root.blocks.16, expected _export_root"); e3nn's Wigner D from
input angles (so3_generators asserts on data).
"""

from __future__ import annotations

from aoti_zoo import Input, ZooModel
from torchvision_zoo import _rescaled

_ATOL = 1e-4
_RTOL = 1e-5
# 20 nodes of 16 features and 60 directed edges (sources in row 0, targets in row 1)
_GRAPH = (Input((20, 16)), Input((2, 60), "index:20"))
_PYG = "import torch_geometric.nn as gnn\n"
_IMAGE = (Input((2, 3, 32, 32)),)
_K = "import kornia as K\nx = torch.sigmoid(x)\n"
_TOKENS = (Input((2, 16), "index:64"),)
_XT = "import x_transformers as xt\n"
_WRAPPER = "self.m = xt.TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=xt.{}(dim=32, depth=2, heads=4, {}))"

_VOLUME = (1, 1, 16, 16, 16)
_E3 = "from e3nn import o3, nn as enn\n"
_OC = "from open_clip.model import CLIP, CLIPTextCfg as T, CLIPVisionCfg as V\n"
_OC_TEXT = "T(context_length=16, vocab_size=64, width=32, heads=4, layers=2{})"
_OC_VIT = "V(layers=2, width=64, head_width=16, patch_size=8, image_size=32{})"  # 4 x 4 patches of 8 x 8


def _clip(vision: str, image: int = 32, text: str = "") -> ZooModel:
    """An open_clip CLIP of one vision tower with a small text tower: both normalised embeddings."""
    return ZooModel(_OC + f"self.m = CLIP(32, {vision}, {_OC_TEXT.format(', ' + text if text else '')})",
                    "return self.m.encode_image(x, normalize=True), self.m.encode_text(y, normalize=True)",
                    (Input((2, 3, image, image)), Input((2, 16), "index:64")), _ATOL, _RTOL)


def _built(module: str, net: str) -> str:
    """Source that imports ``net``'s class (the name before its call) from ``module`` and builds it as
    ``self.m``."""
    return f"from {module} import {net.split('(')[0]}\nself.m = {net}"


def _monai(net: str, shape: tuple[int, ...]) -> ZooModel:
    """One of MONAI's networks (monai.networks.nets) on one random volume or batch of slices."""
    return ZooModel(_built("monai.networks.nets", net), "return self.m(x)", (Input(shape),), _ATOL, _RTOL)


def _speechbrain(name: str, net: str, module: str = "") -> ZooModel:
    """One of SpeechBrain's networks on 26 frames of 40 filterbank features (by default from
    speechbrain.lobes.models.<name>)."""
    return ZooModel(_built(module or f"speechbrain.lobes.models.{name}", net), "return self.m(x)",
                    (Input((2, 26, 40)),), _ATOL, _RTOL)


def _peft(config: str, conv: bool = False) -> ZooModel:
    """A PEFT adapter (config: an expression over peft's config classes; _T names Llama's q, v and down
    projections) on a small random Llama, its logits; or, with conv, on a two-conv net with a head."""
    init = f"import peft\nfrom peft import {config.split('(')[0]}\n_T = ['q_proj', 'v_proj', 'down_proj']\n"
    if conv:
        init += ("base = torch.nn.Sequential()\nbase.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)\nbase.r = torch.nn.ReLU()\n"
                 "base.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)\nbase.p = torch.nn.AdaptiveAvgPool2d(1)\n"
                 "base.f = torch.nn.Flatten()\nbase.fc = torch.nn.Linear(8, 4)\n")
        forward, inputs = "return self.m(x)", (Input((2, 3, 16, 16)),)
    else:
        init += ("from transformers import LlamaConfig, LlamaForCausalLM\n"
                 "base = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,"
                 " num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2))\n")
        forward, inputs = "return self.m(input_ids=x).logits", (Input((2, 8), "index:64"),)
    return ZooModel(init + f"self.m = peft.get_peft_model(base, {config})", forward, inputs, _ATOL, _RTOL)


def _ultralytics(config: str, task: str = "DetectionModel", forward: str = "return self.m(x)[0]") -> ZooModel:
    """An Ultralytics model built from one of the package's YAMLs (config.yaml), random weights, on one
    64 x 64 image: by default its first output (the decoded predictions). Rescaled (_rescaled): at
    Ultralytics' own initialisation every output is the same for any image to 1.5e-5. Then boxes reach
    hundreds of pixels, and float32 alone is 1e-3 from float64 there (ul_yolov8n: eager 9.4e-4,
    shimgen 7.4e-4, torch's loader 7.1e-4, scripts/cuda_arbiter.py --device cpu): atol 1e-3, rtol 1e-4."""
    return ZooModel(_built("ultralytics.nn.tasks", f"{task}('{config}.yaml', verbose=False)") + _rescaled((2, 3, 64, 64)),
                    forward, (Input((1, 3, 64, 64)),), 1e-3, 1e-4)


def _bf16(model: ZooModel, atol: float = 0.05, rtol: float = 0.02) -> ZooModel:
    """``model`` with its parameters, buffers and floating inputs in bfloat16, its outputs compared in
    float32 (the tolerances of tests/arch_ring.py's _timm_bf16)."""
    body = "\n".join("    " + line for line in model.forward.splitlines())
    args = "xyzw"[:len(model.inputs)]
    names = ", ".join(args)
    cast = "".join(f"{v} = {v}.to(torch.bfloat16) if {v}.is_floating_point() else {v}\n" for v in args)
    return ZooModel(model.init + "\nself.to(torch.bfloat16)",
                    f"def run({names}):\n{body}\n{cast}out = run({names})\n"
                    "return tuple(o.float() for o in out) if isinstance(out, (tuple, list)) else out.float()",
                    model.inputs, atol, rtol)


def _conv(layer: str, second: str, forward: str = "h = self.c1(x, y).relu()\nreturn self.c2(h, y)") -> ZooModel:
    """Two message-passing layers of one kind on the graph (node features, edge index)."""
    return ZooModel(_PYG + f"self.c1 = gnn.{layer}\nself.c2 = gnn.{second}", forward, _GRAPH, _ATOL, _RTOL)


LIBS: dict[str, ZooModel] = {
    # ---- torch_geometric: message passing ----
    # GCN: add_remaining_self_loops, symmetric degree normalisation (scatter_add of edge weights), sum
    "pyg_gcn": _conv("GCNConv(16, 32)", "GCNConv(32, 8)"),
    # GAT and GATv2: per-edge attention logits, softmax over each node's incoming edges (scatter_reduce
    # amax, then a scatter sum), 4 heads concatenated, then averaged
    "pyg_gat": _conv("GATConv(16, 8, heads=4)", "GATConv(32, 8, heads=4, concat=False)"),
    "pyg_gatv2": _conv("GATv2Conv(16, 8, heads=4)", "GATv2Conv(32, 8, heads=4, concat=False)"),
    # GraphSAGE: mean, then max aggregation of neighbours
    "pyg_sage": _conv("SAGEConv(16, 32, aggr='mean')", "SAGEConv(32, 8, aggr='max')"),
    # TransformerConv with edge features (its third input: 8 per edge) and a gated root weight
    "pyg_transformer": ZooModel(
        _PYG + "self.c1 = gnn.TransformerConv(16, 8, heads=4, edge_dim=8, beta=True)\n"
        "self.c2 = gnn.TransformerConv(32, 8, heads=2, edge_dim=8, concat=False)",
        "h = self.c1(x, y, z).relu()\nreturn self.c2(h, y, z)",
        (*_GRAPH, Input((60, 8))), _ATOL, _RTOL),
    # EdgeConv (DGCNN's layer on a fixed graph): an MLP on [x_i, x_j - x_i] per edge, max per node
    "pyg_edgeconv": _conv(
        "EdgeConv(torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32)), aggr='max')",
        "EdgeConv(torch.nn.Sequential(torch.nn.Linear(64, 8)), aggr='mean')"),
    # graph classification: two graphs of ten nodes (each edge list within its graph), torch_geometric's
    # GIN model (3 layers, batch norm in its MLPs: running statistics in eval mode), sum, mean and max
    # readouts per graph (size given: the batch's largest index is otherwise read with .item()), a head.
    # Inductor scatters the sum and max readouts straight into strided column slices of the cat's
    # buffer ((2, 32), strides (96, 1)); the runtime refused such an out, unchecked (docs/aoti.md).
    "pyg_gin_graph": ZooModel(
        _PYG + "self.gin = gnn.models.GIN(16, 32, num_layers=3, norm='batch_norm')\n"
        "self.head = torch.nn.Linear(96, 4)",
        "import torch_geometric.nn as gnn\n"
        "edges = torch.cat([y[:, :30], y[:, 30:] + 10], dim=1)\n"
        "batch = torch.arange(20, device=x.device) // 10\n"
        "h = self.gin(x, edges)\n"
        "pooled = [pool(h, batch, size=2) for pool in (gnn.global_add_pool, gnn.global_mean_pool, gnn.global_max_pool)]\n"
        "return self.head(torch.cat(pooled, dim=1))",
        (Input((20, 16)), Input((2, 60), "index:10")), _ATOL, _RTOL),
    # ---- kornia: geometry ----
    # a homography from four corner moves (get_perspective_transform: a batched linalg solve of 8 x 8),
    # warp_perspective with it (bilinear grid_sample); the image and the matrix
    "kn_warp_perspective": ZooModel(
        "",
        _K + "src = torch.tensor([[[0.0, 0.0], [31.0, 0.0], [31.0, 31.0], [0.0, 31.0]]], device=x.device).expand(2, 4, 2)\n"
        "m = K.geometry.transform.get_perspective_transform(src, src + y)\n"
        "return K.geometry.transform.warp_perspective(x, m, (32, 32)), m",
        (*_IMAGE, Input((2, 4, 2))), _ATOL, _RTOL),
    # a rotation about the centre by an input angle (get_rotation_matrix2d), warp_affine; remap by a
    # displacement field (align_corners)
    "kn_warp_affine_remap": ZooModel(
        "",
        _K + "m = K.geometry.transform.get_rotation_matrix2d(torch.full((2, 2), 16.0, device=x.device), 30 * y,"
        " torch.ones(2, 2, device=x.device))\n"
        "gy, gx = torch.meshgrid(torch.arange(32.0, device=x.device), torch.arange(32.0, device=x.device), indexing='ij')\n"
        "moved = K.geometry.transform.remap(x, gx + z[:, 0], gy + z[:, 1], align_corners=True)\n"
        "return K.geometry.transform.warp_affine(x, m, (32, 32)), moved",
        (*_IMAGE, Input((2,)), Input((2, 2, 32, 32))), _ATOL, _RTOL),
    # ---- kornia: filters, edges, colour ----
    "kn_filters": ZooModel(
        "",
        _K + "return (K.filters.gaussian_blur2d(x, (5, 5), (1.5, 1.5)), K.filters.median_blur(x, (3, 3)),"
        " K.filters.bilateral_blur(x, (5, 5), 0.1, (1.5, 1.5)), K.filters.sobel(x),"
        " K.filters.laplacian(x, 3), K.filters.box_blur(x, (3, 3)))",
        _IMAGE, _ATOL, _RTOL),
    # Canny: grey, Gaussian, Sobel magnitude and angle, non-maximum suppression, hysteresis (iterated
    # to a fixed point): the magnitude and the 0/1 edge map
    "kn_canny": ZooModel("", _K + "return K.filters.canny(x)", _IMAGE, _ATOL, _RTOL),
    # RGB to HSV, Lab (sRGB linearisation, XYZ, cube roots: L in [0, 100]) and YCbCr, and back
    "kn_color": ZooModel(
        "",
        _K + "hsv = K.color.rgb_to_hsv(x)\nlab = K.color.rgb_to_lab(x)\n"
        "return hsv, lab, K.color.rgb_to_ycbcr(x), K.color.hsv_to_rgb(hsv), K.color.lab_to_rgb(lab)",
        _IMAGE, _ATOL, _RTOL),
    # normalisation, resize and centre crop as kornia.augmentation's modules in eval mode (deterministic)
    "kn_augment": ZooModel(
        "import kornia as K\nA = K.augmentation\n"
        "self.m = A.AugmentationSequential(A.Normalize(torch.tensor([0.5, 0.4, 0.3]), torch.tensor([0.2, 0.25, 0.3])),"
        " A.Resize((24, 24)), A.CenterCrop(20))",
        "return self.m(torch.sigmoid(x))", _IMAGE, _ATOL, _RTOL),
    # ---- kornia: feature networks (random weights) ----
    # KeyNet's response map (handcrafted derivative features, learned multi-scale convolutions),
    # rescaled: at its random init the last convolution's ReLU zeroes the whole map (INSENSITIVE); after
    # unit_scale 44% of it is positive, up to 0.5
    "kn_keynet": ZooModel("import kornia as K\nself.m = K.feature.KeyNet(pretrained=False)" + _rescaled((2, 1, 32, 32)),
                          "return self.m(torch.sigmoid(x))", (Input((1, 1, 32, 32)),), _ATOL, _RTOL),
    # DISK's U-Net: the keypoint heatmap and dense 128-d descriptors its forward detects from
    "kn_disk_dense": ZooModel("import kornia as K\nself.m = K.feature.DISK()",
                              "return self.m.heatmap_and_dense_descriptors(torch.sigmoid(x))",
                              (Input((1, 3, 32, 32)),), _ATOL, _RTOL),
    # HardNet's 128-d descriptors of four 32 x 32 patches (instance-normalised input, L2-normalised out)
    "kn_hardnet": ZooModel("import kornia as K\nself.m = K.feature.HardNet(pretrained=False)",
                           "return self.m(x)", (Input((4, 1, 32, 32)),), _ATOL, _RTOL),
    # ---- x-transformers ----
    # decoder-only language model, rotary positions, causal attention in x-transformers' own einsum path
    "xt_decoder_rotary": ZooModel(_XT + _WRAPPER.format("Decoder", "rotary_pos_emb=True, attn_flash=False"),
                                  "return self.m(x)", _TOKENS, _ATOL, _RTOL),
    # ALiBi biases, GLU feed-forward, RMSNorm
    "xt_decoder_alibi": ZooModel(_XT + _WRAPPER.format("Decoder", "alibi_pos_bias=True, ff_glu=True, use_rmsnorm=True"),
                                 "return self.m(x)", _TOKENS, _ATOL, _RTOL),
    # encoder with T5's bucketed relative position bias and a padding mask from per-sequence lengths
    "xt_encoder_masked": ZooModel(
        _XT + _WRAPPER.format("Encoder", "rel_pos_bias=True"),
        "return self.m(x, mask=torch.arange(16, device=x.device)[None] < (16 - y)[:, None])",
        (*_TOKENS, Input((2,), "index:5")), _ATOL, _RTOL),
    # ViT: 8 x 8 patches by einops rearrange, encoder, mean pool, class head
    "xt_vit": ZooModel(
        _XT + "self.m = xt.ViTransformerWrapper(image_size=32, patch_size=8, num_classes=10,"
        " attn_layers=xt.Encoder(dim=32, depth=2, heads=4))",
        "return self.m(x)", _IMAGE, _ATOL, _RTOL),
    # XTransformer encoder-decoder: the decoder's logits (cross-attention to the encoder's embeddings);
    # its forward returns only the teacher-forced loss
    "xt_encoder_decoder": ZooModel(
        _XT + "self.m = xt.XTransformer(dim=32, enc_num_tokens=64, enc_depth=2, enc_heads=4, enc_max_seq_len=32,"
        " dec_num_tokens=64, dec_depth=2, dec_heads=4, dec_max_seq_len=32, tie_token_emb=True)",
        "enc = self.m.encoder(x, return_embeddings=True)\nreturn self.m.decoder.net(y, context=enc)",
        (*_TOKENS, Input((2, 12), "index:64")), _ATOL, _RTOL),
    # ---- open_clip ----
    # CLIP: a ViT image tower (8 x 8 patches, class token) and a causal text tower (pooled at the
    # end-of-text token, the argmax id), both projected and L2-normalised
    "oc_clip_vit": _clip(_OC_VIT.format("")),
    # CLIP's ModifiedResNet (RN50's layout at width 16: three-conv stem, anti-aliased strided blocks,
    # attention pooling through F.multi_head_attention_forward) on 64 x 64 images
    "oc_clip_resnet": _clip("V(layers=(1, 1, 1, 1), width=16, head_width=16, image_size=64)", image=64),
    # open_clip's custom block: q/k LayerNorm, per-head logit scales, LayerNorm on the attention context
    # and in the MLP; 2-d sin-cos positions, mean pooling then LayerNorm; a text tower without a causal
    # mask pooled at the last token
    "oc_clip_custom_block": _clip(
        _OC_VIT.format(", qk_norm=True, scale_heads=True, scale_attn_inner=True, scale_fc=True,"
                       " pos_embed_type='sin_cos_2d', pool_type='avg', final_ln_after_pool=True"),
        text="no_causal_mask=True, pool_type='last'"),
    # an attentional pooler (learned queries cross-attending to the image tokens) and layer scale.
    # (scaled_cosine_attn=True fails in eager in open_clip 3.3: a 4-d torch.bmm.)
    "oc_clip_pooler": _clip(
        _OC_VIT.format(", ls_init_value=0.5, attentional_pool=True, attn_pooler_queries=4, attn_pooler_heads=4")),
    # CoCa (coca_ViT-B-32.json's layout, small): the CLIP towers giving their tokens too (a text tower
    # with a learned class token), and a multimodal text decoder (causal self-attention, cross-attention
    # to the attentional pooler's image tokens); its image and text embeddings and caption logits
    "oc_coca": ZooModel(
        _OC + "from open_clip.coca_model import CoCa, MultimodalCfg\n"
        "self.m = CoCa(32, MultimodalCfg(context_length=16, vocab_size=64, width=32, heads=4, layers=1,"
        f" attn_pooler_heads=4), {_OC_TEXT.format(', embed_cls=True, output_tokens=True')}, "
        + _OC_VIT.format(", attentional_pool=True, attn_pooler_queries=8, attn_pooler_heads=4, output_tokens=True")
        + ")\n"
        # its text_projection is left torch.empty (open_clip 3.3's init_parameters for it fails)
        "torch.nn.init.normal_(self.m.text_decoder.text_projection, std=32 ** -0.5)",
        "out = self.m(x, y)\nreturn out['image_features'], out['text_features'], out['logits']",
        (*_IMAGE, Input((2, 16), "index:64")), _ATOL, _RTOL),
    # ---- MONAI (medical imaging: 3-d volumes of one channel, 2-d slices) ----
    # residual UNet: strided 3-d convs, transposed convs, instance norm, PReLU, skip concatenation
    "mn_unet": _monai("UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(8, 16, 32), strides=(2, 2),"
                      " num_res_units=1)", _VOLUME),
    # SegResNet: group norm, pre-activation residual blocks, trilinear upsampling added to the skips
    "mn_segresnet": _monai("SegResNet(spatial_dims=3, init_filters=8, in_channels=1, out_channels=2,"
                           " blocks_down=(1, 2, 2), blocks_up=(1, 1))", _VOLUME),
    # SwinUNETR: 3-d shifted windows (roll, window partition, attention masks), patch merging, a conv
    # decoder; 64^3 so that the 32x-downsampled bottleneck keeps 2^3 voxels for its instance norm
    "mn_swin_unetr": _monai("SwinUNETR(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1),"
                            " num_heads=(1, 1, 2, 2))", (1, 1, 64, 64, 64)),
    # SwinUNETR v2 on 2-d slices: a residual conv block before every Swin stage
    "mn_swin_unetr_v2_2d": _monai("SwinUNETR(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1),"
                                  " num_heads=(1, 1, 2, 2), use_v2=True, spatial_dims=2)", (2, 1, 64, 64)),
    # UNETR: a ViT encoder on 16^3 patches (einops rearranges), its hidden states reshaped back to
    # volumes and decoded by transposed convs
    "mn_unetr": _monai("UNETR(in_channels=1, out_channels=2, img_size=(32, 32, 32), feature_size=8, hidden_size=64,"
                       " mlp_dim=128, num_heads=4)", (1, 1, 32, 32, 32)),
    # DynUNet (nnU-Net's layout) on 2-d slices: per-level kernels and strides, leaky ReLU, instance norm
    "mn_dynunet_2d": _monai("DynUNet(spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3],"
                            " strides=[1, 2, 2], upsample_kernel_size=[2, 2])", (2, 1, 32, 32)),
    # Attention UNet: additive attention gates on the skips (sigmoid gates, upsampled gating)
    "mn_attention_unet_2d": _monai("AttentionUnet(spatial_dims=2, in_channels=1, out_channels=2, channels=(8, 16, 32),"
                                   " strides=(2, 2))", (2, 1, 32, 32)),
    # 3-d DenseNet classifier: dense concatenation, transitions with average pooling, adaptive pooling
    "mn_densenet_3d": _monai("DenseNet(spatial_dims=3, in_channels=1, out_channels=2, init_features=8, growth_rate=4,"
                             " block_config=(2, 2))", _VOLUME),
    # BasicUNet: two convs per level, max pooling, transposed-conv upsampling, leaky ReLU, instance norm
    "mn_basic_unet": _monai("BasicUNet(spatial_dims=3, in_channels=1, out_channels=2, features=(4, 4, 8, 8, 16, 4))",
                            (1, 1, 32, 32, 32)),
    # ---- e3nn (E(3)-equivariant networks: NequIP's and MACE's building blocks) ----
    # a NequIP-style interaction on a 20-atom graph without self-loops: edge vectors from positions,
    # spherical harmonics up to l = 2, a smooth radial basis with cutoff through an MLP giving the
    # per-edge weights of a fully connected tensor product, index_add onto the atoms, a gated
    # nonlinearity and a self-interaction (o3.Linear)
    "e3_interaction": ZooModel(
        _E3 + "self.sh = o3.Irreps.spherical_harmonics(2)\nnode = o3.Irreps('8x0e + 4x1o')\n"
        "self.gate = enn.Gate('8x0e', [torch.nn.functional.silu], '4x0e', [torch.sigmoid], '4x1o')\n"
        "self.tp = o3.FullyConnectedTensorProduct(node, self.sh, self.gate.irreps_in, shared_weights=False)\n"
        "self.fc = enn.FullyConnectedNet([8, 16, self.tp.weight_numel], torch.nn.functional.silu)\n"
        "self.lin = o3.Linear(self.gate.irreps_out, node)\nself.embed = o3.Linear('16x0e', node)",
        _E3 + "from e3nn.math import soft_one_hot_linspace\n"
        "src = y[0]\ndst = (y[0] + 1 + y[1] % 19) % 20\nh = self.embed(x)\nvec = z[dst] - z[src]\n"
        "sh = o3.spherical_harmonics(self.sh, vec, normalize=True, normalization='component')\n"
        "radial = soft_one_hot_linspace(vec.norm(dim=1), 0.0, 6.0, 8, basis='smooth_finite', cutoff=True)\n"
        "msg = self.tp(h[src], sh, self.fc(radial))\n"
        "return h + self.lin(self.gate(torch.zeros(20, msg.shape[1]).index_add(0, dst, msg)))",
        (Input((20, 16)), Input((2, 60), "index:20"), Input((20, 3))), _ATOL, _RTOL),
    # spherical harmonics up to l = 4, angles of vectors (atan2, acos), a fixed Wigner D rotation (built
    # in __init__: its construction asserts on data, which export refuses), the element-wise tensor
    # product, per-irrep norms and a tensor square
    "e3_tensor_ops": ZooModel(
        _E3 + "self.irreps = o3.Irreps('4x0e + 4x1o + 2x2e')\n"
        "self.sq = o3.TensorSquare('2x0e + 2x1o', '4x0e + 2x1e + 2x2e')\n"
        "self.ew = o3.ElementwiseTensorProduct(self.irreps, self.irreps)\nself.norm = o3.Norm(self.irreps)\n"
        "self.register_buffer('D', self.irreps.D_from_angles(torch.tensor(0.3), torch.tensor(1.1),"
        " torch.tensor(-0.7)))",
        _E3 + "sh = o3.spherical_harmonics([0, 1, 2, 3, 4], y, normalize=True)\na, b = o3.xyz_to_angles(y)\n"
        "xr = x @ self.D.T\nreturn sh, torch.stack([a, b], 1), self.ew(x, xr), self.norm(xr), self.sq(x[:, :8])",
        (Input((8, 26)), Input((8, 3))), _ATOL, _RTOL),
    # equivariant batch norm (eval: running statistics set away from their defaults), a norm
    # activation, and an activation on the sphere (S2Activation: to a 12-point grid, tanh, back)
    "e3_activations": ZooModel(
        _E3 + "irreps = o3.Irreps('8x0e + 4x1o + 2x2e')\nself.bn = enn.BatchNorm(irreps)\n"
        "self.na = enn.NormActivation(irreps, torch.sigmoid)\n"
        "self.s2 = enn.S2Activation(o3.Irreps.spherical_harmonics(3), torch.tanh, res=12)\n"
        "self.to_sh = o3.Linear(irreps, o3.Irreps.spherical_harmonics(3))\n"
        "with torch.no_grad():\n    self.bn.running_mean.uniform_(-0.5, 0.5)\n"
        "    self.bn.running_var.uniform_(0.5, 2.0)",
        "h = self.na(self.bn(x))\nreturn h, self.s2(self.to_sh(h))", (Input((6, 30)),), _ATOL, _RTOL),
    # ---- SpeechBrain (speech: 0.25 s waveforms at 16 kHz, or 26 frames of 40 filterbank features) ----
    # ECAPA-TDNN speaker embeddings from the waveform: SpeechBrain's own filterbank (STFT, mel), SE-Res2Net
    # blocks of dilated 1-d convs, attentive statistics pooling
    "sb_ecapa_fbank": ZooModel(
        "from speechbrain.lobes.models.ECAPA_TDNN import ECAPA_TDNN\nfrom speechbrain.lobes.features import Fbank\n"
        "self.f = Fbank(n_mels=40)\nself.m = ECAPA_TDNN(input_size=40, channels=[32, 32, 32, 32, 96], lin_neurons=16,"
        " attention_channels=16)", "return self.m(self.f(x))", (Input((2, 4000)),), _ATOL, _RTOL),
    # CRDNN (CNN blocks, a bidirectional LSTM, a DNN), SpeechBrain's ASR encoder
    "sb_crdnn": _speechbrain("CRDNN", "CRDNN(input_shape=[2, 26, 40], cnn_channels=(8, 16), rnn_neurons=16,"
                             " dnn_neurons=16, rnn_layers=1, dnn_blocks=1, time_pooling=False, using_2d_pooling=False)"),
    # the light GRU (its recurrence written in Python, unrolled by export), two bidirectional layers
    "sb_ligru": _speechbrain("LiGRU", "LiGRU(hidden_size=16, input_shape=[2, 26, 40], num_layers=2, bidirectional=True)",
                             module="speechbrain.nnet.RNN"),
    # a Conformer ASR transformer (relative-position attention, Transformer-XL style; convolution modules)
    # with its causal decoder over 7 tokens
    "sb_conformer_asr": ZooModel(
        "from speechbrain.lobes.models.transformer.TransformerASR import TransformerASR\n"
        "self.m = TransformerASR(tgt_vocab=32, input_size=40, d_model=32, nhead=4, num_encoder_layers=2,"
        " num_decoder_layers=1, d_ffn=64, encoder_module='conformer', attention_type='RelPosMHAXL',"
        " normalize_before=True, causal=False)",
        "return self.m(x, y)", (Input((2, 26, 40)), Input((2, 7), "index:32")), _ATOL, _RTOL),
    # SepFormer's dual-path separation of two speakers: a conv encoder, intra- and inter-chunk
    # transformers over 25-frame chunks (overlap-add back), a mask per speaker, transposed-conv decoders
    "sb_sepformer": ZooModel(
        "from speechbrain.lobes.models.dual_path import Dual_Path_Model, SBTransformerBlock, Encoder, Decoder\n"
        "self.enc = Encoder(kernel_size=16, out_channels=32)\n"
        "self.mask = Dual_Path_Model(in_channels=32, out_channels=32, num_layers=1, K=25, num_spks=2,"
        " intra_model=SBTransformerBlock(num_layers=1, d_model=32, nhead=4, d_ffn=64),"
        " inter_model=SBTransformerBlock(num_layers=1, d_model=32, nhead=4, d_ffn=64))\n"
        "self.dec = Decoder(in_channels=32, out_channels=1, kernel_size=16, stride=8, bias=False)",
        "e = self.enc(x)\nm = self.mask(e)\nreturn torch.stack([self.dec(e * m[i]) for i in range(2)], -1)",
        (Input((2, 800)),), _ATOL, _RTOL),
    # the ResNet speaker embedder (2-d residual blocks over time x frequency, attentive statistics pooling)
    "sb_resnet_tdnn": _speechbrain("ResNet", "ResNet(input_size=40, channels=[8, 8, 16, 16], block_sizes=[1, 1, 1, 1],"
                                   " lin_neurons=16)"),
    # ---- PEFT (adapters as served, unmerged, on a small Llama; random adapter weights, each of which
    # moves the logits by 0.06 to 0.53 from the base model's) ----
    # LoRA on attention and MLP projections; DoRA (the same with a per-column magnitude over the
    # adapted weight's norm)
    "pf_lora_llama": _peft("LoraConfig(r=4, lora_alpha=8, target_modules=_T, init_lora_weights=False)"),
    "pf_dora_llama": _peft("LoraConfig(r=4, lora_alpha=8, target_modules=_T, init_lora_weights=False, use_dora=True)"),
    # (IA)^3: learned rescaling of keys, values and the MLP's input
    "pf_ia3_llama": _peft("IA3Config(target_modules=['k_proj', 'v_proj', 'down_proj'], feedforward_modules=['down_proj'],"
                          " init_ia3_weights=False)"),
    # LyCORIS' LoHa (Hadamard product of two low-rank products) and LoKr (Kronecker product)
    "pf_loha_llama": _peft("LoHaConfig(r=4, target_modules=_T, init_weights=False)"),
    "pf_lokr_llama": _peft("LoKrConfig(r=4, target_modules=_T, init_weights=False)"),
    # VeRA (frozen shared random projections, trained scaling vectors)
    "pf_vera_llama": _peft("VeraConfig(r=4, target_modules=['q_proj', 'v_proj'], init_weights=False)"),
    # orthogonal fine-tuning: BOFT's butterfly of Cayley-transformed blocks, OFT's block-diagonal
    # rotation, HRA's chain of Householder reflections
    "pf_boft_llama": _peft("BOFTConfig(boft_block_size=4, target_modules=['q_proj', 'v_proj'], init_weights=False)"),
    "pf_oft_llama": _peft("OFTConfig(r=0, oft_block_size=8, target_modules=['q_proj', 'v_proj'], init_weights=False)"),
    "pf_hra_llama": _peft("HRAConfig(r=4, target_modules=['q_proj', 'v_proj'], init_weights=False)"),
    # FourierFT: a weight update from 16 learned spectral coefficients through an inverse 2-d FFT
    "pf_fourierft_llama": _peft("FourierFTConfig(n_frequency=16, target_modules=['q_proj', 'v_proj'], init_weights=False)"),
    # LoRA and LoHa on convolutions (a diffusion UNet's or a detector's layers) and a linear head
    "pf_lora_conv": _peft("LoraConfig(r=2, target_modules=['c1', 'c2', 'fc'], init_lora_weights=False)", conv=True),
    "pf_loha_conv": _peft("LoHaConfig(r=2, target_modules=['c1', 'c2'], init_weights=False)", conv=True),
    # ---- Ultralytics (detectors from the package's own model YAMLs, 80 classes, 64 x 64 images) ----
    # YOLOv8n: CSP/C2f backbone, SPPF, PAN neck, the decoupled head decoded in the graph (anchors from the
    # feature shapes, DFL's softmax over box bins, dist2bbox, sigmoid scores)
    "ul_yolov8n": _ultralytics("yolov8n"),
    # YOLO11n: C3k2 blocks and C2PSA position-sensitive attention
    "ul_yolo11n": _ultralytics("yolo11n"),
    # YOLO11n's instance segmentation (mask coefficients and the 16 x 16 prototype masks), keypoints (17
    # per box, decoded) and oriented boxes (angles)
    "ul_yolo11n_seg": _ultralytics("yolo11n-seg", "SegmentationModel", "return tuple(self.m(x)[0])"),
    "ul_yolo11n_pose": _ultralytics("yolo11n-pose", "PoseModel"),
    "ul_yolo11n_obb": _ultralytics("yolo11n-obb", "OBBModel"),
    # YOLO11n's classifier: its logits (its first output, the softmax over 1000 classes, is ~1e-3 each,
    # under any atol here)
    "ul_yolo11n_cls": _ultralytics("yolo11n-cls", "ClassificationModel", "return self.m(x)[1]"),
    # YOLOv10n (NMS-free one-to-one head, compact inverted blocks, partial self-attention), YOLO12n
    # (area attention) and YOLO26n
    "ul_yolov10n": _ultralytics("yolov10n"),
    "ul_yolo12n": _ultralytics("yolo12n"),
    "ul_yolo26n": _ultralytics("yolo26n"),
    # RT-DETR-l: HGNetv2 backbone, an attention-based intra-scale encoder, a deformable-attention decoder
    # (grid_sample over the multi-scale features) choosing its 300 queries by top-k
    "ul_rtdetr_l": _ultralytics("rtdetr-l", "RTDETRDetectionModel"),}
# ---- bfloat16 (the module and its floating inputs cast; outputs compared in float32) ----
# Not in bfloat16: SpeechBrain's Conformer and e3nn's activations (their own code mixes float32 in, or
# calls an op with no bfloat16 CPU kernel: eager fails), and Ultralytics' decoded boxes (hundreds of
# pixels, where inductor's float32 fusions and eager's per-op bfloat16 rounding part by a bfloat16
# step: eager 4 from shimgen, torch's own loader 2).
LIBS.update({f"{name}_bf16": _bf16(LIBS[name]) for name in (
    "pf_lora_llama", "pf_dora_llama", "mn_segresnet", "mn_swin_unetr", "oc_clip_vit")})
# YOLO11n-cls's rescaled logits (up to 7.8) through 86 bfloat16 layers: torch's own loader gives
# shimgen's outputs exactly, eager is 0.156 from both (scripts/cuda_arbiter.py --device cpu)
LIBS["ul_yolo11n_cls_bf16"] = _bf16(LIBS["ul_yolo11n_cls"], atol=0.25)
