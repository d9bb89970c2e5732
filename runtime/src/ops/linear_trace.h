// A test hook: shows a test program every quantized Linear as it runs (its
// float input, the rows XNNPACK quantized from it with their parameters, and
// the float result), so that the test can check each product against the
// converter's simulation of docs/int8.md on the runtime's own integers
// (tests/tools/dump_tensors.cc, tests/e2e/test_int8_layers.py). No tracer is
// set in a library user's process: Run then costs one atomic load more.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>

namespace edgemt {

class LinearOp;

struct LinearCall {
  const LinearOp* op = nullptr;
  size_t rows = 0;
  const float* input = nullptr;                     // [rows, in_features]
  const int8_t* quantized = nullptr;                // [rows, in_features]
  const xnn_quantization_params* params = nullptr;  // [rows]: zero point and scale
  const float* output = nullptr;                    // [rows, output_stride]: out_features used
  size_t output_stride = 0;                         // floats from one output row to the next
};

class LinearTracer {
 public:
  virtual ~LinearTracer() = default;
  // Called on the thread that ran the layer, after it ran.
  virtual void Traced(const LinearCall& call) = 0;
};

// Process-wide; null (the default) traces nothing. Set it before translators run.
void SetLinearTracer(LinearTracer* tracer);

}  // namespace edgemt
