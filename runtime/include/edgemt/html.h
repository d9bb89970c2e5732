// Web pages and HTML snippets translated with their markup kept: the text
// of each block (a paragraph, a list item, a cell: what block elements and
// <br> delimit) is translated as one flow, split into sentences as a
// document is (document.h); inline elements (<b>, <a href>, <span>, ...)
// do not break it, and each goes back around the translations of the words
// it surrounded, found through the word alignments (docs/alignments.md).
// Tags, attributes, comments, <!DOCTYPE>, and the insides of <script>,
// <style>, <code>, <pre>, <textarea> and of elements with translate="no"
// or class="notranslate" are copied byte for byte. Character references
// are decoded for the model and the translated text is escaped again.
// Well-formed input gives well-formed output: an element's words may move,
// its nesting never does (a tag whose words found no alignment stays, empty
// or around its nearest translation, where its parent and siblings allow).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edgemt/decode_options.h"
#include "edgemt/document.h"
#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt {


// As TranslateDocument, whose result it gives (result->text: the
// translated page): the status fails only for what concerns the whole page
// (no tokenizer, decoding options the translator refuses; target prefixes
// and alternatives do not apply).
Status TranslateHtml(TextTranslator& translator, std::string_view html, const DecodeOptions& decode,
                     DocumentResult* result);

}  // namespace edgemt
