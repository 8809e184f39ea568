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
    skip, exits, after_build = None, (0,) * len(commands), False
    if directive.startswith("skip:"):  # the reason is the rest, whatever it holds
        return Block(line, tuple(commands), directive[len("skip:"):].strip(), exits, after_build)
    for part in filter(None, (p.strip() for p in directive.split(";"))):
        if part.startswith("exits "):
            exits = tuple(int(code) for code in part.split()[1:])
        elif part == "after-build":
            after_build = True
        else:
            raise ValueError(f"README.md line {line}: unknown readme-test directive {part!r}")
    return Block(line, tuple(commands), skip, exits, after_build)


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


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None and not b.after_build],
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
