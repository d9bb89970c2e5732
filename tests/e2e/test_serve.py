"""edgemt-serve: LibreTranslate's API over a model set. Every endpoint,
every error LibreTranslate gives, the answers equal to the CLI's, hostile
requests (malformed JSON, invalid UTF-8, a 10 MB body, a 100,000-item q,
slow and half-closed clients, 1,000 connections at once) that leave the
server serving, API keys, and SIGTERM finishing what is in flight. Real
LibreTranslate clients from the npm registry: test_serve_npm.py."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse

from e2e_common import run, tool
from model_set import ARABIC, ENGLISH, GERMAN, ModelSetCase, make_model_set


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """edgemt-serve on a free loopback port, until stop()."""

    def __init__(self, folder, *args, program="edgemt-serve"):
        self.port = free_port()
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([tool(program), "--models", folder, "--port", str(self.port), *args],
                                        stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if self.request("GET", "/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
            if self.process.poll() is not None:
                break
        raise AssertionError("edgemt-serve did not start:\n" + self.output())

    def output(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def request(self, method, path, body=None, content_type=None, headers=None, timeout=60):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        all_headers = dict(headers or {})
        if content_type:
            all_headers["Content-Type"] = content_type
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data, dict(response.getheaders())

    def json(self, path, payload, **kwargs):
        status, data, headers = self.request("POST", path, json.dumps(payload).encode(), "application/json", **kwargs)
        return status, json.loads(data), headers

    def form(self, path, fields):
        status, data, _ = self.request("POST", path, urllib.parse.urlencode(fields).encode(),
                                       "application/x-www-form-urlencoded")
        return status, json.loads(data)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)
        return self.process.returncode


def rss(pid, field):
    """VmRSS (now) or VmHWM (the peak) of a process, in MB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) >> 10
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def cli(folder, source, target, text, extra=()):
    return run([tool("edgemt-translate"), "--models", folder, "--from", source, "--to", target, *extra],
               stdin=text).stdout


class Serve(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = make_model_set()
        cls.server = Server(cls.folder, "--char-limit", "2000", "--batch-limit", "50", "--max-body-kb", "1024",
                            "--read-timeout-s", "2")

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)
        if code != 0:
            raise AssertionError("edgemt-serve exited %s:\n%s" % (code, cls.server.output()))

    def assertError(self, answer, status, message):
        self.assertEqual(answer[0], status, answer)
        self.assertEqual(answer[1], {"error": message})

    def test_health_and_languages(self):
        self.assertEqual(self.server.request("GET", "/health")[:2], (200, b'{"status":"ok"}\n'))
        status, data, headers = self.server.request("GET", "/languages")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "application/json")
        languages = {entry["code"]: entry for entry in json.loads(data)}
        self.assertEqual(sorted(languages), ["ar", "de", "en", "fr"])
        self.assertEqual(languages["de"], {"code": "de", "name": "German", "targets": ["de", "en", "fr"]})
        self.assertEqual(languages["ar"]["targets"], ["ar", "de", "en", "fr"])
        self.assertEqual(languages["fr"]["targets"], ["fr"])  # nothing reads French
        self.assertEqual(self.server.request("GET", "/frontend/settings")[0], 200)

    def test_translate_equals_the_cli_in_every_body_encoding(self):
        expected = cli(self.folder, "en", "de", ENGLISH[1] + "\n").strip()
        fields = {"q": ENGLISH[1], "source": "en", "target": "de"}
        self.assertEqual(self.server.json("/translate", fields)[:2], (200, {"translatedText": expected}))
        self.assertEqual(self.server.form("/translate", fields), (200, {"translatedText": expected}))
        boundary = "edgemtboundary"
        multipart = "".join('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (boundary, k, v)
                            for k, v in fields.items()) + "--%s--\r\n" % boundary
        status, data, _ = self.server.request("POST", "/translate", multipart.encode(),
                                              "multipart/form-data; boundary=" + boundary)
        self.assertEqual((status, json.loads(data)), (200, {"translatedText": expected}))
        query = "/translate?" + urllib.parse.urlencode(fields)
        status, data, _ = self.server.request("POST", query)
        self.assertEqual((status, json.loads(data)), (200, {"translatedText": expected}))

    def test_arrays_pivots_and_html_equal_the_cli(self):
        status, answer, _ = self.server.json("/translate", {"q": ARABIC, "source": "ar", "target": "de"})
        self.assertEqual(status, 200)
        self.assertEqual(answer["translatedText"], cli(self.folder, "ar", "de", "\n".join(ARABIC) + "\n").splitlines())
        page = '<p>Ein <b>Mann</b> fährt <a href="x">Fahrrad</a>.</p>'
        status, answer, _ = self.server.json("/translate", {"q": page, "source": "de", "target": "fr",
                                                            "format": "html"})
        self.assertEqual(status, 200)
        self.assertEqual(answer["translatedText"], cli(self.folder, "de", "fr", page + "\n", ("--html",)).rstrip("\n"))
        text = "Ein Mann fährt Fahrrad.\n\n  Zwei Hunde spielen."
        status, answer, _ = self.server.json("/translate", {"q": text, "source": "de", "target": "fr"})
        self.assertEqual(answer["translatedText"], cli(self.folder, "de", "fr", text + "\n", ("--document",))[:-1])

    def test_auto_detection_and_detect(self):
        status, answer, _ = self.server.json("/translate", {"q": GERMAN[1], "source": "auto", "target": "en"})
        self.assertEqual(status, 200)
        self.assertEqual(answer["detectedLanguage"]["language"], "de")
        self.assertGreater(answer["detectedLanguage"]["confidence"], 50)
        self.assertEqual(answer["translatedText"], cli(self.folder, "de", "en", GERMAN[1] + "\n").strip())
        status, answer, _ = self.server.json("/translate", {"q": [ENGLISH[2], GERMAN[1]], "source": "auto",
                                                            "target": "de"})
        self.assertEqual([d["language"] for d in answer["detectedLanguage"]], ["en", "de"])
        self.assertEqual(answer["translatedText"][1], GERMAN[1])
        status, answer, _ = self.server.json("/detect", {"q": "Ein Mann fährt mit seinem Fahrrad durch die Stadt."})
        self.assertEqual(status, 200)
        self.assertEqual(answer[0]["language"], "de")
        self.assertTrue(all(set(c) == {"confidence", "language"} for c in answer))
        self.assertEqual(self.server.form("/detect", {"q": "1234 ..."}), (200, [{"confidence": 0.0, "language": "en"}]))
        status, answer, _ = self.server.json("/translate", {"q": "Bonjour à tous, comment allez-vous ce matin?",
                                                            "source": "auto", "target": "de"})
        self.assertEqual(status, 400)
        self.assertIn("no installed model translates from 'fr'", answer["error"])

    def test_alternatives(self):
        status, answer, _ = self.server.json("/translate", {"q": ENGLISH[0], "source": "en", "target": "de",
                                                            "alternatives": 2})
        self.assertEqual(status, 200)
        self.assertEqual(len(answer["alternatives"]), 2)
        self.assertNotIn(answer["translatedText"], answer["alternatives"])
        status, answer, _ = self.server.json("/translate", {"q": [ENGLISH[0]], "source": "en", "target": "de",
                                                            "alternatives": "1"})
        self.assertEqual(len(answer["alternatives"][0]), 1)

    def test_every_error_as_libretranslate_gives_it(self):
        post = self.server.json
        self.assertError(post("/translate", {"source": "en", "target": "de"}), 400,
                         "Invalid request: missing q parameter")
        self.assertError(post("/translate", {"q": "", "source": "en", "target": "de"}), 400,
                         "Invalid request: missing q parameter")
        self.assertError(post("/translate", {"q": "x", "target": "de"}), 400, "Invalid request: missing source parameter")
        self.assertError(post("/translate", {"q": "x", "source": "en"}), 400, "Invalid request: missing target parameter")
        self.assertError(post("/translate", {"q": "x", "source": "zz", "target": "de"}), 400, "zz is not supported")
        self.assertError(post("/translate", {"q": "x", "source": "en", "target": "zz"}), 400, "zz is not supported")
        self.assertError(post("/translate", {"q": "x", "source": "fr", "target": "de"}), 400,
                         "German (de) is not available as a target language from French (fr)")
        self.assertError(post("/translate", {"q": "x", "source": "en", "target": "de", "format": "xml"}), 400,
                         "xml format is not supported")
        self.assertError(post("/translate", {"q": "x", "source": "en", "target": "de", "alternatives": "many"}), 400,
                         "Invalid request: alternatives parameter is not a number")
        self.assertError(post("/translate", {"q": "x", "source": "en", "target": "de", "alternatives": 4}), 400,
                         "Invalid request: alternatives parameter must be <= 3")
        self.assertError(post("/translate", {"q": "a" * 2001, "source": "en", "target": "de"}), 400,
                         "Invalid request: request (2001) exceeds text limit (2000)")
        self.assertError(post("/translate", {"q": [1, 2], "source": "en", "target": "de"}), 400,
                         "Invalid request: q must be a string or an array of strings")
        self.assertError(post("/translate", {"q": "x", "source": 7, "target": "de"}), 400,
                         "Invalid request: source must be a string")
        self.assertError(post("/detect", {}), 400, "Invalid request: missing q parameter")
        status, data, _ = self.server.request("POST", "/translate", b"[1]", "application/json")
        self.assertEqual((status, json.loads(data)), (400, {"error": "Invalid JSON format"}))
        for path, method, status in (("/translate", "GET", 405), ("/detect", "GET", 405), ("/languages", "POST", 405),
                                     ("/health", "POST", 405), ("/nothing", "GET", 404), ("/translate", "PUT", 405)):
            answer = self.server.request(method, path)
            self.assertEqual(answer[0], status, (method, path))
            self.assertIn("error", json.loads(answer[1]))

    def test_hostile_bodies_get_a_clear_status(self):
        status, data, _ = self.server.request("POST", "/translate", b'{"q": "x", "source": ', "application/json")
        self.assertEqual(status, 400)
        self.assertIn("could not understand", json.loads(data)["error"])
        status, data, _ = self.server.request("POST", "/translate", b'{"q": "\xff\xfe", "source": "en", "target": "de"}',
                                              "application/json")
        self.assertEqual(status, 400)
        status, data, _ = self.server.request("POST", "/translate", b"q=%FF%FE&source=en&target=de",
                                              "application/x-www-form-urlencoded")
        self.assertEqual((status, json.loads(data)), (400, {"error": "Invalid request: q is not valid UTF-8"}))
        status, data, _ = self.server.request("POST", "/translate", b"x" * (10 << 20), "application/json")
        self.assertEqual((status, json.loads(data)), (413, {"error": "the request body is too large"}))
        many = json.dumps({"q": ["a"] * 100000, "source": "en", "target": "de"}).encode()
        status, data, _ = self.server.request("POST", "/translate", many, "application/json")
        self.assertEqual((status, json.loads(data)),
                         (400, {"error": "Invalid request: request (100000) exceeds text limit (50)"}))
        self.assertEqual(self.server.request("GET", "/health")[0], 200)

    def test_slow_and_half_closed_clients(self):
        slow = socket.create_connection(("127.0.0.1", self.server.port))
        slow.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"q\"")
        start = time.time()
        # Others are served meanwhile; the silent one is dropped after --read-timeout-s.
        self.assertEqual(self.server.json("/translate", {"q": ENGLISH[0], "source": "en", "target": "de"})[0], 200)
        slow.settimeout(30)
        rest = slow.recv(65536)
        self.assertLess(time.time() - start, 20)
        self.assertTrue(rest == b"" or rest.startswith(b"HTTP/1.1 4"), rest[:80])
        slow.close()
        half = socket.create_connection(("127.0.0.1", self.server.port))
        body = json.dumps({"q": ENGLISH[0], "source": "en", "target": "de"}).encode()
        half.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        half.shutdown(socket.SHUT_WR)
        half.settimeout(60)
        reply = b""
        while chunk := half.recv(65536):
            reply += chunk
        half.close()
        # Answered in full (tools/patches/cpp-httplib-server.patch: the library asked whether
        # the peer still sends before it wrote, and closed half-closed connections unanswered).
        self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:80])
        expected = cli(self.folder, "en", "de", ENGLISH[0] + "\n").strip()
        self.assertEqual(json.loads(reply.split(b"\r\n\r\n", 1)[1]), {"translatedText": expected})
        self.assertEqual(self.server.json("/translate", {"q": ENGLISH[0], "source": "en", "target": "de"})[0], 200)

    def test_a_thousand_connections_at_once(self):
        sockets = [socket.create_connection(("127.0.0.1", self.server.port), timeout=120) for _ in range(1000)]
        body = json.dumps({"q": ENGLISH[0], "source": "en", "target": "de"}).encode()
        request = (b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                   b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        for s in sockets:
            s.sendall(request)
        statuses = {}
        expected = json.dumps({"translatedText": cli(self.folder, "en", "de", ENGLISH[0] + "\n").strip()},
                              ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

        def read(s):
            reply = b""
            try:
                while chunk := s.recv(65536):
                    reply += chunk
            except OSError as e:
                reply = repr(e).encode()
            s.close()
            return reply

        replies = [None] * len(sockets)
        threads = [threading.Thread(target=lambda i=i: replies.__setitem__(i, read(sockets[i]))) for i in range(1000)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for reply in replies:
            status = reply.split(b" ", 2)[1] if reply.startswith(b"HTTP/1.1 ") else reply[:40]
            statuses[status] = statuses.get(status, 0) + 1
            if status == b"200":
                self.assertEqual(reply.split(b"\r\n\r\n", 1)[1], expected)
            else:  # refused for load, saying when to come back; never closed unanswered
                self.assertIn(status, (b"429", b"503"), reply[:200])
                self.assertIn(b"Retry-After:", reply)
        print("1000 connections at once: %s" % {k.decode(): v for k, v in sorted(statuses.items())})
        self.assertGreater(statuses.get(b"200", 0), 0, statuses)
        self.assertEqual(sum(statuses.values()), 1000)
        self.assertEqual(self.server.request("GET", "/health")[0], 200)
        self.assertEqual(self.server.json("/translate", {"q": ENGLISH[0], "source": "en", "target": "de"})[0], 200)

    def test_no_request_text_is_logged(self):
        self.server.json("/translate", {"q": "A secret sentence about a bicycle.", "source": "en", "target": "de"})
        self.assertNotIn("secret", self.server.output())


class ServeKeysAndShutdown(ModelSetCase):
    def test_api_keys(self):
        keys = os.path.join(self.folder, "keys.txt")
        with open(keys, "w") as f:
            f.write("# one a line\nsecret-key-1\n")
        server = Server(self.folder, "--api-keys", keys)
        try:
            fields = {"q": ENGLISH[0], "source": "en", "target": "de"}
            self.assertEqual(server.json("/translate", fields)[:2],
                             (400, {"error": "Please contact the server operator to get an API key"}))
            self.assertEqual(server.json("/translate", dict(fields, api_key=None))[0], 400)
            self.assertEqual(server.json("/translate", dict(fields, api_key="wrong"))[:2],
                             (403, {"error": "Invalid API key"}))
            self.assertEqual(server.json("/translate", dict(fields, api_key="secret-key-1"))[0], 200)
            self.assertEqual(server.form("/detect", {"q": GERMAN[1], "api_key": "secret-key-1"})[0], 200)
            self.assertEqual(server.request("GET", "/languages")[0], 200)  # as in LibreTranslate: no key
        finally:
            self.assertEqual(server.stop(), 0)

    def test_a_budget_smaller_than_the_set_closes_models_and_bounds_the_peak(self):
        """Requests moving between pairs (two through English) with a 1 MB budget: each model opens,
        serves and closes for the next, so the peak RSS is the server's own memory and the largest
        model alone (its file, packed weights about as large, its arena), well under the whole set's."""

        def peak_and_answers(*args):
            server = Server(self.folder, "--threads", "1", *args)
            start = rss(server.process.pid, "VmRSS")
            answers = []
            try:
                for _ in range(3):
                    for source, target, text in (("de", "fr", GERMAN[0]), ("en", "de", ENGLISH[1]),
                                                 ("ar", "de", ARABIC[0]), ("de", "en", GERMAN[1])):
                        status, answer, _ = server.json("/translate", {"q": [text] * 8, "source": source,
                                                                       "target": target})
                        self.assertEqual(status, 200, answer)
                        answers.append(answer["translatedText"])
                return start, rss(server.process.pid, "VmHWM"), answers
            finally:
                self.assertEqual(server.stop(), 0)

        _, free_peak, free_answers = peak_and_answers()
        start, tight_peak, tight_answers = peak_and_answers("--memory-budget-mb", "1")
        self.assertEqual(tight_answers, free_answers)
        largest = max(os.path.getsize(os.path.join(self.folder, name)) for name in os.listdir(self.folder)
                      if name.endswith(".edgemt")) >> 20
        print("peak RSS: %d MB without a budget, %d MB with 1 MB (the server alone %d MB, the largest file %d MB)"
              % (free_peak, tight_peak, start, largest))
        self.assertLessEqual(tight_peak, start + 2 * largest + 12)
        self.assertLess(tight_peak, free_peak - 8)

    def test_one_file_like_the_cli(self):
        """edgemt-serve needs only libc, libm, libstdc++ and libgcc_s; edgemt-serve-static none, and
        answers as the dynamic one does."""
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]",
                            run(["readelf", "-d", "--wide", tool("edgemt-serve")]).stdout)
        self.assertTrue(needed)
        for library in needed:
            self.assertRegex(library, r"^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")
        static = tool("edgemt-serve-static")
        if not os.path.exists(static):
            self.assertTrue(os.environ.get("EDGEMT_SANITIZED"), "edgemt-serve-static is missing")
            return  # not built under the sanitizers (serve/CMakeLists.txt)
        self.assertNotIn("INTERP", run(["readelf", "-l", "--wide", static]).stdout)
        fields = {"q": [ENGLISH[1], GERMAN[0]], "source": "auto", "target": "de"}
        answers = []
        for program in ("edgemt-serve", "edgemt-serve-static"):
            server = Server(self.folder, program=program)
            try:
                answers.append(server.json("/translate", fields)[:2])
            finally:
                self.assertEqual(server.stop(), 0)
        self.assertEqual(answers[0][0], 200)
        self.assertEqual(answers[1], answers[0])

    def test_sigterm_finishes_what_is_in_flight_and_refuses_the_rest(self):
        server = Server(self.folder, "--threads", "1")
        long_text = " ".join(ENGLISH * 6)
        answers = []

        def ask():
            answers.append(server.json("/translate", {"q": [long_text] * 40, "source": "en", "target": "de"}))

        asking = threading.Thread(target=ask)
        asking.start()
        time.sleep(0.5)  # the request is being translated
        server.process.send_signal(signal.SIGTERM)
        asking.join()
        self.assertEqual(server.process.wait(timeout=60), 0)
        self.assertEqual(answers[0][0], 200)
        self.assertEqual(len(answers[0][1]["translatedText"]), 40)
        with self.assertRaises(OSError):
            server.request("GET", "/health", timeout=5)
        self.assertIn("SIGTERM: finishing the requests in flight", server.output())


if __name__ == "__main__":
    unittest.main()
