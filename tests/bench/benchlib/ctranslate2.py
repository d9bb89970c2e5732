"""The peer: CTranslate2 4.8.1 (../shared/bench/ct2, a benchmark peer only), run side by side with EdgeMT.

Token ids map 1:1 to CTranslate2's vocabulary lines (../shared/bench/ct2/README.txt): CTranslate2 gets the
pieces of the same ids EdgeMT gets, </s> included. API against API: one process per measurement loads the
model, then times translating all sources in one call (both runtimes sort the call's sources by length into
batches of at most the batch size).
"""
import json
import os
import random
import subprocess

from .load import cpu_lock
from .paths import DEV_EN, MULTI30K, PYTHON, REPO, SHARED
from .processes import run_child

CT2 = os.path.join(SHARED, "bench", "ct2")
VERSION = "4.8.1"
FORCED_ISA = "AVX512"


def environment(work):
    """The environment ct2-translator and the ctranslate2 module need, or None when the peer is missing.
    The bundle holds the library under its soname (libctranslate2.so.4, a plain file); older bundles
    held libctranslate2.so.4.8.1 with links that may arrive as small text files naming their target (a
    copy that does not keep symbolic links): then links made in `work` come first."""
    lib = os.path.join(CT2, "lib")
    if not os.path.exists(os.path.join(CT2, "bin", "ct2-translator")):
        return None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(CT2, "py")
    soname = os.path.join(lib, "libctranslate2.so.4")
    if os.path.isfile(soname) and os.path.getsize(soname) > 4096:
        env["LD_LIBRARY_PATH"] = lib
        return env
    library = os.path.join(lib, "libctranslate2.so.4.8.1")
    if not os.path.exists(library):
        return None
    links = os.path.join(work, "ct2-lib")
    os.makedirs(links, exist_ok=True)
    for name in ("libctranslate2.so.4", "libctranslate2.so"):
        path = os.path.join(links, name)
        if not os.path.lexists(path):
            os.symlink(library, path)
    env["LD_LIBRARY_PATH"] = links + os.pathsep + lib
    return env


def export_model(checkpoint, out, env):
    """The checkpoint as a CTranslate2 int8 model directory (exported once)."""
    if not os.path.exists(os.path.join(out, "model.bin")):
        run_child([PYTHON, os.path.join(CT2, "export_ct2.py"), checkpoint, out, "--quantization", "int8",
                   "--force"], env=env)
    return out


def import_directory(ct2_dir, work):
    """EdgeMT's int8 file of a CTranslate2 directory (edgemt-convert keeps its int8 weights)."""
    out = os.path.join(work, os.path.basename(ct2_dir) + ".imported.edgemt")
    cmd = [PYTHON, os.path.join(REPO, "converter", "edgemt-convert"), ct2_dir, "--out", out, "--dtype", "int8",
           "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), r.stderr[-2000:]))
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
batch, beam, imported = int(sys.argv[7]), int(sys.argv[8]), sys.argv[9] == "1"
# translate_ids frames a source as the model does: it adds the </s> of the seed layout's models; a model
# imported from CTranslate2's export takes the ids as they are, </s> included.
sources = [[int(x) for x in line.split()][:None if imported else -1] for line in open(ids_path)]
translator = edgemt.Translator(model, threads=threads, max_batch_size=batch, max_beam_size=beam)
options = dict(min_length=32, max_length=32) if fixed else {}
options.update(beam_size=beam, length_penalty=1.0)
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
batch, beam = int(sys.argv[6]), int(sys.argv[7])
sources = [line.split() for line in open(tokens_path, encoding="utf-8")]
translator = ctranslate2.Translator(model, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)
options = dict(min_decoding_length=32, max_decoding_length=32) if fixed else {}
start = time.perf_counter()
results = translator.translate_batch(sources, max_batch_size=batch, beam_size=beam, **options)
seconds = time.perf_counter() - start
open(out_path, "w", encoding="utf-8").write("".join(" ".join(r.hypotheses[0]) + "\\n" for r in results))
print(seconds)
"""


def run_api(kind, model, inputs, out, threads, fixed, env, batch, beam=1, imported=False):
    """One API process ("edgemt-api" or "ct2-api") under the CPU lock; wall_s is the translating call alone.
    `env`: CTranslate2's environment (its library path, and CT2_FORCE_CPU_ISA when an ISA is forced);
    `imported`: EdgeMT's model was converted from CTranslate2's directory (its sources keep their </s>)."""
    if kind == "edgemt-api":
        cmd = [PYTHON, "-c", EDGEMT_API, os.path.join(REPO, "build", "python"), model, inputs, out, str(threads),
               "1" if fixed else "0", str(batch), str(beam), "1" if imported else "0"]
    else:
        cmd = [PYTHON, "-c", CT2_API, model, inputs, out, str(threads), "1" if fixed else "0", str(batch), str(beam)]
    with cpu_lock("%s %s t%d b%d" % (kind, os.path.basename(model), threads, batch)):
        r = run_child(cmd, env=env if kind == "ct2-api" else None, timed=True)
    r["wall_s"] = float(r["out"].split()[-1])
    return r
