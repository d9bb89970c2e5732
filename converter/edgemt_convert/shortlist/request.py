"""What a conversion asks for (edgemt-convert's --shortlist-* options): a
shortlist from one source, given to the model, and a vmap export."""
import time
from dataclasses import dataclass
from typing import Optional, Tuple

from ..errors import ConversionError
from . import build
from .bergamot import read_bergamot
from .vmap import read_vmap, vmap_text
from .vocab import Vocabularies


@dataclass
class Request:
    corpus: Optional[Tuple[str, str]] = None    # source and target text files
    k: Optional[int] = None                     # corpus only (None: build.DEFAULT_K)
    frequent: Optional[int] = None
    iterations: Optional[int] = None
    vmap: Optional[str] = None                  # a CTranslate2 vmap.txt
    bergamot: Optional[str] = None              # a Bergamot binary shortlist
    export_vmap: Optional[str] = None           # where to write the shortlist as a vmap.txt

    def source(self):
        """The option that gives the shortlist, None without one."""
        given = [name for name, v in (("--shortlist-corpus", self.corpus), ("--shortlist-vmap", self.vmap),
                                      ("--shortlist-bergamot", self.bergamot)) if v is not None]
        if len(given) > 1:
            raise ConversionError("%s: one shortlist at a time" % " and ".join(given))
        settings = [name for name, v in (("--shortlist-k", self.k), ("--shortlist-frequent", self.frequent),
                                         ("--shortlist-iterations", self.iterations)) if v is not None]
        if settings and self.corpus is None:
            raise ConversionError("%s: only with --shortlist-corpus" % ", ".join(settings))
        return given[0] if given else None


def make_shortlist(model, request):
    """(model_ir.Shortlist or None, notes, seconds) for the model as the request asks."""
    what = request.source()
    if what is None:
        return None, [], 0.0
    t0 = time.perf_counter()
    vocab = Vocabularies(model)
    if request.corpus is not None:
        pick = (lambda v, default: default if v is None else v)  # noqa: E731
        built = build.build_from_corpus(vocab, request.corpus[0], request.corpus[1],
                                        k=pick(request.k, build.DEFAULT_K),
                                        frequent=pick(request.frequent, build.DEFAULT_FREQUENT),
                                        iterations=pick(request.iterations, build.DEFAULT_ITERATIONS))
        shortlist, notes = built.shortlist, built.notes
    elif request.vmap is not None:
        shortlist, notes = read_vmap(request.vmap, vocab)
    else:
        shortlist, notes = read_bergamot(request.bergamot, model, vocab)
    return shortlist, notes, time.perf_counter() - t0


def vmap_bytes(model, request):
    """(the vmap.txt bytes of the model's shortlist, notes) when the request
    asks for --export-vmap, else (None, [])."""
    if request.export_vmap is None:
        return None, []
    if model.shortlist is None:
        raise ConversionError("--export-vmap: the model gets no shortlist (give --shortlist-corpus, --shortlist-vmap "
                              "or --shortlist-bergamot)")
    text, notes = vmap_text(model.shortlist, Vocabularies(model))
    return text.encode("utf-8"), notes
