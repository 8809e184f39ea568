"""scripts/zoo_cpu.py picks one table of models by its flag, and refuses (exit 2, one line) two
tables at once or a name its table lacks, pointing to the table that has it; before compiling
anything."""

from __future__ import annotations

import pytest

from tests.support import load_script


def _refusal(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        load_script("zoo_cpu").main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_two_tables_at_once_are_refused(capsys):
    line = _refusal(capsys, ["--ring", "--torchvision"])
    assert "--ring, --torchvision name different tables" in line


def test_a_name_the_table_lacks_is_refused_with_the_table_that_has_it(capsys):
    assert "no model named tv_vit in tests/arch_zoo.py (they are in --torchvision's table)" in \
        _refusal(capsys, ["tv_vit"])
    assert "no model named volumetric in tests/torchvision_zoo.py (they are in --ring's table)" in \
        _refusal(capsys, ["--torchvision", "volumetric"])
    assert _refusal(capsys, ["--torchvision", "no_such_model"]).endswith(
        "no model named no_such_model in tests/torchvision_zoo.py")
    assert "no model named ta_wavlm in tests/torchvision_zoo.py (they are in --torchaudio's table)" in \
        _refusal(capsys, ["--torchvision", "ta_wavlm"])
    assert "--torchvision, --torchaudio name different tables" in _refusal(capsys, ["--torchvision", "--torchaudio"])
    assert "no model named pyg_gcn in tests/torchaudio_zoo.py (they are in --libs's table)" in \
        _refusal(capsys, ["--torchaudio", "pyg_gcn"])
    assert "--torchaudio, --libs name different tables" in _refusal(capsys, ["--torchaudio", "--libs"])


def test_each_flag_names_its_table():
    tables = load_script("zoo_cpu").TABLES
    assert {"ring", "frozen", "torchao", "torchvision", "torchaudio", "dynamic", "libs"} == set(tables)
    assert "tv_vit" in tables["torchvision"][0] and "volumetric" in tables["ring"][0]
    assert "ta_conformer" in tables["torchaudio"][0]
    assert {"pyg_gcn", "kn_warp_perspective", "xt_vit"} <= set(tables["libs"][0])
