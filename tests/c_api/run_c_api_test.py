"""Runs tests/c_api/c_api_test.c's program on the models it needs: a small
random model without a tokenizer, one with a tiny SentencePiece model
trained on the spot (tests/robustness/tiny_spm.py), and a file that is not
a model. Exits 77 (CTest: skipped) when python3-sentencepiece is missing.
In cross builds both programs run under EDGEMT_EMULATOR (qemu).

    run_c_api_test.py C_API_TEST MAKE_TEST_MODEL
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "robustness"))
import tiny_spm  # noqa: E402


def main():
    emulator = os.environ.get("EDGEMT_EMULATOR", "").split()
    program, make_model = emulator + [sys.argv[1]], emulator + [sys.argv[2]]
    if not tiny_spm.available():
        print("skipped: python3-sentencepiece is not installed", flush=True)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        small = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1", "--max-positions", "24"]
        ids_model = os.path.join(tmp, "ids.edgemt")
        subprocess.run(make_model + ["-o", ids_model, "--source-vocab", "40", "--target-vocab", "48"] + small,
                       check=True)
        spm = os.path.join(tmp, "tiny.spm.model")
        with open(spm, "wb") as f:
            f.write(tiny_spm.train())
        vocab = str(tiny_spm.VOCAB_SIZE)
        text_model = os.path.join(tmp, "text.edgemt")
        subprocess.run(make_model + ["-o", text_model, "--int8", "--source-vocab", vocab, "--target-vocab", vocab,
                        "--tokenizer", spm] + small, check=True)
        corrupt = os.path.join(tmp, "corrupt.edgemt")
        with open(ids_model, "rb") as f:
            data = bytearray(f.read())
        data[4:8] = b"XXXX"  # the FlatBuffers identifier
        with open(corrupt, "wb") as f:
            f.write(bytes(data[:len(data) // 2]))
        return subprocess.run(program + [ids_model, text_model, corrupt]).returncode


if __name__ == "__main__":
    sys.exit(main())
