#include "html/html_layout.h"

#include <algorithm>
#include <iterator>

namespace edgemt {
namespace {

// Elements that stay inside a flow (phrasing content that a translation
// may move within its sentence).
bool IsInline(const std::string& name) {
  static const char* const kInline[] = {"a",   "abbr", "b",    "bdi",  "bdo", "big",  "cite", "data",  "del",
                                        "dfn", "em",   "font", "i",    "img", "ins",  "kbd",  "label", "mark",
                                        "q",   "s",    "samp", "small", "span", "strong", "sub", "sup", "time",
                                        "tt",  "u",    "var",  "wbr"};
  return std::find(std::begin(kInline), std::end(kInline), name) != std::end(kInline);
}

bool IsVoid(const std::string& name) {
  static const char* const kVoid[] = {"area", "base", "br",   "col",   "embed", "hr",    "img",
                                      "input", "link", "meta", "param", "source", "track", "wbr"};
  return std::find(std::begin(kVoid), std::end(kVoid), name) != std::end(kVoid);
}

// Elements whose insides are never translated.
bool KeepsItsInside(const HtmlToken& tag) {
  return tag.no_translate || tag.name == "code" || tag.name == "pre" || tag.name == "textarea" ||
         tag.name == "script" || tag.name == "style" || tag.name == "svg" || tag.name == "math";
}

class Builder {
 public:
  explicit Builder(std::string_view html) : html_(html) {}

  HtmlLayout Build() {
    const std::vector<HtmlToken> tokens = ScanHtml(html_);
    for (const HtmlToken& token : tokens) {
      if (!kept_.empty()) {
        Keep(token);
        continue;
      }
      switch (token.kind) {
        case HtmlTokenKind::kText:
          if (flow_ < 0) StartFlow(token.raw);
          Flow().text += DecodeHtmlText(token.raw);
          break;
        case HtmlTokenKind::kStartTag:
          StartTag(token);
          break;
        case HtmlTokenKind::kEndTag:
          EndTag(token);
          break;
        case HtmlTokenKind::kVerbatim:
          // A comment inside a flow does not break its sentence: it stays there as a lone tag.
          if (flow_ >= 0 && token.raw.substr(0, 4) == "<!--")
            LoneTag("#comment", token.raw);
          else
            Copy(token.raw);
          break;
      }
      if (flow_ >= 0) Extend(token.raw);
    }
    EndFlow();
    return std::move(layout_);
  }

 private:
  HtmlFlow& Flow() { return layout_.flows[static_cast<size_t>(flow_)]; }

  // The flow's raw bytes reach to the end of `raw`.
  void Extend(std::string_view raw) {
    std::string_view& flow = Flow().raw;
    flow = std::string_view(flow.data(), static_cast<size_t>(raw.data() + raw.size() - flow.data()));
  }

  void StartFlow(std::string_view raw) {
    layout_.flows.emplace_back();
    layout_.flows.back().raw = raw.substr(0, 0);
    flow_ = static_cast<int>(layout_.flows.size()) - 1;
    HtmlSegment segment;
    segment.flow = flow_;
    layout_.segments.push_back(segment);
  }

  // The flow ends: elements still open surround the rest of it, without an end tag here.
  void EndFlow() {
    if (flow_ < 0) return;
    for (int e : open_) Flow().elements[static_cast<size_t>(e)].end = Flow().text.size();
    open_.clear();
    flow_ = -1;
  }

  void Copy(std::string_view raw) {
    EndFlow();
    if (!layout_.segments.empty() && layout_.segments.back().flow < 0 &&
        layout_.segments.back().verbatim.data() + layout_.segments.back().verbatim.size() == raw.data()) {
      HtmlSegment& last = layout_.segments.back();
      last.verbatim = std::string_view(last.verbatim.data(), last.verbatim.size() + raw.size());
      return;
    }
    HtmlSegment segment;
    segment.verbatim = raw;
    layout_.segments.push_back(segment);
  }

  // Inside an element whose inside is kept: copied until its end tag.
  void Keep(const HtmlToken& token) {
    Copy(token.raw);
    if (token.kind == HtmlTokenKind::kStartTag && !token.self_closing && !IsVoid(token.name)) {
      kept_.push_back(token.name);
    } else if (token.kind == HtmlTokenKind::kEndTag) {
      const auto it = std::find(kept_.rbegin(), kept_.rend(), token.name);
      if (it != kept_.rend()) kept_.erase(std::next(it).base(), kept_.end());
    }
  }

  void StartTag(const HtmlToken& tag) {
    if (KeepsItsInside(tag) && !tag.self_closing && !IsVoid(tag.name)) {
      Copy(tag.raw);
      kept_.push_back(tag.name);
      return;
    }
    if (!IsInline(tag.name)) {
      Copy(tag.raw);
      return;
    }
    if (flow_ < 0) StartFlow(tag.raw);
    HtmlElement element;
    element.name = tag.name;
    element.open = tag.raw;
    element.begin = element.end = Flow().text.size();
    element.parent = open_.empty() ? -1 : open_.back();
    Flow().elements.push_back(element);
    if (!tag.self_closing && !IsVoid(tag.name)) open_.push_back(static_cast<int>(Flow().elements.size()) - 1);
  }

  void EndTag(const HtmlToken& tag) {
    if (!IsInline(tag.name)) {
      Copy(tag.raw);
      return;
    }
    if (flow_ < 0) StartFlow(tag.raw);
    HtmlFlow& flow = Flow();
    // The innermost open element of that name; those inside it end here too.
    for (size_t k = open_.size(); k-- > 0;) {
      HtmlElement& element = flow.elements[static_cast<size_t>(open_[k])];
      if (element.name != tag.name) continue;
      for (size_t inner = k + 1; inner < open_.size(); ++inner)
        flow.elements[static_cast<size_t>(open_[inner])].end = flow.text.size();
      element.close = tag.raw;
      element.end = flow.text.size();
      open_.resize(k);
      return;
    }
    LoneTag(tag.name, tag.raw);  // closes nothing here
  }

  // A tag of its own in the flow, at the current end of its text.
  void LoneTag(const std::string& name, std::string_view raw) {
    HtmlFlow& flow = Flow();
    HtmlElement lone;
    lone.name = name;
    lone.open = raw;
    lone.begin = lone.end = flow.text.size();
    lone.parent = open_.empty() ? -1 : open_.back();
    flow.elements.push_back(lone);
  }

  std::string_view html_;
  HtmlLayout layout_;
  int flow_ = -1;
  std::vector<int> open_;           // the flow's open elements, outermost first
  std::vector<std::string> kept_;   // the open elements whose inside is kept
};

}  // namespace

HtmlLayout LayOutHtml(std::string_view html) { return Builder(html).Build(); }

}  // namespace edgemt
