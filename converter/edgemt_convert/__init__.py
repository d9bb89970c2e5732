"""EdgeMT converter: PyTorch seed-layout checkpoints and Hugging Face Marian
(OPUS-MT) model directories to EdgeMT FlatBuffer models.

Subpackages (converter/README.md describes them):
  sources/     readers of the formats people bring, each producing the same
               float model_ir (importer.py: the contract; IMPORTERS: the registry)
  format/      the .edgemt file: model_ir, schema, writer, reader
  quantize/    int8 and int4 weights and their exact simulations
  reference/   the PyTorch reference decoder (edgemt-reference)

The conversion itself (one idea per module):
  cli          edgemt-convert
  convert      the conversion pipeline: load, quantize, write
  progress     progress bars and step timings
  summary      the conversion report
  outfile      atomic output writing
  errors       ConversionError, the one-line failures the CLIs print
"""

__version__ = "2.0.0"
