#!/usr/bin/python3
"""The reference's alignments of given outputs: for each output id, per
decoder layer, the source position that the reference forward pass
(converter/edgemt_convert/reference, PyTorch) weighs most in that layer's
cross-attention averaged over its heads, fed the same ids (teacher forcing),
the source's last position (</s>) left out, as the runtime's rule.

    reference_alignments.py MODEL IN.json OUT.json

IN.json: {"sources": [[ids with </s>], ...], "outputs": [[output ids], ...]};
OUT.json: [[per layer [per output id position]] per sentence]. A process of
its own: the converter's generated package `edgemt` is not the runtime's."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "converter"))
from edgemt_convert.format.reader import read  # noqa: E402
from edgemt_convert.reference.model import ReferenceModel  # noqa: E402


def main():
    model, inputs, out = sys.argv[1:4]
    with open(inputs) as f:
        data = json.load(f)
    ref = ReferenceModel(read(model))
    start = ref.config.decoder_start_id
    result = []
    with torch.no_grad():
        for source, output in zip(data["sources"], data["outputs"]):
            memory, valid = ref.encode([source])
            state = ref.start_decoder(memory, valid)
            weights = []
            ref.decode(state, torch.tensor([[start] + output]), weights)
            layers = []
            for w in weights:  # [1, heads, steps, source]
                mean = w[0].mean(dim=0)[:, :len(source) - 1]
                layers.append(mean.argmax(dim=-1).tolist()[:len(output)])
            result.append(layers)
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
