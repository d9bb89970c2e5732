"""HTML (edgemt-translate --html; runtime/include/edgemt/html.h) with the
Multi30k int8 example model and the dev set.

300 snippets built from dev sentences (seed 41): paragraphs and lists of
one or two sentences with inline and nested tags (<b>, <i>, <a href>,
<span class>, <img>) around random words, character references, comments,
a <script> and a <code> between sentences. Every output:
- parses, with the same elements in the same nesting and the same
  attributes as its input (html.parser; comments, script and code too);
- has as its text (tags left out, references decoded) exactly the --document
  translation of its input's text, block by block;
- and tags land on the right words: a <b> around a word with a known
  translation ("dog" - "Hund") surrounds that translation in the output
  (share printed, asserted at least 0.9), and around a token the model
  copies (a name inserted into the sentence) the same token (printed with
  its count: this small model copies few names, and not asserted).
"""
import html
import html.parser
import os
import random
import re
import sys
import unittest

from e2e_common import DEV_EN, EXAMPLE_INT8, emulated, run

SNIPPETS = 300
LEXICON = {"dog": "hund", "dogs": "hunde", "man": "mann", "men": "männer", "woman": "frau", "women": "frauen",
           "girl": "mädchen", "boy": "junge", "water": "wasser", "snow": "schnee", "ball": "ball",
           "street": "straße", "red": "rot", "blue": "blau", "black": "schwarz", "white": "weiß",
           "shirt": "hemd", "bike": "fahrrad", "beach": "strand", "child": "kind", "children": "kinder",
           "people": "menschen", "grass": "gras", "hat": "hut", "car": "auto", "city": "stadt"}
# Names this model copies now and then when they stand in a sentence.
NAMES = ["Baby", "Obama", "iPod", "Frisbee", "Boston", "Person"]
BLOCKS = {"p", "li", "div", "ul", "h2", "td", "tr", "table"}


class Tree(html.parser.HTMLParser):
    """Elements (name, sorted attributes, children) and the text of each block."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = ("#root", (), [])
        self.stack = [self.root]
        self.blocks = []     # text per block element, in order
        self.marked = []     # text inside each <b> (with its data-mark attribute)
        self.bold = None
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        node = (tag, tuple(sorted(attrs)), [])
        self.stack[-1][2].append(node)
        if tag in ("img", "br"):
            return
        self.stack.append(node)
        if tag in ("script", "code"):
            self.skip += 1
        if tag in ("p", "li"):
            self.blocks.append("")
        if tag == "b":
            self.bold = [dict(attrs).get("data-mark", ""), ""]

    def handle_endtag(self, tag):
        if self.stack[-1][0] != tag:
            raise AssertionError("</%s> closes <%s>" % (tag, self.stack[-1][0]))
        self.stack.pop()
        if tag in ("script", "code"):
            self.skip -= 1
        if tag == "b":
            self.marked.append(tuple(self.bold))
            self.bold = None

    def handle_data(self, data):
        if self.skip or not self.blocks:
            return
        self.blocks[-1] += data
        if self.bold is not None:
            self.bold[1] += data

    def handle_comment(self, data):
        self.stack[-1][2].append(("#comment", (data,), []))


def parse(text):
    tree = Tree()
    tree.feed(text)
    tree.close()
    if len(tree.stack) != 1:
        raise AssertionError("unclosed elements: %s" % [n[0] for n in tree.stack[1:]])
    return tree


def word(w):
    return re.sub(r"[^\w]", "", w).lower()


def wrap(words, rng, i):
    """Inline tags around random word spans (nested once in a while); a marked
    <b> around a lexicon word or an inserted name when there is one."""
    marks = [k for k, w in enumerate(words) if word(w) in LEXICON or w in NAMES]
    if marks:
        k = rng.choice(marks)
        kind = "name" if words[k] in NAMES else "lexicon"
        words[k] = '<b data-mark="%s">%s</b>' % (kind, words[k])
    free = [k for k in range(len(words)) if "<" not in words[k]]
    if len(free) >= 3:
        a = rng.choice(free[:-1])
        b = min(len(words) - 1, a + rng.randint(0, 2))
        if all("<" not in words[k] for k in range(a, b + 1)):
            tag = rng.choice(['<a href="https://example.org/%d?x=1&amp;y=2" title="t %d">' % (i, i),
                              '<span class="c%d">' % i, "<i>", '<span lang="en"><i>'])
            close = {"<i>": "</i>"}.get(tag, "</a>" if tag.startswith("<a") else
                                       "</i></span>" if tag.endswith("<i>") else "</span>")
            words[a] = tag + words[a]
            words[b] = words[b] + close
    if rng.random() < 0.2:
        k = rng.randrange(len(words))
        words.insert(k, '<img src="i%d.png" alt="x">' % i)
    return words


def snippet(sentences, rng, i):
    parts = []
    for s in sentences:
        s = html.escape(s, quote=False).replace("'", "&#39;")
        words = s.split()
        if rng.random() < 0.3:
            words.insert(rng.randint(1, len(words) - 1), rng.choice(NAMES))
        parts.append(" ".join(wrap(words, rng, i)))
    inner = (" <!-- note %d --> " % i if rng.random() < 0.3 else "  ").join(parts)
    if rng.random() < 0.2:
        inner += ' <script>var s = "<b>not text</b> & more";</script>'
    if rng.random() < 0.2:
        inner += " <code>x &lt; y</code>"
    if rng.random() < 0.5:
        return "<p>%s</p>" % inner
    return '<div class="d"><ul><li>%s</li></ul></div>' % inner


class Html(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(DEV_EN):
            raise unittest.SkipTest("the Multi30k dev set is not at %s" % DEV_EN)
        with open(DEV_EN, encoding="utf-8") as f:
            en = f.read().split("\n")[:-1]
        rng = random.Random(41)
        cls.inputs = []
        for i in range(SNIPPETS):
            start = rng.randrange(len(en) - 2)
            cls.inputs.append(snippet(en[start:start + rng.randint(1, 2)], rng, i))
        # One thread: test_documents.py says why.
        result = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--html", "--threads", "1"],
                     stdin="".join(s + "\n\n" for s in cls.inputs))
        cls.stderr = result.stderr
        cls.outputs = result.stdout.split("\n\n")[:-1]

    def test_every_output_parses_with_the_same_elements(self):
        self.assertEqual(len(self.outputs), SNIPPETS, self.stderr[-2000:])
        for source, target in zip(self.inputs, self.outputs):
            target = target.rstrip("\n")
            self.assertEqual(parse(target).root, parse(source).root, "\n%s\n%s" % (source, target))
            script = '<script>var s = "<b>not text</b> & more";</script>'
            if script in source:
                self.assertIn(script, target)

    def test_text_is_the_translation_of_the_text(self):
        sources = [parse(s).blocks for s in self.inputs]
        flat = [b for blocks in sources for b in blocks]
        translated = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--document", "--threads", "1"],
                         stdin="".join(b + "\n\n" for b in flat)).stdout.split("\n\n")[:-1]
        self.assertEqual(len(translated), len(flat))
        k = 0
        for source, target in zip(self.inputs, self.outputs):
            blocks = parse(target.rstrip("\n")).blocks
            for block in blocks:
                self.assertEqual(block, translated[k].rstrip("\n"), "\n%s\n%s" % (source, target))
                k += 1

    def test_tags_surround_the_words_they_surrounded(self):
        found = {"lexicon": [0, 0], "name": [0, 0]}
        for source, target in zip(self.inputs, self.outputs):
            output, given = parse(target.rstrip("\n")), parse(source)
            translated_words = [word(w) for block in output.blocks for w in block.split()]
            source_words = [word(w) for block in given.blocks for w in block.split()]
            for (kind, before), (_, after) in zip(given.marked, output.marked):
                expected = LEXICON[word(before)] if kind == "lexicon" else word(before)
                # Only where the source has the word once and the translation its
                # translation once (else there is no telling which is which).
                if source_words.count(word(before)) != 1 or \
                        sum(w.startswith(expected) for w in translated_words) != 1:
                    continue
                found[kind][1] += 1
                hit = any(word(w).startswith(expected) for w in after.split())
                found[kind][0] += hit
                if not hit and os.environ.get("EDGEMT_SHOW_MISSES"):
                    print("MISS %s %r -> %r\n  %s\n  %s" % (kind, before, after, source, target), file=sys.stderr)
        for kind, (right, total) in found.items():
            print("<b> around a %s word: around its translation in %d of %d outputs (%.3f)"
                  % (kind, right, total, right / max(total, 1)), file=sys.stderr)
        self.assertGreater(found["lexicon"][1], 100)
        self.assertGreaterEqual(found["lexicon"][0] / found["lexicon"][1], 0.9)
        # Copied names: printed, not asserted. This model copies an inserted
        # name into a dozen of these outputs only, and mangles some of those
        # ("Obama-Schwafts"), where attention follows the mangled word
        # (docs/alignments.md).
        self.assertGreater(found["name"][1], 0)


if __name__ == "__main__":
    unittest.main()
