"""What a file's first bytes say it is: the magic numbers of every format and container the
readers know, with nothing else imported (check-symbols sniffs a wheel's members on a worker
thread before the readers themselves are imported)."""

from __future__ import annotations

import struct

ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
THIN_AR_MAGIC = b"!<thin>\n"
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
MACHO_MAGICS = (b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe")
FAT_MAGICS = (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca")
LLVM_BITCODE_MAGICS = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")

HEAD_BYTES = 64  # enough for every magic, and for a COFF header (bigobj: 56 bytes)

# IMAGE_FILE_MACHINE_* values of the objects compilers write for Windows.
COFF_MACHINES = {0x14C: "i386", 0x8664: "x86_64", 0xAA64: "arm64", 0xA641: "arm64ec", 0xA64E: "arm64x",
                 0x1C4: "armnt", 0x1C0: "arm"}
# ANON_OBJECT_HEADER_BIGOBJ's ClassID, {D1BAA1C7-BAEE-4BA9-AF20-FAF66AA4DCB8}, as stored.
BIGOBJ_CLASS_ID = bytes.fromhex("c7a1bad1eebaa94baf20faf66aa4dcb8")
COFF_REGULAR_HEADER = 20
COFF_MAX_SECTIONS = 65279  # a regular header's limit; bigobj files hold more


def coff_kind(head: bytes) -> str | None:
    """'object' or 'bigobj' for a COFF object's first bytes, 'import' for a short import member of
    an import library, else None. COFF has no magic: a regular object is recognised by a known
    machine, a plausible section count and no optional header (an image would have one)."""
    if len(head) >= 4 and head[:4] == b"\0\0\xff\xff":
        if len(head) >= 6 and struct.unpack_from("<H", head, 4)[0] == 0:
            return "import"
        if len(head) >= 28 and head[12:28] == BIGOBJ_CLASS_ID:
            return "bigobj"
        return None
    if len(head) < COFF_REGULAR_HEADER:
        return None
    machine, sections = struct.unpack_from("<HH", head, 0)
    optional_size, = struct.unpack_from("<H", head, 16)
    if machine in COFF_MACHINES and 0 < sections <= COFF_MAX_SECTIONS and optional_size == 0:
        return "object"
    return None


def sniff(head: bytes) -> str | None:
    """The container or format a file's first ``HEAD_BYTES`` announce, or None for anything else."""
    if head[:4] == ELF_MAGIC:
        return "ELF"
    if head[:4] in MACHO_MAGICS:
        return "Mach-O"
    if head[:4] in FAT_MAGICS:
        # Java class files share 0xCAFEBABE: there the next word is the class version (45 and up),
        # in a fat header the architecture count (a handful), so the cut-off lies between.
        if len(head) >= 8 and 0 < struct.unpack(">I", head[4:8])[0] < 20:
            return "Mach-O"
        return None
    if head[:2] == b"MZ":
        return "PE"
    if head[:8] == AR_MAGIC:
        return "archive"
    if head[:8] == THIN_AR_MAGIC:
        return "thin-archive"
    if head[:4] in (ZIP_MAGIC, EMPTY_ZIP_MAGIC):
        return "zip"
    if head[:4] in LLVM_BITCODE_MAGICS:
        return "bitcode"
    coff_kind_ = coff_kind(head)  # last: COFF objects have no magic, only a plausible header
    if coff_kind_ == "import":
        return "coff-import"
    if coff_kind_ is not None:
        return "COFF"
    return None


def is_member_binary(head: bytes) -> bool:
    """A zip member worth decompressing for check-symbols: a binary, not a zip inside the zip."""
    return sniff(head) not in (None, "zip")
