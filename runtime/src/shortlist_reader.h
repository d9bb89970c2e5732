// Verifies a file's vocabulary shortlist (schema 2.5) and builds its view.
#pragma once

#include "edgemt/status.h"
#include "model_weights.h"

namespace edgemt {

namespace fb {
struct Shortlist;
}  // namespace fb

// Absent (`shortlist` null) leaves `out` empty. Checks the offsets (one per
// source id and one more, non-decreasing, ending at the candidates' end),
// that every id is in the target vocabulary, and that each list is
// ascending without repeats: decoding relies on all of it.
Status ReadShortlist(const fb::Shortlist* shortlist, const ModelConfig& config, ShortlistView* out);

}  // namespace edgemt
