"""How an Int4 tensor is stored in a file (schema/edgemt.fbs, docs/int4.md):
q in [-8, 7] as q + 8, two per byte, the lower nibble first; one scale per
row and block of inputs as a bfloat16 bit pattern; a block size a multiple
of 32 that divides the input width."""
import numpy as np

F32 = np.float32

# Inputs per scale XNNPACK accepts: a multiple of 32 (XNN_MIN_BLOCKSIZE).
BLOCK_MULTIPLE = 32


def to_bfloat16(x):
    """float32 -> bfloat16 bit patterns (uint16), rounded to nearest even."""
    u = np.ascontiguousarray(x, dtype=F32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bfloat16(bits):
    """bfloat16 bit patterns -> float32 (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(F32)


def valid_block_size(block, cols):
    return block > 0 and block % BLOCK_MULTIPLE == 0 and cols % block == 0


def pack_nibbles(q):
    """int8 q in [-8, 7], [rows, cols] (cols even) -> bytes of q + 8, lower nibble first."""
    u = (np.asarray(q, dtype=np.int16) + 8).astype(np.uint8).reshape(-1, 2)
    return (u[:, 0] | (u[:, 1] << 4)).astype(np.uint8)


def unpack_nibbles(packed, shape):
    """The inverse of pack_nibbles."""
    packed = np.asarray(packed, dtype=np.uint8)
    q = np.empty(packed.size * 2, dtype=np.int16)
    q[0::2] = packed & 0xF
    q[1::2] = packed >> 4
    return (q - 8).astype(np.int8).reshape(shape)
