"""Every ```sh / ```bash block of README.md runs as written, so the README cannot drift (issue 19
item 18).

A block is run command by command (a line ending in a backslash continues the command; blank and
comment lines are skipped) with bash, in a fresh temporary directory, and every command must exit
0. An HTML comment on the line before a block changes that, and must say why:

    <!-- readme-test: skip: REASON -->           not run here (network, a GPU, a model); REASON names
                                                 the test or script that runs it instead
    <!-- readme-test: exits 0 1 -->             the commands' expected exit codes, in order
    <!-- readme-test: after-build; exits ... --> run in the directory where `shimgen build` ran
                                                 (the session's cpu_runtime build, tests/conftest.py)
    <!-- readme-test: with-model -->             run in a directory holding model.pt2 (a real model
                                                 compiled by torch here, link_libtorch=False) and its
                                                 inputs x.npy and y.npy; the runtime is the session's

`shimgen` and `python` on PATH are this interpreter running the checkout (what pytest imports); the
installed wheel itself is proven by tests/integration/test_wheel.py and .ci/run's fresh venv.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO

README = REPO / "README.md"
DIRECTIVE = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->")


@dataclass(frozen=True)
class Block:
    line: int
    commands: tuple[str, ...]
    skip: str | None
    exits: tuple[int, ...]
    after_build: bool
    with_model: bool = False


def readme_blocks(text: str) -> list[Block]:
    lines = text.splitlines()
    blocks = []
    index = 0
    while index < len(lines):
        fence = lines[index].strip()
        if fence not in ("```sh", "```bash"):
            index += 1
            continue
        start = index
        body = []
        index += 1
        while lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        previous = next((line for line in reversed(lines[:start]) if line.strip()), "")
        directive = DIRECTIVE.fullmatch(previous.strip())
        blocks.append(_block(start + 1, body, directive.group(1) if directive else ""))
        index += 1
    return blocks


def _block(line: int, body: list[str], directive: str) -> Block:
    commands, pending = [], ""
    for text in body:
        if not pending and (not text.strip() or text.lstrip().startswith("#")):
            continue
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    skip, exits, after_build, with_model = None, (0,) * len(commands), False, False
    if directive.startswith("skip:"):  # the reason is the rest, whatever it holds
        return Block(line, tuple(commands), directive[len("skip:"):].strip(), exits, after_build)
    for part in filter(None, (p.strip() for p in directive.split(";"))):
        if part.startswith("exits "):
            exits = tuple(int(code) for code in part.split()[1:])
        elif part == "after-build":
            after_build = True
        elif part == "with-model":
            with_model = True
        else:
            raise ValueError(f"README.md line {line}: unknown readme-test directive {part!r}")
    return Block(line, tuple(commands), skip, exits, after_build, with_model)


BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


def test_every_block_is_run_or_skipped_with_a_reason():
    assert len(BLOCKS) >= 5, "the README's shell blocks were not found"
    for block in BLOCKS:
        assert block.commands, f"README.md line {block.line}: empty block"
        if block.skip is not None:
            assert len(block.skip) > 20, f"README.md line {block.line}: a skip must say why and what runs it instead"
        else:
            assert len(block.exits) == len(block.commands), f"README.md line {block.line}: one exit code per command"


def test_directives_are_parsed_as_documented():
    """The parser itself: continuation lines, comments, a skip, an exit list (a wrong parser would
    let every block pass by running nothing)."""
    text = ("x\n<!-- readme-test: exits 0 1 -->\n```sh\n# comment\na \\\n  b\n\nc  # tail\n```\n"
            "<!-- readme-test: skip: because; nothing here can run it -->\n```bash\nd\n```\n```python\ne\n```\n")
    first, second = readme_blocks(text)
    assert first.commands == ("a    b", "c  # tail") and first.exits == (0, 1) and first.skip is None
    assert second.commands == ("d",) and second.skip == "because; nothing here can run it"


@pytest.mark.parametrize("which", ["main job", "tests"])
def test_ci_runs_the_readme_commands_verbatim_in_a_fresh_venv(which):
    """The README's two set-up commands (its first two blocks) are lines of .ci/run, run after it
    activated a venv it made: the main job (install + shimgen build) first, then the tests."""
    main_job, tests = BLOCKS[0], BLOCKS[1]
    assert "shimgen build" in main_job.commands[0] and "pytest" in tests.commands[0]
    (command,) = (main_job if which == "main job" else tests).commands
    script = (REPO / ".ci" / "run").read_text().splitlines()
    activate = next(i for i, line in enumerate(script) if re.search(r"\. .*/bin/activate", line))
    assert any(line.strip() == command for line in script[activate:]), "'.ci/run' must run the README line after activating a venv"
    assert any("-m venv" in line for line in script[:activate])
    runs = [i for i, line in enumerate(script) if line.strip() in (main_job.commands[0], tests.commands[0])]
    assert [script[i].strip() for i in runs] == [main_job.commands[0], tests.commands[0]]


def _tools(directory: Path) -> dict[str, str]:
    """`shimgen` and `python` as the README's reader has them, pointing at this checkout."""
    directory.mkdir(exist_ok=True)
    for name, argv in (("shimgen", f"{shlex.quote(sys.executable)} -m shimgen"), ("python", shlex.quote(sys.executable))):
        script = directory / name
        script.write_text(f'#!/bin/sh\nexec {argv} "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO),
            "NO_COLOR": "1"}


def _run_block(block: Block, cwd: Path, env: dict[str, str]) -> None:
    if any("import torch" in command for command in block.commands):
        pytest.importorskip("torch")
    for command, expected in zip(block.commands, block.exits, strict=True):
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == expected, (f"README.md line {block.line}: `{command}` exited {done.returncode}, "
                                             f"expected {expected}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None and not b.after_build and not b.with_model],
                         ids=lambda b: f"line{b.line}")
def test_block_runs_in_a_fresh_directory(block: Block, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    _run_block(block, work, _tools(tmp_path / "bin"))


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None and b.after_build],
                         ids=lambda b: f"line{b.line}")
def test_block_runs_where_shimgen_build_ran(block: Block, cpu_runtime, tmp_path: Path) -> None:
    _run_block(block, cpu_runtime.project, _tools(tmp_path / "bin"))


@pytest.fixture(scope="module")
def readme_model(tmp_path_factory) -> Path:
    """The matmul model of tests/aoti_models.py (a fallback op and a generated kernel), compiled by
    the installed torch with link_libtorch=False, as model.pt2 beside its inputs x.npy and y.npy."""
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("readme-model")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor-cache")}
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), "matmul"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None and b.with_model], ids=lambda b: f"line{b.line}")
def test_block_runs_beside_a_compiled_model(block: Block, readme_model: Path, cpu_runtime, tmp_path: Path) -> None:
    """The README's model commands (prefix-imports, recompile, run) as written, on a real model; the
    runtime is the one `shimgen build` recorded (cpu_runtime), found as a user's would be."""
    import shutil

    work = tmp_path / "work"
    work.mkdir()
    for source, name in (("matmul.pt2", "model.pt2"), ("matmul.in0.npy", "x.npy"), ("matmul.in1.npy", "y.npy")):
        shutil.copyfile(readme_model / source, work / name)
    _run_block(block, work, _tools(tmp_path / "bin"))
    import numpy as np

    got, expected = np.load(work / "out" / "output_0.npy"), np.load(readme_model / "matmul.out0.npy")
    assert np.abs(got - expected).max() <= 1e-5


def test_the_model_block_is_run_not_skipped():
    assert any(b.with_model and b.skip is None for b in BLOCKS), "the README's model commands must be run"
