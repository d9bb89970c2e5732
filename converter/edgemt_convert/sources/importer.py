"""What an importer is: the one contract between sources/ and the rest.

An importer reads one format people bring and is a module (or package) in
sources/ with

    NAME                        a short name: "seed", "marian"
    detect(checkpoint_dir)      True when the directory is in its format;
                                cheap (a file's presence, a config key) and never raising
    load(checkpoint_dir)        -> Imported, every check applied, or a ConversionError
                                (errors.py) that names every problem the user can fix

listed in sources.IMPORTERS. What it produces is the float32 model_ir.Model
(format/model_ir.py) that every later step takes as it is: quantize/,
format/writer.py, the summary and the reference decoder.
"""
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from ..format import model_ir as ir


@dataclass
class Imported:
    model: ir.Model                  # float32 weights; its metadata is set by sources.load_checkpoint
    weights: str                     # path of the weight file read (the summary compares sizes with it)
    notes: List[str] = field(default_factory=list)   # choices the summary reports ("stored as Learned tables")
    languages: Tuple[str, str] = ("", "")            # source and target language codes the directory states
    names: Tuple[str, str] = ("", "")                # and their names ("English"), when it states them
    # int8 weights as the format stored them, by model_ir name ("decoder.token_embedding",
    # "encoder.layers.0.self_attention.query"): an int8 file keeps them instead of quantizing
    # model's float values (which are their dequantized values) again.
    quantized: Dict[str, ir.Tensor] = field(default_factory=dict)
    # Marian's own models (marian_native): the activation scales (alphas,
    # "<matrix>_QuantMultA") the file holds, by Marian name. Reported only: the
    # runtime quantizes each input row itself.
    activation_scales: Dict[str, float] = field(default_factory=dict)
    # A shortlist the model comes with (Bergamot's lex.*.s2t.bin beside it): the
    # conversion gives it to the model unless another --shortlist-* option or
    # --no-shortlist says otherwise.
    shortlist: Optional[str] = None
    # The format's own reader of Bergamot shortlists, read_shortlist(path, model,
    # shipped) -> (model_ir.Shortlist, notes), for that file and --shortlist-bergamot.
    read_shortlist: Optional[Callable] = None
