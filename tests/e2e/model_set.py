"""A model set for the model-set and server tests: four files, each a
language pair, in a temporary folder:
  en-de  the Multi30k int8 example model (models/)
  de-en, en-fr  random models over Multi30k's SentencePiece model
         (edgemt-make-test-model): arbitrary but deterministic text
  ar-en  the CTranslate2 transliteration model (../shared), converted with
         its languages: a real pivot ar -> en -> de
de -> fr and ar -> de go through English."""
import os
import shutil
import sys
import tempfile
import unittest

from e2e_common import CONVERT, EXAMPLE_INT8, MULTI30K, SHARED, need_shared, run, tool

ARABIC = ["آ ت ز م و ن", "آ ت ش ي س و ن"]
ENGLISH = ["A man is riding a bike.", "Two dogs play in the snow. A child watches them.",
           "A woman in a red dress is singing on a stage."]
GERMAN = ["Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee und ein Kind schaut zu."]


def make_model_set():
    """The folder of the set (the caller removes it)."""
    need_shared()
    folder = tempfile.mkdtemp(prefix="edgemt-set-")
    shutil.copy(EXAMPLE_INT8, os.path.join(folder, "en-de.edgemt"))
    spm = os.path.join(MULTI30K, "spm.model")
    for pair, seed in (("de-en", 3), ("en-fr", 5)):
        run([tool("edgemt-make-test-model"), "-o", os.path.join(folder, pair + ".edgemt"), "--tokenizer", spm,
             "--source-vocab", "8000", "--target-vocab", "8000", "--d-model", "64", "--heads", "2", "--d-ff", "128",
             "--layers", "2", "--languages", pair, "--seed", str(seed)])
    aren = os.path.join(SHARED, "models", "ct2-aren-transliteration", "i8")
    run([sys.executable, CONVERT, aren, "--out", os.path.join(folder, "ar-en.edgemt"), "--source-language", "ar",
         "--target-language", "en", "--quiet"])
    return folder


class ModelSetCase(unittest.TestCase):
    """Tests over one model set, made once for the class (self.folder)."""

    @classmethod
    def setUpClass(cls):
        cls.folder = make_model_set()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)
