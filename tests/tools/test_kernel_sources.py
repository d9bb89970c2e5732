"""tools/kernel-sources.sh's decisions, without the network: each test makes
a small Debian archive of its own on disk (file://), signed with a key made
for the test, with a Release whose Valid-Until lies in the past, and checks
what the script fetches, records, refuses and says:

- an expired Release still serves the pinned tarball (freshness is off; the
  signature and the SHA-256 decide);
- a pinned version gone from the suite: the version served now is taken,
  verified against the signed index, recorded, and said in one line;
- a pin whose SHA-256 differs from the signed index, a tarball that differs
  from the index, a Release signed by another key, a package not served at
  all: refused, with the file to put where;
- EDGEMT_KERNEL_SOURCES=DIR: offline, the pinned SHA-256 checked;
- a filled directory needs no archive at all.
"""
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "tools", "kernel-sources.sh")
SUITE = "unstable"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def make_tarball(package, upstream):
    """A small .orig.tar.gz with one file; its bytes are fixed for given names."""
    content = ("%s %s\n" % (package, upstream)).encode()
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w") as tar:
            info = tarfile.TarInfo("%s-%s/README" % (package, upstream))
            info.size, info.mtime = len(content), 0
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


class Gpg:
    """A throwaway GnuPG home with one signing key."""

    def __init__(self, home, name):
        self.home = home
        os.makedirs(home, mode=0o700)
        self.run("--quick-generate-key", "%s <%s@edgemt.invalid>" % (name, name), "ed25519", "sign", "never")

    def run(self, *args, **kwargs):
        return subprocess.run(["gpg", "--homedir", self.home, "--batch", "--yes", "--pinentry-mode", "loopback",
                               "--passphrase", ""] + list(args), check=True, capture_output=True, **kwargs)

    def export(self, path):
        with open(path, "wb") as f:
            f.write(self.run("--export").stdout)


class Archive:
    """dists/SUITE/{InRelease,Release}, main/source/Sources, pool/: what apt reads."""

    def __init__(self, root, signer):
        self.root, self.signer = root, signer
        self.packages = []  # (package, version, tarball name, bytes listed in the index, bytes served)

    def add(self, package, version, listed=None, served=None):
        upstream = version.rsplit("-", 1)[0]
        name = "%s_%s.orig.tar.gz" % (package, upstream)
        data = make_tarball(package, upstream)
        self.packages.append((package, version, name, listed or data, served or data))
        return name, data

    def write(self):
        lines = []
        for package, version, name, listed, served in self.packages:
            directory = "pool/main/%s/%s" % (package[0], package)
            os.makedirs(os.path.join(self.root, directory), exist_ok=True)
            with open(os.path.join(self.root, directory, name), "wb") as f:
                f.write(served)
            dsc = "%s_%s.dsc" % (package, version)  # listed, never served (as on the project's mirror)
            lines += ["Package: " + package, "Binary: " + package, "Version: " + version,
                      "Maintainer: EdgeMT tests <tests@edgemt.invalid>", "Architecture: any",
                      "Format: 3.0 (quilt)", "Directory: " + directory,
                      "Files:", " %s 10 %s" % (hashlib.md5(b"dsc").hexdigest(), dsc),
                      " %s %d %s" % (hashlib.md5(listed).hexdigest(), len(listed), name),
                      "Checksums-Sha256:", " %s 10 %s" % (sha256(b"dsc"), dsc),
                      " %s %d %s" % (sha256(listed), len(listed), name), ""]
        sources = ("\n".join(lines) + "\n").encode()
        dists = os.path.join(self.root, "dists", SUITE)
        os.makedirs(os.path.join(dists, "main", "source"), exist_ok=True)
        with open(os.path.join(dists, "main", "source", "Sources"), "wb") as f:
            f.write(sources)
        # Expired for years: a snapshot's Release, as an old mirror or proxy serves it.
        release = "\n".join([
            "Origin: EdgeMT tests", "Label: EdgeMT tests", "Suite: " + SUITE, "Codename: " + SUITE,
            "Date: Mon, 01 Jan 2024 00:00:00 UTC", "Valid-Until: Mon, 08 Jan 2024 00:00:00 UTC",
            "Architectures: amd64", "Components: main", "SHA256:",
            " %s %d main/source/Sources" % (sha256(sources), len(sources)), ""])
        with open(os.path.join(dists, "Release"), "w") as f:
            f.write(release)
        self.signer.run("--clearsign", "--output", os.path.join(dists, "InRelease"), os.path.join(dists, "Release"))


@unittest.skipUnless(shutil.which("gpg"), "gpg is not installed (apt-get install gnupg)")
@unittest.skipUnless(os.path.exists("/usr/lib/apt/apt-helper"), "apt is not installed")
class KernelSources(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.signer = Gpg(os.path.join(self.tmp, "gnupg"), "archive")
        self.keyring = os.path.join(self.tmp, "archive.gpg")
        self.signer.export(self.keyring)
        self.archive = Archive(os.path.join(self.tmp, "archive"), self.signer)
        self.dest = os.path.join(self.tmp, "src")

    def tearDown(self):
        self._tmp.cleanup()

    def run_script(self, pins, archive=None, offline_dir=None):
        """Runs kernel-sources.sh with these pins (package, version, tarball, sha256) against the archive."""
        pins_file = os.path.join(self.tmp, "pins")
        with open(pins_file, "w") as f:
            f.write("# test pins\n")
            for package, version, tarball, digest in pins:
                f.write("%s %s %s %s %s\n" % (package, version, SUITE, tarball, digest))
        sources_file = os.path.join(self.tmp, "test.sources")
        root = archive if archive is not None else self.archive.root
        with open(sources_file, "w") as f:
            f.write("Types: deb-src\nURIs: file://%s\nSuites: %s\nComponents: main\nSigned-By: %s\n" %
                    (root, SUITE, self.keyring))
        # apt as Debian ships it: none of this machine's apt.conf.d (which may
        # turn the freshness checks off for everything already).
        apt_config = os.path.join(self.tmp, "apt.conf")
        os.makedirs(os.path.join(self.tmp, "apt.conf.d"), exist_ok=True)
        with open(apt_config, "w") as f:
            f.write('Dir::Etc::Parts "%s/apt.conf.d";\nDir::Etc::Main "/dev/null";\n' % self.tmp)
        env = dict(os.environ, EDGEMT_KERNEL_PINS=pins_file, EDGEMT_KERNEL_APT_SOURCES=sources_file,
                   APT_CONFIG=apt_config)
        env.pop("EDGEMT_KERNEL_SOURCES", None)
        if offline_dir is not None:
            env["EDGEMT_KERNEL_SOURCES"] = offline_dir
        return subprocess.run(["bash", SCRIPT, self.dest], env=env, capture_output=True, text=True, timeout=300)

    def assert_refused(self, result, message, tarball):
        """Exit 1, the message on stderr, and no tarball in the directory."""
        self.assertEqual(result.returncode, 1)
        self.assertIn(message, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dest, tarball)))

    def manifest(self):
        with open(os.path.join(self.dest, "MANIFEST")) as f:
            return [line.split() for line in f.read().splitlines()]

    def fetched(self, name):
        with open(os.path.join(self.dest, name), "rb") as f:
            return f.read()

    def test_an_expired_release_still_serves_the_pinned_tarball(self):
        name, data = self.archive.add("alpha", "1.0-1")
        self.archive.write()
        result = self.run_script([("alpha", "1.0-1", name, sha256(data))])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.manifest(), [["alpha", "1.0-1", "1.0-1", name, sha256(data)]])
        self.assertEqual(self.fetched(name), data)
        # Filled: a second run needs no archive at all.
        again = self.run_script([("alpha", "1.0-1", name, sha256(data))], archive=os.path.join(self.tmp, "nowhere"))
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stderr, "")

    def test_a_version_gone_from_the_suite_is_replaced_by_the_served_one(self):
        gone_name, gone = "alpha_1.0.orig.tar.gz", make_tarball("alpha", "1.0")
        name, data = self.archive.add("alpha", "1.1-1")
        beta_name, beta = self.archive.add("beta", "2.0-1")
        self.archive.write()
        result = self.run_script([("alpha", "1.0-1", gone_name, sha256(gone)), ("beta", "2.0-1", beta_name, sha256(beta))])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.manifest(), [["alpha", "1.0-1", "1.1-1", name, sha256(data)],
                                           ["beta", "2.0-1", "2.0-1", beta_name, sha256(beta)]])
        self.assertEqual(self.fetched(name), data)
        said = [line for line in result.stderr.splitlines() if "no longer served" in line]
        self.assertEqual(len(said), 1, result.stderr)
        self.assertIn("alpha 1.0-1 is no longer served by %s: using 1.1-1" % SUITE, said[0])

    def test_a_pin_that_differs_from_the_signed_index_is_refused(self):
        name, data = self.archive.add("alpha", "1.0-1")
        self.archive.write()
        wrong = sha256(b"not the tarball")
        result = self.run_script([("alpha", "1.0-1", name, wrong)])
        self.assert_refused(result, "refused", name)
        self.assertIn("EDGEMT_KERNEL_SOURCES", result.stderr)
        self.assertIn("%s  (SHA-256 %s" % (name, wrong), result.stderr)

    def test_a_tarball_that_differs_from_the_signed_index_is_refused(self):
        data = make_tarball("alpha", "1.0")
        name, _ = self.archive.add("alpha", "1.0-1", listed=data, served=data + b"tampered")
        self.archive.write()
        result = self.run_script([("alpha", "1.0-1", name, sha256(data))])
        self.assert_refused(result, "does not match the signed index", name)

    def test_a_release_signed_by_another_key_is_not_used(self):
        name, data = self.archive.add("alpha", "1.0-1")
        self.archive.signer = Gpg(os.path.join(self.tmp, "gnupg-other"), "intruder")
        self.archive.write()
        result = self.run_script([("alpha", "1.0-1", name, sha256(data))])
        self.assert_refused(result, "NO_PUBKEY", name)

    def test_nothing_served_says_which_file_to_put_where(self):
        self.archive.add("beta", "2.0-1")
        self.archive.write()
        gone = make_tarball("alpha", "1.0")
        result = self.run_script([("alpha", "1.0-1", "alpha_1.0.orig.tar.gz", sha256(gone))])
        self.assertEqual(result.returncode, 1)
        self.assertIn("alpha: neither 1.0-1 nor any other version is served by %s" % SUITE, result.stderr)
        self.assertIn("EDGEMT_KERNEL_SOURCES=that-directory", result.stderr)
        self.assertIn("alpha_1.0.orig.tar.gz  (SHA-256 %s; Debian source package alpha 1.0-1" % sha256(gone),
                      result.stderr)

    def test_an_offline_directory_is_checked_against_the_pins(self):
        data = make_tarball("alpha", "1.0")
        offline = os.path.join(self.tmp, "offline")
        os.makedirs(offline)
        with open(os.path.join(offline, "alpha_1.0.orig.tar.gz"), "wb") as f:
            f.write(data + b"x")
        pins = [("alpha", "1.0-1", "alpha_1.0.orig.tar.gz", sha256(data))]
        nowhere = os.path.join(self.tmp, "nowhere")
        refused = self.run_script(pins, archive=nowhere, offline_dir=offline)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("its SHA-256 is not the pinned one", refused.stderr)
        with open(os.path.join(offline, "alpha_1.0.orig.tar.gz"), "wb") as f:
            f.write(data)
        taken = self.run_script(pins, archive=nowhere, offline_dir=offline)
        self.assertEqual(taken.returncode, 0, taken.stderr)
        self.assertEqual(self.fetched("alpha_1.0.orig.tar.gz"), data)
        self.assertEqual(self.manifest(), [["alpha", "1.0-1", "1.0-1", "alpha_1.0.orig.tar.gz", sha256(data)]])


if __name__ == "__main__":
    unittest.main()
