"""The greedy decoding rule shared with the runtime.

  source ids = [bos, if Config.source_bos] + the text's ids (tokenizer.TextCodec;
  at most max_positions minus the specials) + [eos, unless Config.source_eos is off]
  the decoder starts from decoder_start_id; each step takes the argmax of
  the last position's logits (float output, int8 models too), lowest id on ties
  stop at eos (not emitted) or after max_steps = min(2 * S + 10, max_positions)
  steps (S counts the eos; a file with default_max_length_factor F: ceil(F * S)
  in float32, Marian's rule), or, with max_length N, after min(N, max_positions) steps
  min_length M: while fewer than M tokens have been produced eos is never chosen

Sentences are decoded in batches (sorted by length, finished ones dropped),
which gives the same per-sentence result as one at a time.
"""
import numpy as np
import torch


def source_ids(codec, text, config):
    """Encoder input for one line of text (codec: tokenizer.TextCodec)."""
    head = [config.bos_id] if config.source_bos else []
    tail = [config.eos_id] if config.source_eos else []
    ids = codec.encode(text.rstrip("\n"))[: config.max_positions - len(head) - len(tail)]
    return head + ids + tail


def max_steps(source_length, max_positions, max_length=None, length_factor=0.0):
    if max_length is not None:
        return min(max_length, max_positions)
    if length_factor > 0:
        return min(int(np.ceil(np.float32(length_factor) * np.float32(source_length))), max_positions)
    return min(2 * source_length + 10, max_positions)


@torch.no_grad()
def greedy(ref, sources, max_length=None, min_length=0, batch_size=32, record=0, progress=None):
    """Decodes every source (a list of id lists).

    Returns (outputs, records): outputs[i] is the list of produced ids (no
    bos, no eos); records[i] for i < record is a dict with encoder_out [S, d]
    and logits [steps, V] (float32) and out_ids [steps] (eos included when
    produced), like reference/golden.npz. `progress(n)` is called with the
    number of sentences finished by each batch."""
    cfg = ref.config
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    outputs = [None] * len(sources)
    records = [None] * min(record, len(sources))
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        _greedy_batch(ref, [sources[i] for i in batch], batch, cfg, max_length, min_length, outputs, records)
        if progress is not None:
            progress(len(batch))
    return outputs, records


def _greedy_batch(ref, srcs, index, cfg, max_length, min_length, outputs, records):
    memory, valid = ref.encode(srcs)
    state = ref.start_decoder(memory, valid)
    limits = [max_steps(len(s), cfg.max_positions, max_length, cfg.default_max_length_factor) for s in srcs]
    produced = [[] for _ in srcs]
    want = [index[j] < len(records) for j in range(len(srcs))]
    rows = {j: [] for j in range(len(srcs)) if want[j]}
    for j in rows:
        records[index[j]] = {"encoder_out": memory[j, :len(srcs[j])].numpy().copy()}
    active = list(range(len(srcs)))          # batch rows still decoding -> sentence j
    tokens = torch.full((len(srcs), 1), cfg.decoder_start_id, dtype=torch.long)
    step = 0
    while active:
        h = ref.decode(state, tokens)[:, -1]
        forbid = torch.tensor([len(produced[j]) < min_length for j in active])
        ids, logits = ref.choose(h, forbid if min_length > 0 else None, want_rows=bool(rows))
        ids = ids.tolist()
        keep = []
        for r, j in enumerate(active):
            if j in rows:
                rows[j].append((logits[r].numpy().copy(), ids[r]))
            if ids[r] == cfg.eos_id:
                continue
            produced[j].append(ids[r])
            if step + 1 < limits[j]:
                keep.append(r)
        step += 1
        if len(keep) < len(active):
            sel = torch.tensor(keep, dtype=torch.long)
            state.select(sel)
            ids = [ids[r] for r in keep]
            active = [active[r] for r in keep]
        tokens = torch.tensor(ids, dtype=torch.long)[:, None]
    for j, out in enumerate(produced):
        outputs[index[j]] = out
    for j, rr in rows.items():
        rec = records[index[j]]
        rec["logits"] = np.stack([r[0] for r in rr]).astype(np.float32)
        rec["out_ids"] = np.array([r[1] for r in rr], dtype=np.int32)
