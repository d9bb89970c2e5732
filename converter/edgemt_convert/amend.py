"""An existing .edgemt file given a shortlist without its checkpoint
(edgemt-convert MODEL.edgemt --out OUT.edgemt --shortlist-...) or its
language pair (--source-language, --target-language: what a model set
needs of each file), or its shortlist written as a CTranslate2 vmap.txt
(--export-vmap). The file is
read back (format/reader.py) and written again with the new shortlist;
everything else stays as it was, Metadata.quantization_summary included
(the report of the conversion that made the file)."""
import os
import re
import sys
import time

from . import __version__
from .errors import ConversionError
from .outfile import check_writable, write_atomic
from .progress import Steps
from .shortlist.request import make_shortlist, vmap_bytes
from .summary import describe_model, describe_shortlist


_LANGUAGE_CODE = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")


def is_edgemt_file(path):
    """True for a file that starts like an EdgeMT model (the EDMT identifier)."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return len(head) == 8 and head[4:8] == b"EDMT"


def _check(opts):
    request = opts.shortlist
    source = request.source()
    name = os.path.basename(opts.checkpoint)
    languages = opts.source_language is not None or opts.target_language is not None
    changes = source is not None or languages
    if not changes and request.export_vmap is None:
        raise ConversionError("%s is an EdgeMT model: give --shortlist-corpus, --shortlist-vmap or "
                              "--shortlist-bergamot (with --out) to add a shortlist, --source-language and/or "
                              "--target-language (with --out) to set its languages, or --export-vmap" % name)
    if changes and opts.out is None:
        raise ConversionError("--out: where to write %s with its changes" % name)
    if not changes and opts.out is not None:
        raise ConversionError("--out: nothing to change in %s without a --shortlist-* or --*-language option" % name)
    for code in (opts.source_language, opts.target_language):
        if code is not None and not _LANGUAGE_CODE.match(code):
            raise ConversionError("'%s' is not a language code (e.g. en, de, pt-BR, zh-Hant)" % code)
    for path in (opts.out, request.export_vmap):
        if path is not None:
            check_writable(path)
    if opts.out is not None and os.path.abspath(opts.out) == os.path.abspath(opts.checkpoint):
        raise ConversionError("--out: %s is the input file; write the new file elsewhere" % opts.out)


def amend(opts, out=None):
    """Adds opts.shortlist's shortlist to the file opts.checkpoint, writing
    opts.out, and/or exports the shortlist; prints and returns the summary."""
    from .convert import Result
    from .format.reader import read
    from .format.writer import serialize
    out = out or sys.stdout
    _check(opts)
    steps = Steps(opts.progress)
    t0 = time.perf_counter()
    model = read(opts.checkpoint)
    steps.timed("read", t0)
    shortlist, notes, seconds = make_shortlist(model, opts.shortlist)
    if shortlist is not None:
        if model.shortlist is not None:
            notes.insert(0, "replaces the file's shortlist (%s)" % model.shortlist.description)
        model.set_shortlist(shortlist)
        steps.timings.append(("shortlist", seconds))
    vmap, vmap_notes = vmap_bytes(model, opts.shortlist)
    notes += vmap_notes
    relabelled = []
    for side, code in (("source", opts.source_language), ("target", opts.target_language)):
        if code is not None:
            was = getattr(model.metadata, side + "_language") or "none"
            setattr(model.metadata, side + "_language", code.lower())
            relabelled.append("%s language %s (was %s)" % (side, code.lower(), was))
    t0 = time.perf_counter()
    data = serialize(model) if shortlist is not None or relabelled else None
    if data is not None:
        write_atomic(opts.out, data)
    if vmap is not None:
        write_atomic(opts.shortlist.export_vmap, vmap)
    steps.timed("write", t0)
    done = [] if shortlist is None else ["a shortlist added -> %s" % os.path.basename(opts.out)]
    if relabelled:
        done.append("%s -> %s" % (", ".join(relabelled), os.path.basename(opts.out)))
    if vmap is not None:
        done.append("its shortlist as a vmap -> %s" % os.path.basename(opts.shortlist.export_vmap))
    lines = ["edgemt-convert %s: %s: %s" % (__version__, os.path.basename(opts.checkpoint), "; ".join(done)),
             describe_model(model)]
    if data is not None:
        was = os.path.getsize(opts.checkpoint)
        lines.append("file: %s bytes (format %d.%d; was %s bytes)"
                     % (format(len(data), ","), model.format_major, model.format_minor, format(was, ",")))
    lines += ["note: " + n for n in notes] + (describe_shortlist(model.shortlist) if model.shortlist else [])
    text = "\n".join(lines)
    print(text, file=out)
    print("time: %s" % ", ".join("%s %.1fs" % t for t in steps.timings), file=out)
    return Result(model=model, size=len(data) if data is not None else 0, summary=text, notes=notes)
