"""The .edgemt file (schema/edgemt.fbs): what it holds and its bytes.

  model_ir        the in-memory model, exactly what a file holds (every importer produces it)
  schema          flatc --python code generation for schema/edgemt.fbs
  writer, reader  model_ir <-> .edgemt bytes
  shortlist       the Shortlist table's rules (format 2.5), checked on write and on read
  int4_encoding   how Int4 tensors are stored: nibbles, bfloat16 scales, block sizes
  positions       the sinusoidal tables the position_encoding values name
  tokenizer       the Tokenizer table in use: SentencePiece processors, text <-> model ids
"""
