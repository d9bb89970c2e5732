// HTML cut into tokens, tolerant of anything: the text between tags, start
// and end tags (with their lowercase name and the attribute values the
// translation needs), and what is copied as it is (comments, <!DOCTYPE>,
// <?...?>, the raw text of <script> and <style>). Concatenating the tokens'
// raw bytes gives the input back, whatever it holds: a '<' that starts no
// tag is text, and an unterminated tag or comment is text to the end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace edgemt {

enum class HtmlTokenKind { kText, kStartTag, kEndTag, kVerbatim };

struct HtmlToken {
  HtmlTokenKind kind = HtmlTokenKind::kText;
  std::string_view raw;      // the bytes of the input it covers
  std::string name;          // tags: the element's name, lowercase
  bool self_closing = false; // a start tag that ends with "/>"
  bool no_translate = false; // a start tag with translate="no" or class "notranslate"
};

std::vector<HtmlToken> ScanHtml(std::string_view html);

// Text with its character references decoded (&amp; &lt; &gt; &quot;
// &apos; &nbsp; and the numeric ones; an unknown or malformed one stays as
// it is), and text escaped again for the output (& < >).
std::string DecodeHtmlText(std::string_view raw);
std::string EscapeHtmlText(std::string_view text);

}  // namespace edgemt
