// An HTML page as the translation sees it (html.h): what is copied as it is,
// and flows: the text of a block with the inline elements inside it, each
// element knowing the span of the flow's text it surrounds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "html/html_scanner.h"

namespace edgemt {

// An inline element of a flow, or a tag that stands alone in it (a void
// element such as <img>, or an end tag that closes nothing here).
struct HtmlElement {
  std::string name;        // lowercase
  std::string_view open;   // its start tag (or the lone tag) as written
  std::string_view close;  // its end tag, empty when it has none in the flow
  size_t begin = 0;        // the flow text it surrounds: [begin, end)
  size_t end = 0;
  int parent = -1;         // the element it is inside, -1 for none
};

struct HtmlFlow {
  std::string_view raw;               // its bytes in the page
  std::string text;                   // decoded: what is translated
  std::vector<HtmlElement> elements;  // in the order their tags open (parents before children)
};

// A piece of the page: copied bytes, or a flow (index into flows).
struct HtmlSegment {
  std::string_view verbatim;
  int flow = -1;
};

struct HtmlLayout {
  std::vector<HtmlSegment> segments;  // in page order: concatenated, the page
  std::vector<HtmlFlow> flows;
};

HtmlLayout LayOutHtml(std::string_view html);

}  // namespace edgemt
