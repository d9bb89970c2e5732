// Beam search (the rule is DecodeOptions'): the loop over decoder steps
// over every sentence's beams (each step of a sentence: beam_step.h). It
// works on arena buffers only (BeamBuffers) and allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decoding/beam_step.h"
#include "decoding/decoding_job.h"
#include "decoding/step_model.h"

namespace edgemt {

// Decodes job.count sentences with job.options->beam_size beams each.
Status DecodeBeam(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, BeamBuffers& buffers);

}  // namespace edgemt
