"""EdgeMT converter: PyTorch seed-layout checkpoints and Hugging Face Marian
(OPUS-MT) model directories to EdgeMT FlatBuffer models.

Modules (one idea each):
  errors          ConversionError, the one-line failures the CLI prints
  config          config.json: required keys, variant keys and their defaults
  checkpoint      model.pt: load and validate against the config
  format/         the .edgemt file: model_ir (the in-memory model), schema, writer, reader,
                  int4_encoding, positions, tokenizer (TextCodec)
  build           checkpoint + config + tokenizer -> float model_ir
  marian          a Marian directory -> float model_ir, every problem in one error
  safetensors     model.safetensors, read without a dependency
  tokenizer       SentencePiece checks against the config
  quantize/       int8 and int4 weights and their exact simulations (int8, int4, linalg),
                  model (float -> quantized model_ir), int4_plan (which Linears are int4)
  reference/      the PyTorch reference decoder: model (forward pass of a model_ir, float,
                  int8 or int4 simulation), decode (greedy), beam, record, cli (edgemt-reference)
  convert         the conversion pipeline; summary: its report
  outfile         atomic output writing
  cli             edgemt-convert
"""

__version__ = "2.0.0"
