"""EdgeMT converter: PyTorch seed-layout checkpoints to EdgeMT FlatBuffer models.

Modules (one idea each):
  errors          ConversionError, the one-line failures the CLI prints
  config          config.json: required keys, variant keys and their defaults
  checkpoint      model.pt: load and validate against the config
  model_ir        the in-memory model (what a .edgemt file holds)
  build           checkpoint + config + tokenizer -> float model_ir
  tokenizer       SentencePiece checks against the config
  schema          flatc --python code generation for schema/edgemt.fbs
  writer, reader  model_ir <-> .edgemt bytes
  quant           the int8 arithmetic of docs/int8.md
  reference_model PyTorch forward pass of a model_ir (float or int8 simulation)
  decode          the shared greedy decoding rule
  calibrate       activation statistics and clipping-range search
  convert         the conversion pipeline, summary
  cli, reference_cli   the two executables
"""

__version__ = "1.0.0"
