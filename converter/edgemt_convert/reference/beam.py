"""Beam search with the PyTorch reference model, written from the rule in
runtime/include/edgemt/decode_options.h (DecodeOptions: CTranslate2's beam
search), independently of the C++ code, so that the runtime can be checked
against it:

  every step, each continuation of each alive hypothesis scores
      cumulative + (logit - logsumexp(allowed logits))  (float32; the log-sum-exp's sum in float64)
  where the allowed ids exclude the file's banned ids (without them: pad,
  unk and <s>) and </s> before min_length; candidates rank by score, then
  beam, then id; of the best 2 * beam, a </s> among the first `beam` (at the
  length limit: any of the first `beam`) finishes its hypothesis and the
  first `beam` others go on. A sentence stops at its length limit (max_steps,
  as greedy); with a length penalty, once `beam` hypotheses have finished;
  with length penalty 0, once a step's best candidate was </s> and
  num_hypotheses have finished. Finished hypotheses rank by
  sum / length^penalty (length counting </s> when present), ties by
  finishing order; the best `beam` are kept.
A file with Config.shrinking_beam asks for Marian's search instead: of the
ranked candidates only the first (beam - finished so far) count; a </s> among
them (at the limit: any) finishes and leaves the beam, the others go on; the
sentence stops when none is alive.
One sentence at a time (a batch gives the same per-sentence results).
"""
from dataclasses import dataclass
from typing import List

import numpy as np
import torch

from .decode import max_steps


@dataclass
class Hypothesis:
    ids: List[int]                 # without </s>
    token_log_probs: List[float]   # per id, then </s>'s when ended_with_eos
    score: float                   # sum / length^penalty
    ended_with_eos: bool


def normalized(total, length, penalty):
    return float(np.float32(total) / np.float32(float(length) ** float(penalty)))


@torch.no_grad()
def beam_search(ref, source, beam, length_penalty=1.0, num_hypotheses=1, max_length=None, min_length=0):
    """The num_hypotheses best Hypothesis of one source (a list of ids, </s> included)."""
    cfg = ref.config
    limit = max_steps(len(source), cfg.max_positions, max_length, cfg.default_max_length_factor)
    banned = set(cfg.banned_ids) if cfg.banned_ids is not None else {cfg.pad_id, cfg.unk_id, cfg.bos_id}
    memory, valid = ref.encode([source])
    state = ref.start_decoder(memory, valid)
    alive = [([], [], np.float32(0.0))]            # (ids, log-probs, cumulative) per alive hypothesis
    tokens = [cfg.decoder_start_id]
    finished, registered, top_finished = [], 0, False
    for step in range(limit):
        h = ref.decode(state, torch.tensor(tokens, dtype=torch.long)[:, None])[:, -1]
        logits = ref.project(h).to(torch.float32)
        vocab = logits.shape[1]
        allowed = torch.ones(vocab, dtype=torch.bool)
        for i in banned:
            allowed[i] = False
        if step < min_length:
            allowed[cfg.eos_id] = False
        # over the allowed ids: max + float32(log(sum(exp(logit - max)))), the differences in float32, the sum in float64
        kept = logits[:, allowed]
        top = kept.max(dim=1, keepdim=True).values
        lse = top + torch.log(torch.exp((kept - top).double()).sum(dim=1, keepdim=True)).to(torch.float32)
        log_probs = logits - lse
        cumulative = torch.tensor([c for _, _, c in alive], dtype=torch.float32)
        scores = cumulative[:, None] + log_probs
        flat = scores[:, allowed]
        index = torch.arange(vocab)[allowed]
        candidates = []                             # (-score, row, token): sorts as the rule says
        values, order = torch.sort(flat.reshape(-1), descending=True, stable=True)
        for value, k in zip(values[:2 * beam].tolist(), order[:2 * beam].tolist()):
            row, col = divmod(k, flat.shape[1])
            candidates.append((value, row, int(index[col])))
        next_alive, parents, next_tokens = [], [], []
        last = step + 1 >= limit
        if cfg.shrinking_beam:
            # Marian's: the first (beam - finished) candidates; </s> (all at the limit) finish and leave
            for value, row, token in candidates[:max(beam - registered, 0)]:
                ids, lps, cum = alive[row]
                lp = float(np.float32(value) - cum)
                if token == cfg.eos_id or last:
                    registered += 1
                    finished.append(Hypothesis(ids + ([] if token == cfg.eos_id else [token]), lps + [lp],
                                               normalized(value, len(ids) + 1, length_penalty), token == cfg.eos_id))
                    continue
                next_alive.append((ids + [token], lps + [lp], np.float32(value)))
                parents.append(row)
                next_tokens.append(token)
            if last or not next_alive:
                break
            alive, tokens = next_alive, next_tokens
            state.select(torch.tensor(parents, dtype=torch.long))
            continue
        for rank, (value, row, token) in enumerate(candidates):
            ids, lps, cum = alive[row]
            lp = float(np.float32(value) - cum)
            if rank < beam and (token == cfg.eos_id or last):
                top_finished = top_finished or rank == 0
                registered += 1
                finished.append(Hypothesis(ids + ([] if token == cfg.eos_id else [token]), lps + [lp],
                                           normalized(value, len(ids) + 1, length_penalty), token == cfg.eos_id))
            if token == cfg.eos_id or last or len(next_alive) == beam:
                continue
            next_alive.append((ids + [token], lps + [lp], np.float32(value)))
            parents.append(row)
            next_tokens.append(token)
        done = top_finished and registered >= num_hypotheses if length_penalty == 0 else registered >= beam
        if last or done or not next_alive:
            break
        alive, tokens = next_alive, next_tokens
        state.select(torch.tensor(parents, dtype=torch.long))
    if not finished:
        finished.append(Hypothesis([], [], float("-inf"), False))
    ranked = sorted(range(len(finished)), key=lambda i: (-finished[i].score, i))
    return [finished[i] for i in ranked[:min(num_hypotheses, beam)]]
