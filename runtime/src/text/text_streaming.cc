// TextTranslator's streaming call: one text, its translation handed on
// piece by piece as the decoder produces it (a paragraph sentence after
// sentence).
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/text_translator.h"
#include "text/settled_text.h"
#include "text/text_parts.h"
#include "text/text_translator_impl.h"

namespace edgemt {

Status TextTranslator::TranslateStreaming(const std::string& text, const DecodeOptions& decode,
                                          const PieceCallback& on_piece, TextResult* result, Sentences sentences) {
  if (result == nullptr) return Status(StatusCode::kInvalidArgument, "result is null");
  std::lock_guard<std::mutex> lock(impl_->busy);
  *result = TextResult();
  Status status = impl_->translator->CheckOptions(decode);
  if (status.ok() && decode.beam_size != 1)
    status = Status(StatusCode::kInvalidArgument, "streaming needs beam_size 1 (greedy or sampling)");
  if (status.ok() && decode.num_hypotheses != 1)
    status = Status(StatusCode::kInvalidArgument, "streaming gives one hypothesis (num_hypotheses 1)");
  if (status.ok() && decode.on_token != nullptr)
    status = Status(StatusCode::kInvalidArgument, "streaming sets on_token itself");
  if (status.ok()) status = impl_->tokenizer_status();
  if (status.ok() && !on_piece) status = Status(StatusCode::kInvalidArgument, "on_piece is empty");
  if (!status.ok()) {
    result->status = status;
    return status;
  }
  std::vector<std::string> split;
  TextParts parts;
  if (sentences == Sentences::kSplit) SplitParagraph(text, impl_->model->source_language(), &split, &parts);
  if (parts.count == 0) return impl_->StreamSentence(text, decode, on_piece, result, nullptr);
  // Sentence after sentence, the whitespace around them as pieces of their own.
  bool stopped = false;
  const PieceCallback pass_on = [&on_piece, &stopped](std::string_view piece) {
    return !(stopped = !on_piece(piece));
  };
  std::vector<TextResult> done(parts.count);
  std::vector<size_t> ids(parts.count);
  size_t sent = 0;         // sentences streamed, the last maybe in part
  bool glue_after = false;  // and parts.glue[sent] after them
  for (; sent < parts.count; ++sent) {
    if (!parts.glue[sent].empty() && !pass_on(parts.glue[sent])) {
      glue_after = true;
      break;
    }
    status = impl_->StreamSentence(split[sent], decode, pass_on, &done[sent], &ids[sent]);
    if (stopped) {
      ++sent;
      break;
    }
    if (!status.ok()) {
      result->status = status;
      return status;
    }
  }
  if (!stopped) {
    if (!parts.glue.back().empty()) pass_on(parts.glue.back());
    glue_after = true;
  }
  // What was sent, and no more.
  std::string last = glue_after ? parts.glue[sent] : std::string();
  parts.glue.resize(sent);
  parts.glue.push_back(std::move(last));
  parts.count = sent;
  JoinParts(done, parts, &ids, result);
  return result->status;
}

Status TextTranslator::Impl::StreamSentence(const std::string& text, const DecodeOptions& decode,
                                            const PieceCallback& on_piece, TextResult* result, size_t* source_length) {
  std::vector<int32_t> source;
  if (!IsBlank(text)) result->status = IdsOfText(text, &source, &result->warning);
  if (source_length != nullptr) *source_length = source.size();
  if (!result->status.ok()) return result->status;
  if (source.empty()) {
    BlankResult(decode, result);
    return Status::Ok();
  }
  // Each new id: the text of all ids so far, of which the settled part not yet sent goes out.
  SettledText stream([this](const int32_t* ids, size_t count, std::string* out) {
    return TextOf(ids, count, out);
  }, on_piece);
  DecodeOptions streaming = decode;
  streaming.on_token = [](void* user_data, size_t, int32_t id) { return static_cast<SettledText*>(user_data)->Add(id); };
  streaming.on_token_user_data = &stream;
  const std::vector<int32_t>* one = &source;
  TextResult* out = result;
  const Status status = TranslateBatch(&one, nullptr, 1, streaming, /*return_scores=*/false, &out);
  if (!status.ok()) result->status = status;
  if (!result->status.ok()) return result->status;
  if (!stream.stopped()) result->status = stream.Finish(result->hypotheses[0].text);
  return result->status;
}

}  // namespace edgemt
