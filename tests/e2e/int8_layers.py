"""The runtime's int8 Linears, call by call, against the converter's
simulation of docs/int8.md.

`edgemt-dump-tensors ... --linears` records every quantized Linear the
runtime ran: its float input, the integers and parameters XNNPACK quantized
it to, and its float output. The simulation (reference.model.ReferenceModel
over the same file) then runs in lock step with it. Each of its int8
Linears, called with the simulation's own input, checks:

1. the layer: the runtime ran the file's weights, scales and bias of this
   Linear (matched by their offsets in the file), in the expected fused group;
2. the float path into it: the simulation's input equals the runtime's
   within float32 summation order (FLOAT_TOLERANCE, as float32 against
   PyTorch in test_variants.py);
3. the quantization: the simulation quantizes the runtime's input to exactly
   the runtime's integers, zero points and scales;
4. the product: the simulation's arithmetic on the runtime's integers equals
   the runtime's output within the bound docs/int8.md derives from the
   kernels' roundings, 2^-22 |p| + ulp(|p| + |b|) for the product
   p = float(acc) * si * s and the bias b;

and then returns the runtime's output, so that the next layer starts from
the runtime's values: a whole-quantum step from one input element near a
rounding boundary never grows into a difference further on.
"""
import os
import sys

import numpy as np
import torch

from e2e_common import REPO

sys.path.insert(0, os.path.join(REPO, "converter"))
from edgemt_convert.quantize.int8 import Int8Linear, quantize_input  # noqa: E402
from edgemt_convert.format.reader import parse, tensor_data_offsets  # noqa: E402
from edgemt_convert.reference.model import ReferenceModel  # noqa: E402

# Of the largest absolute value of the runtime's input (at least 1e-6).
FLOAT_TOLERANCE = 2e-6

KIND_INT8 = 1
# The runtime's fused operators: these parts, in this order, in one product.
FUSED_GROUPS = (("query", "key", "value"), ("key", "value"))


def read_trace(path):
    """The records of a .linears file (tests/tools/dump_tensors.cc) as dicts."""
    with open(path, "rb") as f:
        data = f.read()
    at = 0

    def take(dtype, count):
        nonlocal at
        a = np.frombuffer(data, dtype=dtype, count=count, offset=at)
        at += a.nbytes
        return a

    calls = []
    while at < len(data):
        kind, relu, rows, n_in, n_out, n_parts = (int(v) for v in take("<i8", 6))
        parts = [tuple(int(v) for v in take("<i8", 4)) for _ in range(n_parts)]
        calls.append(dict(
            kind=kind, relu=bool(relu), parts=parts,
            x=take("<f4", rows * n_in).reshape(rows, n_in),
            q=take("i1", rows * n_in).reshape(rows, n_in),
            zero=take("<i4", rows), scale=take("<f4", rows),
            y=take("<f4", rows * n_out).reshape(rows, n_out)))
    return calls


def ulp(a):
    return np.spacing(np.abs(np.asarray(a, np.float32)))


class Mismatch(AssertionError):
    pass


class LockStep:
    """The simulation of one int8 file, driven by one trace of the runtime."""

    def __init__(self, model_path):
        with open(model_path, "rb") as f:
            buf = f.read()
        self.model = parse(buf)
        self.names_at = {}                              # offset of a tensor's data -> tensor name
        self.scales_at = {}                             # tensor name -> offset of its scales
        for name, start, _, scales in tensor_data_offsets(buf):
            if start is not None:
                self.names_at[start] = name
                self.scales_at[name] = scales
        self.worst_float = 0.0                          # largest relative input difference seen
        self.worst_product = 0.0                        # largest output difference / its bound

    def check(self, trace_path, source, fed):
        """Runs the simulation over source and the forced ids `fed`, as
        edgemt-dump-tensors did, checking it against the trace."""
        self.queues = {}
        for call in read_trace(trace_path):
            self._enqueue(call)
        ref = ReferenceModel(self.model)
        linears = dict(self.model.named_linears())
        for name, linear in linears.items():
            weight = self.model.linear_weight(linear).data.astype(np.float64)
            ref.ops[name] = self._runtime_linear(name, ref.ops[name], weight)
        with torch.no_grad():
            memory, valid = ref.encode([[int(i) for i in source]])
            state = ref.start_decoder(memory, valid)
            token = self.model.config.decoder_start_id
            for step in range(len(fed) + 1):
                ref.project(ref.decode(state, torch.tensor([[int(token)]], dtype=torch.long)))
                if step < len(fed):
                    token = fed[step]
        left = {name: len(q) for name, q in self.queues.items() if q}
        if left:
            raise Mismatch("the runtime ran Linears the simulation did not: %s" % left)
        missing = set(linears) - set(self.queues)
        if missing:
            raise Mismatch("int8 Linears the runtime never ran: %s" % sorted(missing))

    def _enqueue(self, call):
        if call["kind"] != KIND_INT8:
            raise Mismatch("a Linear of kind %d in an int8 file" % call["kind"])
        names = []
        for weight_at, scales_at, bias_at, rows in call["parts"]:
            tensor = self.names_at.get(weight_at)
            if tensor is None:
                raise Mismatch("the runtime ran weights at offset %d, which is no tensor of the file" % weight_at)
            if tensor == "decoder.token_embedding" and self.model.config.tied_output:
                linear = "decoder.output_projection"
            elif tensor.endswith(".weight"):
                linear = tensor[:-len(".weight")]
            else:
                raise Mismatch("the runtime ran %s as a Linear's weight" % tensor)
            if self.scales_at.get(tensor) != scales_at:
                raise Mismatch("%s: the runtime's scales are not the file's" % linear)
            bias = self.names_at.get(bias_at) if bias_at >= 0 else None
            if bias != linear + ".bias":
                raise Mismatch("%s: the runtime's bias is %s" % (linear, bias))
            names.append((linear, rows))
        if len(names) > 1:
            prefix = names[0][0].rsplit(".", 1)[0]
            group = tuple(n.rsplit(".", 1)[1] for n, _ in names)
            if group not in FUSED_GROUPS or any(not n.startswith(prefix + ".") for n, _ in names):
                raise Mismatch("the runtime fused %s" % [n for n, _ in names])
        column = 0
        for linear, rows in names:
            entry = dict(call, y=call["y"][:, column:column + rows])
            self.queues.setdefault(linear, []).append(entry)
            column += rows

    def _runtime_linear(self, name, op, weight):
        assert isinstance(op, Int8Linear), name

        def run(x):
            queue = self.queues.get(name)
            if not queue:
                raise Mismatch("%s: the simulation ran it once more than the runtime" % name)
            call = queue.pop(0)
            self._check(name, op, weight, x, call)
            return torch.from_numpy(call["y"].copy()).reshape(*x.shape[:-1], op.out_features)
        return run

    def _check(self, name, op, weight, x, call):
        x_rt = call["x"]
        x_sim = x.reshape(-1, x.shape[-1]).numpy()
        if x_sim.shape != x_rt.shape:
            raise Mismatch("%s: the simulation's input is %s, the runtime's %s" % (name, x_sim.shape, x_rt.shape))
        if call["relu"] != op.fused_relu:
            raise Mismatch("%s: fused ReLU %s in the runtime" % (name, call["relu"]))
        err = float(np.abs(x_sim - x_rt).max() / max(float(np.abs(x_rt).max()), 1e-6))
        self.worst_float = max(self.worst_float, err)
        if err > FLOAT_TOLERANCE:
            raise Mismatch("%s: input differs from the runtime's by %.3g (relative)" % (name, err))

        xd, z, si = quantize_input(torch.from_numpy(x_rt.copy()))
        zero, scale = call["zero"], call["scale"]
        xd_rt = call["q"].astype(np.float32) - zero[:, None].astype(np.float32)
        if not (np.array_equal(z.numpy(), zero.astype(np.float32)) and np.array_equal(si.numpy(), scale)):
            raise Mismatch("%s: the runtime's zero points or scales differ from docs/int8.md's" % name)
        if not np.array_equal(xd.numpy(), xd_rt):
            raise Mismatch("%s: the runtime quantized %d input elements otherwise"
                           % (name, int((xd.numpy() != xd_rt).sum())))

        y_sim = op.product(torch.from_numpy(xd_rt), torch.from_numpy(scale.copy())).numpy()
        # p = float(acc) * si * s (float64 holds the integer sums exactly; the
        # products' own rounding, 2^-53, is far below the bound's)
        acc = xd_rt.astype(np.float64) @ weight.T
        p = acc.astype(np.float32).astype(np.float64) * scale[:, None].astype(np.float64) \
            * op.s.numpy().astype(np.float64)[None, :]
        bias = np.zeros(p.shape[1]) if op.b is None else op.b.numpy().astype(np.float64)
        bound = 2.0 ** -22 * np.abs(p) + ulp(np.abs(p) + np.abs(bias)[None, :])
        diff = np.abs(call["y"].astype(np.float64) - y_sim.astype(np.float64))
        self.worst_product = max(self.worst_product, float((diff / np.maximum(bound, 1e-45)).max()))
        if np.any(diff > bound):
            worst = np.unravel_index(np.argmax(diff - bound), diff.shape)
            raise Mismatch("%s: %d outputs outside the bound of docs/int8.md (worst: runtime %r, simulation %r)"
                           % (name, int((diff > bound).sum()), float(call["y"][worst]), float(y_sim[worst])))
