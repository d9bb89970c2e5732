// A source's vocabulary shortlist (docs/shortlist.md): the target ids its
// translation may use, from the model file's lists.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/types.h"
#include "model_file/model_weights.h"

namespace edgemt {

// The most ids SourceShortlist gives for a source of up to `source_length`
// ids: every one of them with the longest list, the frequent ids, </s> and
// the padding.
size_t ShortlistCapacity(const ShortlistView& shortlist, size_t source_length, size_t target_vocab);

// Writes into `out` the ascending union of the candidates of the source's
// ids, the frequent ids and `eos_id`, padded as the shortlist says (Marian's
// multiple of 8), and returns how many. The source's ids are in the source
// vocabulary (checked before). `seen` holds a flag per target id of the
// `target_vocab`, all 0, and is left so.
size_t SourceShortlist(const ShortlistView& shortlist, const TokenIds& source, int32_t eos_id, size_t target_vocab,
                       uint8_t* seen, int32_t* out);

}  // namespace edgemt
