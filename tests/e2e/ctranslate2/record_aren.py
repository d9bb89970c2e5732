#!/usr/bin/python3
"""Records what CTranslate2 4.8.1 outputs on the transliteration model of its
own test suite (../shared/models/ct2-aren-transliteration), for the cases of
its python/tests/test_translator.py and tests/translator_test.cc that EdgeMT
runs: greedy and beam search, n-best lists, scores, length penalties, length
limits, empty sources, hard target prefixes, alternatives
(return_alternatives), repetition_penalty, no_repeat_ngram_size, disable_unk
and score_batch. tests/e2e/test_ctranslate2.py checks EdgeMT's imports of
the same three files against this record.

    . ../shared/bench/ct2/env.sh
    /usr/bin/python3 tests/e2e/ctranslate2/record_aren.py    # rewrites aren_expected.json

Each case runs on the three files with compute type float32: the weights
as each file stores them (i8/'s int8, i16/'s int16 values) computed in
float, one thread, max_batch_size=1, every option spelled out (CTranslate2's
defaults differ from EdgeMT's: beam 2, min_decoding_length 1). EdgeMT
computes the int8 and int16 files in int8 and must stay within 0.02 of
these scores. CTranslate2's own int8 computation (int8_float32, its default
for both files on this AVX2 CPU, which has no int16 kernels) is farther
from them on this 32-wide model (greedy scores 0.04 lower), so it is not
the yardstick.

Layout: variants.<file> = {compute_type, cases, scoring}.
A case is {id, origin, sources, [target_prefix], options, expected}:
sources and target prefixes are tokens joined by spaces ("" = an empty
list); target_prefix, present only when the case passes one, has one entry
per source, null for None; options are translate_batch's keyword arguments
(return_scores=True and max_batch_size=1 are added when running);
expected[i] = {hypotheses, scores} for sources[i], hypotheses joined by
spaces and including the prefix. With return_alternatives a score is
log p(expanded token) + the continuation's normalised score, and the list
is in expansion order, not sorted by score.
A scoring case is {id, origin, pairs}, each pair {source, target, tokens,
log_probs} from score_batch(sources, targets, max_batch_size=1): tokens
are CTranslate2's result.tokens (the target and "</s>"), log_probs one
natural-log probability per token, not normalised.
"""
import json
import os
import sys

import ctranslate2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
MODELS = os.path.join(os.path.dirname(REPO), "shared", "models", "ct2-aren-transliteration")
OUT = os.path.join(HERE, "aren_expected.json")

S1 = "آ ت ز م و ن".split()           # -> a t z m o n
S2 = "آ ت ش ي س و ن".split()        # -> a c h i s o n
S3 = "آ ز ا".split()                  # -> a z z a
S4 = "أ و ل ي س س".split()          # with prefix u l i s e -> u l i s e s
T1 = "a t z m o n".split()
T2 = "a c h i s o n".split()
AT_S = "a t s".split()                # prefix: S1 -> a t s u m o n
AT_Z = "a t z".split()
ULISE = "u l i s e".split()
PY = "python/tests/test_translator.py::"
CC = "tests/translator_test.cc::"

# CTranslate2's translate_batch defaults that EdgeMT's options name differently.
DEFAULTS = dict(beam_size=2, num_hypotheses=1, length_penalty=1.0, max_decoding_length=256, min_decoding_length=1)


def cases():
    out = []

    def add(cid, origin, sources, target_prefix=None, **options):
        case = dict(id=cid, origin=origin, sources=[" ".join(t) for t in sources])
        if target_prefix is not None:
            assert len(target_prefix) == len(sources)
            case["target_prefix"] = [None if p is None else " ".join(p) for p in target_prefix]
        case["options"] = dict(DEFAULTS, **options)
        out.append(case)

    add("batch_translation", PY + "test_batch_translation", [S1, S2])
    add("num_hypotheses", PY + "test_num_hypotheses", [S1], beam_size=4, num_hypotheses=2)
    add("max_decoding_length", PY + "test_max_decoding_length", [S1], max_decoding_length=2)
    add("min_decoding_length", PY + "test_min_decoding_length", [S1], min_decoding_length=7)
    add("ignore_scores", PY + "test_ignore_scores", [S1], beam_size=1)
    add("translate_batch", CC + "TranslateBatch", [S3, S1], beam_size=4)
    add("batch_with_empty_sources", CC + "TranslateBatchWithEmptySource", [[], S3, [], S1, []])
    for name, beam in (("greedy", 1), ("beam", 4)):
        add("max_length_3_" + name, CC + "SetMaxDecodingLength", [S1], beam_size=beam, max_decoding_length=3)
        add("min_length_8_" + name, CC + "SetMinDecodingLength", [S1], beam_size=beam, min_decoding_length=8)
        add("all_hypotheses_" + name, CC + "ReturnAllHypotheses", [S1], beam_size=beam, num_hypotheses=beam)
        for lp in (0.0, 1.0):
            add("normalize_scores_%s_lp%d" % (name, lp), CC + "NormalizeScores", [S1], beam_size=beam,
                length_penalty=lp)
            add("normalize_scores_no_eos_%s_lp%d" % (name, lp), CC + "NormalizeScoresNoEos", [S1], beam_size=beam,
                length_penalty=lp, max_decoding_length=6)
    add("all_hypotheses_beam_4_of_batch", CC + "ReturnAttention (without attention)", [S3, S1], beam_size=4,
        num_hypotheses=4)
    add("same_beam_and_greedy_score_b2", CC + "SameBeamAndGreedyScore", [S1], beam_size=2)

    # Hard target prefixes. target_prefix has one entry per source: a token list, [] or None.
    searches = (("greedy", 1), ("beam", 4))
    add("hard_target_prefix", PY + "test_hard_target_prefix", [S1, S2], target_prefix=[AT_S, None])
    for name, beam in searches:
        add("hard_target_prefix_" + name, PY + "test_hard_target_prefix", [S1, S2], target_prefix=[AT_S, None],
            beam_size=beam)
        add("translate_with_prefix_" + name, CC + "TranslateWithPrefix (without attention)", [S1],
            target_prefix=[AT_S], beam_size=beam, num_hypotheses=beam)
    add("batch_with_hard_prefix_and_empty", CC + "TranslateBatchWithHardPrefixAndEmpty", [S1, S1, S1, [], S3],
        target_prefix=[AT_S, [], AT_Z + ["o"], [], []])
    for name, beam in searches:
        add("batch_with_hard_prefix_and_empty_" + name, CC + "TranslateBatchWithHardPrefixAndEmpty",
            [S1, S1, S1, [], S3], target_prefix=[AT_S, [], AT_Z + ["o"], [], []], beam_size=beam)
        add("empty_source_with_prefix_" + name,
            CC + "TranslateBatchWithHardPrefixAndEmpty (a prefix on the empty source)", [[], S3],
            target_prefix=[["a", "t"], ["a"]], beam_size=beam)
    add("prefix_large_beam", CC + "TranslatePrefixWithLargeBeam", [S4], target_prefix=[ULISE], beam_size=5)
    add("prefix_large_beam_all", CC + "TranslatePrefixWithLargeBeam (all hypotheses)", [S4], target_prefix=[ULISE],
        beam_size=5, num_hypotheses=5)
    add("prefix_large_beam_greedy", CC + "TranslatePrefixWithLargeBeam (greedy)", [S4], target_prefix=[ULISE],
        beam_size=1)
    add("iterable_translation_prefix", PY + "test_iterable_translation", [S1, S2],
        target_prefix=[AT_S, ["a", "c", "h", "e"]])
    for name, beam in searches:
        add("iterable_translation_prefix_" + name, PY + "test_iterable_translation", [S1, S2],
            target_prefix=[AT_S, ["a", "c", "h", "e"]], beam_size=beam)
        add("callback_batch_id_prefix_" + name, PY + "test_callback_batch_id (without callback)",
            [["ن"], ["ن"] * 2, ["ن"] * 3], target_prefix=[["a"], ["b"], ["c"]], beam_size=beam)
        add("prefix_cut_by_max_length_" + name, CC + "AlternativesMaxDecodingLength (without alternatives)", [S1],
            target_prefix=[AT_Z], beam_size=beam, max_decoding_length=2)
        add("prefix_fills_max_length_" + name, CC + "AlternativesMaxDecodingLength (without alternatives)", [S1],
            target_prefix=[AT_Z], beam_size=beam, max_decoding_length=3)
        add("prefix_min_length_9_" + name, CC + "SetMinDecodingLength + TranslateWithPrefix", [S1],
            target_prefix=[AT_S], beam_size=beam, min_decoding_length=9)
        add("unk_prefix_" + name, CC + "ReturnAttentionWithPrefix (without attention)", [S1],
            target_prefix=[["<unk>", "t"]], beam_size=beam, num_hypotheses=beam)

    # Alternatives: CTranslate2's beam 2 (DEFAULTS) as upstream, then beam 1 and 4 for the continuations.
    alt_searches = (("", 2), ("_greedy", 1), ("_beam", 4))
    for suffix, beam in alt_searches:
        add("alternatives_from_prefix" + suffix, CC + "AlternativesFromPrefix (without attention)", [S1],
            target_prefix=[["a", "t"]], beam_size=beam, num_hypotheses=10, return_alternatives=True)
        add("alternatives_from_prefix_min_expansion_prob" + suffix,
            CC + "AlternativesFromPrefixMinExpansionProb (without attention)", [S1], target_prefix=[["a", "t"]],
            beam_size=beam, num_hypotheses=10, return_alternatives=True, min_alternative_expansion_prob=0.001)
        add("alternatives_from_prefix_batch" + suffix, CC + "AlternativesFromPrefixBatch", [S3, S1],
            target_prefix=[["a"], ["a", "t"]], beam_size=beam, num_hypotheses=10, return_alternatives=True)
        add("alternatives_from_scratch" + suffix, CC + "AlternativesFromScratch", [S1], beam_size=beam,
            num_hypotheses=10, return_alternatives=True)
        add("alternatives_from_scratch_batch" + suffix, CC + "AlternativesFromScratchBatch", [S1, S3],
            beam_size=beam, num_hypotheses=10, return_alternatives=True)
        add("alternatives_from_full_target" + suffix, CC + "AlternativesFromFullTarget", [S1],
            target_prefix=[T1], beam_size=beam, num_hypotheses=4, return_alternatives=True)
    for i in range(4):
        for suffix, beam in alt_searches if i < 2 else alt_searches[:1]:
            add("alternatives_max_decoding_length_prefix%d%s" % (i, suffix),
                CC + "AlternativesMaxDecodingLength (without attention)", [S1], target_prefix=[AT_Z[:i]],
                beam_size=beam, num_hypotheses=4, max_decoding_length=2, return_alternatives=True)
    add("return_alternatives", PY + "test_return_alternatives", [S1], target_prefix=[["a", "t"]],
        num_hypotheses=10, return_alternatives=True)
    add("alternatives_from_prefix_lp0", CC + "AlternativesFromPrefix (length_penalty 0)", [S1],
        target_prefix=[["a", "t"]], num_hypotheses=10, return_alternatives=True, length_penalty=0.0)

    # Logits processors.
    for name, beam in searches:
        add("repetition_penalty_100_" + name, CC + "RepetitionPenalty", [["ن"] * 5], beam_size=beam,
            repetition_penalty=100.0)
        add("repetition_penalty_1p2_" + name, CC + "RepetitionPenalty (penalty 1.2)", [S1, S2], beam_size=beam,
            repetition_penalty=1.2)
        add("repetition_penalty_100_with_prefix_" + name, CC + "RepetitionPenalty (with a prefix)", [S1],
            target_prefix=[["a", "t"]], beam_size=beam, repetition_penalty=100.0)
        add("no_repeat_ngram_3_" + name, CC + "NoRepeatNgram", [["ن"] * 50], beam_size=beam, no_repeat_ngram_size=3)
        for n in (1, 2):
            add("no_repeat_ngram_%d_%s" % (n, name), CC + "NoRepeatNgram (size %d)" % n, [S1, S3, ["ن"] * 5],
                beam_size=beam, no_repeat_ngram_size=n)
        add("no_repeat_ngram_1_with_prefix_" + name, CC + "NoRepeatNgram (size 1, with a prefix)", [S3],
            target_prefix=[["a", "z"]], beam_size=beam, no_repeat_ngram_size=1)
        add("disable_unk_" + name, CC + "ReturnAllHypotheses (disable_unk)", [S1], beam_size=beam,
            num_hypotheses=beam, disable_unk=True)
        add("disable_unk_prefix_" + name, CC + "ReturnAttentionWithPrefix (disable_unk, without attention)", [S1],
            target_prefix=[["<unk>", "t"]], beam_size=beam, num_hypotheses=beam, disable_unk=True)
    # The first step's 41 best tokens include <unk> (40th) only without disable_unk. 41 stops before the
    # tokens that are disabled anyway (</s> at step 0), whose order would be arbitrary.
    for suffix, disable in (("", False), ("_disable_unk", True)):
        add("alternatives_from_scratch_41" + suffix, CC + "AlternativesFromScratch (41 alternatives)", [S1],
            num_hypotheses=41, return_alternatives=True, disable_unk=disable)
    return out


def scoring_cases():
    out = []

    def add(cid, origin, sources, targets):
        out.append(dict(id=cid, origin=origin, sources=[" ".join(t) for t in sources],
                        targets=[" ".join(t) for t in targets]))

    # translator_test.cc::Scoring also scores an empty source, which CTranslate2 answers without the model.
    add("scoring", CC + "Scoring", [S1, S2, "آ ر ب ا ك ه".split(), "آ ر ث ر".split()],
        [T1, T2, "a r b a k e".split(), "a r t h e r".split()])
    add("score_api", PY + "test_score_api", [S1, S2], [T1, T2])
    add("score_not_translation", CC + "Scoring (targets that are not the translation)", [S1, S1, S1, S1, S2, S3],
        [AT_S + ["u", "m", "o", "n"], T1 + ["e"], ["a", "t"], ["<unk>", "t", "z", "m", "o", "n"],
         ["a", "c", "h", "e", "s", "o", "n"], ["a", "z", "a"]])
    return out


def run(translator, case):
    sources = [s.split() for s in case["sources"]]
    options = dict(case["options"])
    if "target_prefix" in case:
        options["target_prefix"] = [None if p is None else p.split() for p in case["target_prefix"]]
    results = translator.translate_batch(sources, return_scores=True, max_batch_size=1, **options)
    return [dict(hypotheses=[" ".join(h) for h in r.hypotheses], scores=[float(s) for s in r.scores])
            for r in results]


def score(translator, case):
    sources = [s.split() for s in case["sources"]]
    targets = [t.split() for t in case["targets"]]
    results = translator.score_batch(sources, targets, max_batch_size=1)
    return dict(id=case["id"], origin=case["origin"], pairs=[
        dict(source=s, target=t, tokens=list(r.tokens), log_probs=[float(p) for p in r.log_probs])
        for s, t, r in zip(case["sources"], case["targets"], results)])


def main():
    if not os.path.isdir(MODELS):
        sys.exit("record_aren.py: %s not found" % MODELS)
    variants = (("float32", "float32"), ("i8", "float32"), ("i16", "float32"))
    record = dict(ctranslate2=ctranslate2.__version__, about=__doc__.split("\n\n")[0], variants={})
    for variant, compute_type in variants:
        translator = ctranslate2.Translator(os.path.join(MODELS, variant), compute_type=compute_type,
                                            inter_threads=1, intra_threads=1)
        record["variants"][variant] = dict(compute_type=translator.compute_type, cases=[
            dict(c, expected=run(translator, c)) for c in cases()], scoring=[
            score(translator, c) for c in scoring_cases()])
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(record, f, ensure_ascii=False, indent=1, separators=(",", ": "), allow_nan=False)
        f.write("\n")
    print("wrote %s" % OUT)


if __name__ == "__main__":
    main()
