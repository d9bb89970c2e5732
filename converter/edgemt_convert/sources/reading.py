"""Reading what every importer reads, with one-line errors: PyTorch weight
files (never running code from their pickle), SentencePiece models, tensors
as float32 numpy arrays; and how messages show shapes."""
import os

import numpy as np

from ..errors import ConversionError, read_bytes
from ..format.tokenizer import load_processor


def first_line(e):
    """The first line of an exception's message (its type's name without one)."""
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def load_torch(path):
    """torch.load of a weight file with weights_only: a checkpoint is data."""
    import torch  # imported here: config errors should not wait for torch
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types (pickle, zip, runtime)
        raise ConversionError("%s: cannot read (%s)" % (os.path.basename(path), first_line(e)[:200]))


def to_float32(tensor):
    """A floating-point torch tensor as a contiguous float32 ndarray."""
    import torch
    return tensor.detach().to(torch.float32).contiguous().numpy()


def nonfinite(a):
    """What is not finite in an array ("NaN" or "infinite values"), None when all is."""
    if np.all(np.isfinite(a)):
        return None
    return "NaN" if np.isnan(a).any() else "infinite values"


def read_sentencepiece(path, name, not_found):
    """(bytes, processor) of a SentencePiece model file; `name` is how
    messages call it, `not_found` the message when it is missing."""
    data = read_bytes(path, name, not_found=not_found)
    try:
        processor = load_processor(data)
    except Exception as e:  # sentencepiece raises RuntimeError/OSError variants
        raise ConversionError("%s: not a SentencePiece model (%s)"
                              % (name, (str(e).splitlines() or [type(e).__name__])[0][:120]))
    return data, processor
