"""bracket_argument: CMake itself reads every value back exactly (one `cmake -P` per batch)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shimgen.generate.cmake_syntax import bracket_argument
from tests.unit.test_cmake_package_files import cmake

TRICKY = ["", "a", "a]", "x]=", "]]", "]=]", "a]]b]=]c]==]", "[[", "${x}", "$ENV{HOME}", "a;b;;c", ";", '"q"',
          "\\", "end\\", "\\n\\;\\$", "\n", "\nlead", "mid\nline", "trail\n", "#not a comment", "ü €"]

# Characters that matter to CMake's lexer, plus a little ordinary text.
ALPHABET = st.sampled_from(list("]=[;$\\\"{}()# \n\tab\u00fc"))


def round_trip(values: list[str], work: Path) -> list[str]:
    """Each value through a CMake script that sets it from its bracket argument and writes it out."""
    lines = []
    for index, value in enumerate(values):
        lines.append(f"set(value {bracket_argument(value)})")
        lines.append(f'file(WRITE "${{WORK}}/{index}.txt" "${{value}}")')
    script = work / "round_trip.cmake"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    result = subprocess.run([cmake(), f"-DWORK={work}", "-P", str(script)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    return [(work / f"{index}.txt").read_bytes().decode() for index in range(len(values))]


def test_tricky_values_come_back_exactly(tmp_path: Path) -> None:
    assert round_trip(TRICKY, tmp_path) == TRICKY


def test_a_carriage_return_is_refused() -> None:
    # CMake reads "\r\n" in a list file as "\n": the value could not come back exactly.
    with pytest.raises(ValueError, match="carriage return"):
        bracket_argument("a\r\nb")


def test_the_bracket_is_as_short_as_the_value_allows() -> None:
    assert bracket_argument("plain") == "[[plain]]"
    assert bracket_argument("a]]") == "[=[a]]]=]"
    assert bracket_argument("x]=") == "[[x]=]]"  # CMake finds ']]' only after '=': level 0 suffices
    assert bracket_argument("]=]]") == "[==[]=]]]==]"


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=40))
def test_generated_values_come_back_exactly(tmp_path_factory, values: list[str]) -> None:
    work = tmp_path_factory.mktemp("round-trip")
    assert round_trip(values, work) == values
