"""Vocabulary shortlists (formats 2.5 and 2.7, shortlist/, docs/shortlist.md): IBM
model 1 recovers a planted word translation table, the Shortlist table's
round trip through writer and reader and its rules, CTranslate2 vmap import
and export, Bergamot binary shortlists written here in marian's layout, the
CLI (with a checkpoint and for an existing .edgemt file), and, with
../shared, the Multi30k shortlist's coverage of the dev references."""
import dataclasses
import os
import struct
import time
import unittest
from unittest import mock

import numpy as np

from helpers import SHARED, TempDir, convert, convert_error, run_cli, train_spm, write_checkpoint

from edgemt_convert.cli import main
from edgemt_convert.errors import ConversionError
from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import parse, read
from edgemt_convert.format.writer import serialize
from edgemt_convert.shortlist import (Vocabularies, allowed, build_from_corpus, from_pairs, read_bergamot, read_vmap,
                                      stats, write_vmap)
from edgemt_convert.shortlist import ibm1
from edgemt_convert.shortlist.corpus import Corpus

MULTI30K = os.path.join(SHARED, "models", "multi30k-ende")
DATA = os.path.join(SHARED, "data", "multi30k")
SPECIALS = ["<blank>", "<unk>", "<s>", "</s>"]          # pad 0, unk 1, bos 2, eos 3
SOURCE_WORDS = ["s%d" % i for i in range(4, 110)] + ["Paris", "1987", "x y"]   # ids 4..112 of 120
TARGET_WORDS = ["t%d" % i for i in range(4, 120)] + ["Paris", "1987", "z"]     # ids 4..122 of 130


def plain_tokenizer():
    """A tokenizer of space-separated words (format 2.3) for the tiny checkpoint (120 / 130 ids)."""
    src = SPECIALS + SOURCE_WORDS + ["u%d" % i for i in range(120 - 4 - len(SOURCE_WORDS))]
    tgt = SPECIALS + TARGET_WORDS + ["v%d" % i for i in range(130 - 4 - len(TARGET_WORDS))]
    return ir.Tokenizer(source_model=None, source_vocabulary=src, target_vocabulary=tgt)


def planted_corpus(rng, n=2000):
    """(source lines, target lines, {source word: target words}): each source
    word s10..s99 translates to one target word (s10..s19 to either of two,
    70/30), in any order, with 0-2 of the words t4, t5 that translate
    nothing."""
    targets = rng.permutation(np.arange(10, 100))
    table = {"s%d" % i: ["t%d" % t] for i, t in zip(range(10, 100), targets)}
    for i in range(10, 20):
        table["s%d" % i].append("t%d" % (100 + i - 10))
    src_lines, tgt_lines = [], []
    for _ in range(n):
        words = ["s%d" % i for i in rng.integers(10, 100, size=int(rng.integers(4, 10)))]
        out = [table[w][0] if len(table[w]) == 1 or rng.random() < 0.7 else table[w][1] for w in words]
        out += ["t4", "t5"][:int(rng.integers(0, 3))]
        src_lines.append(" ".join(words))
        tgt_lines.append(" ".join(rng.permutation(out)))
    return src_lines, tgt_lines, table


def write_lines(path, lines, newline="\n"):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("".join(l + newline for l in lines))


def marian_hash(data):
    """marian's util::hashMem<uint64_t> over the uint64 words after magic and checksum (written from
    src/common/hash.h: boost's hash_combine with std::hash, the identity for integers)."""
    seed = 0
    for (w,) in struct.iter_unpack("<Q", data[16:16 + (len(data) - 16) // 8 * 8]):
        seed ^= (w + 0x9E3779B9 + ((seed << 6) & (2 ** 64 - 1)) + (seed >> 2)) % 2 ** 64
    return seed


def bergamot_bytes(lists, first, best, checksum=None, magic=0xF11A48D5013417F5):
    """A binary shortlist in marian's layout (BinaryShortlistGenerator): header, uint64 offsets, uint32 ids."""
    offsets = np.cumsum([0] + [len(l) for l in lists])
    ids = [i for l in lists for i in sorted(l)]
    body = struct.pack("<4Q", first, best, len(offsets), len(ids)) + struct.pack("<%dQ" % len(offsets), *offsets) \
        + struct.pack("<%dI" % len(ids), *ids)
    data = struct.pack("<2Q", magic, 0) + body
    return struct.pack("<2Q", magic, marian_hash(data) if checksum is None else checksum) + body


def sample_lists(vocab, n_sources):
    """Bergamot lists for n_sources source ids: s10 -> t20, t21, <unk>; s11 -> t22."""
    lists = [[] for _ in range(n_sources)]
    lists[vocab.source_id("s10")] = [vocab.target_id("t20"), vocab.target_id("t21"), 1]
    lists[vocab.source_id("s11")] = [vocab.target_id("t22")]
    return lists


def candidates_of(shortlist, source_id):
    o = shortlist.offsets
    return shortlist.candidates[o[source_id]:o[source_id + 1]].tolist()


class IBMModel1(unittest.TestCase):
    def test_recovers_a_planted_translation_table(self):
        rng = np.random.default_rng(3)
        src_lines, tgt_lines, table = planted_corpus(rng)
        ids = lambda lines: [[int(w[1:]) for w in l.split()] for l in lines]  # noqa: E731  (sN / tN -> N)
        src, tgt = ids(src_lines), ids(tgt_lines)
        flat = lambda sentences: (np.concatenate([np.array(s) for s in sentences]),  # noqa: E731
                                  np.array([len(s) for s in sentences]))
        (s_ids, s_len), (t_ids, t_len) = flat(src), flat(tgt)
        corpus = Corpus(source=s_ids, source_lengths=s_len, target=t_ids, target_lengths=t_len, pairs=len(src),
                        skipped=0, names=("a", "b"))
        t = ibm1.train(corpus, 120, 130, iterations=5)
        np.testing.assert_allclose(np.bincount(t.source, weights=t.prob)[10:100], 1.0, rtol=1e-9)
        f, e = ibm1.best(t, k=1, min_prob=0)
        best = dict(zip(f.tolist(), e.tolist()))
        self.assertEqual(best, {int(w[1:]): int(ts[0][1:]) for w, ts in table.items()})
        f, e = ibm1.best(t, k=2, min_prob=0)
        for w in range(10, 20):
            self.assertEqual(sorted(e[f == w].tolist()), sorted(int(x[1:]) for x in table["s%d" % w]))
        # NULL explains the words that translate nothing
        null = t.source == t.null_id
        self.assertEqual(set(t.target[null][np.argsort(-t.prob[null])][:2].tolist()), {4, 5})


class Fixture(unittest.TestCase):
    """A tiny model with a SentencePiece tokenizer (one joint model, 200 ids)
    and the same weights with a tokenizer of space-separated words (120 / 130 ids)."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._tmp = tempfile.TemporaryDirectory(prefix="edgemt-test-")
        tmp = cls.tmp = cls._tmp.name
        ckpt = os.path.join(tmp, "spm-ckpt")
        cfg, _ = write_checkpoint(ckpt, src_vocab_size=200, tgt_vocab_size=200)
        train_spm(ckpt, 200)
        cfg["tokenizer"] = "spm.model"
        write_checkpoint(ckpt, cfg=cfg)
        cls.spm_ckpt = ckpt
        convert(ckpt, os.path.join(tmp, "spm.edgemt"), "--dtype", "float32")
        cls.spm_model = read(os.path.join(tmp, "spm.edgemt"))
        plain = os.path.join(tmp, "plain-ckpt")
        write_checkpoint(plain)
        convert(plain, os.path.join(tmp, "plain0.edgemt"), "--dtype", "float32")
        cls.plain_model = read(os.path.join(tmp, "plain0.edgemt"))
        cls.plain_model.tokenizer = plain_tokenizer()
        cls.plain_model.format_minor = ir.FORMAT_MINOR_CTRANSLATE2
        cls.plain_path = os.path.join(tmp, "plain.edgemt")
        with open(cls.plain_path, "wb") as f:
            f.write(serialize(cls.plain_model))
        src_lines, tgt_lines, cls.table = planted_corpus(np.random.default_rng(5))
        cls.corpus = (os.path.join(tmp, "train.src"), os.path.join(tmp, "train.tgt"))
        write_lines(cls.corpus[0], src_lines)
        write_lines(cls.corpus[1], tgt_lines, newline="\r\n")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def plain_shortlist(self, **settings):
        vocab = Vocabularies(self.plain_model)
        return vocab, build_from_corpus(vocab, *self.corpus, **settings).shortlist


class BuildFromCorpus(Fixture):
    def test_planted_translations_are_candidates(self):
        vocab, sl = self.plain_shortlist(k=3)
        for word, translations in self.table.items():
            got = [vocab.target_pieces[i] for i in candidates_of(sl, vocab.source_id(word))]
            for t in translations:
                self.assertIn(t, got, word)
        # the most frequent target words: the words that translate nothing, and eos
        self.assertIn(vocab.target_id("t4"), sl.frequent)
        self.assertIn(vocab.target_id("t5"), sl.frequent)
        self.assertIn(3, sl.frequent)
        for special in (0, 1, 2):
            self.assertNotIn(special, sl.frequent)
            self.assertNotIn(special, sl.candidates)

    def test_settings(self):
        vocab, sl = self.plain_shortlist(k=1, frequent=2, iterations=2)
        self.assertEqual(sorted(sl.frequent.tolist()), sorted([3, vocab.target_id("t4"), vocab.target_id("t5")]))
        w = vocab.source_id("s50")
        self.assertEqual(len(candidates_of(sl, w)), 1)
        self.assertIn("2 iterations, at most 1 per source id", sl.description)

    def test_copies_and_unseen_source_ids(self):
        vocab, sl = self.plain_shortlist()
        # Paris and 1987 are in both vocabularies and never in the corpus: their copy only
        for word in ("Paris", "1987"):
            self.assertEqual(candidates_of(sl, vocab.source_id(word)), [vocab.target_id(word)])
        self.assertEqual(candidates_of(sl, vocab.source_id("s105")), [])     # unseen, no copy
        for special in range(4):
            self.assertEqual(candidates_of(sl, special), [])

    def test_corpus_is_the_training_data_and_is_covered(self):
        vocab, sl = self.plain_shortlist()
        with open(self.corpus[0]) as s, open(self.corpus[1]) as t:
            for src, tgt in zip(s, t):
                ids = allowed(sl, vocab.encode_source(src), vocab.eos_id)
                self.assertTrue(np.isin(vocab.encode_target(tgt), ids).all())

    def test_sentencepiece_model(self):
        vocab = Vocabularies(self.spm_model)
        self.assertTrue(vocab.shared)
        rng = np.random.default_rng(9)
        from helpers import corpus_lines
        lines = corpus_lines(rng, 300)
        src, tgt = os.path.join(self.tmp, "spm.src"), os.path.join(self.tmp, "spm.tgt")
        write_lines(src, lines)
        write_lines(tgt, [l.upper() for l in lines])
        sl = build_from_corpus(vocab, src, tgt).shortlist
        st = stats(sl)
        self.assertGreater(st.sources, 100)
        # one joint model: every ordinary piece may be copied
        for i in np.flatnonzero(vocab.source_ordinary):
            self.assertIn(i, candidates_of(sl, i))
        self.assertEqual(parse(serialize(self._with(sl))).shortlist.candidates.tolist(), sl.candidates.tolist())

    def _with(self, shortlist):
        import copy
        m = copy.copy(self.spm_model)
        m.set_shortlist(shortlist)
        return m

    def test_bad_corpora(self):
        vocab = Vocabularies(self.plain_model)
        bad = os.path.join(self.tmp, "short.tgt")
        write_lines(bad, ["t4"])
        with self.assertRaisesRegex(ConversionError, "not aligned: .* 2000 lines, .* 1"):
            build_from_corpus(vocab, self.corpus[0], bad)
        with open(bad, "wb") as f:
            f.write(b"t4\n\xff\n")
        with self.assertRaisesRegex(ConversionError, "line 2 is not UTF-8"):
            build_from_corpus(vocab, bad, bad)
        with self.assertRaisesRegex(ConversionError, "cannot read the shortlist corpus"):
            build_from_corpus(vocab, os.path.join(self.tmp, "missing"), bad)
        with self.assertRaisesRegex(ConversionError, "--shortlist-k must be an integer >= 1"):
            build_from_corpus(vocab, *self.corpus, k=0)
        empty = os.path.join(self.tmp, "empty.src")
        write_lines(empty, ["", "<unk>"])
        with self.assertRaisesRegex(ConversionError, "no pair of non-empty lines"):
            build_from_corpus(vocab, empty, empty)


class FileFormat(Fixture):
    def shortlist(self, **parts):
        v = dict(frequent=[3, 7], offsets=[0] * 3 + [2] * 118, candidates=[9, 12], description="hand made")
        v.update(parts)
        return ir.Shortlist(**v)

    def test_round_trip(self):
        m = self.plain_model
        before = serialize(m)
        self.assertIsNone(parse(before).shortlist)
        m2 = parse(before)
        m2.set_shortlist(self.shortlist())
        self.assertEqual(m2.format_minor, 7)
        back = parse(serialize(m2))
        self.assertEqual((back.format_major, back.format_minor), (2, 7))
        for name, dtype in (("frequent", np.int32), ("offsets", np.uint32), ("candidates", np.int32)):
            got = getattr(back.shortlist, name)
            self.assertEqual(got.dtype, dtype, name)
            self.assertEqual(got.tolist(), getattr(m2.shortlist, name), name)
        self.assertEqual(back.shortlist.description, "hand made")
        self.assertEqual(serialize(back), serialize(m2))
        # a model without a shortlist is written as before (format 2.3 here)
        self.assertEqual(serialize(parse(before)), before)
        self.assertEqual(parse(before).format_minor, 3)

    def test_output_sums(self):
        """Format 2.7: the file's output_row_sum and output_bias_sum are the sums over the vocabulary
        of the projection's rows as the runtime reads them (dequantized) and of its bias."""
        from edgemt_convert.format.schema import fb
        ckpt = os.path.join(self.tmp, "plain-ckpt")
        for dtype in ("float32", "int8", "int4"):
            with self.subTest(dtype=dtype):
                path = os.path.join(self.tmp, "sums-%s.edgemt" % dtype)
                convert(ckpt, path, "--dtype", dtype)
                m = read(path)
                m.set_shortlist(self.shortlist())
                data = serialize(m)
                sl = fb().Model.Model.GetRootAs(data, 0).Shortlist()
                weight = m.output_weight()
                self.assertEqual(weight.is_quantized, dtype != "float32")
                expected = weight.dequantize().astype(np.float64).sum(axis=0)
                got = sl.OutputRowSumAsNumpy()
                self.assertEqual(got.dtype, np.float32)
                self.assertEqual(got.shape, (m.config.d_model,))
                np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
                self.assertGreater(np.abs(expected).max(), 0.01)  # not a vector of zeros
                bias = m.decoder.output_projection.bias
                self.assertAlmostEqual(sl.OutputBiasSum(), 0.0 if bias is None else float(np.sum(bias, dtype=np.float64)),
                                       places=5)

    def test_rules(self):
        m = parse(serialize(self.plain_model))
        cases = [
            (dict(candidates=[9, 130]), r"candidates\[1\] is 130, not a target id \(the target vocabulary has 130\)"),
            (dict(candidates=[-1, 9]), r"candidates\[0\] is -1"),
            (dict(frequent=[3, 3]), "frequent ids must be ascending, each once"),
            (dict(frequent=[7, 3]), "frequent ids must be ascending"),
            (dict(frequent=[200]), r"frequent\[0\] is 200"),
            (dict(offsets=[0] * 3 + [2] * 117), "120 offsets for 120 source ids .expected source_vocab_size . 1 = 121"),
            (dict(offsets=[1] * 3 + [2] * 118), "must run from 0 to the 2 candidates"),
            (dict(offsets=[0] * 3 + [3] * 118), "must run from 0 to the 2 candidates"),
            (dict(offsets=[0, 2, 1] + [2] * 118), "offsets decrease at source id 1"),
            (dict(candidates=[9, 9]), "source id 2's candidates are repeated .9 after 9."),
            (dict(candidates=[12, 9]), "source id 2's candidates are not ascending .9 after 12."),
            (dict(candidates=[1.5, 9]), "candidates must hold integers"),
        ]
        for parts, message in cases:
            with self.subTest(parts=parts):
                m.set_shortlist(self.shortlist(**parts))
                with self.assertRaisesRegex(ConversionError, message):
                    serialize(m)
        # ranges may start lower than the previous one ends
        m.set_shortlist(self.shortlist(offsets=[0, 0, 1] + [2] * 118, candidates=[12, 9]))
        self.assertEqual(parse(serialize(m)).shortlist.candidates.tolist(), [12, 9])

    def test_reader_checks_the_rules(self):
        m = parse(serialize(self.plain_model))
        m.set_shortlist(self.shortlist(candidates=[9, 9]))
        with mock.patch("edgemt_convert.format.writer.validate_shortlist", lambda sl, c: sl):
            data = serialize(m)
        with self.assertRaisesRegex(ConversionError, "repeated"):
            parse(data)


class Vmap(Fixture):
    def test_export_import_round_trip(self):
        vocab, sl = self.plain_shortlist()
        path = os.path.join(self.tmp, "vmap.txt")
        self.assertEqual(write_vmap(path, sl, vocab), [])
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[0], "\t" + " ".join(vocab.target_pieces[i] for i in sl.frequent))
        self.assertIn("Paris\tParis", lines)
        back, notes = read_vmap(path, vocab)
        self.assertEqual(notes, [])
        for name in ("frequent", "offsets", "candidates"):
            self.assertEqual(getattr(back, name).tolist(), getattr(sl, name).tolist(), name)
        # SentencePiece pieces
        spm_vocab = Vocabularies(self.spm_model)
        sl = from_pairs([5, 5, 6, 40], [7, 9, 7, 41], [10, 11], spm_vocab, "x")
        write_vmap(path, sl, spm_vocab)
        back, _ = read_vmap(path, spm_vocab)
        self.assertEqual(back.candidates.tolist(), [7, 9, 7, 41])
        self.assertEqual(back.frequent.tolist(), [3, 10, 11])

    def test_import_keeps_what_maps_onto_source_ids(self):
        path = os.path.join(self.tmp, "ct2.vmap")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("\tt4 t5 <unk> </s> <s>\r\n"         # frequent (specials: </s> only)
                    "s10\tt20 t21\n"
                    "s10\tt22  t23\n"                    # the later rule wins; empty tokens are no tokens
                    "s11 s12\tt30\n"                     # a bigram: dropped
                    "<unk>\tt31\n"                       # dropped
                    "nope\tt32\n"                        # no such source token: dropped
                    "</s>\tt33\n"                        # a special source token: dropped
                    "s13\tt34 missing <blank>\n"         # an unknown target token and pad: dropped
                    "\n")
        vocab = Vocabularies(self.plain_model)
        sl, notes = read_vmap(path, vocab)
        tid = vocab.target_id
        self.assertEqual(sl.frequent.tolist(), sorted([3, tid("t4"), tid("t5")]))
        self.assertEqual(candidates_of(sl, vocab.source_id("s10")), [tid("t22"), tid("t23")])
        self.assertEqual(candidates_of(sl, vocab.source_id("s13")), [tid("t34")])
        self.assertEqual(int(stats(sl).candidates), 3)
        self.assertEqual(len(notes), 1)
        for part in ("1 rule of two or more source tokens", "the <unk> rule", "1 rule whose token the source "
                     "vocabulary lacks", "1 rule of special source tokens", "1 target token the target vocabulary "
                     "lacks (e.g. 'missing')"):
            self.assertIn(part, notes[0])

    def test_bad_files(self):
        vocab = Vocabularies(self.plain_model)
        path = os.path.join(self.tmp, "bad.vmap")
        for text, message in (("s10 t20\n", "line 1: expected 'source tokens<TAB>target tokens' .one tab., found 0"),
                              ("\tt4\ns10\tt20\tt21\n", "line 2: .* found 2 tabs")):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            with self.assertRaisesRegex(ConversionError, message):
                read_vmap(path, vocab)

    def test_tokens_a_vmap_cannot_hold(self):
        vocab = Vocabularies(self.plain_model)
        sl = from_pairs([vocab.source_id("x y"), vocab.source_id("s10")], [vocab.target_id("t20")] * 2, [], vocab, "")
        path = os.path.join(self.tmp, "space.vmap")
        notes = write_vmap(path, sl, vocab)
        self.assertIn("1 token with a space, tab or line break cannot be written", notes[0])
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "\t</s>\ns10\tt20\n")


class Bergamot(Fixture):
    def test_imports_marian_layout(self):
        vocab = Vocabularies(self.plain_model)
        path = os.path.join(self.tmp, "lex.s2t.bin")
        with open(path, "wb") as f:
            f.write(bergamot_bytes(sample_lists(vocab, 120), first=8, best=50))
        sl, notes = read_bergamot(path, self.plain_model, vocab)
        self.assertEqual(sl.frequent.tolist(), [3, 4, 5, 6, 7])          # the first 8 ids but pad, unk, bos
        tid = vocab.target_id
        self.assertEqual(candidates_of(sl, vocab.source_id("s10")), sorted([tid("t20"), tid("t21")]))   # not unk
        self.assertEqual(candidates_of(sl, vocab.source_id("s11")), [tid("t22")])
        self.assertEqual(stats(sl).candidates, 3)
        self.assertIn("the first 8 target ids, at most 50 per source id", sl.description)
        self.assertFalse(vocab.shared)
        self.assertIn("padded to a multiple of 8 ids as Marian's", notes[-1])
        # Marian's padding: from firstNum 8 up, counting the 3 ids below 8 that are never candidates
        self.assertEqual((sl.pad_multiple, sl.pad_from, sl.pad_uncounted), (8, 8, 3))
        src = [vocab.source_id("s10")]
        ids = allowed(sl, src, vocab.eos_id, vocab.target_size).tolist()
        self.assertEqual((len(ids) + 3) % 8, 0)
        unpadded = {3, 4, 5, 6, 7, vocab.eos_id, tid("t20"), tid("t21")}
        padding = sorted(set(ids) - unpadded)
        self.assertLessEqual(unpadded, set(ids))
        self.assertTrue(padding)
        self.assertEqual(padding, [i for i in range(8, vocab.target_size) if i not in unpadded][:len(padding)])

    def test_shared_vocabulary_copies_source_ids(self):
        vocab = Vocabularies(self.spm_model)
        path = os.path.join(self.tmp, "lex.shared.bin")
        lists = [[] for _ in range(200)]
        lists[50] = [60, 61]
        with open(path, "wb") as f:
            f.write(bergamot_bytes(lists, first=4, best=10))
        sl, notes = read_bergamot(path, self.spm_model, vocab)
        self.assertEqual(candidates_of(sl, 50), [50, 60, 61])
        self.assertEqual(candidates_of(sl, 70), [70] if vocab.source_ordinary[70] else [])
        self.assertEqual(sl.frequent.tolist(), [3])
        self.assertIn("its own candidate", notes[0])

    def test_hugging_face_marian_pad_appended(self):
        import copy
        model = copy.deepcopy(self.plain_model)
        model.config.pad_id = 119           # as the Hugging Face conversion appends <pad> ...
        model.tokenizer.source_vocabulary[119] = "<pad>"
        vocab = Vocabularies(model)
        path = os.path.join(self.tmp, "lex.hf.bin")
        with open(path, "wb") as f:         # ... after marian's 119 ids
            f.write(bergamot_bytes(sample_lists(vocab, 119), first=4, best=50))
        sl, _ = read_bergamot(path, model, vocab)
        self.assertEqual(len(sl.offsets), 121)
        self.assertEqual(candidates_of(sl, 119), [])

    def test_refusals(self):
        vocab = Vocabularies(self.plain_model)
        good = bergamot_bytes(sample_lists(vocab, 120), first=8, best=50)
        lists = sample_lists(vocab, 120)
        lists[20] = [130]
        cases = [(good[:40], "too short for a binary shortlist's header"),
                 (bergamot_bytes(sample_lists(vocab, 120), 8, 50, magic=1), "not a Bergamot binary shortlist"),
                 (good[:-4], "its header says %d bytes .121 offsets, 4 targets. but the file has %d"
                  % (len(good), len(good) - 4)),
                 (bergamot_bytes(sample_lists(vocab, 120), 8, 50, checksum=12345), "checksum mismatch"),
                 (good[:-4] + struct.pack("<I", 99), "checksum mismatch"),
                 (bergamot_bytes(sample_lists(vocab, 100), 8, 50), "a shortlist for 100 source ids, the model has 120"),
                 (bergamot_bytes(lists, 8, 50), "target id 130 is beyond the model's target vocabulary of 130")]
        path = os.path.join(self.tmp, "bad.bin")
        for data, message in cases:
            with self.subTest(message=message):
                with open(path, "wb") as f:
                    f.write(data)
                with self.assertRaisesRegex(ConversionError, message):
                    read_bergamot(path, self.plain_model, vocab)


class CommandLine(Fixture):
    def test_checkpoint_with_a_corpus_and_export(self):
        out, vmap = os.path.join(self.tmp, "cli.edgemt"), os.path.join(self.tmp, "cli.vmap")
        spm_src = os.path.join(self.tmp, "cli.src")
        from helpers import corpus_lines
        write_lines(spm_src, corpus_lines(np.random.default_rng(4), 200))
        text = convert(self.spm_ckpt, out, "--shortlist-corpus", spm_src, spm_src, "--shortlist-k", "5",
                       "--shortlist-frequent", "20", "--shortlist-iterations", "3", "--export-vmap", vmap)
        self.assertIn("shortlist (format 2.7, docs/shortlist.md): IBM model 1 on cli.src/cli.src (200 sentence pairs), "
                      "3 iterations, at most 5 per source id", text)
        self.assertRegex(text, r"shortlist: 21 frequent ids; candidates per source id: mean [\d.]+, max \d+ .* bytes")
        self.assertRegex(text, r"time: load [\d.]+s, shortlist [\d.]+s")
        m = read(out)
        self.assertEqual((m.format_minor, m.metadata.dtype), (7, "int8"))
        self.assertIn("int8 (format 2.7", m.metadata.quantization_summary)
        back, _ = read_vmap(vmap, Vocabularies(m))
        self.assertEqual(back.candidates.tolist(), m.shortlist.candidates.tolist())

    def test_existing_file_gets_a_shortlist(self):
        out = os.path.join(self.tmp, "amended.edgemt")
        text = convert(self.plain_path, out, "--shortlist-corpus", *self.corpus)
        self.assertIn("plain.edgemt: a shortlist added -> amended.edgemt", text)
        m = read(out)
        self.assertEqual(m.format_minor, 7)
        with open(self.plain_path, "rb") as f:
            self.assertEqual(serialize(dataclasses.replace(m, shortlist=None, format_minor=3)), f.read())
        vmap = os.path.join(self.tmp, "amended.vmap")
        code, stdout, err = run_cli(main, [out, "--export-vmap", vmap, "--quiet"])
        self.assertEqual(code, 0, err)
        self.assertIn("its shortlist as a vmap -> amended.vmap", stdout)
        again = os.path.join(self.tmp, "again.edgemt")
        text = convert(out, again, "--shortlist-vmap", vmap)
        self.assertIn("replaces the file's shortlist (IBM model 1", text)
        self.assertEqual(read(again).shortlist.candidates.tolist(), m.shortlist.candidates.tolist())
        bin_path = os.path.join(self.tmp, "cli.bin")
        vocab = Vocabularies(m)
        with open(bin_path, "wb") as f:
            f.write(bergamot_bytes(sample_lists(vocab, 120), first=10, best=5))
        convert(self.plain_path, again, "--shortlist-bergamot", bin_path)
        self.assertEqual(stats(read(again).shortlist).candidates, 3)

    def test_refusals(self):
        out = os.path.join(self.tmp, "refused", "x.edgemt")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        src, tgt = self.corpus
        cases = [
            (self.spm_ckpt, ["--shortlist-corpus", src, tgt, "--shortlist-vmap", src], "--shortlist-corpus and "
             "--shortlist-vmap: one shortlist at a time"),
            (self.spm_ckpt, ["--shortlist-k", "4"], "--shortlist-k: only with --shortlist-corpus"),
            (self.spm_ckpt, ["--export-vmap", out + ".vmap"], "--export-vmap: the model gets no shortlist"),
            (self.spm_ckpt, ["--shortlist-corpus", src, src + "x"], "cannot read the shortlist corpus"),
            (self.plain_path, [], "plain.edgemt is an EdgeMT model: give --shortlist-corpus"),
            (self.plain_path, ["--shortlist-frequent", "-1", "--shortlist-corpus", src, tgt],
             "--shortlist-frequent must be an integer >= 0"),
        ]
        for ckpt, extra, message in cases:
            with self.subTest(message=message):
                self.assertIn(message, convert_error(self, ckpt, out, *extra))
        code, _, err = run_cli(main, [self.plain_path, "--out", out, "--dtype", "int8", "--shortlist-vmap", src])
        self.assertEqual(code, 2)
        self.assertIn("--dtype: not for a .edgemt input", err)
        code, _, err = run_cli(main, [self.spm_ckpt, "--shortlist-vmap", src])
        self.assertEqual(code, 2)
        self.assertIn("required: --out", err)


def token_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


@unittest.skipUnless(os.path.isdir(MULTI30K) and os.path.isdir(DATA),
                     "the shared multi30k model and data are not at %s, %s" % (MULTI30K, DATA))
class Multi30k(unittest.TestCase):
    def test_dev_references_are_covered(self):
        tmp = TempDir(self)
        out = tmp("m30k.shortlist.int8.edgemt")
        t0 = time.perf_counter()
        summary = convert(MULTI30K, out, "--shortlist-corpus", os.path.join(DATA, "train.en"),
                          os.path.join(DATA, "train.de"))
        print("\nconversion with the shortlist: %.1f s (%s)"
              % (time.perf_counter() - t0, summary.strip().split("\n")[-1]))
        model = read(out)
        vocab = Vocabularies(model)
        sl = model.shortlist
        covered = total = 0
        sizes = []
        for src, ref in zip(token_lines(os.path.join(DATA, "dev.en")), token_lines(os.path.join(DATA, "dev.de"))):
            ids = allowed(sl, vocab.encode_source(src), vocab.eos_id)
            sizes.append(ids.size)
            target = vocab.encode_target(ref)
            covered += int(np.isin(target, ids).sum())
            total += len(target)
        greedy = token_lines(os.path.join(MULTI30K, "reference", "dev.greedy.ids"))
        sources = token_lines(os.path.join(MULTI30K, "reference", "dev.src.ids"))
        out_covered = out_total = whole = 0
        for src, out_ids in zip(sources, greedy):
            ids = allowed(sl, [int(i) for i in src.split()], vocab.eos_id)
            inside = np.isin([int(i) for i in out_ids.split()], ids)
            out_covered, out_total = out_covered + int(inside.sum()), out_total + inside.size
            whole += bool(inside.all())
        print("dev references covered: %.4f of %d target ids; float32 greedy outputs covered: %.4f (%d of %d sentences "
              "whole); ids per sentence: mean %.1f, max %d of %d; %s"
              % (covered / total, total, out_covered / out_total, whole, len(greedy), np.mean(sizes), max(sizes),
                 vocab.target_size, stats(sl)))
        self.assertGreaterEqual(covered / total, 0.95)
        self.assertGreaterEqual(out_covered / out_total, 0.96)
        self.assertLess(np.mean(sizes), 400)


if __name__ == "__main__":
    unittest.main()
