"""The vocabularies of a Marian model, as Marian reads them (data/vocab.cpp,
sentencepiece_vocab.cpp, default_vocab.cpp).

A SentencePiece vocabulary (.spm; Firefox's vocab.xxyy.spm, or
srcvocab/trgvocab.xxyy.spm) numbers the model's ids itself: </s> and <unk>
are the SentencePiece model's (Firefox's: 0 and 1), and the file keeps the
model (one for both sides, or one per side). A Marian .yml vocabulary
(OPUS-MT's opus.*.vocab.yml: "piece: id" per line) is the model's own table
of ids, and </s> and <unk> are its entries of those names: the file keeps
the piece of every id (Tokenizer.source_vocabulary / target_vocabulary) and
the SentencePiece models beside it (source.spm, target.spm) that split the
text into those pieces, as OPUS-MT's preprocess.sh does before Marian.
Each side must have exactly as many ids as the model's dim-vocabs says.
"""
import os
from dataclasses import dataclass
from typing import List, Optional

from ...errors import ConversionError, file_bytes
from ...format import model_ir as ir
from ...format.tokenizer import load_processor


@dataclass
class Side:
    path: str
    size: int
    eos: Optional[int]
    unk: Optional[int]
    spm: Optional[bytes] = None             # the SentencePiece model's bytes
    pieces: Optional[List[str]] = None      # a .yml vocabulary's piece of each id


@dataclass
class Vocabularies:
    source: Side
    target: Side
    one_file: bool                          # one vocabulary file for both sides (Bergamot's "shared")

    def to_ir(self):
        same_spm = self.source.spm == self.target.spm
        same_pieces = self.source.pieces == self.target.pieces
        return ir.Tokenizer(source_model=self.source.spm, target_model=None if same_spm else self.target.spm,
                            source_vocabulary=self.source.pieces,
                            target_vocabulary=None if same_pieces else self.target.pieces)


def _is_yml(path):
    name = path[:-3] if path.endswith(".gz") else path
    return name.endswith(".yml") or name.endswith(".yaml")


def _spm_side(path, problems):
    name = os.path.basename(path)
    try:
        data, _ = file_bytes(path, name)
    except ConversionError as e:
        problems.add(str(e))
        return None
    try:
        processor = load_processor(data)
    except Exception as e:  # sentencepiece raises RuntimeError/OSError variants
        reason = (str(e).splitlines() or [type(e).__name__])[0][:120]
        problems.add("%s: not a SentencePiece model (%s)" % (name, reason))
        return None
    eos, unk = processor.eos_id(), processor.unk_id()
    return Side(path, processor.get_piece_size(), eos if eos >= 0 else None, unk if unk >= 0 else None, spm=data)


def _yml_side(path, spm_path, problems, read_yaml_pieces):
    name = os.path.basename(path)
    pieces = read_yaml_pieces(path, problems)
    if pieces is None:
        return None
    side = Side(path, len(pieces), pieces.index("</s>") if "</s>" in pieces else None,
                pieces.index("<unk>") if "<unk>" in pieces else None, pieces=pieces)
    for token, value in (("</s>", side.eos), ("<unk>", side.unk)):
        if value is None:
            problems.add("%s: has no %s" % (name, token))
    if spm_path is None:
        problems.add("%s: a Marian .yml vocabulary needs the SentencePiece model that splits the text into its pieces "
                     "beside it (OPUS-MT's source.spm and target.spm); models tokenized otherwise (BPE) are not "
                     "supported" % name)
        return None
    spm = _spm_side(spm_path, problems)
    if spm is None:
        return None
    side.spm = spm.spm
    return side


def read_vocabularies(layout, sizes, problems, read_yaml_pieces):
    """Vocabularies of the layout's files checked against dim-vocabs (sizes:
    [source, target] or None), or None with the problems added."""
    if not layout.vocabs:
        return None
    paths = layout.vocabs if len(layout.vocabs) == 2 else layout.vocabs * 2
    sides = []
    for path, spm_path in zip(paths, layout.spm):
        if _is_yml(path):
            sides.append(_yml_side(path, spm_path, problems, read_yaml_pieces))
        elif os.path.basename(path).endswith(".fsv") or path.endswith(".fsv.gz"):
            problems.add("%s: a factored vocabulary: EdgeMT has no factors" % os.path.basename(path))
            sides.append(None)
        else:
            sides.append(_spm_side(path, problems))
        if len(layout.vocabs) == 1 and not _is_yml(path):
            sides.append(sides[0])
            break
    if None in sides:
        return None
    source, target = sides
    for what, side, size in (("source", source, sizes[0] if sizes else None),
                             ("target", target, sizes[1] if sizes else None)):
        name = os.path.basename(side.path)
        if size is not None and side.size != size:
            problems.add("%s: %d %s, but the model's dim-vocabs gives the %s side %d ids: the vocabulary is not the "
                         "model's" % (name, side.size, "entries" if side.pieces is not None else "pieces", what, size))
        if side.eos is None:
            problems.add("%s: has no </s> (Marian ends every source with it)" % name)
    if source.eos is not None and target.eos is not None and source.eos != target.eos:
        problems.add("</s> is id %d in %s and %d in %s: EdgeMT gives it one id"
                     % (source.eos, os.path.basename(source.path), target.eos, os.path.basename(target.path)))
    if target.unk is None:
        problems.add("%s: has no <unk> (Marian never produces it; EdgeMT needs its id)" % os.path.basename(target.path))
    if problems.items:
        return None
    return Vocabularies(source, target, one_file=len(layout.vocabs) == 1)
