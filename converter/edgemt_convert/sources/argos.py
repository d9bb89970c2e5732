"""Argos Translate packages (.argosmodel, the offline packages behind Argos
Translate and LibreTranslate), packed or unpacked.

A package is a zip with one folder holding metadata.json (from_code,
to_code, from_name, to_name, ...), model/ (a CTranslate2 directory, read by
sources/ctranslate2) and sentencepiece.model (its pieces are the model's
tokens; the file carries it, so text translates as Argos Translate
translates it: SentencePiece pieces in, pieces joined back). Its sentence
splitter (stanza/, minisbd/, spacy/) is not needed for single sentences and
is left out.

Decoding defaults: Argos Translate 1.11 calls CTranslate2's translate_batch
with beam_size max(num_hypotheses, 4), length_penalty 0.2 and
CTranslate2's max_decoding_length 256 (argostranslate/translate.py,
apply_packaged_translation); the file keeps those as its defaults.
"""
import json
import os
import tempfile
import zipfile

from ..errors import ConversionError
from ..format import model_ir as ir
from . import ctranslate2
from .problems import Problems
from .reading import read_sentencepiece

NAME = "argos"
EXTENSION = ".argosmodel"
METADATA = "metadata.json"
BEAM_SIZE, LENGTH_PENALTY, MAX_LENGTH = 4, 0.2, 256


def detect(path):
    """A .argosmodel file, or a folder with metadata.json and model/model.bin."""
    if os.path.isfile(path):
        return path.endswith(EXTENSION)
    return os.path.isfile(os.path.join(path, METADATA)) and ctranslate2.detect(os.path.join(path, "model"))


def load(path):
    """Imported: the package's CTranslate2 model with its SentencePiece model,
    languages and decoding defaults."""
    if os.path.isdir(path):
        return _load_folder(path, path)
    with tempfile.TemporaryDirectory(prefix="edgemt-argos-") as tmp:
        return _load_folder(_unpack(path, tmp), path)


def _unpack(path, into):
    """The package folder of a .argosmodel unpacked into `into`."""
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                target = os.path.realpath(os.path.join(into, info.filename))
                if not target.startswith(os.path.realpath(into) + os.sep):
                    raise ConversionError("%s: the archive has a path outside its folder (%s)" % (path, info.filename))
            z.extractall(into)
    except (zipfile.BadZipFile, OSError) as e:
        raise ConversionError("%s: not a readable Argos Translate package (%s)" % (path, e))
    folders = [os.path.join(into, d) for d in sorted(os.listdir(into))
               if os.path.isfile(os.path.join(into, d, METADATA))]
    if os.path.isfile(os.path.join(into, METADATA)):
        folders.insert(0, into)
    if len(folders) != 1:
        raise ConversionError("%s: %s" % (path, "no folder with metadata.json: not an Argos Translate package"
                                          if not folders else "%d packages in one archive" % len(folders)))
    return folders[0]


def _load_folder(folder, shown):
    metadata = _metadata(folder, shown)
    problems = Problems(shown, "Argos Translate package")
    model_dir = os.path.join(folder, "model")
    if not ctranslate2.detect(model_dir):
        problems.add("model/model.bin: not found (the package's CTranslate2 model)")
    spm_path = os.path.join(folder, "sentencepiece.model")
    if not os.path.isfile(spm_path):
        problems.add("sentencepiece.model: not found%s" % (
            " (this package tokenizes with BPE and Moses, which EdgeMT does not run)"
            if os.path.isfile(os.path.join(folder, "bpe.model")) else ""))
    if metadata.get("target_prefix"):
        problems.add("metadata.json: target_prefix %r (forced first target token) is not supported yet"
                     % metadata["target_prefix"])
    problems.raise_if_any()
    imported = ctranslate2.load(model_dir)
    spm_bytes, _ = read_sentencepiece(spm_path, "sentencepiece.model", "sentencepiece.model: not found")
    model = imported.model
    # The CTranslate2 vocabularies number the pieces SentencePiece makes.
    model.tokenizer = ir.Tokenizer(source_model=spm_bytes, source_vocabulary=model.tokenizer.source_vocabulary,
                                   target_vocabulary=model.tokenizer.target_vocabulary)
    c = model.config
    c.default_beam_size, c.default_length_penalty = BEAM_SIZE, LENGTH_PENALTY
    c.default_max_length = MAX_LENGTH
    imported.languages = (metadata.get("from_code") or "", metadata.get("to_code") or "")
    imported.names = (metadata.get("from_name") or "", metadata.get("to_name") or "")
    imported.weights = shown if os.path.isfile(shown) else os.path.join(model_dir, "model.bin")
    imported.notes.append("Argos Translate package %s -> %s (package version %s): beam 4, length penalty 0.2, "
                          "at most 256 output tokens, as Argos Translate decodes"
                          % (imported.languages[0] or "?", imported.languages[1] or "?",
                             metadata.get("package_version") or "?"))
    return imported


def _metadata(folder, shown):
    try:
        with open(os.path.join(folder, METADATA), encoding="utf-8") as f:
            metadata = json.load(f)
    except FileNotFoundError:
        raise ConversionError("%s: metadata.json not found: not an Argos Translate package" % shown)
    except (OSError, ValueError) as e:
        raise ConversionError("%s: metadata.json: cannot read (%s)" % (shown, e))
    if not isinstance(metadata, dict):
        raise ConversionError("%s: metadata.json: not a JSON object" % shown)
    if metadata.get("type", "translate") != "translate":
        raise ConversionError("%s: a %r package, not a translation package" % (shown, metadata.get("type")))
    return metadata

