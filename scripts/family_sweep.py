"""Screen every transformers model family for op fallbacks the runtime does not serve (issue 22's
"hidden rings": architectures nobody here named).

For each model type transformers registers a base model for, build the model from its default config
shrunk generically (sizes, layers, heads, experts; nested sub-configs too), export it with
torch.export, and lower it with AOTInductor in ``package_cpp_only`` mode: inductor writes the wrapper
source without compiling it (seconds, not minutes). The shim calls in the wrapper and the ops its
extern-kernel JSON hands to the proxy executor are compared with what the runtime serves: its header
scan (the exported shims) and the proxy executor's target table. Nothing is run, so a family that
lowers cleanly is only *served*, not *correct*: tests/arch_ring.py and scripts/zoo_cpu.py --ring
compare outputs with eager.

    python scripts/family_sweep.py [--jobs N] [--timeout S] [--dtype bfloat16] [--json OUT] [MODEL_TYPE...]

``--dtype`` casts each model (and its float inputs) to that dtype first: bfloat16 is how decoders are
served, and some ops lower to other shims there (transformers' MoE experts call torch._grouped_mm in
bfloat16, its own op in float32). ``--device cuda`` (on a GPU machine) lowers for CUDA instead, where
inductor emits other fallbacks (attention through cuDNN or flash kernels, its CUDA extern kernels):
bfloat16 on CUDA is how the H200 serves decoders.

``--head TASK`` screens a task model of each family instead of its base model (transformers' auto
class for TASK, over the families its mapping lists, or those named): the heads add their own ops
(a classifier's pooling, the last real token's logits, segmentation's upsampling, detection's box
heads, x-vector statistics). ``--head list`` prints the tasks.

    python scripts/family_sweep.py --head image-classification [--jobs N] [--json OUT] [MODEL_TYPE...]

``--timm`` screens timm's model modules instead (timm 1.0.31: 98 of them, through tests/timm_models.py):
for each module, or each module (or model name) given, one model, the one whose name reads smallest
(``smallest_model``: "test"/"atto"/.../"tiny"/"small" first, then the smaller first number), built
with ``create_model(name, num_classes=10)`` on 2 x 3 x 64 x 64 (``img_size=64`` where the constructor
takes it; without it where it does not; at the model's own ``pretrained_cfg`` input size where
neither runs 64 px), exported and lowered as above. Each row names the model and its input size.

    python scripts/family_sweep.py --timm [--jobs N] [--json OUT] [MODULE_OR_MODEL...]

Prints one row per family (lowered / served / missing names, or why it did not lower: config, build,
export, lower) and, last, the missing names ranked by how many families need them. Exit status 0:
the screen is a report, not a gate.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The proxy executor's target table and the special functions it serves besides.
PROXY_SOURCES = (REPO / "shimgen/runtime/src/proxy_executor.cpp",
                 REPO / "shimgen/runtime/src/ops/cpu/special_functions.cpp")

# One child per family (a model can hang, exhaust memory or abort the interpreter). It prints one JSON
# line last: {"stage": ..., "error": ...} or {"stage": "lowered", "shims": [...], "proxy": [...]}.
# Its argv: source ("hf": a transformers model type, "timm": a timm model name), name, package path,
# tests/, scripts/, dtype, transformers' auto class (AutoModel: the base model), device. Only building the
# model and its inputs depends on the source; running, exporting and lowering are the same for both.
CHILD = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
source, name, out, tests, scripts, dtype_name, head, device = sys.argv[1:9]
sys.path.insert(0, tests)
facts = {}


def emit(stage, **extra):
    print(json.dumps({"stage": stage, **facts, **extra}))
    sys.exit(0)


def hf_model():
    # (model, inputs, call(model, **inputs))
    import torch
    import hf_auto
    try:
        config = hf_auto.tiny_config(name)
    except Exception as e:
        emit("config", error=f"{type(e).__name__}: {str(e)[:200]}")
    try:
        model = hf_auto.tiny_model(name, head)
    except Exception as e:
        emit("build", error=f"{type(e).__name__}: {str(e)[:200]}")
    kind = facts["kind"] = hf_auto.input_kind(model)
    inputs = {}
    if kind == "tokens":
        inputs["input_ids"] = torch.randint(3, hf_auto.vocab_bound(config), hf_auto.TOKENS)
        inputs["attention_mask"] = torch.ones(hf_auto.TOKENS, dtype=torch.long)
    elif kind == "pixels":
        vision = getattr(config, "vision_config", config)
        inputs["pixel_values"] = torch.randn(2, getattr(vision, "num_channels", 3) or 3, 64, 64)
    elif kind == "audio":
        channels = getattr(config, "audio_channels", None)
        # an x-vector head's TDNN spans 15 frames: five times the usual clip (1,600 samples, 4 frames)
        samples = hf_auto.AUDIO_SAMPLES * (5 if head == "AutoModelForAudioXVector" else 1)
        inputs["input_values"] = torch.randn(2, *((channels,) if isinstance(channels, int) else ()), samples)
    elif kind == "features":
        inputs["input_features"] = torch.randn(2, getattr(config, "num_mel_bins", 80),
                                               3000 if "whisper" in name else 64)
    else:
        emit("inputs", error=f"main input {model.main_input_name!r} has no generic input here")
    if getattr(config, "is_encoder_decoder", False):
        inputs["decoder_input_ids"] = torch.randint(3, hf_auto.vocab_bound(config), (2, 6))
    return model, inputs, hf_auto.call


def timm_model():
    # 64 px (img_size=64 where the constructor takes it), else the model's own input size.
    import torch
    from timm_models import create, timm_module
    try:
        cfg = timm_module().models.get_pretrained_cfg(name)
        native = tuple(getattr(cfg, "input_size", None) or (3, 224, 224))
    except Exception as e:
        emit("config", error=f"{type(e).__name__}: {str(e)[:200]}")

    def call(m, x):
        return m(x)

    attempts = [({"img_size": 64}, (64, 64)), ({}, (64, 64))]
    if tuple(native[-2:]) != (64, 64):
        attempts.append(({}, tuple(native[-2:])))
    for kwargs, size in attempts:
        try:
            model = create(name, num_classes=10, **kwargs)
        except Exception as e:
            failure = ("build", f"{type(e).__name__}: {str(e)[:200]}")
            continue
        x = torch.randn(2, native[0], *size)
        try:
            with torch.no_grad():
                model(x)
        except Exception as e:
            failure = ("eager", f"{type(e).__name__}: {str(e)[:200]}")
            continue
        facts.update(model=name, input=list(x.shape), kwargs=kwargs)
        return model, {"x": x}, call
    emit(failure[0], error=failure[1])


try:
    import torch
except Exception as e:
    emit("config", error=f"{type(e).__name__}: {str(e)[:200]}")
model, inputs, call = {"hf": hf_model, "timm": timm_model}[source]()
dtype = getattr(torch, dtype_name)
if dtype != torch.float32:
    try:
        model = model.to(dtype)
    except Exception as e:
        emit("build", error=f"to({dtype_name}): {type(e).__name__}: {str(e)[:200]}")
inputs = {k: v.to(dtype) if v.is_floating_point() else v for k, v in inputs.items()}
if device != "cpu":
    try:
        model = model.to(device)
    except Exception as e:
        emit("build", error=f"to({device}): {type(e).__name__}: {str(e)[:200]}")
    inputs = {k: v.to(device) for k, v in inputs.items()}


class Wrap(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, **kw):
        return call(self.m, **kw)

try:
    with torch.no_grad():
        Wrap(model)(**inputs)
except Exception as e:
    emit("eager", error=f"{type(e).__name__}: {str(e)[:200]}")
try:
    ep = torch.export.export(Wrap(model), (), inputs, strict=False)
except Exception as e:
    emit("export", error=f"{type(e).__name__}: {str(e)[:200]}")
try:
    path = torch._inductor.aoti_compile_and_package(
        ep, package_path=out, inductor_configs={"aot_inductor.package_cpp_only": True})
except Exception as e:
    emit("lower", error=f"{type(e).__name__}: {str(e)[:200]}")
sys.path.insert(0, scripts)
from family_sweep import package_calls
shims, proxy = package_calls(path)
emit("lowered", shims=shims, proxy=proxy)
"""

# timm: one small model per module, picked by name. Size words from smallest to largest; a token is
# compared without its trailing digits (poolformerv2_s12: "s"), ties go to the smaller first number
# in the name (resnet10t before resnet18), then the shorter name, then the name.
SIZE_WORDS = ("test", "atto", "femto", "pico", "nano", "xxtiny", "xtiny", "micro", "tiny", "xxs", "xx", "xs",
              "mini", "small", "s", "t", "lite", "little", "m", "medium", "b", "base", "l", "large")


def size_key(name: str) -> tuple:
    tokens = [t.rstrip("0123456789") for t in re.split(r"[_\-.]", name.lower())]
    ranks = [SIZE_WORDS.index(t) for t in tokens if t in SIZE_WORDS]
    numbers = re.findall(r"\d+", name)
    return (min(ranks, default=len(SIZE_WORDS)), int(numbers[0]) if numbers else sys.maxsize, len(name), name)


def smallest_model(names: list[str]) -> str:
    """The model of a timm module to screen: the one whose name reads smallest (see size_key)."""
    return min(names, key=size_key)


def timm_targets(names: list[str]) -> dict[str, str]:
    """{module: model} for timm's modules (all of them, or those named; a model name is taken as is)."""
    sys.path.insert(0, str(REPO / "tests"))
    import timm_models

    timm = timm_models.timm_module()
    modules = set(timm.list_modules())
    models = set(timm.list_models())
    targets = {}
    for name in names or sorted(modules):
        if name in modules:
            targets[name] = smallest_model(timm.list_models(module=name))
        elif name in models:
            targets[name] = name
        else:
            raise SystemExit(f"not a timm module or model: {name}")
    return targets


def proxy_targets(sources: tuple[Path, ...] = PROXY_SOURCES) -> frozenset[str]:
    """The ops the runtime's proxy executor serves: the quoted "namespace::op" names of its tables."""
    return frozenset(name for source in sources
                     for name in re.findall(r'"([a-z_]+::[A-Za-z0-9_.]+)"', source.read_text(encoding="utf-8")))


def judge(row: dict, served: frozenset[str], proxied: frozenset[str]) -> dict:
    """A screened row with "missing" added when it lowered: its shim calls the runtime does not export
    and its proxy targets the executor does not serve."""
    if row["stage"] != "lowered":
        return row
    missing = {s for s in row["shims"] if s not in served} | {p for p in row["proxy"] if p not in proxied}
    return {**row, "missing": sorted(missing)}


def status_of(row: dict) -> str:
    if row["stage"] != "lowered":
        return f"{row['stage']}: {row['error']}"
    return "served" if not row["missing"] else "MISSING " + " ".join(row["missing"])


def package_calls(package: str | Path) -> tuple[list[str], list[str]]:
    """The shim calls in a lowered package's wrapper source and the targets its extern-kernel JSON hands
    to the proxy executor (without ".default")."""
    shims, proxy = set(), set()
    with zipfile.ZipFile(package) as z:
        for n in z.namelist():
            if n.endswith(".wrapper.cpp"):
                shims |= set(re.findall(r"\baoti_torch_[A-Za-z0-9_]+", z.read(n).decode(errors="replace")))
            elif n.endswith(".json") and "/model/" in n and not n.endswith(("_flags.json", "_metadata.json")):
                try:
                    nodes = json.loads(z.read(n)).get("nodes", [])
                except ValueError:
                    continue
                for node in nodes:
                    target = node.get("node", {}).get("target") if isinstance(node, dict) else None
                    if target:
                        proxy.add(target.removesuffix(".default"))
    return sorted(shims), sorted(proxy)


# --head's tasks: transformers' auto class and the mapping of the families that have one (policy as
# data). Tasks whose inputs are not one of hf_auto's kinds (multiple choice, video, text with pixels)
# are left out.
HEADS = {
    "sequence-classification": ("AutoModelForSequenceClassification", "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"),
    "token-classification": ("AutoModelForTokenClassification", "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES"),
    "question-answering": ("AutoModelForQuestionAnswering", "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES"),
    "causal-lm": ("AutoModelForCausalLM", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"),
    "masked-lm": ("AutoModelForMaskedLM", "MODEL_FOR_MASKED_LM_MAPPING_NAMES"),
    "seq2seq-lm": ("AutoModelForSeq2SeqLM", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES"),
    "image-classification": ("AutoModelForImageClassification", "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES"),
    "semantic-segmentation": ("AutoModelForSemanticSegmentation", "MODEL_FOR_SEMANTIC_SEGMENTATION_MAPPING_NAMES"),
    "universal-segmentation": ("AutoModelForUniversalSegmentation", "MODEL_FOR_UNIVERSAL_SEGMENTATION_MAPPING_NAMES"),
    "object-detection": ("AutoModelForObjectDetection", "MODEL_FOR_OBJECT_DETECTION_MAPPING_NAMES"),
    "depth-estimation": ("AutoModelForDepthEstimation", "MODEL_FOR_DEPTH_ESTIMATION_MAPPING_NAMES"),
    "masked-image-modeling": ("AutoModelForMaskedImageModeling", "MODEL_FOR_MASKED_IMAGE_MODELING_MAPPING_NAMES"),
    "backbone": ("AutoBackbone", "MODEL_FOR_BACKBONE_MAPPING_NAMES"),
    "ctc": ("AutoModelForCTC", "MODEL_FOR_CTC_MAPPING_NAMES"),
    "audio-classification": ("AutoModelForAudioClassification", "MODEL_FOR_AUDIO_CLASSIFICATION_MAPPING_NAMES"),
    "audio-frame-classification": ("AutoModelForAudioFrameClassification",
                                   "MODEL_FOR_AUDIO_FRAME_CLASSIFICATION_MAPPING_NAMES"),
    "audio-xvector": ("AutoModelForAudioXVector", "MODEL_FOR_AUDIO_XVECTOR_MAPPING_NAMES"),
    "speech-seq2seq": ("AutoModelForSpeechSeq2Seq", "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES"),
}


def model_types(head: str = "") -> list[str]:
    """The families to screen: those with a base model, or with a model for ``head`` (a HEADS task)."""
    from transformers.models.auto import modeling_auto

    return sorted(getattr(modeling_auto, HEADS[head][1] if head else "MODEL_MAPPING_NAMES"))


def screen(model_type: str, timeout: float, dtype: str = "float32", source: str = "hf",
           auto_class: str = "AutoModel", device: str = "cpu") -> dict:
    """One family screened in a child: a transformers model type (source "hf"; its ``auto_class``
    model) or a timm model name, lowered for ``device``."""
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, source, model_type, str(Path(tmp) / "m.pt2"),
                                   str(REPO / "tests"), str(REPO / "scripts"), dtype, auto_class, device],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"stage": "timeout", "error": f"more than {timeout:.0f} s"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"stage": "crash", "error": f"exit {done.returncode}: {tail[:200]}"}


def write_rows(path: Path, rows: dict[str, dict]) -> None:
    """Every row so far, replacing the file whole (a reader never sees half of it)."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    part.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_types", nargs="*", help="transformers model types, or with --timm timm modules "
                        "(or model names); default: all")
    parser.add_argument("--timm", action="store_true", help="screen timm's modules, one small model each")
    parser.add_argument("--head", choices=(*HEADS, "list"), default="",
                        help="screen each family's model for this task instead of its base model")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--json", type=Path, help="write every row here (rewritten as each family ends)")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="lower for this device (cuda: on a GPU machine; inductor compiles its kernels)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(REPO))
    from shimgen.aoti.coverage import served_by_runtime

    if args.head == "list":
        for task, (auto_class, _) in HEADS.items():
            print(f"{task:28s} {auto_class} ({len(model_types(task))} families)")
        return 0
    if args.head and args.timm:
        parser.error("--head screens transformers families, not timm's")
    served, proxied = served_by_runtime(), proxy_targets()
    auto_class = HEADS[args.head][0] if args.head else "AutoModel"
    if args.timm:
        models = timm_targets(args.model_types)
        names = list(models)
    else:
        names = args.model_types or model_types(args.head)
        models = {n: n for n in names}
    rows: dict[str, dict] = {}
    missing_count: Counter[str] = Counter()
    written = threading.Lock()

    def one(name: str) -> None:
        row = judge(screen(models[name], args.timeout, args.dtype, "timm" if args.timm else "hf", auto_class,
                           args.device), served, proxied)
        with written:
            rows[name] = row = {"model": models[name], **row} if args.timm else row
            if args.json:  # after every row: a screen cut off (a GPU call's limit) keeps what it reached
                write_rows(args.json, rows)
        label = name
        if args.timm:
            label = f"{name} ({models[name]}" + (f", {row['input'][-1]} px)" if "input" in row else ")")
        print(f"{label:32s} {status_of(row)}", flush=True)

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, names))
    for row in rows.values():
        missing_count.update(row.get("missing", ()))
    lowered = [n for n, r in rows.items() if r["stage"] == "lowered"]
    ok = [n for n in lowered if not rows[n]["missing"]]
    kind = "timm modules" if args.timm else f"families ({auto_class})" if args.head else "families"
    print(f"\n{len(names)} {kind}: {len(lowered)} lowered, {len(ok)} served, "
          f"{len(lowered) - len(ok)} need a name the runtime lacks")
    for name, count in missing_count.most_common():
        print(f"  {count:3d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
