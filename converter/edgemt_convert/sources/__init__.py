"""Readers of the model formats people bring (importer.py says what an
importer is). Each produces the same float32 model_ir.Model; the rest of
the converter never knows which one read a directory.

  seed/         the seed layout: config.json, model.pt, spm.model
  marian/       Hugging Face Marian (OPUS-MT) directories
  marian_native/  Marian's own files: Firefox Translations' models, OPUS-MT releases (.bin, .npz, decoder.yml)
  ctranslate2/  CTranslate2 model directories (model.bin, config.json, vocabularies)
  argos         Argos Translate packages (.argosmodel): a CTranslate2 model and its SentencePiece model
  safetensors   model.safetensors, read without a dependency
  reading       PyTorch weight files and SentencePiece models, with one-line errors
  problems      every problem of a directory, reported together
"""
import os

from .. import __version__
from ..errors import ConversionError
from ..format import model_ir as ir
from . import argos, ctranslate2, marian, marian_native, seed

# Tried in order: the first whose detect() says yes reads the directory. The
# seed layout comes last and takes any directory (its checks then say what
# one lacks). A Hugging Face Marian directory (config.json) is marian's even
# with a Marian file in it; marian_native takes a folder with decoder.yml or
# a Marian .bin/.npz (its header checked, so never CTranslate2's model.bin).
IMPORTERS = (argos, marian, marian_native, ctranslate2, seed)


def importer_for(checkpoint_dir):
    """The first importer that recognizes the directory (or package file)."""
    return next(imp for imp in IMPORTERS if imp.detect(checkpoint_dir))


def load_checkpoint(checkpoint_dir, source_language=None, target_language=None, dtype="float32"):
    """importer.Imported (the float model_ir.Model, the weight file, notes, stored
    int8 weights) with every check applied, by the importer of the directory's
    format. The languages default to the directory's; dtype is the metadata's
    (the file to be written)."""
    if not os.path.isdir(checkpoint_dir) and not (os.path.isfile(checkpoint_dir) and (
            argos.detect(checkpoint_dir) or marian_native.detect(checkpoint_dir))):
        raise ConversionError("%s: not a checkpoint directory (nor an Argos Translate package)" % checkpoint_dir)
    imported = importer_for(checkpoint_dir).load(checkpoint_dir)
    languages = imported.languages
    imported.model.metadata = ir.Metadata(
        source_language=source_language if source_language is not None else languages[0],
        target_language=target_language if target_language is not None else languages[1],
        converter_version="edgemt-convert " + __version__,
        source_checkpoint=os.path.basename(os.path.normpath(os.path.abspath(checkpoint_dir))),
        dtype=dtype, source_language_name=imported.names[0], target_language_name=imported.names[1])
    return imported
