/* A model set through the C API (edgemt_catalog_*), for
 * tests/e2e/test_model_sets.py: catalog_test DIR FROM TO text|document|html
 * translates standard input (text: each line; else the whole input as one)
 * and writes the translations, then on standard error each result's source
 * language and model files. catalog_test --errors DIR checks the calls'
 * failures and prints "errors ok". Exit 1 on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgemt/edgemt.h"

static int check(int ok, const char* what) {
  if (!ok) fprintf(stderr, "catalog_test: %s (last error: %s)\n", what, edgemt_last_error());
  return ok;
}

static int errors(const char* dir) {
  edgemt_catalog* catalog = NULL;
  edgemt_results* results = NULL;
  const char* texts[1] = {"Ein Hund."};
  char code[8];
  float confidence = 0;
  int ok = 1;
  ok &= check(edgemt_catalog_open(NULL, NULL, &catalog) == EDGEMT_INVALID_ARGUMENT, "a NULL directory");
  ok &= check(edgemt_catalog_open("/nonexistent", NULL, &catalog) == EDGEMT_NOT_FOUND && catalog == NULL,
              "a missing folder");
  ok &= check(edgemt_catalog_open(dir, NULL, &catalog) == EDGEMT_OK, "opening the set");
  ok &= check(edgemt_catalog_translate(catalog, texts, 1, "de", "en", (edgemt_text_format)7, &results) ==
                  EDGEMT_INVALID_ARGUMENT, "a bad format");
  ok &= check(edgemt_catalog_translate(NULL, texts, 1, "de", "en", EDGEMT_FORMAT_TEXT, &results) ==
                  EDGEMT_INVALID_ARGUMENT, "a NULL catalog");
  ok &= check(edgemt_catalog_translate(catalog, texts, 1, "xx", "en", EDGEMT_FORMAT_TEXT, &results) == EDGEMT_OK,
              "an unknown language is the result's failure");
  ok &= check(edgemt_results_status(results, 0, NULL) == EDGEMT_NOT_FOUND, "the unknown language's status");
  edgemt_results_free(results);
  const char* german = "Ein Mann fährt mit dem Fahrrad durch die Stadt.";
  ok &= check(edgemt_detect_language(german, strlen(german), code, sizeof(code), &confidence) == EDGEMT_OK &&
                  strcmp(code, "de") == 0 && confidence > 50,
              "detecting German");
  ok &= check(edgemt_detect_language(german, strlen(german) - 40, code, sizeof(code), NULL) != EDGEMT_INTERNAL,
              "a cut text");
  ok &= check(edgemt_detect_language("\xff\xfe abc", 6, code, sizeof(code), NULL) == EDGEMT_INVALID_ARGUMENT,
              "invalid UTF-8");
  ok &= check(edgemt_detect_language("1234", 4, code, sizeof(code), NULL) == EDGEMT_NOT_FOUND, "too few letters");
  ok &= check(edgemt_detect_language("Hello there my friend", 21, code, 1, NULL) == EDGEMT_BUFFER_TOO_SMALL,
              "no room for the code");
  ok &= check(edgemt_catalog_num_languages(catalog) >= 3, "the languages");
  edgemt_catalog_free(catalog);
  edgemt_catalog_free(NULL);
  if (ok) printf("errors ok\n");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--errors") == 0) return errors(argv[2]);
  if (argc != 5) {
    fprintf(stderr, "usage: catalog_test DIR FROM TO text|document|html\n");
    return 2;
  }
  edgemt_text_format format = strcmp(argv[4], "html") == 0       ? EDGEMT_FORMAT_HTML
                              : strcmp(argv[4], "document") == 0 ? EDGEMT_FORMAT_DOCUMENT
                                                                 : EDGEMT_FORMAT_TEXT;
  static char input[1 << 20];
  size_t size = fread(input, 1, sizeof(input) - 1, stdin);
  input[size] = '\0';
  const char* texts[256];
  size_t count = 0;
  if (format == EDGEMT_FORMAT_TEXT) {
    for (char* line = strtok(input, "\n"); line != NULL && count < 256; line = strtok(NULL, "\n")) texts[count++] = line;
  } else {
    texts[count++] = input;
  }
  edgemt_catalog_options options;
  edgemt_catalog_options_init(&options);
  edgemt_catalog* catalog = NULL;
  edgemt_results* results = NULL;
  if (!check(edgemt_catalog_open(argv[1], &options, &catalog) == EDGEMT_OK, "opening the set") ||
      !check(edgemt_catalog_translate(catalog, texts, count, argv[2], argv[3], format, &results) == EDGEMT_OK,
             "translating"))
    return 1;
  for (size_t i = 0; i < count; ++i) {
    const char* message = NULL;
    if (edgemt_results_status(results, i, &message) != EDGEMT_OK) {
      fprintf(stderr, "catalog_test: text %zu: %s\n", i, message);
      printf("\n");
      continue;
    }
    edgemt_hypothesis h;
    memset(&h, 0, sizeof(h));
    h.struct_size = sizeof(h);
    edgemt_results_hypothesis(results, i, 0, &h);
    printf(format == EDGEMT_FORMAT_TEXT ? "%s\n" : "%s", h.text);
    float confidence = 0;
    fprintf(stderr, "%zu: %s %.0f", i, edgemt_results_source_language(results, i, &confidence), confidence);
    for (size_t k = 0; k < edgemt_results_num_models(results, i); ++k)
      fprintf(stderr, " %s", edgemt_results_model(results, i, k));
    fprintf(stderr, "\n");
  }
  edgemt_results_free(results);
  edgemt_catalog_free(catalog);
  return 0;
}
