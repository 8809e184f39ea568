"""scripts/family_sweep.py --timm picks one model per timm module by its name: the one that reads
smallest. The pick must be deterministic and must not take a larger variant for a smaller one (the
screen lowers whatever it picks; a base or large model costs minutes and gigabytes)."""

from __future__ import annotations

from tests.support import load_script


def _sweep():
    return load_script("family_sweep")


def test_the_smallest_size_word_wins():
    pick = _sweep().smallest_model
    assert pick(["convnext_base", "convnext_tiny", "convnext_atto", "convnext_nano"]) == "convnext_atto"
    assert pick(["vit_large_patch16_224", "vit_small_patch16_224", "test_vit", "vit_tiny_patch16_224"]) == "test_vit"
    assert pick(["edgenext_small", "edgenext_xx_small", "edgenext_x_small"]) == "edgenext_xx_small"
    # a size letter with digits is its size word
    assert pick(["poolformerv2_m36", "poolformerv2_s12", "poolformerv2_m48"]) == "poolformerv2_s12"
    assert pick(["cait_s24_224", "cait_xxs24_224", "cait_m36_384"]) == "cait_xxs24_224"


def test_without_a_size_word_the_smaller_number_then_the_shorter_name():
    pick = _sweep().smallest_model
    assert pick(["resnet50", "resnet18d", "resnet101", "resnet18"]) == "resnet18"
    assert pick(["densenet201", "densenet121", "densenet169"]) == "densenet121"
    assert pick(["vgg16", "vgg11_bn", "vgg11"]) == "vgg11"


def test_the_pick_does_not_depend_on_the_order():
    names = ["regnety_040", "regnetx_002", "regnety_002", "regnetx_004"]
    picks = {_sweep().smallest_model(order) for order in (names, names[::-1], sorted(names))}
    assert picks == {"regnetx_002"}
