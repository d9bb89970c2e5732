"""The PyTorch reference of what a converted file computes, and its decoding:
the conformance oracle for the runtime. Conversion does not depend on it;
int4 planning is handed record.record_linear_inputs.

  model    ReferenceModel: the forward pass of a model_ir (float, int8 or int4 simulation)
  decode   the greedy decoding rule shared with the runtime
  beam     beam search, the rule of runtime/include/edgemt/translator.h
  record   the inputs of every Linear while the model translates
  cli      edgemt-reference
"""
