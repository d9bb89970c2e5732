"""The decoding settings a Marian file keeps (format 2.2): the ids never
produced (pad and single-id bad_words_ids), the default beam size and
length limit, from generation_config.json, else config.json's keys."""
import os
from dataclasses import dataclass, field
from typing import List

from ..problems import read_json

MAX_BANNED_IDS = 4             # schema: Config.banned_ids


@dataclass
class Generation:
    banned_ids: List[int] = field(default_factory=list)
    beam_size: int = 0          # 0: not stated
    max_length: int = 0         # in output ids; 0: not stated


def read_generation(checkpoint_dir, raw_config, c, problems, notes):
    """Generation from generation_config.json, or config.json's generation keys without one."""
    gen = read_json(os.path.join(checkpoint_dir, "generation_config.json"), problems, required=False)
    source = "generation_config.json" if gen is not None else "config.json"
    if gen is None:
        gen = raw_config
    if not isinstance(gen, dict):
        problems.add("%s: expected a JSON object" % source)
        return Generation()
    banned = _banned_ids(gen, source, c, problems, notes)
    beams = gen.get("num_beams", 0) or 0
    if isinstance(beams, bool) or not isinstance(beams, int) or beams < 0:
        problems.add("%s: num_beams must be a positive integer, got %r" % (source, beams))
        beams = 0
    length = gen.get("max_length", 0) or 0
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        problems.add("%s: max_length must be a positive integer, got %r" % (source, length))
        length = 0
    # transformers counts the decoder start token in max_length; EdgeMT counts output ids.
    max_output = max(length - 1, 0)
    if max_output and c.max_positions:
        max_output = min(max_output, c.max_positions)
    return Generation(banned, beams, max_output)


def _banned_ids(gen, source, c, problems, notes):
    """pad and every single-id bad_words_ids entry of the vocabulary."""
    vocab = c.decoder_vocab_size or 0
    banned = [c.pad_id] if c.pad_id is not None and c.pad_id < vocab else []
    for seq in gen.get("bad_words_ids") or []:
        if isinstance(seq, list) and len(seq) == 1 and isinstance(seq[0], int) and not isinstance(seq[0], bool) \
                and 0 <= seq[0] < vocab:
            if seq[0] not in banned:
                banned.append(seq[0])
        else:
            notes.append("%s: bad_words_ids entry %r is not a single id of the vocabulary; ignored" % (source, seq))
    if len(banned) > MAX_BANNED_IDS:
        problems.add("%s: %d banned ids (bad_words_ids and pad); EdgeMT files hold at most %d"
                     % (source, len(banned), MAX_BANNED_IDS))
    return banned
