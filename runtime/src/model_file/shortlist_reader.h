// Verifies a file's vocabulary shortlist (schema 2.5; 2.7 its output sums) and builds its view.
#pragma once

#include "edgemt/status.h"
#include "model_file/model_weights.h"

namespace edgemt {

namespace fb {
struct Shortlist;
}  // namespace fb

// Absent (`shortlist` null) leaves `out` empty. Checks the offsets (one per
// source id and one more, non-decreasing, ending at the candidates' end),
// that every id is in the target vocabulary, and that each list is
// ascending without repeats: decoding relies on all of it. The output sums,
// when present, must be d_model finite values and a finite bias sum.
Status ReadShortlist(const fb::Shortlist* shortlist, const ModelConfig& config, ShortlistView* out);

}  // namespace edgemt
