"""The peer: CTranslate2 4.8.1 (../shared/bench/ct2, a benchmark peer only), run side by side with EdgeMT.

Token ids map 1:1 to CTranslate2's vocabulary lines (../shared/bench/ct2/README.txt): CTranslate2 gets the
pieces of the same ids EdgeMT gets, </s> included. API against API: one process per measurement loads the
model, then times translating all sources in one call (both runtimes sort the call's sources by length into
batches of at most the batch size).
"""
import json
import os
import random

from .load import cpu_lock
from .paths import DEV_EN, MULTI30K, PYTHON, REPO, SHARED
from .processes import run_child

CT2 = os.path.join(SHARED, "bench", "ct2")
VERSION = "4.8.1"
FORCED_ISA = "AVX512"


def environment(work):
    """The environment ct2-translator and the ctranslate2 module need, or None when the peer is missing.
    The bundle's library links (libctranslate2.so.4 -> .so.4.8.1) may arrive as small text files naming
    their target (a copy that does not keep symbolic links): then links made in `work` come first."""
    library = os.path.join(CT2, "lib", "libctranslate2.so.4.8.1")
    if not (os.path.exists(os.path.join(CT2, "bin", "ct2-translator")) and os.path.exists(library)):
        return None
    links = os.path.join(work, "ct2-lib")
    os.makedirs(links, exist_ok=True)
    for name in ("libctranslate2.so.4", "libctranslate2.so"):
        path = os.path.join(links, name)
        if not os.path.lexists(path):
            os.symlink(library, path)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = links + os.pathsep + os.path.join(CT2, "lib")
    env["PYTHONPATH"] = os.path.join(CT2, "py")
    return env


def export_model(checkpoint, out, env):
    """The checkpoint as a CTranslate2 int8 model directory (exported once)."""
    if not os.path.exists(os.path.join(out, "model.bin")):
        run_child([PYTHON, os.path.join(CT2, "export_ct2.py"), checkpoint, out, "--quantization", "int8",
                   "--force"], env=env)
    return out


def vocabulary(ct2_dir):
    with open(os.path.join(ct2_dir, "shared_vocabulary.json")) as f:
        return json.load(f)


def inputs_trained():
    """The dev sentences x4 as ids (the model's SentencePiece, </s> appended)."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(MULTI30K, "spm.model"))
    with open(DEV_EN, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    return [sp.encode(line) + [3] for line in lines] * 4


def inputs_random(vocab_size, seed=17):
    """200 random sources of 10-40 ids, </s> appended."""
    r = random.Random(seed)
    return [[r.randrange(4, vocab_size) for _ in range(r.randrange(10, 41))] + [3] for _ in range(200)]


def write_inputs(ids, vocab, work, name):
    """The sources as ids (EdgeMT) and, with a vocabulary, as pieces (CTranslate2): (ids path, pieces path)."""
    ids_path = os.path.join(work, name + ".ids")
    with open(ids_path, "w") as f:
        f.write("".join(" ".join(map(str, s)) + "\n" for s in ids))
    if vocab is None:
        return ids_path, None
    tokens_path = os.path.join(work, name + ".tok")
    with open(tokens_path, "w", encoding="utf-8") as f:
        f.write("".join(" ".join(vocab[i] for i in s) + "\n" for s in ids))
    return ids_path, tokens_path


def to_ids(ct2_out, vocab, out):
    """CTranslate2's output pieces as ids (unknown pieces as 1)."""
    index = {piece: i for i, piece in enumerate(vocab)}
    with open(ct2_out, encoding="utf-8") as f, open(out, "w") as g:
        for line in f:
            g.write(" ".join(str(index.get(p, 1)) for p in line.split()) + "\n")
    return out


def detect_isa(model_dir, tokens_path, env, work):
    """The ISA CTranslate2 picks here (CT2_VERBOSE=1 logs it when the model loads)."""
    env = dict(env, CT2_VERBOSE="1")
    head = os.path.join(work, "isa.tok")
    with open(tokens_path, encoding="utf-8") as f, open(head, "w", encoding="utf-8") as g:
        g.write(f.readline())
    r = run_child([os.path.join(CT2, "bin", "ct2-translator"), "--model", model_dir, "--src", head, "--out",
                   os.path.join(work, "isa.out"), "--intra_threads", "1"], env=env, record=False)
    for line in r["err"].splitlines():
        if "ISA" in line or "isa" in line:
            return line.split("]")[-1].split("ISA:")[-1].strip()
    return "not reported"


def prepare(name, model, env, work, count=None):
    """A model's side-by-side state: its int8 file, its sources (the dev set x4 for the trained model, random
    ones for the others; the first `count`) as ids and pieces, and its CTranslate2 export when the peer is there."""
    ct2_dir = export_model(model["checkpoint"], os.path.join(work, name + ".ct2-int8"), env) if env else None
    if model["kind"] == "trained":
        ids = inputs_trained()
    else:
        with open(os.path.join(model["checkpoint"], "config.json")) as f:
            ids = inputs_random(json.load(f)["src_vocab_size"])
    ids_path, tokens_path = write_inputs(ids[:count], vocabulary(ct2_dir) if ct2_dir else None, work, name)
    return dict(name=name, model=model["files"]["int8"], ct2_dir=ct2_dir, ids=ids_path, tokens=tokens_path,
                fixed=model["kind"] != "trained", env=env)


def cpu_has_avx512():
    with open("/proc/cpuinfo") as f:
        return " avx512f" in f.read()


EDGEMT_API = """
import sys, time
sys.path.insert(0, sys.argv[1])
import edgemt
model, ids_path, out_path, threads, fixed = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6] == "1"
batch = int(sys.argv[7])
sources = [[int(x) for x in line.split()][:-1] for line in open(ids_path)]  # translate_ids adds </s>
translator = edgemt.Translator(model, threads=threads, max_batch_size=batch)
options = dict(min_length=32, max_length=32) if fixed else {}
start = time.perf_counter()
outputs = translator.translate_ids(sources, **options)
seconds = time.perf_counter() - start
open(out_path, "w").write("".join(" ".join(map(str, ids)) + "\\n" for ids in outputs))
print(seconds)
"""

CT2_API = """
import sys, time
import ctranslate2
model, tokens_path, out_path, threads, fixed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
batch = int(sys.argv[6])
sources = [line.split() for line in open(tokens_path, encoding="utf-8")]
translator = ctranslate2.Translator(model, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)
options = dict(min_decoding_length=32, max_decoding_length=32) if fixed else {}
start = time.perf_counter()
results = translator.translate_batch(sources, max_batch_size=batch, beam_size=1, **options)
seconds = time.perf_counter() - start
open(out_path, "w", encoding="utf-8").write("".join(" ".join(r.hypotheses[0]) + "\\n" for r in results))
print(seconds)
"""


def run_api(kind, model, inputs, out, threads, fixed, env, batch):
    """One API process ("edgemt-api" or "ct2-api") under the CPU lock; wall_s is the translating call alone.
    `env`: CTranslate2's environment (its library path, and CT2_FORCE_CPU_ISA when an ISA is forced)."""
    if kind == "edgemt-api":
        cmd = [PYTHON, "-c", EDGEMT_API, os.path.join(REPO, "build", "python"), model, inputs, out, str(threads),
               "1" if fixed else "0", str(batch)]
    else:
        cmd = [PYTHON, "-c", CT2_API, model, inputs, out, str(threads), "1" if fixed else "0", str(batch)]
    with cpu_lock("%s %s t%d b%d" % (kind, os.path.basename(model), threads, batch)):
        r = run_child(cmd, env=env if kind == "ct2-api" else None, timed=True)
    r["wall_s"] = float(r["out"].split()[-1])
    return r
