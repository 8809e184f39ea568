"""prefix-imports on small binaries built here: what it renames, what it refuses, what it never writes."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from shimgen.aoti.prefix_imports import read_dynamic_symbols
from shimgen.binary.elf import image_end

REPO = Path(__file__).resolve().parents[2]
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")


def _cc(tmp: Path, name: str, source: str, *args: str) -> Path:
    src = tmp / f"{name}.c"
    src.write_text(source)
    out = tmp / f"lib{name}.so"
    subprocess.run([CC, "-shared", "-fPIC", str(src), "-o", str(out), *args], check=True, capture_output=True)
    return out


def _config(tmp: Path) -> Path:
    path = tmp / "shimgen.toml"
    path.write_text('prefix = "executorch_"\nsymbols = ["aoti_torch_get_dim", "aoti_torch_dtype_float32"]\n')
    return path


def _shimgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shimgen", *args], cwd=REPO, capture_output=True, text=True, timeout=60)


CONSUMER = """
#include <stdint.h>
typedef void* AtenTensorHandle;
int32_t aoti_torch_get_dim(AtenTensorHandle, int64_t*);
int32_t aoti_torch_dtype_float32(void);
int64_t consumer_dim(AtenTensorHandle t) { int64_t d = -1; aoti_torch_get_dim(t, &d); return d + aoti_torch_dtype_float32(); }
"""


@pytest.fixture
def consumer(tmp_path) -> Path:
    return _cc(tmp_path, "consumer", CONSUMER)


def _provider(tmp: Path, dim: int) -> Path:
    """A prefixed stand-in for the runtime: the two shims the consumers import, under the prefix."""
    return _cc(tmp, "provider", f"""
#include <stdint.h>
int32_t executorch_aoti_torch_get_dim(void* t, int64_t* d) {{ (void)t; *d = {dim}; return 0; }}
int32_t executorch_aoti_torch_dtype_float32(void) {{ return 6; }}
""")


def _imports(path: Path) -> set[str]:
    return {s.name for s in read_dynamic_symbols(path) if not s.defined and "aoti_torch" in s.name}


def test_renames_the_undefined_shims_and_the_result_loads(tmp_path, consumer):
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(consumer), "-o", str(out), "-c", str(_config(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert _imports(out) == {"executorch_aoti_torch_get_dim", "executorch_aoti_torch_dtype_float32"}
    assert _imports(consumer) == {"aoti_torch_get_dim", "aoti_torch_dtype_float32"}  # input untouched
    # The rewritten file is a loadable library whose imports now bind to a prefixed provider.
    provider = _provider(tmp_path, dim=41)
    main = tmp_path / "main.c"
    main.write_text("""
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
int main(int argc, char** argv) {
  if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) { puts(dlerror()); return 1; }
  void* c = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!c) { puts(dlerror()); return 1; }
  int64_t (*f)(void*) = (int64_t (*)(void*))dlsym(c, "consumer_dim");
  printf("%lld\\n", (long long)f(0));
  return 0;
}
""")
    subprocess.run([CC, str(main), "-o", str(tmp_path / "main"), "-ldl"], check=True)
    ran = subprocess.run([str(tmp_path / "main"), str(provider), str(out)], capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout.strip() == "47", ran.stdout


def test_refuses_a_binary_that_defines_shims(tmp_path):
    library = _cc(tmp_path, "defines", "int aoti_torch_get_dim(void* t, long* d) { (void)t; *d = 1; return 0; }\n"
                                      "int aoti_torch_dtype_float32(void);\nint use(void) { return aoti_torch_dtype_float32(); }\n")
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(library), "-o", str(out), "-c", str(_config(tmp_path)))
    assert done.returncode == 2 and "defines 1 shim(s) (aoti_torch_get_dim)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not out.exists()


def test_refuses_a_versioned_shim_import(tmp_path):
    script = tmp_path / "v.map"
    script.write_text("SHIM_1.0 { global: aoti_torch_get_dim; local: *; };\n")
    provider = _cc(tmp_path, "vprov", "int aoti_torch_get_dim(void* t, long* d) { (void)t; *d = 1; return 0; }\n",
                   f"-Wl,--version-script={script}")
    consumer = _cc(tmp_path, "vcons", "int aoti_torch_get_dim(void*, long*);\nint f(void) { long d; return aoti_torch_get_dim(0, &d); }\n",
                   str(provider))
    assert {s.version for s in read_dynamic_symbols(consumer) if s.name == "aoti_torch_get_dim"} == {"SHIM_1.0"}
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(consumer), "-o", str(out), "-c", str(_config(tmp_path)))
    assert done.returncode == 2 and "aoti_torch_get_dim@SHIM_1.0" in done.stderr, done.stderr
    assert not out.exists()


@pytest.mark.parametrize("content", [b"", b"\x7fELF", b"PK\x03\x04junk", b"plain text\n"])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, content):
    bad = tmp_path / "bad.so"
    bad.write_bytes(content)
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(bad), "-o", str(out))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("shimgen: error:")
    assert not out.exists() and not list(tmp_path.glob(".shimgen-*"))


def test_truncated_library_is_refused(tmp_path, consumer):
    half = tmp_path / "half.so"
    half.write_bytes(consumer.read_bytes()[: consumer.stat().st_size // 2])
    done = _shimgen("prefix-imports", str(half), "-o", str(tmp_path / "out.so"), "-c", str(_config(tmp_path)))
    # The image's bounds are read first: the message says which table runs past the end.
    assert done.returncode == 2 and "truncated" in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_library_without_section_headers_is_refused(tmp_path, consumer):
    # sstrip'ed: no section header table (e_shoff, e_shnum, e_shstrndx zeroed). The image's extent
    # cannot be read from sections, and the rewrite needs them: one line, no output.
    data = bytearray(consumer.read_bytes())
    data[0x28:0x30] = bytes(8)
    data[0x3C:0x40] = bytes(4)
    stripped = tmp_path / "stripped.so"
    stripped.write_bytes(bytes(data))
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(stripped), "-o", str(out), "-c", str(_config(tmp_path)))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "not a readable ELF shared object" in done.stderr and not out.exists(), done.stderr


def test_pt2_without_a_model_and_failed_pt2_rewrite_leave_no_file(tmp_path, consumer):
    empty = tmp_path / "empty.pt2"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("m/data/readme.txt", "x")
    done = _shimgen("prefix-imports", str(empty), "-o", str(tmp_path / "o.pt2"))
    assert done.returncode == 2 and "no AOTInductor model" in done.stderr
    # A package whose .so imports a shim the config does not provide: checked before anything is written.
    package = tmp_path / "p.pt2"
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("p/data/aotinductor/model/x.wrapper.so", consumer.read_bytes())
    narrow = tmp_path / "narrow.toml"
    narrow.write_text('prefix = "executorch_"\nsymbols = ["aoti_torch_get_dim"]\n')
    previous = tmp_path / "o.pt2"
    previous.write_bytes(b"previous content")
    done = _shimgen("prefix-imports", str(package), "-o", str(previous), "-c", str(narrow))
    assert done.returncode == 2 and "executorch_aoti_torch_dtype_float32" in done.stderr
    assert previous.read_bytes() == b"previous content"  # never half-written, never replaced


def test_output_equal_to_input_is_refused(consumer):
    done = _shimgen("prefix-imports", str(consumer), "-o", str(consumer))
    assert done.returncode == 2 and "must differ" in done.stderr


def test_output_hard_linked_to_the_input_is_refused(tmp_path, consumer):
    import os

    before = consumer.read_bytes()
    os.link(consumer, tmp_path / "other.so")
    done = _shimgen("prefix-imports", str(consumer), "-o", str(tmp_path / "other.so"))
    assert done.returncode == 2 and "must differ" in done.stderr, done.stderr
    assert consumer.read_bytes() == before


def test_recompile_bad_input_is_one_line(tmp_path, consumer):
    package = tmp_path / "p.pt2"
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("p/data/aotinductor/model/x.wrapper.so", consumer.read_bytes())
    cases = [
        ([str(consumer), "-o", str(tmp_path / "o.so")], "not a .pt2 package"),
        ([str(package), "-o", str(tmp_path / "o.so")], "no generated .cpp"),
        ([str(package), "-o", str(tmp_path / "o.txt")], "must end in .so or .pt2"),
        ([str(tmp_path / "missing.pt2"), "-o", str(tmp_path / "o.so")], "no such file"),
    ]
    for args, message in cases:
        done = _shimgen("recompile", *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.so").exists()


# AOTInductor's layout for weights over 2 GB (model_base.h, USE_MMAP_SELF): the weights are appended to
# the .so after the ELF image, at a 16 KiB-aligned offset; the model finds them by their size from the
# end of the file and refuses an unaligned offset. The reader below does the same from inside the .so.
SELF_MAPPED = "#define _GNU_SOURCE\n" + CONSUMER + """
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
static const uint64_t weights_size = WEIGHTS;
int64_t weights_check(void) {
  Dl_info info;
  if (!dladdr((void*)weights_check, &info)) return -1;
  int fd = open(info.dli_fname, O_RDONLY);
  off_t end = lseek(fd, 0, SEEK_END), offset = end - (off_t)weights_size;
  if (offset & 0x3fff) { close(fd); return -2; }  /* what the model checks */
  unsigned char* p = mmap(0, weights_size, PROT_READ, MAP_PRIVATE, fd, offset);
  close(fd);
  if (p == MAP_FAILED) return -3;
  int64_t sum = 0;
  for (uint64_t i = 0; i < weights_size; ++i) sum += p[i];
  munmap(p, weights_size);
  return sum;
}
"""


def test_weights_appended_after_the_image_stay_16k_aligned(tmp_path):
    weights = bytes(range(256)) * 64  # 16 KiB of "weights", sum 64 * 32640
    library = _cc(tmp_path, "selfmapped", SELF_MAPPED.replace("WEIGHTS", str(len(weights))))
    image = library.read_bytes()
    library.write_bytes(image + bytes(-len(image) % (1 << 14)) + weights)  # as AOTInductor appends them
    import lief

    # Where prefix-imports cuts the weights off for LIEF is where LIEF ends the image itself.
    assert image_end(library.read_bytes(), "") == lief.ELF.parse(str(library)).eof_offset == len(image)
    out = tmp_path / "out.so"
    done = _shimgen("prefix-imports", str(library), "-o", str(out), "-c", str(_config(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes().endswith(weights)
    provider = _provider(tmp_path, dim=0)
    main = tmp_path / "main.c"
    main.write_text("""
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
int main(int argc, char** argv) {
  if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) { puts(dlerror()); return 1; }
  for (int i = 2; i < argc; ++i) {
    void* c = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (!c) { puts(dlerror()); return 1; }
    printf("%lld\\n", (long long)((int64_t (*)(void))dlsym(c, "weights_check"))());
  }
  return 0;
}
""")
    subprocess.run([CC, str(main), "-o", str(tmp_path / "main"), "-ldl"], check=True)
    # The rewritten library reads its weights back; a rewrite that only appended them after LIEF's
    # output (the negative control: the same weights 4 KiB off the boundary) reads -2.
    shifted = tmp_path / "libshifted.so"
    body = out.read_bytes()[: -len(weights)]
    shifted.write_bytes(body + bytes(4096) + weights)
    ran = subprocess.run([str(tmp_path / "main"), str(provider), str(out), str(shifted)], capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.split() == [str(sum(weights)), "-2"]


def test_appended_weights_are_streamed_not_held(tmp_path):
    """A model with 256 MiB of appended weights is rewritten in about the memory of its ELF image: LIEF
    gets the image alone and the weights are streamed after it. Before, LIEF held the whole file
    several times over (1.6 GB of memory for 512 MiB of weights, measured), so the ceiling below,
    the weights' own size, fails that rewrite."""
    weights = 256 << 20
    library = _cc(tmp_path, "selfmapped", SELF_MAPPED.replace("WEIGHTS", str(weights)))
    image = library.read_bytes()
    block = bytes(range(256)) * 4096
    with library.open("ab") as handle:
        handle.write(bytes(-len(image) % (1 << 14)))
        for _ in range(weights // len(block)):
            handle.write(block)
    out = tmp_path / "out.so"
    # A fresh parent whose only child is the CLI: RUSAGE_CHILDREN's peak is then the CLI's own.
    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "shimgen", "prefix-imports",
                           str(library), "-o", str(out), "-c", str(_config(tmp_path))],
                          capture_output=True, text=True, timeout=300)
    returncode, peak = map(int, done.stdout.split()[-2:])
    assert returncode == 0, done.stderr
    assert peak < weights, f"peak memory {peak >> 20} MiB for {weights >> 20} MiB of weights"
    with library.open("rb") as before, out.open("rb") as after:  # the weights, byte for byte, 16 KiB-aligned
        before.seek(-weights, 2)
        after.seek(-weights, 2)
        assert (out.stat().st_size - weights) % (1 << 14) == 0
        while chunk := before.read(1 << 24):
            assert after.read(len(chunk)) == chunk
