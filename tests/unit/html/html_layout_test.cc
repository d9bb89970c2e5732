// The HTML pieces (runtime/src/html/html_scanner.h, html_layout.h): tokens and
// segments that give the page back byte for byte whatever it holds, the
// elements of a flow with the text they surround, what is kept untranslated,
// and character references.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "html/html_layout.h"
#include "html/html_scanner.h"
#include "lcg.h"

using namespace edgemt;

namespace {

// The page from its layout: copied segments and the flows' raw bytes.
std::string Rebuilt(const HtmlLayout& layout) {
  std::string out;
  for (const HtmlSegment& s : layout.segments) out += s.flow < 0 ? std::string(s.verbatim) :
                                                                    std::string(layout.flows[s.flow].raw);
  return out;
}

}  // namespace

TEST_CASE("html: tokens and layout give the page back, whatever it holds") {
  const char* pages[] = {
      "<p>A <b>dog</b> runs.</p>",
      "<p>unclosed <b>bold",
      "a < b and c > d <3",
      "<p title='a > b'>x</p><!-- a <b> comment --><!DOCTYPE html><?xml x?>",
      "<script>if (a < b) document.write('<p>');</script><p>after</p>",
      "<div><p>one<br>two</p></div></b></i>",
      "<a href=\"x\" unterminated",
      "<!-- never closed",
      "",
      "<p>caf\xC3\xA9 &amp; &lt;b&gt; &#233; &#xE9; &nope; &#0; &#x110000;</p>",
  };
  for (const char* page : pages) {
    CAPTURE(page);
    std::string joined;
    for (const HtmlToken& t : ScanHtml(page)) joined += std::string(t.raw);
    CHECK(joined == page);
    CHECK(Rebuilt(LayOutHtml(page)) == page);
  }
  edgemt::testing::Lcg rng(7);
  const std::string alphabet = "<>/!-?=\"' abpi&;#x";
  for (int round = 0; round < 2000; ++round) {
    std::string page;
    const int length = static_cast<int>(rng.Next() % 60);
    for (int i = 0; i < length; ++i) page += alphabet[rng.Next() % alphabet.size()];
    CAPTURE(page);
    CHECK(Rebuilt(LayOutHtml(page)) == page);
    for (const HtmlFlow& flow : LayOutHtml(page).flows) {
      for (size_t e = 0; e < flow.elements.size(); ++e) {
        const HtmlElement& element = flow.elements[e];
        CHECK(element.begin <= element.end);
        CHECK(element.end <= flow.text.size());
        CHECK(element.parent < static_cast<int>(e));
      }
    }
  }
}

TEST_CASE("html: inline elements stay in their flow with the text they surround; blocks end flows") {
  const HtmlLayout layout = LayOutHtml("<p>A <b>big <i>red</i></b> dog.</p><p>Two &amp; <a href=\"u\">cats</a></p>");
  REQUIRE(layout.flows.size() == 2);
  const HtmlFlow& first = layout.flows[0];
  CHECK(first.text == "A big red dog.");
  REQUIRE(first.elements.size() == 2);
  CHECK(first.elements[0].name == "b");
  CHECK(first.text.substr(first.elements[0].begin, first.elements[0].end - first.elements[0].begin) == "big red");
  CHECK(first.elements[0].close == "</b>");
  CHECK(first.elements[1].parent == 0);
  CHECK(first.text.substr(first.elements[1].begin, first.elements[1].end - first.elements[1].begin) == "red");
  CHECK(layout.flows[1].text == "Two & cats");
  CHECK(layout.flows[1].elements[0].open == "<a href=\"u\">");
  // A <br> ends a flow, a comment stays in it as a lone tag; an unclosed element runs to its flow's end.
  const HtmlLayout broken = LayOutHtml("<b>one<br>two <!-- c --> three</b>");
  REQUIRE(broken.flows.size() == 2);
  CHECK(broken.flows[0].elements[0].close.empty());
  CHECK(broken.flows[0].elements[0].end == 3);
  CHECK(broken.flows[1].text == "two  three");
  CHECK(broken.flows[1].elements[0].open == "<!-- c -->");
  CHECK(broken.flows[1].elements[0].begin == 4);
  CHECK(broken.flows[1].elements[1].open == "</b>");  // closes nothing in its flow: a lone tag
}

TEST_CASE("html: script, style, code, pre, translate=no and notranslate are kept as they are") {
  const char* kept[] = {
      "<script>var x = \"<b>a</b>\";</script>", "<style>p { color: red }</style>", "<code>a &lt; b</code>",
      "<pre>  keep\n  this</pre>", "<span translate=\"no\">Name <b>X</b></span>",
      "<div class='x notranslate y'><p>keep</p></div>", "<SCRIPT>x</SCRIPT>",
  };
  for (const char* page : kept) {
    CAPTURE(page);
    const HtmlLayout layout = LayOutHtml(std::string(page) + "<p>after</p>");
    REQUIRE(layout.flows.size() == 1);
    CHECK(layout.flows[0].text == "after");
  }
  // translate="yes" and other classes are translated.
  CHECK(LayOutHtml("<span translate=\"yes\" class=\"notranslated\">go</span>").flows[0].text == "go");
}

TEST_CASE("html: character references are decoded for the model and text escaped again") {
  CHECK(DecodeHtmlText("a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; f&nbsp;g") ==
        "a & b <c> \"d\" 'e' f\u00A0g");
  CHECK(DecodeHtmlText("&#233;&#xE9;&#XE9;") == "\u00E9\u00E9\u00E9");
  CHECK(DecodeHtmlText("&unknown; &#; &#xZZ; &#1114112; &#xD800; & alone") ==
        "&unknown; &#; &#xZZ; &#1114112; &#xD800; & alone");
  CHECK(EscapeHtmlText("a < b & c > d \"q\"") == "a &lt; b &amp; c &gt; d \"q\"");
}
