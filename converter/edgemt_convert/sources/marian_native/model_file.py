"""Marian's model files, plain or gzip'd, as browsermt/marian-dev reads them
(src/common/binary.cpp, src/common/io.cpp); our own reader.

.bin (binary version 1), little-endian:

    uint64 version = 1, uint64 n
    n x {uint64 nameLength (with its NUL), uint64 type, uint64 shapeLength, uint64 dataLength}
    n NUL-terminated names, then the shapes (n x shapeLength int32)
    uint64 offset, then offset zero bytes (the data starts on a 256-byte boundary)
    n x data, dataLength bytes each (tensors padded to 256 bytes, special:model.yml not)

Types (common/types.h): float32 0x0404, float16 0x0402 (widened here),
int8 0x0101 (only special:model.yml, the YAML text and a NUL), intgemm8
0x4101: q = clamp(rint(W * qm), -127, 127) as int8, stored transposed (W^T
row-major) except for names containing "Wemb" (stored as they are), then the
float32 quantization multiplier qm; the shape field keeps W's own shape.
Marian turns "Wemb" items back into float32 q * (1 / qm) when loading and
computes with the others' q and qm.

.npz: one "<name>.npy" per item (float32; biases and LayerNorm parameters
[1, d]) and "special:model.yml.npy", the YAML bytes and a NUL as a 1-byte array.

Every damaged or truncated file is a ConversionError naming it.
"""
import gzip
import io
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

import numpy as np

from ...errors import GZIP_MAGIC, ConversionError, file_bytes

FLOAT32, FLOAT16, INT8, INTGEMM8 = 0x0404, 0x0402, 0x0101, 0x4101
TYPE_NAMES = {0x0101: "int8", 0x0102: "int16", 0x0104: "int32", 0x0108: "int64", 0x0201: "uint8",
              0x0202: "uint16", 0x0204: "uint32", 0x0208: "uint64", 0x0402: "float16", 0x0404: "float32",
              0x0408: "float64", 0x4101: "intgemm8", 0x4102: "intgemm16"}
META = "special:model.yml"
BINARY_VERSION = 1
ZIP_MAGIC = b"PK"
MAX_ITEMS = 1 << 20


@dataclass
class Item:
    """One tensor of a model file, in Marian's orientation (its shape field)."""
    name: str
    kind: str                               # "float32" (float16 widened) or "intgemm8"
    shape: Tuple[int, ...]
    values: np.ndarray                      # float32, shape; intgemm8: q * float32(1 / qm)
    q: Optional[np.ndarray] = None          # intgemm8: the int8 values, in `shape` (untransposed)
    qm: Optional[float] = None              # intgemm8: the quantization multiplier (value = q / qm)


@dataclass
class ModelFile:
    path: str
    format: str                             # "bin" or "npz"
    gzipped: bool
    items: Dict[str, Item] = field(default_factory=dict)    # in file order
    yml_text: Optional[str] = None          # special:model.yml

    def kinds(self):
        """{kind: count} of its tensors."""
        out = {}
        for item in self.items.values():
            out[item.kind] = out.get(item.kind, 0) + 1
        return out


def is_wemb(name):
    return "Wemb" in name


def read_model(path):
    """ModelFile of a .bin or .npz (gzip'd or not), told apart by their bytes."""
    name = os.path.basename(path)
    data, gzipped = file_bytes(path, name)
    if data[:2] == ZIP_MAGIC:
        return ModelFile(path, "npz", gzipped, *_read_npz(data, name))
    return ModelFile(path, "bin", gzipped, *_read_bin(data, name))


# ---------------------------------------------------------------- .bin

class _Cursor:
    def __init__(self, data, name):
        self.data, self.name, self.pos = data, name, 0

    def take(self, size, what):
        if size < 0 or self.pos + size > len(self.data):
            raise ConversionError("%s: truncated Marian model file (%s ends beyond its %d bytes)"
                                  % (self.name, what, len(self.data)))
        start = self.pos
        self.pos += size
        return start

    def unpack(self, fmt, what):
        start = self.take(struct.calcsize(fmt), what)
        return struct.unpack_from(fmt, self.data, start)


def bin_headers(data, name):
    """[(name, type, shape, data start, data length)] of a .bin's bytes, after
    checking the layout (not yet the values)."""
    if len(data) < 16:
        raise ConversionError("%s: %d bytes, too short for a Marian binary model" % (name, len(data)))
    cur = _Cursor(data, name)
    version, n = cur.unpack("<QQ", "the header")
    if version != BINARY_VERSION:
        raise ConversionError("%s: not a Marian binary model (it starts with version %d; Marian's is %d)"
                              % (name, version, BINARY_VERSION))
    if n == 0 or n > MAX_ITEMS or 16 + 32 * n > len(data):
        raise ConversionError("%s: damaged Marian binary model (%d items in a %d-byte file)" % (name, n, len(data)))
    heads = [cur.unpack("<QQQQ", "the item headers") for _ in range(n)]
    names = []
    for (length, _, _, _) in heads:
        start = cur.take(length, "the item names")
        raw = data[start:start + length]
        if length == 0 or raw[-1:] != b"\0" or b"\0" in raw[:-1]:
            raise ConversionError("%s: damaged Marian binary model (an item name is not NUL-terminated)" % name)
        try:
            names.append(raw[:-1].decode("utf-8"))
        except UnicodeDecodeError:
            raise ConversionError("%s: damaged Marian binary model (an item name is not UTF-8)" % name)
    shapes = []
    for item, (_, _, rank, _) in zip(names, heads):
        if rank > 8:
            raise ConversionError("%s: damaged Marian binary model (item %s has %d dimensions)" % (name, item, rank))
        shape = cur.unpack("<%di" % rank, "the shapes")
        if any(s < 0 for s in shape):
            raise ConversionError("%s: damaged Marian binary model (item %s has shape %s)" % (name, item, list(shape)))
        shapes.append(tuple(shape))
    (offset,) = cur.unpack("<Q", "the data offset")
    cur.take(offset, "the padding before the data")
    out = []
    for item, (_, kind, _, length), shape in zip(names, heads, shapes):
        start = cur.take(length, "the data of " + item)
        out.append((item, kind, shape, start, length))
    return out


def _read_bin(data, name):
    items, yml = {}, None
    for item, kind, shape, start, length in bin_headers(data, name):
        raw = memoryview(data)[start:start + length]
        count = int(np.prod(shape, dtype=np.int64))
        if item == META:
            yml = _yml_text(bytes(raw), name)
            continue
        if item in items:
            raise ConversionError("%s: damaged Marian binary model (item %s twice)" % (name, item))
        if kind in (FLOAT32, FLOAT16):
            size = 4 if kind == FLOAT32 else 2
            if length < count * size:
                raise ConversionError("%s: damaged Marian binary model (item %s: %d bytes for shape %s of %s)"
                                      % (name, item, length, list(shape), TYPE_NAMES[kind]))
            values = np.frombuffer(raw, dtype="<f4" if kind == FLOAT32 else "<f2", count=count)
            items[item] = Item(item, "float32", shape, values.astype(np.float32).reshape(shape))
        elif kind == INTGEMM8:
            if length < count + 4:
                raise ConversionError("%s: damaged Marian binary model (intgemm8 item %s: %d bytes for shape %s "
                                      "and its multiplier)" % (name, item, length, list(shape)))
            items[item] = _intgemm8(item, shape, np.frombuffer(raw, dtype=np.int8, count=count),
                                    np.frombuffer(raw, dtype="<f4", count=1, offset=count)[0], name)
        else:
            what = TYPE_NAMES.get(kind)
            if what is None and kind & 0xFF00 not in (0x0100, 0x0200, 0x0400):
                what = "a processor-specific packed type"
            raise ConversionError("%s: item %s is stored as %s (type 0x%04x); EdgeMT reads float32, float16 and "
                                  "intgemm8 items (marian-conv --gemm-type float32 or intgemm8 writes them)"
                                  % (name, item, what or "an unknown type", kind))
    return items, yml


def _intgemm8(item, shape, stored, qm, name):
    qm = np.float32(qm)
    if not np.isfinite(qm) or qm <= 0:
        raise ConversionError("%s: intgemm8 item %s has quantization multiplier %r (positive and finite expected)"
                              % (name, item, float(qm)))
    if is_wemb(item) or len(shape) < 2:
        q = stored.reshape(shape)
    else:
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        q = stored.reshape(shape[-1], rows).T.reshape(shape)
    q = np.ascontiguousarray(q)
    values = q.astype(np.float32) * (np.float32(1.0) / qm)
    return Item(item, "intgemm8", shape, values, q=q, qm=float(qm))


def _yml_text(raw, name):
    text = raw.split(b"\0", 1)[0]
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise ConversionError("%s: special:model.yml is not UTF-8 text" % name)


# ---------------------------------------------------------------- .npz

def _read_npz(data, name):
    items, yml = {}, None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                item = info.filename[:-len(".npy")]
                with z.open(info) as f:
                    array = np.lib.format.read_array(f, allow_pickle=False)
                if item == META:
                    if array.dtype.itemsize != 1:
                        raise ConversionError("%s: special:model.yml is a %s array, not text" % (name, array.dtype))
                    yml = _yml_text(array.tobytes(), name)
                elif array.dtype.kind != "f":
                    raise ConversionError("%s: item %s has dtype %s (float expected)" % (name, item, array.dtype))
                else:
                    items[item] = Item(item, "float32", tuple(array.shape),
                                       np.ascontiguousarray(array, dtype=np.float32))
    except ConversionError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError) as e:
        raise ConversionError("%s: damaged .npz (%s)" % (name, (str(e).strip().splitlines() or [type(e).__name__])[0]))
    return items, yml


# ---------------------------------------------------------------- detection

def looks_like_model(path):
    """Cheap and never raising: a .bin whose header parses with a
    special:model.yml item, an .npz holding one, or a .npz.gz."""
    try:
        with open(path, "rb") as f:
            head = f.read(2)
        if head == GZIP_MAGIC:
            if path.endswith(".npz.gz"):
                return True
            with gzip.open(path, "rb") as g:
                data = g.read(1 << 20)
        elif head == ZIP_MAGIC:
            with zipfile.ZipFile(path) as z:
                return META + ".npy" in z.namelist()
        else:
            with open(path, "rb") as f:
                data = f.read(1 << 20)
        if len(data) < 16 or struct.unpack_from("<Q", data)[0] != BINARY_VERSION:
            return False
        names = _names_in_header(data)
        return names is not None and META in names
    except Exception:  # detect() never raises
        return False


def _names_in_header(data):
    """The item names of a .bin header found in `data` (a prefix of the file), or None."""
    try:
        (_, n) = struct.unpack_from("<QQ", data)
        if n == 0 or n > MAX_ITEMS:
            return None
        heads = [struct.unpack_from("<QQQQ", data, 16 + 32 * i) for i in range(n)]
        pos, names = 16 + 32 * n, []
        for (length, _, _, _) in heads:
            raw = data[pos:pos + length]
            if len(raw) != length or raw[-1:] != b"\0":
                return None
            names.append(raw[:-1].decode("utf-8"))
            pos += length
        return names
    except (struct.error, UnicodeDecodeError):
        return None
