"""A bad checkpoint fails with one line naming the problem, a non-zero exit
code and no output file (nor a temporary file) left behind."""
import os
import subprocess
import unittest

import numpy as np
import torch

from helpers import CONVERTER, TempDir, convert_error, random_state_dict, train_spm, write_checkpoint


class BadCheckpoints(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir(self)
        self.ckpt = self.tmp("ckpt")
        self.cfg, self.sd = write_checkpoint(self.ckpt)
        self.out = self.tmp("out", "m.edgemt")
        os.makedirs(self.tmp("out"))

    def rewrite(self, sd=None, cfg=None):
        write_checkpoint(self.ckpt, cfg=cfg or self.cfg, sd=sd if sd is not None else self.sd)

    def assertFails(self, message, *extra, checkpoint=None):
        err = convert_error(self, checkpoint or self.ckpt, self.out, *extra)
        self.assertEqual(err, "edgemt-convert: error: %s\n" % message)

    def test_missing_key(self):
        del self.sd["decoder.layers.1.norm2.weight"]
        self.rewrite()
        self.assertFails("model.pt: missing key decoder.layers.1.norm2.weight")

    def test_missing_keys_are_counted(self):
        del self.sd["decoder.layers.1.norm2.weight"]
        del self.sd["decoder.layers.1.norm2.bias"]
        self.rewrite()
        self.assertFails("model.pt: missing key decoder.layers.1.norm2.weight (and 1 more)")

    def test_extra_key(self):
        self.sd["decoder.layers.1.norm4.weight"] = np.ones(64, np.float32)
        self.rewrite()
        self.assertFails("model.pt: unexpected key decoder.layers.1.norm4.weight")

    def test_tied_checkpoint_with_projection_weight(self):
        self.cfg["tie_output"] = True
        self.rewrite()
        self.assertFails("model.pt: unexpected key decoder.output_projection.weight "
                         "(config.json says tie_output: true)")

    def test_wrong_shape(self):
        self.sd["encoder.layers.0.feed_forward.0.weight"] = np.zeros((100, 64), np.float32)
        self.rewrite()
        self.assertFails("model.pt: encoder.layers.0.feed_forward.0.weight has shape [100, 64], "
                         "expected [128, 64] from config.json")

    def test_nan_weight(self):
        self.sd["decoder.layers.0.cross_attn.in_proj_weight"][5, 7] = np.nan
        self.rewrite()
        self.assertFails("model.pt: decoder.layers.0.cross_attn.in_proj_weight contains NaN", "--dtype", "float32")

    def test_infinite_weight(self):
        self.sd["encoder.token_embedding.weight"][3, 1] = np.inf
        self.rewrite()
        self.assertFails("model.pt: encoder.token_embedding.weight contains infinite values")

    def test_integer_tensor(self):
        sd = {k: torch.from_numpy(v) for k, v in self.sd.items()}
        sd["decoder.output_projection.bias"] = torch.zeros(130, dtype=torch.int64)
        torch.save(sd, os.path.join(self.ckpt, "model.pt"))
        self.assertFails("model.pt: decoder.output_projection.bias has dtype int64, "
                         "expected a floating-point tensor")

    def test_unknown_activation(self):
        self.cfg["activation"] = "tanh"
        self.rewrite()
        self.assertFails("config.json: unknown activation 'tanh' (expected relu or gelu or silu)")

    def test_unknown_norm(self):
        self.cfg["norm"] = "sandwich"
        self.rewrite()
        self.assertFails("config.json: unknown norm 'sandwich' (expected post or pre)")

    def test_missing_config_key(self):
        write_checkpoint(self.ckpt, cfg=self.cfg, sd=self.sd, drop_config_keys=("d_ff",))
        self.assertFails("config.json: missing key d_ff")

    def test_bad_config_value(self):
        self.cfg["n_heads"] = 5
        self.rewrite()
        self.assertFails("config.json: d_model 64 is not a multiple of n_heads 5")

    def test_config_not_json(self):
        with open(os.path.join(self.ckpt, "config.json"), "w") as f:
            f.write("{ d_model: 64 }")
        err = convert_error(self, self.ckpt, self.out)
        self.assertTrue(err.startswith("edgemt-convert: error: config.json: not valid JSON ("), err)

    def test_missing_config(self):
        os.remove(os.path.join(self.ckpt, "config.json"))
        self.assertFails("config.json: not found in %s" % self.ckpt)

    def test_missing_model(self):
        os.remove(os.path.join(self.ckpt, "model.pt"))
        self.assertFails("model.pt: not found in %s" % self.ckpt)

    def test_unreadable_model(self):
        with open(os.path.join(self.ckpt, "model.pt"), "wb") as f:
            f.write(b"this is not a torch file")
        err = convert_error(self, self.ckpt, self.out)
        self.assertTrue(err.startswith("edgemt-convert: error: model.pt: cannot read ("), err)
        self.assertEqual(err.count("\n"), 1)

    def test_not_a_state_dict(self):
        torch.save({"model": {k: torch.from_numpy(v) for k, v in self.sd.items()}},
                   os.path.join(self.ckpt, "model.pt"))
        self.assertFails("model.pt: not a state_dict of tensors (entry 'model' is a dict)")

    def test_not_a_directory(self):
        path = os.path.join(self.ckpt, "model.pt")
        self.assertFails("%s: not a checkpoint directory (nor an Argos Translate package)" % path, checkpoint=path)

    def test_output_folder_missing(self):
        err = convert_error(self, self.ckpt, self.tmp("nowhere", "m.edgemt"))
        self.assertEqual(err, "edgemt-convert: error: %s: folder %s does not exist\n"
                         % (self.tmp("nowhere", "m.edgemt"), self.tmp("nowhere")))

    def test_tokenizer_vocabulary_mismatch(self):
        train_spm(self.ckpt, 100)
        self.cfg["tokenizer"] = "spm.model"
        self.rewrite()
        self.assertFails("spm.model: vocabulary size 100 does not match config.json src_vocab_size 120")

    def test_tokenizer_special_id_mismatch(self):
        train_spm(self.ckpt, 120, bos_id=-1)
        self.cfg.update(tokenizer="spm.model", tgt_vocab_size=120)
        self.sd = random_state_dict(self.cfg)
        self.rewrite()
        self.assertFails("spm.model: bos_id is disabled, config.json says 2")

    def test_tokenizer_missing(self):
        self.cfg["tokenizer"] = "spm.model"
        self.rewrite()
        self.assertFails("spm.model: not found in %s (config.json names it as tokenizer)" % self.ckpt)

    def test_executable_exit_code_and_message(self):
        """The real executable, as a user runs it."""
        del self.sd["decoder.layers.1.norm2.weight"]
        self.rewrite()
        r = subprocess.run([os.path.join(CONVERTER, "edgemt-convert"), self.ckpt, "--out", self.out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr.strip().splitlines()[-1],
                         "edgemt-convert: error: model.pt: missing key decoder.layers.1.norm2.weight")
        self.assertEqual(os.listdir(self.tmp("out")), [])


def _unshare_available():
    import shutil
    return (shutil.which("unshare") is not None and
            subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0)


class OutputErrors(unittest.TestCase):
    """Every OSError while writing --out: one line naming the path and the
    reason, exit 1, no traceback and no file left (the real executable)."""

    def setUp(self):
        self.tmp = TempDir(self)
        self.ckpt = self.tmp("ckpt")
        write_checkpoint(self.ckpt)
        self.convert = [os.path.join(CONVERTER, "edgemt-convert"), self.ckpt, "--quiet", "--out"]

    def check(self, r, out, reason):
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("edgemt-convert: error: %s: " % out), r.stderr)
        self.assertIn(reason, r.stderr)

    def in_tmpfs(self, mount_options):
        """Converts into a tmpfs of its own (a mount namespace: unshare -rm); (result, output path, listing)."""
        if not _unshare_available():
            self.skipTest("unshare -rm (a mount namespace of this test's own) is not available here")
        folder = self.tmp("mnt")
        os.mkdir(folder)
        out = os.path.join(folder, "m.edgemt")
        script = 'mount -t tmpfs -o %s tmpfs "$1" && shift && "$@"; code=$?; ls -A "$0"; exit $code'
        r = subprocess.run(["unshare", "-rm", "sh", "-c", script % mount_options, folder, folder] + self.convert +
                           [out], capture_output=True, text=True)
        listing, r.stdout = r.stdout, ""
        return r, out, listing

    def test_a_full_file_system(self):
        r, out, listing = self.in_tmpfs("size=32k")
        self.check(r, out, "No space left on device")
        self.assertEqual(listing, "")  # no partial file, no temporary

    def test_a_read_only_file_system(self):
        r, out, listing = self.in_tmpfs("ro")
        self.check(r, out, "not writable")
        self.assertEqual(listing, "")

    def test_a_file_size_limit(self):
        import resource
        out = self.tmp("m.edgemt")

        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

        r = subprocess.run(self.convert + [out], capture_output=True, text=True, preexec_fn=limit)
        self.check(r, out, "File too large")
        self.assertEqual(sorted(os.listdir(self.tmp.path)), ["ckpt"])

    def test_a_directory_and_a_missing_folder(self):
        for out, reason in ((self.ckpt, "is a directory"), (self.tmp("nowhere", "m.edgemt"), "does not exist")):
            with self.subTest(out=out):
                r = subprocess.run(self.convert + [out], capture_output=True, text=True)
                self.check(r, out, reason)

    def test_an_unreadable_input(self):
        out = self.tmp("m.edgemt")
        r = subprocess.run(self.convert[:1] + [self.tmp("no-such-checkpoint"), "--out", out], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertFalse(os.path.exists(out))


class Interrupted(unittest.TestCase):
    def test_interrupt_while_writing_leaves_nothing(self):
        from edgemt_convert import outfile
        tmp = TempDir(self)
        target = tmp("m.edgemt")

        real_fsync = os.fsync

        def interrupt(fd):
            raise KeyboardInterrupt

        os.fsync = interrupt
        try:
            with self.assertRaises(KeyboardInterrupt):
                outfile.write_atomic(target, b"x" * 1000)
        finally:
            os.fsync = real_fsync
        self.assertEqual(os.listdir(tmp.path), [])

    def test_sigterm_during_conversion_leaves_nothing(self):
        """SIGTERM while the converter reads its tokenizer file: a named pipe
        that gets no data, so the conversion is certainly under way and cannot
        finish before the signal."""
        import errno
        import signal
        import time
        tmp = TempDir(self)
        ckpt = tmp("ckpt")
        write_checkpoint(ckpt, tokenizer="spm.model")
        pipe = os.path.join(ckpt, "spm.model")
        os.mkfifo(pipe)
        out = tmp("out", "m.edgemt")
        os.makedirs(tmp("out"))
        p = subprocess.Popen([os.path.join(CONVERTER, "edgemt-convert"), ckpt, "--out", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        writer = None
        deadline = time.monotonic() + 120
        while writer is None:                  # wait until the converter opens the pipe
            try:
                writer = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO or p.poll() is not None or time.monotonic() > deadline:
                    p.kill()
                    raise AssertionError("the converter did not open spm.model: %s" % p.communicate()[1])
                time.sleep(0.05)
        try:
            time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
        finally:
            os.close(writer)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("edgemt-convert: interrupted; no output written", err)
        self.assertEqual(os.listdir(tmp("out")), [])


if __name__ == "__main__":
    unittest.main()
