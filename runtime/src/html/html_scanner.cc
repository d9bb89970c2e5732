#include "html/html_scanner.h"

#include <cstdint>

namespace edgemt {
namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsTagSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive search for `needle` (lowercase) from `from`; npos when absent.
size_t FindNoCase(std::string_view text, std::string_view needle, size_t from) {
  for (size_t i = from; i + needle.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && Lower(text[i + k]) == needle[k]) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

// The end of a tag that starts at `begin` ('<'): one past its '>', outside
// quoted attribute values; npos when it never ends.
size_t TagEnd(std::string_view html, size_t begin) {
  char quote = 0;
  for (size_t i = begin + 1; i < html.size(); ++i) {
    const char c = html[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The attributes of a start tag's inside (after its name): whether it says
// translate="no" or has the class "notranslate".
bool NoTranslate(std::string_view inside) {
  size_t i = 0;
  while (i < inside.size()) {
    while (i < inside.size() && (IsTagSpace(inside[i]) || inside[i] == '/')) ++i;
    const size_t name_begin = i;
    while (i < inside.size() && !IsTagSpace(inside[i]) && inside[i] != '=' && inside[i] != '/') ++i;
    std::string name;
    for (size_t k = name_begin; k < i; ++k) name += Lower(inside[k]);
    while (i < inside.size() && IsTagSpace(inside[i])) ++i;
    std::string value;
    if (i < inside.size() && inside[i] == '=') {
      ++i;
      while (i < inside.size() && IsTagSpace(inside[i])) ++i;
      if (i < inside.size() && (inside[i] == '"' || inside[i] == '\'')) {
        const char quote = inside[i++];
        while (i < inside.size() && inside[i] != quote) value += Lower(inside[i++]);
        ++i;
      } else {
        while (i < inside.size() && !IsTagSpace(inside[i])) value += Lower(inside[i++]);
      }
    }
    if (name == "translate" && value == "no") return true;
    if (name == "class" && (" " + value + " ").find(" notranslate ") != std::string::npos) return true;
    if (i == name_begin) ++i;  // nothing consumed: a stray character
  }
  return false;
}

}  // namespace

std::vector<HtmlToken> ScanHtml(std::string_view html) {
  std::vector<HtmlToken> tokens;
  auto add = [&](HtmlTokenKind kind, size_t begin, size_t end) {
    if (end <= begin) return;
    HtmlToken token;
    token.kind = kind;
    token.raw = html.substr(begin, end - begin);
    tokens.push_back(token);
  };
  size_t text_begin = 0, i = 0;
  while (i < html.size()) {
    if (html[i] != '<' || i + 1 >= html.size()) {
      ++i;
      continue;
    }
    const char next = html[i + 1];
    size_t end = std::string_view::npos;
    HtmlTokenKind kind = HtmlTokenKind::kVerbatim;
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t close = html.find("-->", i + 4);
      end = close == std::string_view::npos ? close : close + 3;
    } else if (next == '!' || next == '?') {
      end = TagEnd(html, i);
    } else if (IsAsciiLetter(next) || (next == '/' && i + 2 < html.size() && IsAsciiLetter(html[i + 2]))) {
      end = TagEnd(html, i);
      kind = next == '/' ? HtmlTokenKind::kEndTag : HtmlTokenKind::kStartTag;
    } else {
      ++i;  // a '<' that starts nothing: text
      continue;
    }
    if (end == std::string_view::npos) break;  // never closed: the rest is text
    add(HtmlTokenKind::kText, text_begin, i);
    add(kind, i, end);
    if (kind != HtmlTokenKind::kVerbatim) {
      HtmlToken& tag = tokens.back();
      const size_t name_begin = i + (kind == HtmlTokenKind::kEndTag ? 2 : 1);
      size_t name_end = name_begin;
      while (name_end < end - 1 && !IsTagSpace(html[name_end]) && html[name_end] != '/' && html[name_end] != '>')
        ++name_end;
      for (size_t k = name_begin; k < name_end; ++k) tag.name += Lower(html[k]);
      tag.self_closing = kind == HtmlTokenKind::kStartTag && end >= 2 && html[end - 2] == '/';
      if (kind == HtmlTokenKind::kStartTag) tag.no_translate = NoTranslate(html.substr(name_end, end - 1 - name_end));
    }
    i = end;
    text_begin = end;
    // Raw text elements: everything up to their end tag is copied as it is.
    if (kind == HtmlTokenKind::kStartTag && !tokens.back().self_closing &&
        (tokens.back().name == "script" || tokens.back().name == "style")) {
      const std::string close = "</" + tokens.back().name;
      size_t stop = FindNoCase(html, close, i);
      if (stop == std::string_view::npos) stop = html.size();
      add(HtmlTokenKind::kVerbatim, i, stop);
      i = text_begin = stop;
    }
  }
  add(HtmlTokenKind::kText, text_begin, html.size());
  return tokens;
}

namespace {

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    *out += static_cast<char>(c);
  } else if (c < 0x800) {
    *out += static_cast<char>(0xC0 | (c >> 6));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out += static_cast<char>(0xE0 | (c >> 12));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (c >> 18));
    *out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The code point of the reference at raw[i] ('&'), and its length; 0 when it is none.
char32_t Reference(std::string_view raw, size_t i, size_t* length) {
  const size_t semicolon = raw.find(';', i);
  if (semicolon == std::string_view::npos || semicolon - i > 10) return 0;
  const std::string_view body = raw.substr(i + 1, semicolon - i - 1);
  *length = semicolon - i + 1;
  static const struct { std::string_view name; char32_t code; } kNamed[] = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", 0xA0}};
  for (const auto& named : kNamed) {
    if (body == named.name) return named.code;
  }
  if (body.size() < 2 || body[0] != '#') return 0;
  const bool hex = body[1] == 'x' || body[1] == 'X';
  uint32_t value = 0;
  size_t digits = 0;
  for (size_t k = hex ? 2 : 1; k < body.size(); ++k, ++digits) {
    const char c = body[k];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (hex && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (hex && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0 || value > 0x10FFFF) return 0;
    value = value * (hex ? 16 : 10) + static_cast<uint32_t>(digit);
  }
  if (digits == 0 || value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  return static_cast<char32_t>(value);
}

}  // namespace

std::string DecodeHtmlText(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    size_t length = 0;
    const char32_t c = raw[i] == '&' ? Reference(raw, i, &length) : 0;
    if (c == 0) {
      out += raw[i];
      continue;
    }
    AppendUtf8(c, &out);
    i += length - 1;
  }
  return out;
}

std::string EscapeHtmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

}  // namespace edgemt
