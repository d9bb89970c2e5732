"""edgemt-translate --packed-cache DIR: the first run packs the weights and
writes DIR/<16 hex>.packed (a temporary file renamed into place), later runs
map it and write nothing. A cache file that cannot be used (truncated,
corrupt, made for another model file, not a cache file at all) or cannot be
written (no directory, file size limit) costs time, never translations: one
`edgemt-translate: warning: ` line on stderr, exit code 0, and the same output
lines as a run without --packed-cache; an unusable file is replaced by a good
one. A model file rewritten at the same path gets a cache file of its own.

Needs EDGEMT_BIN (the build's bin directory: edgemt-translate and
edgemt-make-test-model); exits 77 (CTest: skipped) without them. The models
are small random ones written by edgemt-make-test-model, read and written as
ids (--input-ids --output-ids).
"""

import os
import random
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ.get("EDGEMT_BIN", "")
TRANSLATE = os.path.join(BIN, "edgemt-translate")
MAKE_MODEL = os.path.join(BIN, "edgemt-make-test-model")
SKIP = 77
TIMEOUT = 300
WARNING = "edgemt-translate: warning: "

MODEL_ARGS = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1",
              "--source-vocab", "40", "--target-vocab", "48", "--max-positions", "16"]
# Ids (</s> is 3): lines of one and of several sentences, and a blank line
# (which gets an empty output line).
INPUT = b"5 6 7 3\n8 9 3 10 11 12 3\n\n13 14 15 16 3 17 18 3 19 3\n4 3\n"
INPUT_LINES = 5

# The file layout of runtime/src/packing/packed_file.cc: FileHeader (magic,
# format, key_bytes, entry_count, data_offset, data_bytes, file_bytes,
# table_hash, header_hash), the key text, the entry table (FileEntry: layer,
# seed, reserved, offset, size, hash), then the packed data.
HEADER = struct.Struct("<8sIIQQQQQQ")
ENTRY = struct.Struct("<QIIQQQ")
MAGIC = b"EMTPACK\x01"

_tmp = None
MODELS = {}      # name -> model file
REFERENCE = {}   # name -> output lines without --packed-cache


def binaries_present():
    return os.path.isfile(TRANSLATE) and os.path.isfile(MAKE_MODEL)


def make_model(path, seed, int8):
    subprocess.run([MAKE_MODEL, "-o", path, "--seed", str(seed)] + MODEL_ARGS + (["--int8"] if int8 else []),
                   check=True, timeout=TIMEOUT)


def run(model, cache_dir=None, preexec_fn=None):
    """(exit code, output lines as bytes, stderr as text)."""
    args = [TRANSLATE, "--model", model, "--threads", "1", "--input-ids", "--output-ids"]
    if cache_dir is not None:
        args += ["--packed-cache", cache_dir]
    proc = subprocess.run(args, input=INPUT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
                          preexec_fn=preexec_fn)
    out = proc.stdout
    lines = out[:-1].split(b"\n") if out.endswith(b"\n") else [out]
    return proc.returncode, lines, proc.stderr.decode("utf-8", "replace")


def reference(model):
    """The output of a run without --packed-cache (which must be clean)."""
    code, lines, err = run(model)
    assert (code, err) == (0, ""), (code, err)
    assert len(lines) == INPUT_LINES and lines[2] == b"" and all(lines[i] for i in (0, 1, 3, 4)), lines
    return lines


def setUpModule():
    global _tmp
    if not binaries_present():
        raise unittest.SkipTest("EDGEMT_BIN must name a directory with edgemt-translate and edgemt-make-test-model")
    _tmp = tempfile.TemporaryDirectory()
    for name, seed, int8 in (("float32", 1, False), ("int8", 1, True), ("other", 2, True)):
        MODELS[name] = os.path.join(_tmp.name, name + ".edgemt")
        make_model(MODELS[name], seed, int8)
        REFERENCE[name] = reference(MODELS[name])


def tearDownModule():
    if _tmp is not None:
        _tmp.cleanup()


def listing(directory):
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


def packed_files(directory):
    return [name for name in listing(directory) if name.endswith(".packed")]


def read_layout(path):
    """(header fields, key text, entries) of a good cache file."""
    with open(path, "rb") as f:
        data = f.read()
    header = HEADER.unpack_from(data, 0)
    key_bytes, entry_count = header[2], header[3]
    key = data[HEADER.size:HEADER.size + key_bytes]
    table = HEADER.size + key_bytes
    entries = [ENTRY.unpack_from(data, table + i * ENTRY.size) for i in range(entry_count)]
    return header, key, entries


def flip_byte(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))


class CacheCase(unittest.TestCase):
    model = "int8"

    def setUp(self):
        work = tempfile.TemporaryDirectory()
        self.addCleanup(work.cleanup)
        self.work = work.name
        self.cache = os.path.join(self.work, "cache")

    def translate(self, model=None, cache_dir=None, **kwargs):
        return run(model or MODELS[self.model], self.cache if cache_dir is None else cache_dir, **kwargs)

    def assert_clean(self, result, expected=None):
        code, lines, err = result
        self.assertEqual(err, "")
        self.assertEqual(code, 0)
        self.assertEqual(lines, expected or REFERENCE[self.model])

    def assert_one_warning(self, result, *fragments, expected=None):
        """Exit 0, the reference output, and one warning line containing every fragment."""
        code, lines, err = result
        self.assertEqual(code, 0, err)
        self.assertEqual(lines, expected or REFERENCE[self.model], err)
        self.assertTrue(err.startswith(WARNING), err)
        self.assertTrue(err.endswith("\n"), err)
        self.assertEqual(err.count("\n"), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, err)

    def warm(self, model=None, cache_dir=None):
        """A first run: returns the path of the one cache file it wrote."""
        cache_dir = cache_dir or self.cache
        self.assert_clean(self.translate(model, cache_dir),
                          REFERENCE[self.model] if model is None else reference(model))
        names = listing(cache_dir)
        self.assertEqual(len(names), 1, names)
        self.assertRegex(names[0], r"^[0-9a-f]{16}\.packed$")
        return os.path.join(cache_dir, names[0])


class FirstAndLaterRuns(CacheCase):
    """A float32 model: one file written by the first run, none by later ones."""
    model = "float32"

    def test_first_run_writes_the_file_later_runs_map_it(self):
        self.assertFalse(os.path.exists(self.cache))  # the first run creates DIR
        path = self.warm()
        with open(path, "rb") as f:
            self.assertEqual(f.read(len(MAGIC)), MAGIC)
        header, key, entries = read_layout(path)
        self.assertEqual(header[6], os.path.getsize(path))  # file_bytes
        self.assertIn(b"; model file ", key)
        self.assertGreater(len(entries), 0)
        before = os.stat(path)
        for _ in range(2):
            self.assert_clean(self.translate())
            self.assertEqual(listing(self.cache), [os.path.basename(path)])
            after = os.stat(path)
            self.assertEqual((after.st_ino, after.st_mtime_ns, after.st_size),
                             (before.st_ino, before.st_mtime_ns, before.st_size))

    def test_each_model_file_has_its_own_cache_file(self):
        self.warm()
        self.assert_clean(self.translate(MODELS["other"]), REFERENCE["other"])
        self.assertEqual(len(packed_files(self.cache)), 2)
        self.assert_clean(self.translate())  # the first file is still used, not rewritten
        self.assertEqual(len(listing(self.cache)), 2)


class FirstAndLaterRunsInt8(FirstAndLaterRuns):
    """The same with an int8 model."""
    model = "int8"


class UnusableFile(CacheCase):
    """A damaged or foreign cache file: one warning saying why, the reference
    output, and a good file in its place (the next run has no warning)."""

    def check_replaced(self, damage, reason):
        path = self.warm()
        with open(path, "rb") as f:
            good = f.read()
        damage(path)
        self.assert_one_warning(self.translate(), "packed cache %s is not used: %s" % (path, reason),
                                "packed the weights and replaced it")
        self.assertEqual(listing(self.cache), [os.path.basename(path)])  # no temporary file left
        with open(path, "rb") as f:
            self.assertEqual(f.read(), good)
        self.assert_clean(self.translate())

    def truncate(self, size):
        return lambda path: os.truncate(path, size)

    def test_truncated_to_half(self):
        self.check_replaced(lambda path: os.truncate(path, os.path.getsize(path) // 2), "truncated or extended (")

    def test_extended(self):
        def extend(path):
            with open(path, "ab") as f:
                f.write(b"\0" * 128)
        self.check_replaced(extend, "truncated or extended (")

    def test_truncated_to_10_bytes(self):
        self.check_replaced(self.truncate(10), "truncated (10 bytes)")

    def test_empty_file(self):
        self.check_replaced(self.truncate(0), "truncated (0 bytes)")

    def test_header_byte_flipped(self):
        self.check_replaced(lambda path: flip_byte(path, 20), "its header is corrupt")

    def test_key_text_byte_flipped(self):
        # The first byte after the header: the key text, covered by the table hash.
        self.check_replaced(lambda path: flip_byte(path, HEADER.size), "its entry table is corrupt")

    def test_entry_table_byte_flipped(self):
        def damage(path):
            header, key, entries = read_layout(path)
            flip_byte(path, HEADER.size + len(key) + ENTRY.size * (len(entries) - 1) + 24)  # the last entry's offset
        self.check_replaced(damage, "its entry table is corrupt")

    def test_packed_bytes_flipped(self):
        # The last byte of the last entry's packed bytes.
        path = self.warm()
        header, _, entries = read_layout(path)
        last = max(range(len(entries)), key=lambda i: entries[i][3])
        end = header[4] + entries[last][3] + entries[last][4]
        os.remove(path)
        self.check_replaced(lambda p: flip_byte(p, end - 1),
                            "the packed weights of entry %d are corrupt" % last)

    def test_last_byte_of_the_file_flipped(self):
        # Each entry's bytes are rounded up to 128: the file's last byte is
        # packed data (checked) or padding after the last entry (never read).
        path = self.warm()
        header, _, entries = read_layout(path)
        size = os.path.getsize(path)
        covering = [i for i, e in enumerate(entries) if header[4] + e[3] <= size - 1 < header[4] + e[3] + e[4]]
        if covering:
            os.remove(path)
            self.check_replaced(lambda p: flip_byte(p, size - 1),
                                "the packed weights of entry %d are corrupt" % covering[0])
        else:
            flip_byte(path, size - 1)
            before = os.stat(path)
            self.assert_clean(self.translate())
            self.assertEqual(os.stat(path).st_mtime_ns, before.st_mtime_ns)

    def test_random_bytes_of_the_same_length(self):
        def damage(path):
            size = os.path.getsize(path)
            with open(path, "wb") as f:
                f.write(random.Random(20240607).randbytes(size))
        self.check_replaced(damage, "not a packed cache file")

    def test_cache_file_of_another_model(self):
        other = self.warm(MODELS["other"], os.path.join(self.work, "other-cache"))
        with open(other, "rb") as f:
            foreign = f.read()

        def damage(path):
            with open(path, "wb") as f:
                f.write(foreign)
        self.check_replaced(damage, "it was made for another model file")
        with open(other, "rb") as f:
            self.assertEqual(f.read(), foreign)  # the other model's own file is untouched


class UnwritableCache(CacheCase):
    """The cache cannot be written: one warning, the reference output, no file left."""

    def test_parent_of_the_directory_is_a_regular_file(self):
        parent = os.path.join(self.work, "plain")
        with open(parent, "wb") as f:
            f.write(b"not a directory\n")
        cache = os.path.join(parent, "cache")
        self.assert_one_warning(self.translate(cache_dir=cache), "cannot write packed cache " + cache + "/",
                                "cannot create the directory: Not a directory")
        with open(parent, "rb") as f:
            self.assertEqual(f.read(), b"not a directory\n")

    def test_directory_in_place_of_the_cache_file(self):
        path = self.warm()
        os.remove(path)
        os.mkdir(path)
        self.assert_one_warning(self.translate(), "packed cache %s is not used: not a regular file" % path,
                                "cannot write packed cache " + path)
        self.assertEqual(listing(self.cache), [os.path.basename(path)])
        self.assertEqual(listing(path), [])

    def test_file_size_limit(self):
        def limit():
            # SIG_IGN survives exec: writes past the limit fail with EFBIG.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        self.assert_one_warning(self.translate(preexec_fn=limit), "cannot write packed cache " + self.cache + "/",
                                "File too large")
        self.assertEqual(listing(self.cache), [])  # neither .packed nor .tmp.*
        # Without the limit, the next run writes it.
        self.warm()


class RewrittenModel(CacheCase):
    """A model file rewritten at the same path never reuses the old cache file."""

    def test_new_model_at_the_same_path_gets_a_new_cache_file(self):
        model = os.path.join(self.work, "model.edgemt")
        make_model(model, 11, int8=True)
        old_output = reference(model)
        old = self.warm(model)
        make_model(model, 12, int8=True)
        new_output = reference(model)
        self.assertNotEqual(new_output, old_output, "the two seeds translate alike: the test shows nothing")
        self.assert_clean(self.translate(model), new_output)
        names = packed_files(self.cache)
        self.assertEqual(len(names), 2, names)
        self.assertIn(os.path.basename(old), names)
        self.assertEqual(listing(self.cache), names)
        self.assert_clean(self.translate(model), new_output)
        self.assertEqual(listing(self.cache), names)


class ReadOnlyDirectory(CacheCase):
    """A cache in a directory this process may not write to (unless root) is still loaded."""

    def test_read_only_directory(self):
        path = self.warm()
        before = os.stat(path)
        os.chmod(self.cache, 0o555)
        self.addCleanup(os.chmod, self.cache, 0o755)
        self.assert_clean(self.translate())
        self.assertEqual(listing(self.cache), [os.path.basename(path)])
        self.assertEqual(os.stat(path).st_mtime_ns, before.st_mtime_ns)


if __name__ == "__main__":
    if not binaries_present():
        print("%s: skipped: EDGEMT_BIN must name a directory with edgemt-translate and edgemt-make-test-model"
              % os.path.basename(sys.argv[0]), file=sys.stderr)
        sys.exit(SKIP)
    unittest.main(verbosity=2)
