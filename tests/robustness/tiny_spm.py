"""A tiny SentencePiece model trained on the spot (about 600 bytes), so that
tests of text input need neither ../shared nor a converted model.

Its ids match the test models' special ids (pad 0, unk 1, <s> 2, </s> 3).
Needs python3-sentencepiece; `available()` says whether it is there.
"""

import io

VOCAB_SIZE = 48

_TEXT = [
    "the quick brown fox jumps over the lazy dog",
    "a man is riding a bike down the street",
    "two women are sitting on a bench",
    "ein mann fährt mit dem fahrrad",
    "zwei frauen sitzen auf einer bank",
]


def available():
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        return False
    return True


def train(vocab_size=VOCAB_SIZE):
    """The serialized model (bytes); the same bytes on every call."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(_TEXT * 20),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        normalization_rule_name="identity",  # keeps the file small
        pad_id=0,
        unk_id=1,
        bos_id=2,
        eos_id=3,
        minloglevel=2,
    )
    return model.getvalue()
