"""Marian's own model files: Firefox Translations' models (Bergamot
students: intgemm8 weights with alphas, an SSRU decoder, a binary lexical
shortlist) and OPUS-MT releases (an .npz, decoder.yml, Marian .yml
vocabularies), read as browsermt/marian-dev e88c1aa5 (the Marian in
Bergamot) computes them.

A folder (or one model file in it) becomes a float32 model_ir.Model of
format 2.8: post-norm layers with Marian's LayerNorm epsilon 1e-6, embeddings
scaled by float32(sqrt(d)), Marian's sinusoid from position 0
(POS_MARIAN), a decoder whose first input is a zero embedding
(decoder_starts_from_zero) and whose layers start with an SSRU
(transformer-decoder-autoreg rnn) or with self-attention; </s> after every
source, no <s>; <unk> never produced; at most ceil(max-length-factor x
source ids) steps (decoder.yml's factor, else Firefox's 2.0).

  model_file   .bin / .npz, gzip'd or not -> items (intgemm8 kept as int8 and qm)
  options      special:model.yml, checked: every unsupported option in one message
  layout       which files: model, vocabularies, shortlist, decoder.yml, languages
  vocab        SentencePiece vocabularies or Marian .yml tables (+ source.spm/target.spm)
  build        items -> model_ir (Marian's names), the int8 weights as stored, the alphas
  shortlist    lex.*.s2t.bin with Bergamot's selection
"""
import os

import numpy as np

from ...errors import ConversionError, file_bytes
from ...shortlist import Vocabularies, read_bergamot
from ..importer import Imported
from ..problems import Problems
from .build import alphas, build_model
from .layout import find_layout, model_candidates
from .model_file import looks_like_model, read_model
from .options import read_options
from .vocab import read_vocabularies

NAME = "marian-native"


def detect(path):
    """A folder with decoder.yml or a Marian model file (.bin, .npz, gzip'd
    or not, holding special:model.yml), or such a file itself."""
    try:
        if os.path.isfile(path):
            return looks_like_model(path)
        return os.path.isdir(path) and (os.path.isfile(os.path.join(path, "decoder.yml"))
                                        or bool(model_candidates(path)))
    except Exception:  # detect() never raises
        return False


def _yaml_module():
    import yaml
    return yaml


def read_yaml(path, problems, text=None):
    """The mapping of a YAML file (decoder.yml) or text (model.yml), None with a problem added."""
    yaml = _yaml_module()
    name = os.path.basename(path)
    try:
        if text is None:
            data, _ = file_bytes(path, name)
            text = data.decode("utf-8")
        value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except ConversionError as e:
        problems.add(str(e))
        return None
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        problems.add("%s: not valid YAML (%s)" % (name, (str(e).strip().splitlines() or [type(e).__name__])[0][:160]))
        return None
    if not isinstance(value, dict):
        problems.add("%s: expected a YAML mapping of options" % name)
        return None
    return value


def read_yaml_pieces(path, problems):
    """The piece of each id of a Marian .yml vocabulary ("piece: id" lines), or None with a problem added."""
    yaml = _yaml_module()
    name = os.path.basename(path)
    try:
        data, _ = file_bytes(path, name)
        table = yaml.load(data.decode("utf-8"), Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader))
    except ConversionError as e:
        problems.add(str(e))
        return None
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        problems.add("%s: not a Marian vocabulary (%s)" % (name, (str(e).strip().splitlines() or ["YAML"])[0][:160]))
        return None
    if not isinstance(table, dict) or not table:
        problems.add("%s: not a Marian vocabulary (expected lines \"piece: id\")" % name)
        return None
    pieces = [None] * len(table)
    for piece, value in table.items():
        i = int(value) if isinstance(value, str) and value.isdigit() else -1
        if not 0 <= i < len(table) or pieces[i] is not None:
            problems.add("%s: the ids are not 0..%d, each once (%r: %r)" % (name, len(table) - 1, piece, value))
            return None
        pieces[i] = piece
    return pieces


def _decoding(decoder, problems, notes):
    """{beam_size, length_penalty, max_length_factor} from decoder.yml (None: not stated)."""
    out = dict(beam_size=None, length_penalty=None, max_length_factor=None)
    if not decoder:
        notes.append("length limit: ceil(2.0 x source ids, </s> included) steps, Firefox's max-length-factor "
                     "(its worker's; no decoder.yml states one)")
        return out
    for key, field, minimum, kind in (("beam-size", "beam_size", 1, int), ("normalize", "length_penalty", 0.0, float),
                                      ("max-length-factor", "max_length_factor", 1e-9, float)):
        v = decoder.get(key)
        if v is None:
            continue
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and (kind is float or isinstance(v, int))
        if not ok or v < minimum:
            problems.add("decoder.yml: %s must be a number >= %s, got %r" % (key, minimum, v))
            continue
        out[field] = kind(v)
    stated = ["%s %s" % (k, decoder[k]) for k in ("beam-size", "normalize", "max-length-factor")
              if out[{"beam-size": "beam_size", "normalize": "length_penalty",
                      "max-length-factor": "max_length_factor"}[k]] is not None]
    if stated:
        notes.append("decoder.yml: %s: the file's decoding defaults (EdgeMT's beam search, not Marian's)"
                     % ", ".join(stated))
    if out["max_length_factor"] is None:
        notes.append("length limit: ceil(2.0 x source ids, </s> included) steps, Firefox's max-length-factor "
                     "(decoder.yml states none)")
    return out


def _file_note(model_file, o):
    kinds = model_file.kinds()
    what = ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))
    return ("Marian %s%s %s: %s items (%s)%s; %s decoder"
            % ("binary model" if model_file.format == "bin" else "npz model", ", gzip'd" if model_file.gzipped else "",
               os.path.basename(model_file.path), len(model_file.items), what,
               ", model.yml version %s" % o.version if o.version else "",
               "SSRU (transformer-decoder-autoreg rnn)" if o.ssru else "self-attention"))


def load(path):
    """Imported (the float model, the intgemm8 weights as stored, the alphas,
    the shortlist beside it); one ConversionError lists every problem."""
    problems = Problems(path, "Marian model")
    layout = find_layout(path, problems, read_yaml)
    notes = list(layout.notes)
    if layout.model is None:
        problems.raise_if_any()
    model_file = read_model(layout.model)
    raw = None
    if model_file.yml_text is None:
        problems.add("%s: no special:model.yml item: the model's options are unknown (marian-conv and training "
                     "write it)" % os.path.basename(model_file.path))
    else:
        raw = read_yaml(os.path.basename(model_file.path) + ": special:model.yml", problems, text=model_file.yml_text)
    options = read_options(raw, problems) if raw is not None else None
    before = len(problems.items)
    vocabs = read_vocabularies(layout, options.vocab_sizes if options else None, problems, read_yaml_pieces)
    vocab_ok = len(problems.items) == before
    decoding = _decoding(layout.decoder, problems, notes)
    model = stored = None
    if options is not None and options.complete and not options.unsupported:
        model, stored = build_model(model_file, options, vocabs, decoding, problems, notes)
    problems.raise_if_any()
    if model is None or not vocab_ok:
        raise ConversionError("%s: the Marian model could not be read" % path)   # not reached: a problem said why
    model.tokenizer = vocabs.to_ir()
    notes.insert(0, _file_note(model_file, options))
    if stored:
        notes.append("intgemm8: %d weights kept as Marian quantized them (an int8 file stores their int8 values "
                     "unchanged, one scale 1/qm per matrix)%s" % (
                         len(stored), "; the token embeddings too" if "decoder.token_embedding" in stored else ""))
    scales = alphas(model_file)
    if scales:
        v = np.array(list(scales.values()), dtype=np.float64)
        notes.append("alphas: %d activation scales (<matrix>_QuantMultA, Bergamot's fixed int8 input ranges, "
                     "%.4g to %.4g) are not used: EdgeMT quantizes each input row of an int8 Linear at run time"
                     % (len(scales), v.min(), v.max()))
    notes.append("positions: Marian's sinusoid for up to %d positions (Marian's has no limit)"
                 % model.config.max_positions)
    shared = vocabs.one_file

    def shortlist_reader(lex, m, shipped=True):
        return read_bergamot(lex, m, Vocabularies(m), shared=shared, shipped=shipped)

    return Imported(model=model, weights=model_file.path, notes=notes, languages=layout.languages,
                    quantized=stored, activation_scales=scales, shortlist=layout.shortlist,
                    read_shortlist=shortlist_reader)
