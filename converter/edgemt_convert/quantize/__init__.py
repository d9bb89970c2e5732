"""Weights in fewer bits, and the exact simulation of what the runtime
computes with them (docs/int8.md, docs/int4.md).

  int8        the int8 arithmetic: per-row weights, per-row dynamic inputs, Int8Linear
  int4        the int4 arithmetic: block weights with bfloat16 scales, Int4Linear
  linalg      fast float GEMMs and exact integer GEMMs on oneDNN
  model       float model_ir -> int8/int4 model_ir, per-tensor weight errors
  int4_plan   which Linears of an int4 file are int4, from their output errors
"""
