"""CTranslate2's binary model file (model.bin), every version CTranslate2 4.x
loads (1 to 6), read into numpy arrays: our own reader of the layout that
CTranslate2's src/models/model.cc reads and specs/model_spec.py writes.

    u32 version                           1..6
    [version >= 2] string spec name, u32 spec revision
    u32 count, then per variable:
        string name, u8 rank, u32 dims[rank],
        version >= 4: u8 type id, u32 byte count
        version <  4: u8 item size (4 float32, 2 int16, 1 int8), u32 element count
        the values, packed (no alignment)
    [version >= 3] u32 count, then (string alias, string target) pairs

A string is a u16 length that counts a trailing NUL, then its bytes and the
NUL. Everything is little-endian. Version 5 only changed how weights are
rounded when quantized (older files truncate); version 6 moved the special
tokens into config.json.
"""
import struct
from dataclasses import dataclass, field
from typing import Dict

import numpy as np

from ...errors import ConversionError

NEWEST_VERSION = 6
NEWEST_REVISION = 7          # TransformerSpec's revision in CTranslate2 4.x

# Type ids of version 4 and later (CTranslate2's DataType).
TYPES = {0: np.dtype("<f4"), 1: np.dtype("i1"), 2: np.dtype("<i2"), 3: np.dtype("<i4"),
         4: np.dtype("<f2"), 5: np.dtype("<u2")}       # 5: bfloat16, kept as its raw 16 bits
TYPE_NAMES = {0: "float32", 1: "int8", 2: "int16", 3: "int32", 4: "float16", 5: "bfloat16"}
ITEM_SIZES = {4: 0, 2: 2, 1: 1}                         # before version 4: item size -> type id


@dataclass
class ModelBin:
    version: int
    spec: str                    # "TransformerSpec"; "" for version 1
    revision: int
    variables: Dict[str, np.ndarray] = field(default_factory=dict)
    types: Dict[str, str] = field(default_factory=dict)      # name -> "float32", "bfloat16", ...
    aliases: Dict[str, str] = field(default_factory=dict)    # alias -> the variable it names

    def get(self, name, default=None):
        """A variable by name, following aliases (an alias's "_scale" follows its target's, as
        CTranslate2's loader does, though the file does not list it)."""
        if name in self.variables:
            return self.variables[name]
        if name in self.aliases:
            return self.variables.get(self.aliases[name], default)
        base = name[: -len("_scale")]
        if name.endswith("_scale") and base in self.aliases:
            return self.variables.get(self.aliases[base] + "_scale", default)
        return default

    def type_of(self, name):
        target = self.aliases.get(name, name)
        return self.types.get(target)

    def has_scope(self, scope):
        """True when a variable or alias lies under scope/ (how CTranslate2 finds optional layers)."""
        prefix = scope + "/"
        return any(n.startswith(prefix) for n in self.variables) or any(n.startswith(prefix) for n in self.aliases)


class _Cursor:
    def __init__(self, data, name):
        self.data, self.pos, self.name = data, 0, name

    def take(self, n, what):
        if n < 0 or self.pos + n > len(self.data):
            raise ConversionError("%s: truncated at byte %d (reading %s; the file has %d bytes)"
                                  % (self.name, self.pos, what, len(self.data)))
        start = self.pos
        self.pos += n
        return start

    def unpack(self, fmt, what):
        size = struct.calcsize(fmt)
        return struct.unpack_from(fmt, self.data, self.take(size, what))

    def string(self, what):
        (length,) = self.unpack("<H", what)
        if length == 0:
            raise ConversionError("%s: an empty string at byte %d (%s): not a CTranslate2 model" % (self.name, self.pos, what))
        start = self.take(length, what)
        raw = bytes(self.data[start:start + length - 1])
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ConversionError("%s: %s at byte %d is not UTF-8: not a CTranslate2 model" % (self.name, what, start))


def read_model_bin(data, name="model.bin"):
    """ModelBin of the file's bytes; ConversionError names what is wrong (a version
    CTranslate2 4.x does not load, a truncated file, trailing bytes, bad sizes)."""
    cur = _Cursor(memoryview(data), name)
    (version,) = cur.unpack("<I", "the version")
    if not 1 <= version <= NEWEST_VERSION:
        raise ConversionError("%s: binary version %d; CTranslate2 4.x model files have versions 1 to %d%s"
                              % (name, version, NEWEST_VERSION,
                                 " (is it a CTranslate2 model.bin?)" if version > 1000 else ""))
    spec, revision = "", 1
    if version >= 2:
        spec = cur.string("the spec name")
        (revision,) = cur.unpack("<I", "the spec revision")
    model = ModelBin(version=version, spec=spec, revision=revision)
    (count,) = cur.unpack("<I", "the variable count")
    for _ in range(count):
        _read_variable(cur, model)
    if version >= 3:
        (count,) = cur.unpack("<I", "the alias count")
        for _ in range(count):
            alias = cur.string("an alias")
            model.aliases[alias] = cur.string("the target of alias %s" % alias)
    if cur.pos != len(data):
        raise ConversionError("%s: %d bytes after the last %s: a damaged file"
                              % (name, len(data) - cur.pos, "alias" if version >= 3 else "variable"))
    return model


def _read_variable(cur, model):
    vname = cur.string("a variable name")
    (rank,) = cur.unpack("<B", "the rank of " + vname)
    dims = cur.unpack("<%dI" % rank, "the shape of " + vname) if rank else ()
    if model.version >= 4:
        type_id, nbytes = cur.unpack("<BI", "the type of " + vname)
        if type_id not in TYPES:
            raise ConversionError("%s: variable %s has type id %d, which CTranslate2 does not define"
                                  % (cur.name, vname, type_id))
    else:
        item, count = cur.unpack("<BI", "the type of " + vname)
        if item not in ITEM_SIZES:
            raise ConversionError("%s: variable %s has item size %d (1, 2 or 4 expected)" % (cur.name, vname, item))
        type_id, nbytes = ITEM_SIZES[item], count * item
    dtype = TYPES[type_id]
    elements = int(np.prod(dims, dtype=np.int64)) if rank else 1
    if elements * dtype.itemsize != nbytes:
        raise ConversionError("%s: variable %s has shape %s of %s but %d bytes"
                              % (cur.name, vname, list(dims), TYPE_NAMES[type_id], nbytes))
    start = cur.take(nbytes, "the values of " + vname)
    values = np.frombuffer(cur.data, dtype=dtype, count=elements, offset=start).reshape(dims).copy()
    model.variables[vname] = values
    model.types[vname] = TYPE_NAMES[type_id]
