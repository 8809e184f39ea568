"""Turn PATHs into Binary values: files, static archives, directories, wheels/zips.

Reading only: nothing is loaded, executed or extracted to disk. Binaries are recognised by magic
bytes, never by suffix. Zip members are decompressed under caps on count and produced bytes
(shimgen.binary.zipread), never extracted under their own names.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterable, Iterator, Sequence

from shimgen.binary import elf
from shimgen.binary.magic import AR_MAGIC, HEAD_BYTES, sniff
from shimgen.binary.symbols import Binary
from shimgen.errors import InputError
from shimgen.record import record

__all__ = ["DEFAULT_LIMITS", "HEAD_BYTES", "Limits", "load_bytes", "load_path", "load_paths", "path_name", "sniff"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
OBJECT_SUFFIXES = (".o", ".obj", ".lo", ".ao")  # archive members named like compiled objects


@record
class Limits:
    """Caps on what a zip may make us decompress (a wheel is untrusted input): counted in the bytes
    each member really produces, whatever its header declares (see shimgen.binary.zipread)."""

    zip_members: int = 20_000
    member_bytes: int = 1 << 30  # libtensorflow_cc.so.2 is 751 MB, libtorch_cuda.so 479 MB
    total_bytes: int = 4 << 30


DEFAULT_LIMITS = Limits()


def load_paths(paths: Sequence[str | os.PathLike[str]], *, hidden_of: Iterable[str] = (), detail: bool = False,
               limits: Limits = DEFAULT_LIMITS, local_tls: bool = False) -> list[Binary]:
    """Every binary in ``paths``, in a stable order. Raises InputError for unusable input.

    ``local_tls``: also read the hidden thread-locals of static symbol tables (see
    ``Binary.tls_hidden``); only worth it when several linked binaries are checked together."""
    hidden_of = _Wanted(hidden_of, local_tls)
    binaries: list[Binary] = []
    for path in paths:
        binaries.extend(load_path(path, hidden_of=hidden_of, detail=detail, limits=limits))
    return binaries


class _Wanted(frozenset):
    """The names ``hidden_of`` asks about, carrying whether hidden thread-locals are wanted too
    (one value travels through every container reader unchanged)."""

    local_tls: bool = False

    def __new__(cls, names: Iterable[str] = (), local_tls: bool = False) -> _Wanted:
        wanted = super().__new__(cls, names)
        wanted.local_tls = local_tls
        return wanted


def path_name(path: str | os.PathLike[str]) -> str:
    """``str(Path(path))``, the name a binary is reported under, without importing pathlib (it
    and the urllib it imports cost ~5 ms of every check-symbols run): empty and "." components
    dropped, a root kept (POSIX keeps exactly two leading slashes as they are)."""
    word = os.fspath(path)
    if os.name != "posix":
        from pathlib import Path

        return str(Path(word))
    root = "//" if word.startswith("//") and not word.startswith("///") else "/" if word.startswith("/") else ""
    parts = [p for p in word.split("/") if p not in ("", ".")]
    return root + "/".join(parts) if parts or root else "."


def load_path(path: str | os.PathLike[str], *, hidden_of: frozenset[str] = frozenset(), detail: bool = False,
              limits: Limits = DEFAULT_LIMITS) -> list[Binary]:
    name = path_name(path)
    if os.path.isdir(name):
        found = list(_walk(name, hidden_of, detail, limits))
        if not found:
            raise InputError(f"{name}: directory holds no binary (ELF, Mach-O, PE, COFF object, archive or zip)")
        return found
    if not os.path.exists(name):
        if os.path.islink(name):
            raise InputError(f"{name}: broken or looping symbolic link")
        raise InputError(f"{name}: no such file")
    if not os.path.isfile(name):
        raise InputError(f"{name}: not a regular file")
    return _load_file(name, name, hidden_of, detail, limits, required=True)


def _walk(root: str, hidden_of, detail, limits) -> Iterator[Binary]:
    """Each directory's files in name order, then its subdirectories in name order (os.walk's
    top-down order). Symlinks are skipped: libfoo.so -> libfoo.so.1 would otherwise be checked
    twice and look like two providers of every symbol.

    os.scandir rather than os.walk + pathlib: torch, numpy and scipy hold 18k files, 270 of them
    binaries, and a Path and two stats per file cost more than reading the binaries."""
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return  # as os.walk: an unreadable directory is passed over
    subdirectories = []
    for entry in entries:
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            subdirectories.append(entry)
        elif entry.is_file(follow_symlinks=False) and sniff(_head(entry.path, entry.path)) is not None:
            yield from _load_file(entry.path, entry.path, hidden_of, detail, limits, required=False)
    for entry in subdirectories:
        yield from _walk(path_name(entry.path), hidden_of, detail, limits)


def _head(path: Path | str, name: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # O_NONBLOCK: a FIFO never blocks us
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror}") from None
    try:
        return os.read(fd, HEAD_BYTES)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)


def _load_file(path: str, name: str, hidden_of, detail, limits, *, required: bool) -> list[Binary]:
    head = _head(path, name)
    kind = sniff(head)
    if kind is None:
        if not required:
            return []
        if not head:
            raise InputError(f"{name}: empty file, not a binary")
        raise InputError(f"{name}: not a binary (no ELF, Mach-O, PE, archive or zip magic, no COFF header)")
    if kind == "zip":
        return _load_zip(path, name, hidden_of, detail, limits, required=required)
    try:
        handle = open(path, "rb")  # noqa: SIM115 (kept open for pread while the mapping is read)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc}") from None
    with handle:
        try:
            # mmap: the fast reader touches only the symbol tables of a 434 MB library.
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise InputError(f"{name}: cannot read: {exc}") from None
        try:
            return load_bytes(data, name, None, hidden_of=hidden_of, detail=detail, limits=limits,
                              pread=file_reader(handle.fileno()))
        except EmptyArchive:
            if required:
                raise
            return []
        finally:
            data.close()


def file_reader(fd: int):
    """An ``elf.Pread`` over an open file: the bytes at an offset, without mapping them."""
    def pread(offset: int, size: int) -> bytes:
        try:
            return os.pread(fd, size, offset)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}") from None
    return pread


def load_bytes(data, path: str, member: str | None, *, hidden_of: frozenset[str] = frozenset(),
               detail: bool = False, limits: Limits = DEFAULT_LIMITS, pread=None) -> list[Binary]:
    """Binaries held in ``data`` (bytes or mmap), named ``path`` (``member`` inside it).
    ``pread``: reads the same bytes from their file (see ``elf.read_elf``), for a whole ELF file."""
    where = f"{path}({member})" if member else path
    kind = sniff(bytes(data[:HEAD_BYTES]))
    if kind == "ELF":
        local_tls = getattr(hidden_of, "local_tls", False)
        try:
            return [elf.read_elf(data, path, member, hidden_of=hidden_of, detail=detail, local_tls=local_tls,
                                 pread=pread)]
        except elf.NoSections:
            from shimgen.binary.lief_reader import read_elf_lief

            return [read_elf_lief(data, path, member, hidden_of=hidden_of, detail=detail, local_tls=local_tls)]
    if kind == "Mach-O":
        from shimgen.binary.lief_reader import read_macho

        return read_macho(data, path, member, hidden_of=hidden_of, detail=detail)
    if kind == "PE":
        from shimgen.binary.lief_reader import read_pe

        return [read_pe(data, path, member, detail=detail)]
    if kind == "COFF":
        from shimgen.binary.coff import read_coff

        return [read_coff(data, path, member, detail=detail)]
    if kind == "coff-import":
        raise InputError(f"{where}: a short import record of an import library (it names a DLL export, defines "
                         "nothing); check the DLL instead")
    if kind == "archive":
        return _load_archive(data, path, member, hidden_of, detail)
    if kind == "thin-archive":
        raise InputError(f"{where}: thin archive (members live in other files); pass the member objects instead")
    if kind == "bitcode":
        raise InputError(f"{where}: LLVM bitcode (LTO) object, no native symbol table; check the linked library "
                         "instead, or compile without -flto")
    if kind == "zip":
        raise InputError(f"{where}: a zip inside an archive or zip is not read")
    raise InputError(f"{where}: not a binary (no ELF, Mach-O, PE or archive magic, no COFF header)")


def archive_members(data, where: str) -> Iterator[tuple[str, int, int]]:
    """(name, offset, size) of each object in a System V / GNU / BSD ``ar`` archive, checked."""
    size = len(data)
    offset = len(AR_MAGIC)
    long_names = b""
    starts: set[int] = set()
    indexed: set[int] = set()
    linker_members = 0
    while offset < size:
        starts.add(offset)
        if offset + 60 > size:
            raise InputError(f"{where}: truncated archive: member header at {offset} runs past the end")
        header = bytes(data[offset:offset + 60])
        if header[58:60] != b"`\n":
            raise InputError(f"{where}: corrupt archive: bad member header at offset {offset}")
        raw_name = header[:16].rstrip(b" ")
        try:
            length = int(header[48:58].strip() or b"-1")
        except ValueError:
            length = -1
        if length < 0:
            raise InputError(f"{where}: corrupt archive: bad member size at offset {offset}")
        start = offset + 60
        end = start + length
        if end > size:
            raise InputError(f"{where}: truncated archive: member at {offset} ends at {end}, file has {size} bytes")
        name_bytes = raw_name
        if raw_name == b"//":
            long_names = bytes(data[start:end])
            name_bytes = b""
        elif raw_name == b"/" and linker_members == 1:
            # Microsoft's second linker member (lib.exe, llvm-lib, llvm-ar on COFF members): the
            # same index, little-endian and sorted by name.
            linker_members += 1
            name_bytes = b""
            indexed |= _ms_index_offsets(bytes(data[start:end]), where)
        elif raw_name in (b"/", b"/SYM64/"):
            linker_members += 1
            name_bytes = b""  # the archive's symbol index, not a member
            indexed = _index_offsets(bytes(data[start:end]), 8 if raw_name == b"/SYM64/" else 4, where)
        elif raw_name in (b"__.SYMDEF", b"__.SYMDEF SORTED"):
            name_bytes = b""
        elif raw_name.startswith(b"#1/"):  # BSD: the name precedes the data
            try:
                name_length = int(raw_name[3:])
            except ValueError:
                raise InputError(f"{where}: corrupt archive: bad BSD name at offset {offset}") from None
            if name_length > length:
                raise InputError(f"{where}: corrupt archive: BSD name longer than its member at offset {offset}")
            name_bytes = bytes(data[start:start + name_length]).rstrip(b"\0")
            start += name_length
            if name_bytes.startswith(b"__.SYMDEF"):
                name_bytes = b""
        elif raw_name.startswith(b"/") and raw_name[1:].isdigit():  # GNU: offset into the long names
            index = int(raw_name[1:])
            # GNU ends each long name with "/\n", Microsoft's lib.exe (and llvm-lib) with a NUL.
            stop = min((at for at in (long_names.find(b"/\n", index), long_names.find(b"\0", index)) if at >= 0),
                       default=-1)
            if index >= len(long_names) or stop < 0:
                raise InputError(f"{where}: corrupt archive: long name offset {index} out of range")
            name_bytes = long_names[index:stop]
        elif raw_name.endswith(b"/"):
            name_bytes = raw_name[:-1]
        if name_bytes:
            yield _printable(name_bytes.decode("utf-8", "backslashreplace")), start, end - start
        offset = end + (end & 1)  # members are 2-byte aligned
    # The symbol index names the member defining each symbol by its header's offset: an archive
    # cut exactly between two members still looks whole, but its index points past the end.
    if indexed - starts:
        raise InputError(f"{where}: truncated or corrupt archive: its symbol index points at offset "
                         f"{min(indexed - starts)}, where no member starts")


def _printable(name: str) -> str:
    """A member name safe to show in a one-line message: control characters escaped."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}" for c in name)


def _index_offsets(index: bytes, width: int, where: str) -> set[int]:
    """Member offsets listed in a System V / GNU archive symbol index (big-endian count + offsets)."""
    if len(index) < width:
        raise InputError(f"{where}: corrupt archive: symbol index of {len(index)} bytes")
    count = int.from_bytes(index[:width], "big")
    if width + count * width > len(index):
        raise InputError(f"{where}: corrupt archive: symbol index lists {count} symbols in {len(index)} bytes")
    # The offsets are followed by one NUL-terminated name per symbol.
    if index.count(b"\0", width + count * width) < count:
        raise InputError(f"{where}: corrupt archive: symbol index lists {count} symbols but holds fewer names")
    return {int.from_bytes(index[width + i * width:width + (i + 1) * width], "big") for i in range(count)}


def _ms_index_offsets(index: bytes, where: str) -> set[int]:
    """Member offsets in a Microsoft second linker member: a little-endian member count, the
    members' offsets, a symbol count, one 2-byte member number per symbol, then the names."""
    if len(index) < 4:
        raise InputError(f"{where}: corrupt archive: second linker member of {len(index)} bytes")
    members = int.from_bytes(index[:4], "little")
    counted = 4 + members * 4
    if counted + 4 > len(index):
        raise InputError(f"{where}: corrupt archive: second linker member lists {members} members in "
                         f"{len(index)} bytes")
    symbols = int.from_bytes(index[counted:counted + 4], "little")
    if counted + 4 + symbols * 2 > len(index):
        raise InputError(f"{where}: corrupt archive: second linker member lists {symbols} symbols in "
                         f"{len(index)} bytes")
    return {int.from_bytes(index[4 + i * 4:8 + i * 4], "little") for i in range(members)}


def _load_archive(data, path: str, member: str | None, hidden_of, detail) -> list[Binary]:
    where = f"{path}({member})" if member else path
    binaries: list[Binary] = []
    seen: dict[str, int] = {}
    count = 0
    foreign: list[str] = []
    imports = 0
    for name, start, length in archive_members(data, where):
        count += 1
        # Archives may hold two members of one name (a.o from two directories): number repeats.
        seen[name] = seen.get(name, 0) + 1
        label = name if seen[name] == 1 else f"{name}#{seen[name]}"
        inner = f"{member}:{label}" if member else label
        body = data[start:start + length]
        kind = sniff(bytes(body[:HEAD_BYTES]))
        if kind == "coff-import":
            imports += 1  # an import library's record of one DLL export: it defines nothing
            continue
        if kind not in ("ELF", "Mach-O", "PE", "COFF", "bitcode"):
            # Archives may carry other members (a .def, GNU ar's __.LIBDEP), which hold nothing
            # the rules read; a member named as an object but without an object's magic is a
            # damaged one.
            if name.endswith(OBJECT_SUFFIXES):
                foreign.append(inner)
            continue
        binaries.extend(load_bytes(body, path, inner, hidden_of=hidden_of, detail=detail))
    if foreign and any(b.format in ("ELF", "COFF") for b in binaries):
        # nm reports such a member as "file format not recognized": it must not drop out of the
        # check silently (the symbols it held would go unchecked).
        raise InputError(f"{where}: corrupt archive: member {foreign[0]!r} is named as an object file but "
                         "holds none (no ELF magic or COFF header)")
    if count == 0:
        raise EmptyArchive(f"{where}: empty archive (no members): nothing to check")
    if not binaries and imports:
        raise InputError(f"{where}: import library ({imports} import records, no object): it defines nothing; "
                         "check the DLL it names instead")
    if not binaries:
        raise InputError(f"{where}: archive holds no ELF, Mach-O or COFF object ({count} members)")
    return binaries


class EmptyArchive(InputError):
    """An archive with no members at all (glibc ships librt.a, libdl.a and others as such stubs):
    an error when named on its own, passed over inside a directory."""


def _load_zip(path: str, name: str, hidden_of, detail, limits: Limits, *, required: bool = True) -> list[Binary]:
    from shimgen.binary.magic import is_member_binary
    from shimgen.binary.zipread import MemberStream, ZipCaps, started  # only wheels pay for zipfile

    caps = ZipCaps(limits.zip_members, limits.member_bytes, limits.total_bytes)
    binaries: list[Binary] = []
    # A zip inside the zip is not read (nor is anything that is not a binary).
    with started(name, caps) or MemberStream(path, name, caps, is_member_binary, HEAD_BYTES) as stream:
        for member in stream:
            try:
                binaries.extend(load_bytes(member.data, name, member.name, hidden_of=hidden_of, detail=detail,
                                           pread=member.pread))
            finally:
                member.close()
    if not binaries and required:  # inside a directory, a zip of data (torch's .ptl models) is skipped
        raise InputError(f"{name}: zip holds no binary (ELF, Mach-O, PE, COFF object or archive)")
    return binaries


def unsafe_member_name(name: str) -> str | None:
    """Why a zip member name would leave the extraction directory (see shimgen.binary.zipread)."""
    from shimgen.binary.zipread import unsafe_member_name as why

    return why(name)
