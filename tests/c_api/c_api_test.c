/* The C API (edgemt/edgemt.h) from C99, linked against libedgemt.so: every
 * function's error cases (NULL arguments, handles of the wrong kind, options
 * without their size, buffers too small, refused options, bad sources) get
 * their status and a message, and the working paths agree with each other
 * (text, batch, ids, stream).
 *
 *   c_api_test IDS_MODEL TEXT_MODEL CORRUPT_FILE
 * IDS_MODEL has no tokenizer; TEXT_MODEL has one (max_positions 24);
 * CORRUPT_FILE is not a model. run_c_api_test.py makes them. */
#define _POSIX_C_SOURCE 200809L
#include <edgemt/edgemt.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(condition)                                                               \
  do {                                                                                 \
    ++checks;                                                                          \
    if (!(condition)) {                                                                \
      ++failures;                                                                      \
      fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n", __FILE__, __LINE__, \
              #condition, edgemt_last_error());                                        \
    }                                                                                  \
  } while (0)

/* The status, and a message naming what was wrong. */
#define CHECK_STATUS(call, expected, words)                                                          \
  do {                                                                                               \
    edgemt_status got_ = (call);                                                                     \
    CHECK(got_ == (expected));                                                                       \
    if (got_ == (expected) && (expected) != EDGEMT_OK) CHECK(strstr(edgemt_last_error(), words) != NULL); \
  } while (0)

static const char* kIdsModel;
static const char* kTextModel;
static const char* kCorrupt;

static void test_status_names(void) {
  CHECK(strcmp(edgemt_status_name(EDGEMT_OK), "OK") == 0);
  CHECK(strcmp(edgemt_status_name(EDGEMT_BUFFER_TOO_SMALL), "BUFFER_TOO_SMALL") == 0);
  CHECK(strcmp(edgemt_status_name((edgemt_status)99), "UNKNOWN") == 0);
  CHECK(strlen(edgemt_version()) >= 5);
}

static void test_models(void) {
  edgemt_model* model = (edgemt_model*)1;
  CHECK_STATUS(edgemt_model_load(NULL, &model), EDGEMT_INVALID_ARGUMENT, "path is NULL");
  CHECK(model == NULL);
  CHECK_STATUS(edgemt_model_load(kIdsModel, NULL), EDGEMT_INVALID_ARGUMENT, "model is NULL");
  CHECK_STATUS(edgemt_model_load("/nonexistent/model.edgemt", &model), EDGEMT_NOT_FOUND, "/nonexistent/model.edgemt");
  CHECK_STATUS(edgemt_model_load(kCorrupt, &model), EDGEMT_INVALID_MODEL, "");
  CHECK(model == NULL);
  CHECK_STATUS(edgemt_model_load(kIdsModel, &model), EDGEMT_OK, "");
  edgemt_model_free(model);
  edgemt_model_free(NULL);

  /* From memory: aligned, then misaligned. */
  FILE* file = fopen(kIdsModel, "rb");
  CHECK(file != NULL);
  if (file == NULL) return;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  void* block = NULL;
  CHECK(posix_memalign(&block, 64, (size_t)size + 64) == 0);
  CHECK(fread((char*)block + 64, 1, (size_t)size, file) == (size_t)size);
  fclose(file);
  CHECK_STATUS(edgemt_model_load_from_memory(NULL, 10, &model), EDGEMT_INVALID_ARGUMENT, "data is NULL");
  CHECK_STATUS(edgemt_model_load_from_memory((char*)block + 64, (size_t)size, NULL), EDGEMT_INVALID_ARGUMENT, "NULL");
  memmove((char*)block + 1, (char*)block + 64, (size_t)size);
  CHECK_STATUS(edgemt_model_load_from_memory((char*)block + 1, (size_t)size, &model), EDGEMT_INVALID_ARGUMENT,
               "aligned");
  memmove(block, (char*)block + 1, (size_t)size);
  CHECK_STATUS(edgemt_model_load_from_memory(block, (size_t)size, &model), EDGEMT_OK, "");
  edgemt_translator* translator = NULL;
  CHECK_STATUS(edgemt_translator_create(model, NULL, &translator), EDGEMT_OK, "");
  edgemt_translator_free(translator);
  edgemt_model_free(model);
  free(block);
}

static void test_tokenizers(void) {
  edgemt_model* ids_model = NULL;
  edgemt_model* text_model = NULL;
  CHECK(edgemt_model_load(kIdsModel, &ids_model) == EDGEMT_OK);
  CHECK(edgemt_model_load(kTextModel, &text_model) == EDGEMT_OK);
  edgemt_tokenizer* tokenizer = NULL;
  CHECK_STATUS(edgemt_tokenizer_create(text_model, EDGEMT_SOURCE, NULL), EDGEMT_INVALID_ARGUMENT, "tokenizer is NULL");
  CHECK_STATUS(edgemt_tokenizer_create(NULL, EDGEMT_SOURCE, &tokenizer), EDGEMT_INVALID_ARGUMENT, "not a model");
  CHECK_STATUS(edgemt_tokenizer_create(text_model, (edgemt_side)7, &tokenizer), EDGEMT_INVALID_ARGUMENT, "side");
  CHECK_STATUS(edgemt_tokenizer_create(ids_model, EDGEMT_SOURCE, &tokenizer), EDGEMT_NOT_FOUND, "no tokenizer");
  CHECK(tokenizer == NULL);
  CHECK_STATUS(edgemt_tokenizer_create(text_model, EDGEMT_SOURCE, &tokenizer), EDGEMT_OK, "");
  /* A tokenizer handle is not a model handle. */
  edgemt_translator* translator = NULL;
  CHECK_STATUS(edgemt_translator_create((const edgemt_model*)tokenizer, NULL, &translator), EDGEMT_INVALID_ARGUMENT,
               "not a model");

  int32_t ids[64];
  size_t count = 0;
  CHECK_STATUS(edgemt_tokenizer_encode(tokenizer, "a man is riding a bike", NULL, 0, &count), EDGEMT_BUFFER_TOO_SMALL,
               "buffer");
  CHECK(count > 2);
  const size_t needed = count;
  CHECK_STATUS(edgemt_tokenizer_encode(tokenizer, "a man is riding a bike", ids, 1, &count), EDGEMT_BUFFER_TOO_SMALL,
               "buffer");
  CHECK(count == needed);
  CHECK_STATUS(edgemt_tokenizer_encode(tokenizer, "a man is riding a bike", ids, 64, &count), EDGEMT_OK, "");
  CHECK(count == needed);
  CHECK_STATUS(edgemt_tokenizer_encode(tokenizer, NULL, ids, 64, &count), EDGEMT_INVALID_ARGUMENT, "text is NULL");
  CHECK_STATUS(edgemt_tokenizer_encode(tokenizer, "x", ids, 64, NULL), EDGEMT_INVALID_ARGUMENT, "count is NULL");

  char text[128];
  size_t length = 0;
  CHECK_STATUS(edgemt_tokenizer_decode(tokenizer, ids, needed, text, 4, &length), EDGEMT_BUFFER_TOO_SMALL, "bytes");
  CHECK(length == strlen("a man is riding a bike"));
  CHECK_STATUS(edgemt_tokenizer_decode(tokenizer, ids, needed, text, sizeof text, &length), EDGEMT_OK, "");
  CHECK(strcmp(text, "a man is riding a bike") == 0);
  int32_t bad = 1000;
  CHECK_STATUS(edgemt_tokenizer_decode(tokenizer, &bad, 1, text, sizeof text, &length), EDGEMT_INVALID_ARGUMENT,
               "outside");
  CHECK_STATUS(edgemt_tokenizer_decode(tokenizer, NULL, 3, text, sizeof text, &length), EDGEMT_INVALID_ARGUMENT,
               "ids is NULL");
  edgemt_tokenizer_free(tokenizer);
  edgemt_tokenizer_free(NULL);
  edgemt_model_free(ids_model);
  edgemt_model_free(text_model);
}

static int pieces_seen;
static char streamed[1024];

static int collect(const char* piece, size_t length, void* user_data) {
  int stop_after = *(const int*)user_data;
  size_t used = strlen(streamed);
  if (used + length < sizeof streamed) {
    memcpy(streamed + used, piece, length);
    streamed[used + length] = '\0';
  }
  ++pieces_seen;
  return stop_after == 0 || pieces_seen < stop_after;
}

/* A thread's 20 translations of one text, each checked against the
 * translation made alone before the threads started. */
struct worker {
  edgemt_translator* translator;
  const char* expected;
  int translated;  /* how many calls returned EDGEMT_OK with the expected text */
};

static const char kThreadText[] = "a man is riding a bike";

static void* translate_in_thread(void* argument) {
  struct worker* w = (struct worker*)argument;
  char output[256];
  size_t length = 0;
  for (int i = 0; i < 20; ++i) {
    if (edgemt_translate_text(w->translator, kThreadText, NULL, output, sizeof output, &length) == EDGEMT_OK &&
        strcmp(output, w->expected) == 0 && length == strlen(w->expected))
      ++w->translated;
  }
  return NULL;
}

static void test_translators(void) {
  edgemt_model* model = NULL;
  edgemt_model* ids_model = NULL;
  CHECK(edgemt_model_load(kTextModel, &model) == EDGEMT_OK);
  CHECK(edgemt_model_load(kIdsModel, &ids_model) == EDGEMT_OK);
  edgemt_translator_options options;
  edgemt_translator_options_init(&options);
  CHECK(options.struct_size == sizeof options);
  CHECK(options.truncate_long_inputs == 1);
  edgemt_translator* translator = NULL;
  CHECK_STATUS(edgemt_translator_create(model, &options, NULL), EDGEMT_INVALID_ARGUMENT, "translator is NULL");
  options.struct_size = 0;
  CHECK_STATUS(edgemt_translator_create(model, &options, &translator), EDGEMT_INVALID_ARGUMENT, "struct_size");
  edgemt_translator_options_init(&options);
  options.max_batch_size = -3;
  CHECK_STATUS(edgemt_translator_create(model, &options, &translator), EDGEMT_INVALID_ARGUMENT, "max_batch_size");
  CHECK(translator == NULL);
  edgemt_translator_options_init(&options);
  CHECK(options.max_batch_tokens == 0);
  options.max_batch_tokens = -1;
  CHECK_STATUS(edgemt_translator_create(model, &options, &translator), EDGEMT_INVALID_ARGUMENT,
               "max_batch_tokens must not be negative");
  CHECK(translator == NULL);
  /* The caches: none for texts, 32 MiB for documents' sentences; never negative. */
  edgemt_translator_options_init(&options);
  CHECK(options.cache_bytes == 0);
  CHECK(options.document_cache_bytes == 32 << 20);
  options.document_cache_bytes = -1;
  CHECK_STATUS(edgemt_translator_create(model, &options, &translator), EDGEMT_INVALID_ARGUMENT,
               "cache sizes must not be negative");
  CHECK(translator == NULL);
  /* An older caller's smaller struct: the fields it lacks keep their defaults. */
  edgemt_translator_options_init(&options);
  options.max_beam_size = 2;
  options.max_batch_size = 4;
  options.struct_size = offsetof(edgemt_translator_options, truncate_long_inputs);
  options.truncate_long_inputs = 0; /* beyond struct_size: ignored */
  CHECK_STATUS(edgemt_translator_create(model, &options, &translator), EDGEMT_OK, "");
  {
    /* A model that states no decoding settings of its own (only converted
     * Marian models do) gives the plain defaults; so does no model. */
    edgemt_decode_options plain, for_model;
    edgemt_decode_options_init(&plain);
    edgemt_decode_options_init_for_model(model, &for_model);
    CHECK(memcmp(&plain, &for_model, sizeof plain) == 0);
    edgemt_decode_options_init_for_model(NULL, &for_model);
    CHECK(memcmp(&plain, &for_model, sizeof plain) == 0);
    edgemt_decode_options_init_for_model(model, NULL); /* nothing to fill: no crash */
  }
  edgemt_model_free(model); /* the translator outlives the model handle */

  char output[256];
  size_t length = 0;
  CHECK_STATUS(edgemt_translate_text(translator, "a man", NULL, output, sizeof output, NULL), EDGEMT_INVALID_ARGUMENT,
               "length is NULL");
  CHECK_STATUS(edgemt_translate_text(translator, NULL, NULL, output, sizeof output, &length), EDGEMT_INVALID_ARGUMENT,
               "text is NULL");
  CHECK_STATUS(edgemt_translate_text((edgemt_translator*)ids_model, "a man", NULL, output, sizeof output, &length),
               EDGEMT_INVALID_ARGUMENT, "not a translator");
  CHECK_STATUS(edgemt_translate_text(translator, "a man is riding a bike", NULL, output, sizeof output, &length),
               EDGEMT_OK, "");
  char best[256];
  strcpy(best, output);
  CHECK(length == strlen(best));
  if (length > 0) {
    CHECK_STATUS(edgemt_translate_text(translator, "a man is riding a bike", NULL, output, length, &length),
                 EDGEMT_BUFFER_TOO_SMALL, "bytes");
    CHECK(length == strlen(best));
  }
  {
    /* A document: its two sentences as translated alone, its own whitespace and lines. */
    char first[256], second[256], expected[600], document_out[600];
    size_t failed = 7;
    CHECK_STATUS(edgemt_translate_text(translator, "A man rides a bike.", NULL, first, sizeof first, &length),
                 EDGEMT_OK, "");
    CHECK_STATUS(edgemt_translate_text(translator, "Two dogs run!", NULL, second, sizeof second, &length),
                 EDGEMT_OK, "");
    snprintf(expected, sizeof expected, "\t%s  %s \r\n\n", first, second);
    const char* document = "\tA man rides a bike.  Two dogs run! \r\n\n";
    CHECK_STATUS(edgemt_translate_document(translator, document, strlen(document), NULL, document_out,
                                           sizeof document_out, &length, &failed),
                 EDGEMT_OK, "");
    CHECK(strcmp(document_out, expected) == 0);
    CHECK(length == strlen(expected) && failed == 0);
    CHECK_STATUS(edgemt_translate_document(translator, document, strlen(document), NULL, document_out, 4, &length,
                                           NULL),
                 EDGEMT_BUFFER_TOO_SMALL, "bytes");
    CHECK(length == strlen(expected));
    CHECK_STATUS(edgemt_translate_document(translator, NULL, 0, NULL, document_out, sizeof document_out, &length,
                                           NULL),
                 EDGEMT_OK, "");
    CHECK(length == 0 && document_out[0] == '\0');
    CHECK_STATUS(edgemt_translate_document(translator, NULL, 3, NULL, document_out, sizeof document_out, &length,
                                           NULL),
                 EDGEMT_INVALID_ARGUMENT, "text is NULL");
    /* Streamed sentence by sentence: the same text. */
    int go_on = 0;
    streamed[0] = '\0';
    pieces_seen = 0;
    CHECK_STATUS(edgemt_translate_document_stream(translator, document, strlen(document), NULL, collect, &go_on),
                 EDGEMT_OK, "");
    CHECK(strcmp(streamed, expected) == 0 && pieces_seen >= 2);
    CHECK_STATUS(edgemt_translate_document_stream(translator, document, strlen(document), NULL, NULL, NULL),
                 EDGEMT_INVALID_ARGUMENT, "on_piece is NULL");
    /* A paragraph through the text calls: its sentences, as the document gives them. */
    const char* paragraph = "\tA man rides a bike.  Two dogs run! ";
    char paragraph_expected[600];
    snprintf(paragraph_expected, sizeof paragraph_expected, "\t%s  %s ", first, second);
    CHECK_STATUS(edgemt_translate_text(translator, paragraph, NULL, document_out, sizeof document_out, &length),
                 EDGEMT_OK, "");
    CHECK(strcmp(document_out, paragraph_expected) == 0);
    edgemt_results* paragraph_results = NULL;
    CHECK_STATUS(edgemt_translate_batch(translator, &paragraph, 1, NULL, &paragraph_results), EDGEMT_OK, "");
    edgemt_hypothesis joined;
    joined.struct_size = sizeof joined;
    CHECK(edgemt_results_hypothesis(paragraph_results, 0, 0, &joined) == EDGEMT_OK);
    CHECK(strcmp(joined.text, paragraph_expected) == 0);
    edgemt_results_free(paragraph_results);
    go_on = 0;
    streamed[0] = '\0';
    pieces_seen = 0;
    CHECK_STATUS(edgemt_translate_stream(translator, paragraph, NULL, collect, &go_on), EDGEMT_OK, "");
    CHECK(strcmp(streamed, paragraph_expected) == 0);
    /* split_sentences 0: the text as one sentence, as a caller's struct from before the field never has. */
    edgemt_decode_options whole;
    edgemt_decode_options_init(&whole);
    CHECK(whole.split_sentences == 1);
    whole.split_sentences = 0;
    char as_one[600];
    CHECK_STATUS(edgemt_translate_text(translator, paragraph, &whole, as_one, sizeof as_one, &length), EDGEMT_OK, "");
    CHECK(strcmp(as_one, paragraph_expected) != 0);
    whole.struct_size = offsetof(edgemt_decode_options, split_sentences);
    CHECK_STATUS(edgemt_translate_text(translator, paragraph, &whole, document_out, sizeof document_out, &length),
                 EDGEMT_OK, "");
    CHECK(strcmp(document_out, paragraph_expected) == 0);
    /* HTML: the tags and the script stay, the text is the sentences' translations. */
    const char* page = "<p class=\"x\">A man rides a bike.  Two dogs run!</p><script>a<b</script>";
    snprintf(expected, sizeof expected, "<p class=\"x\">%s  %s</p><script>a<b</script>", first, second);
    CHECK_STATUS(edgemt_translate_html(translator, page, strlen(page), NULL, document_out, sizeof document_out,
                                       &length, &failed),
                 EDGEMT_OK, "");
    CHECK(strcmp(document_out, expected) == 0);
    CHECK(failed == 0);
  }
  edgemt_decode_options decode;
  edgemt_decode_options_init(&decode);
  decode.struct_size = 0;
  CHECK_STATUS(edgemt_translate_text(translator, "a man", &decode, output, sizeof output, &length),
               EDGEMT_INVALID_ARGUMENT, "struct_size");
  edgemt_decode_options_init(&decode);
  CHECK(decode.use_shortlist == 1); /* the model's shortlist when it has one (this one has none) */
  {
    /* A caller's struct from before use_shortlist keeps its default. */
    edgemt_decode_options old;
    edgemt_decode_options_init(&old);
    old.use_shortlist = 0;
    old.struct_size = offsetof(edgemt_decode_options, use_shortlist);
    char with_default[256], without[256];
    size_t n1 = 0, n2 = 0;
    CHECK(edgemt_translate_text(translator, "a man", &old, with_default, sizeof with_default, &n1) == EDGEMT_OK);
    old.struct_size = sizeof old;
    CHECK(edgemt_translate_text(translator, "a man", &old, without, sizeof without, &n2) == EDGEMT_OK);
    CHECK(n1 == n2 && strcmp(with_default, without) == 0); /* no shortlist in this file: the same */
  }
  decode.beam_size = 3;
  CHECK_STATUS(edgemt_translate_text(translator, "a man", &decode, output, sizeof output, &length),
               EDGEMT_INVALID_ARGUMENT, "max_beam_size 2");
  decode.beam_size = 2;
  decode.num_hypotheses = 3;
  CHECK_STATUS(edgemt_translate_text(translator, "a man", &decode, output, sizeof output, &length),
               EDGEMT_INVALID_ARGUMENT, "num_hypotheses");
  decode.num_hypotheses = 1;
  decode.sampling_topk = 5;
  CHECK_STATUS(edgemt_translate_text(translator, "a man", &decode, output, sizeof output, &length),
               EDGEMT_INVALID_ARGUMENT, "beam_size 1");

  /* Batches: per-source results, n-best with scores, warnings. */
  const char* texts[3] = {"a man is riding a bike", "", "two women are sitting on a bench"};
  edgemt_results* results = NULL;
  edgemt_decode_options_init(&decode);
  decode.beam_size = 2;
  decode.num_hypotheses = 2;
  CHECK_STATUS(edgemt_translate_batch(translator, NULL, 3, &decode, &results), EDGEMT_INVALID_ARGUMENT, "texts is NULL");
  const char* with_null[2] = {"a man", NULL};
  CHECK_STATUS(edgemt_translate_batch(translator, with_null, 2, &decode, &results), EDGEMT_INVALID_ARGUMENT,
               "texts[1] is NULL");
  CHECK(results == NULL);
  CHECK_STATUS(edgemt_translate_batch(translator, texts, 3, &decode, &results), EDGEMT_OK, "");
  CHECK(edgemt_results_count(results) == 3);
  CHECK(edgemt_results_count(NULL) == 0);
  edgemt_hypothesis h;
  memset(&h, 0, sizeof h);
  CHECK_STATUS(edgemt_results_hypothesis(results, 0, 0, &h), EDGEMT_INVALID_ARGUMENT, "struct_size");
  h.struct_size = sizeof h;
  CHECK_STATUS(edgemt_results_hypothesis(results, 0, 2, &h), EDGEMT_INVALID_ARGUMENT, "outside");
  CHECK_STATUS(edgemt_results_hypothesis(results, 3, 0, &h), EDGEMT_INVALID_ARGUMENT, "outside");
  CHECK_STATUS(edgemt_results_hypothesis(results, 0, 0, NULL), EDGEMT_INVALID_ARGUMENT, "NULL");
  CHECK_STATUS(edgemt_results_hypothesis((const edgemt_results*)translator, 0, 0, &h), EDGEMT_INVALID_ARGUMENT,
               "not a results");
  const char* message = NULL;
  for (size_t i = 0; i < 3; ++i) {
    CHECK(edgemt_results_status(results, i, &message) == EDGEMT_OK);
    CHECK(strcmp(message, "") == 0);
    CHECK(edgemt_results_num_hypotheses(results, i) == 2);
  }
  float previous = 1.0f;
  for (size_t k = 0; k < 2; ++k) {
    CHECK(edgemt_results_hypothesis(results, 0, k, &h) == EDGEMT_OK);
    CHECK(h.score <= previous);
    CHECK(h.score < 0.0f);
    CHECK(h.num_token_log_probs == h.num_ids + (h.ended_with_eos ? 1 : 0));
    previous = h.score;
  }
  CHECK(edgemt_results_hypothesis(results, 1, 0, &h) == EDGEMT_OK);
  CHECK(strcmp(h.text, "") == 0 && h.num_ids == 0 && h.score == 0.0f);
  CHECK(strcmp(edgemt_results_warning(results, 0), "") == 0);
  edgemt_results_free(results);

  /* A source over the limit: truncated with a warning, or refused alone. */
  char long_text[400] = "";
  for (int i = 0; i < 20; ++i) strcat(long_text, "a man is riding ");
  const char* mixed[2] = {long_text, "a man is riding a bike"};
  edgemt_decode_options_init(&decode);
  CHECK(edgemt_translate_batch(translator, mixed, 2, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_status(results, 0, &message) == EDGEMT_OK);
  CHECK(strstr(edgemt_results_warning(results, 0), "more than the limit of 24") != NULL);
  CHECK(edgemt_results_hypothesis(results, 1, 0, &h) == EDGEMT_OK);
  CHECK(strcmp(h.text, best) == 0);
  edgemt_results_free(results);

  /* Ids: the same translation as the text path. */
  edgemt_tokenizer* tokenizer = NULL;
  int32_t source[32];
  size_t count = 0;
  CHECK(edgemt_model_load(kTextModel, &model) == EDGEMT_OK);
  CHECK(edgemt_tokenizer_create(model, EDGEMT_SOURCE, &tokenizer) == EDGEMT_OK);
  CHECK(edgemt_tokenizer_encode(tokenizer, "a man is riding a bike", source, 31, &count) == EDGEMT_OK);
  source[count++] = 3; /* </s> */
  const int32_t* sources[2] = {source, source};
  size_t lengths[2] = {count, count};
  int32_t out_of_range[2] = {999, 3};
  sources[1] = out_of_range;
  lengths[1] = 2;
  CHECK_STATUS(edgemt_translate_ids(translator, NULL, lengths, 2, NULL, &results), EDGEMT_INVALID_ARGUMENT,
               "sources is NULL");
  CHECK_STATUS(edgemt_translate_ids(translator, sources, NULL, 2, NULL, &results), EDGEMT_INVALID_ARGUMENT,
               "lengths is NULL");
  CHECK_STATUS(edgemt_translate_ids(translator, sources, lengths, 2, NULL, &results), EDGEMT_OK, "");
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(strcmp(h.text, best) == 0);
  CHECK(edgemt_results_status(results, 1, &message) == EDGEMT_INVALID_ARGUMENT);
  CHECK(strstr(message, "id 999 is outside the source vocabulary") != NULL);
  CHECK(edgemt_results_num_hypotheses(results, 1) == 0);
  edgemt_results_free(results);
  edgemt_tokenizer_free(tokenizer);
  edgemt_model_free(model);

  /* Streaming: the pieces add up to the translation; a callback can stop it. */
  int stop_after = 0;
  CHECK_STATUS(edgemt_translate_stream(translator, "a man is riding a bike", NULL, NULL, &stop_after),
               EDGEMT_INVALID_ARGUMENT, "on_piece is NULL");
  edgemt_decode_options_init(&decode);
  decode.beam_size = 2;
  CHECK_STATUS(edgemt_translate_stream(translator, "a man", &decode, collect, &stop_after), EDGEMT_INVALID_ARGUMENT,
               "beam_size 1");
  streamed[0] = '\0';
  pieces_seen = 0;
  CHECK_STATUS(edgemt_translate_stream(translator, "a man is riding a bike", NULL, collect, &stop_after), EDGEMT_OK,
               "");
  CHECK(strcmp(streamed, best) == 0);
  if (pieces_seen > 1) {
    streamed[0] = '\0';
    pieces_seen = 0;
    stop_after = 1;
    CHECK_STATUS(edgemt_translate_stream(translator, "a man is riding a bike", NULL, collect, &stop_after), EDGEMT_OK,
                 "");
    CHECK(pieces_seen == 1);
    CHECK(strncmp(best, streamed, strlen(streamed)) == 0);
  }

  /* Two threads on one translator take turns: every call of each gives the single-threaded translation. */
  char alone[256];
  CHECK(edgemt_translate_text(translator, kThreadText, NULL, alone, sizeof alone, &length) == EDGEMT_OK);
  struct worker workers[2];
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) {
    workers[i].translator = translator;
    workers[i].expected = alone;
    workers[i].translated = 0;
    CHECK(pthread_create(&threads[i], NULL, translate_in_thread, &workers[i]) == 0);
  }
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  CHECK(workers[0].translated == 20 && workers[1].translated == 20);

  /* Results outlive their translator. */
  CHECK(edgemt_translate_batch(translator, texts, 1, NULL, &results) == EDGEMT_OK);
  edgemt_translator_free(translator);
  edgemt_translator_free(NULL);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(strcmp(h.text, best) == 0);
  edgemt_results_free(results);
  edgemt_results_free(NULL);

  /* Text in needs a tokenizer. */
  CHECK(edgemt_translator_create(ids_model, NULL, &translator) == EDGEMT_OK);
  CHECK_STATUS(edgemt_translate_text(translator, "a man", NULL, output, sizeof output, &length), EDGEMT_NOT_FOUND,
               "no tokenizer");
  edgemt_translator_free(translator);
  edgemt_model_free(ids_model);
}

/* CTranslate2's options through the C API: a target prefix, alternatives,
 * the logits processors and scoring given targets. */
static void test_decoding_options(void) {
  edgemt_model* model = NULL;
  edgemt_translator* translator = NULL;
  edgemt_tokenizer* tokenizer = NULL;
  CHECK(edgemt_model_load(kTextModel, &model) == EDGEMT_OK);
  edgemt_translator_options options;
  edgemt_translator_options_init(&options);
  options.max_batch_size = 4;
  options.max_beam_size = 2;
  CHECK(edgemt_translator_create(model, &options, &translator) == EDGEMT_OK);
  CHECK(edgemt_tokenizer_create(model, EDGEMT_SOURCE, &tokenizer) == EDGEMT_OK);
  int32_t source[32];
  size_t count = 0;
  CHECK(edgemt_tokenizer_encode(tokenizer, "a man is riding a bike", source, 31, &count) == EDGEMT_OK);
  source[count++] = 3; /* </s> */
  const int32_t* sources[1] = {source};
  const size_t lengths[1] = {count};

  /* Greedy, with scores: the reference. */
  edgemt_decode_options decode;
  edgemt_decode_options_init(&decode);
  CHECK(decode.repetition_penalty == 1.0f && decode.target_prefixes == NULL && decode.return_alternatives == 0);
  decode.return_scores = 1;
  decode.min_length = 4; /* the test model's translation may be short */
  edgemt_results* results = NULL;
  edgemt_hypothesis best;
  memset(&best, 0, sizeof best);
  best.struct_size = sizeof best;
  CHECK(edgemt_translate_ids(translator, sources, lengths, 1, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &best) == EDGEMT_OK);
  CHECK(best.num_ids >= 2);
  int32_t best_ids[64];
  float best_log_probs[65];
  const size_t best_count = best.num_ids < 64 ? best.num_ids : 64;
  memcpy(best_ids, best.ids, best_count * sizeof(int32_t));
  memcpy(best_log_probs, best.token_log_probs, best.num_token_log_probs * sizeof(float));
  const size_t best_scored = best.num_token_log_probs;
  const char* texts_for_stream[1] = {"a"};
  edgemt_results_free(results);

  /* Forcing the first two ids greedy chose: the same ids, those two at log-probability 0. */
  const int32_t* prefix_ids[1] = {best_ids};
  const size_t prefix_lengths[1] = {2};
  decode.target_prefix_ids = prefix_ids;
  decode.target_prefix_lengths = prefix_lengths;
  edgemt_hypothesis h;
  memset(&h, 0, sizeof h);
  h.struct_size = sizeof h;
  CHECK(edgemt_translate_ids(translator, sources, lengths, 1, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(h.num_ids == best_count && memcmp(h.ids, best_ids, best_count * sizeof(int32_t)) == 0);
  CHECK(h.token_log_probs[0] == 0.0f && h.token_log_probs[1] == 0.0f);
  edgemt_results_free(results);
  decode.target_prefix_lengths = NULL;
  CHECK_STATUS(edgemt_translate_ids(translator, sources, lengths, 1, &decode, &results), EDGEMT_INVALID_ARGUMENT,
               "target_prefix_lengths is NULL");
  decode.target_prefix_ids = NULL;
  decode.target_prefixes = texts_for_stream;
  CHECK_STATUS(edgemt_translate_stream(translator, "a man", &decode, collect, NULL), EDGEMT_INVALID_ARGUMENT,
               "no target prefixes");
  decode.target_prefixes = NULL;

  /* Three alternatives for the first word (more than the beam), each a different word. */
  decode.return_alternatives = 1;
  decode.num_hypotheses = 3;
  const char* texts[1] = {"a man is riding a bike"};
  CHECK(edgemt_translate_batch(translator, texts, 1, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_num_hypotheses(results, 0) == 3);
  int32_t firsts[3] = {-1, -2, -3};
  for (size_t k = 0; k < 3; ++k) {
    CHECK(edgemt_results_hypothesis(results, 0, k, &h) == EDGEMT_OK);
    if (h.num_ids > 0) firsts[k] = h.ids[0];
  }
  CHECK(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
  edgemt_results_free(results);
  decode.return_alternatives = 0;
  decode.num_hypotheses = 1;
  decode.min_length = 0;

  /* Alignments and confidences: one source position per id, word pairs within the words, and
   * a confidence per word of the text. */
  decode.return_alignments = 1;
  decode.alignment_layer = 5; /* more than the test model has */
  CHECK_STATUS(edgemt_translate_batch(translator, texts, 1, &decode, &results), EDGEMT_INVALID_ARGUMENT,
               "alignment_layer");
  decode.alignment_layer = -1;
  decode.min_length = 4;
  CHECK(edgemt_translate_batch(translator, texts, 1, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(h.num_alignments == h.num_ids && h.alignments != NULL);
  /* Positions among the source's ids (count of them, </s> last, never aligned). */
  for (size_t i = 0; i < h.num_alignments; ++i) CHECK(h.alignments[i] >= 0 && h.alignments[i] < (int32_t)count - 1);
  CHECK(h.num_word_alignments > 0);
  size_t words = 1;
  for (const char* c = h.text; *c; ++c) words += *c == ' ';
  for (size_t i = 0; i < h.num_word_alignments; ++i) {
    int32_t source_word = -1, target_word = -1;
    CHECK(edgemt_results_word_alignment(results, 0, 0, i, &source_word, &target_word) == EDGEMT_OK);
    CHECK(source_word >= 0 && source_word < 6 && target_word >= 0 && (size_t)target_word < words);
  }
  int32_t unused_source, unused_target;
  CHECK_STATUS(edgemt_results_word_alignment(results, 0, 0, h.num_word_alignments, &unused_source, &unused_target),
               EDGEMT_INVALID_ARGUMENT, "no word alignment pair");
  CHECK(h.num_word_confidences == words && h.confidence > 0.0f && h.confidence <= 1.0f);
  edgemt_results_free(results);
  decode.return_alignments = 0;
  decode.min_length = 0;

  /* Processors: a refused penalty, and no repeated unigram. */
  decode.repetition_penalty = 0.0f;
  CHECK_STATUS(edgemt_translate_batch(translator, texts, 1, &decode, &results), EDGEMT_INVALID_ARGUMENT,
               "repetition_penalty");
  decode.repetition_penalty = 1.0f;
  decode.no_repeat_ngram_size = 1;
  CHECK(edgemt_translate_ids(translator, sources, lengths, 1, &decode, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  for (size_t i = 0; i < h.num_ids; ++i) {
    for (size_t j = 0; j < i; ++j) CHECK(h.ids[i] != h.ids[j]);
  }
  edgemt_results_free(results);

  /* Scoring greedy's own output gives its log-probabilities, </s>'s last. */
  const int32_t* targets[1] = {best_ids};
  const size_t target_lengths[1] = {best_count};
  CHECK_STATUS(edgemt_score_ids(translator, sources, lengths, NULL, target_lengths, 1, &results),
               EDGEMT_INVALID_ARGUMENT, "targets");
  CHECK(edgemt_score_ids(translator, sources, lengths, targets, target_lengths, 1, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(h.num_token_log_probs == best_count + 1);
  float sum = 0.0f;
  for (size_t i = 0; i < h.num_token_log_probs; ++i) sum += h.token_log_probs[i];
  CHECK(fabsf(sum - h.score) < 1e-4f);
  for (size_t i = 0; i < h.num_token_log_probs; ++i) CHECK(h.token_log_probs[i] <= 0.0f);
  /* Greedy's log-probabilities exclude </s> before min_length; scoring's do not: never lower. */
  for (size_t i = 0; i + 1 < best_scored && i < 4; ++i) CHECK(best_log_probs[i] >= h.token_log_probs[i] - 1e-4f);
  edgemt_results_free(results);
  const char* target_texts[1] = {"a man"};
  CHECK(edgemt_score_batch(translator, texts, target_texts, 1, &results) == EDGEMT_OK);
  CHECK(edgemt_results_hypothesis(results, 0, 0, &h) == EDGEMT_OK);
  CHECK(h.num_token_log_probs == h.num_ids + 1 && h.score < 0.0f);
  edgemt_results_free(results);

  edgemt_tokenizer_free(tokenizer);
  edgemt_translator_free(translator);
  edgemt_model_free(model);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s IDS_MODEL TEXT_MODEL CORRUPT_FILE\n", argv[0]);
    return 2;
  }
  kIdsModel = argv[1];
  kTextModel = argv[2];
  kCorrupt = argv[3];
  CHECK(strcmp(edgemt_last_error(), "") == 0);
  test_status_names();
  test_models();
  test_tokenizers();
  test_translators();
  test_decoding_options();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 && checks > 0 ? 0 : 1;
}
