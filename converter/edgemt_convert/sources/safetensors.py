"""model.safetensors: Hugging Face's tensor file, read without a new dependency.

The format: an 8-byte little-endian header length N, N bytes of JSON
({name: {"dtype", "shape", "data_offsets": [begin, end]}, optional
"__metadata__": {str: str}}), then the tensors' bytes, little-endian, C
order, each at [begin, end) of the data that follows the header. Every entry
is checked against the file (offsets inside the data, sizes matching shapes,
no two tensors sharing bytes) before anything is read, and each problem is a
one-line ConversionError naming the file and the tensor.
"""
import json
import mmap
import os
import struct

import numpy as np

from ..errors import ConversionError

# safetensors dtype names -> numpy dtypes (little-endian). BF16 has no numpy
# type: its 16-bit words are widened to float32 by read().
DTYPES = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2"),
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"), "I8": np.dtype("i1"),
    "U8": np.dtype("u1"), "BOOL": np.dtype("?"),
}
# A header is JSON text of a few hundred bytes per tensor: refuse absurd lengths before reading.
MAX_HEADER_BYTES = 100 << 20


def _fail(path, message):
    raise ConversionError("%s: %s" % (os.path.basename(path), message))


def read_header(path, data):
    """{name: (dtype name, shape, begin, end)} with offsets into the data section, and the data's start."""
    if len(data) < 8:
        _fail(path, "too short for a safetensors file (%d bytes)" % len(data))
    (length,) = struct.unpack("<Q", data[:8])
    if length > MAX_HEADER_BYTES or 8 + length > len(data):
        _fail(path, "header length %d does not fit the file's %d bytes" % (length, len(data)))
    try:
        header = json.loads(bytes(data[8:8 + length]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        _fail(path, "header is not JSON (%s)" % str(e).splitlines()[0][:120])
    if not isinstance(header, dict):
        _fail(path, "header is not a JSON object")
    start = 8 + length
    size = len(data) - start
    entries = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not (isinstance(entry, dict) and isinstance(entry.get("dtype"), str)
                and isinstance(entry.get("shape"), list) and isinstance(entry.get("data_offsets"), list)):
            _fail(path, "tensor %s: needs dtype, shape and data_offsets" % name)
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in DTYPES:
            _fail(path, "tensor %s: dtype %s is not one of %s" % (name, dtype, ", ".join(DTYPES)))
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
            _fail(path, "tensor %s: shape %s is not a list of sizes" % (name, shape))
        if not (len(offsets) == 2 and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= size):
            _fail(path, "tensor %s: data_offsets %s are outside the %d bytes of data" % (name, offsets, size))
        expected = int(np.prod(shape, dtype=np.int64)) * DTYPES[dtype].itemsize
        if offsets[1] - offsets[0] != expected:
            _fail(path, "tensor %s: %d bytes for shape %s of %s, which needs %d"
                  % (name, offsets[1] - offsets[0], shape, dtype, expected))
        entries[name] = (dtype, tuple(shape), offsets[0], offsets[1])
    spans = sorted((begin, end, name) for name, (_, _, begin, end) in entries.items() if end > begin)
    for (_, end, first), (begin, _, second) in zip(spans, spans[1:]):
        if begin < end:
            _fail(path, "tensors %s and %s share bytes" % (first, second))
    return entries, start


def read(path):
    """{name: ndarray} of every tensor in the file (BF16 widened to float32, exactly)."""
    if not os.path.exists(path):
        _fail(path, "not found in " + os.path.dirname(path))
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size > 0 else b""
    try:
        entries, start = read_header(path, data)
        tensors = {}
        for name, (dtype, shape, begin, end) in entries.items():
            if end == begin:  # a tensor with a zero-sized dimension
                tensors[name] = np.zeros(shape, np.float32 if dtype == "BF16" else DTYPES[dtype])
                continue
            raw = np.frombuffer(data, dtype=DTYPES[dtype], count=(end - begin) // DTYPES[dtype].itemsize,
                                offset=start + begin).reshape(shape)
            if dtype == "BF16":
                tensors[name] = (raw.astype(np.uint32) << 16).view(np.float32)
            else:
                tensors[name] = raw.copy()  # the mapping closes below
            del raw  # a view of the mapping would keep it from closing
        return tensors
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
