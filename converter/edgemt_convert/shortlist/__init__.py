"""Vocabulary shortlists (formats 2.5 and 2.7, docs/shortlist.md): for each source
id, the target ids a translation of it may use, plus ids every translation
may use. The runtime then computes the output layer over the union of a
source's lists only.

  vocab      the model's tokens on both sides: strings, ids, which are ordinary, text -> ids
  corpus     a parallel corpus as model ids
  ibm1       IBM Model 1 by EM over the co-occurring pairs only (numpy)
  build      a shortlist from a corpus: IBM-1's k best, the frequent ids, copies
  table      model_ir.Shortlist from pairs, its statistics, the ids a source allows
  vmap       CTranslate2's vocabulary map (vmap.txt): import and export
  bergamot   Bergamot / marian binary shortlists: import
  request    what edgemt-convert's --shortlist-* options ask for
"""
from .bergamot import read_bergamot
from .build import build_from_corpus
from .request import Request, make_shortlist, vmap_bytes
from .table import allowed, describe, from_pairs, stats
from .vmap import read_vmap, write_vmap
from .vocab import Vocabularies

__all__ = ["Request", "Vocabularies", "allowed", "build_from_corpus", "describe", "from_pairs", "make_shortlist",
           "read_bergamot", "read_vmap", "stats", "vmap_bytes", "write_vmap"]
