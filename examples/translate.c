/* translate.c: the C API in one program. Translates standard input line by
 * line to standard output, exactly one output line per input line (a line
 * that fails gives an empty line and a message on standard error).
 *
 *   cc translate.c -ledgemt -o translate      (pkg-config --cflags --libs edgemt-c)
 *   ./translate MODEL.edgemt [BEAM_SIZE] < input.txt > output.txt
 */
#include <edgemt/edgemt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads one line of any length into *line (without its newline); 0 at the end of input. */
static int read_line(char** line, size_t* capacity) {
  size_t length = 0;
  int c;
  while ((c = getchar()) != EOF && c != '\n') {
    if (length + 2 > *capacity) {
      size_t bigger = *capacity ? 2 * *capacity : 256;
      char* grown = (char*)realloc(*line, bigger);
      if (grown == NULL) return 0;
      *line = grown;
      *capacity = bigger;
    }
    (*line)[length++] = (char)c;
  }
  if (c == EOF && length == 0) return 0;
  if (*line == NULL) {
    *line = (char*)malloc(1);
    if (*line == NULL) return 0;
    *capacity = 1;
  }
  if (length > 0 && (*line)[length - 1] == '\r') --length; /* CRLF input */
  (*line)[length] = '\0';
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s MODEL [BEAM_SIZE] < input > output\n", argv[0]);
    return 2;
  }
  int beam_size = argc == 3 ? atoi(argv[2]) : 1;

  edgemt_model* model = NULL;
  if (edgemt_model_load(argv[1], &model) != EDGEMT_OK) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], edgemt_last_error());
    return 1;
  }
  edgemt_translator_options options;
  edgemt_translator_options_init(&options);
  options.max_beam_size = beam_size;
  edgemt_translator* translator = NULL;
  edgemt_status status = edgemt_translator_create(model, &options, &translator);
  edgemt_model_free(model); /* the translator keeps what it needs */
  if (status != EDGEMT_OK) {
    fprintf(stderr, "cannot create a translator: %s\n", edgemt_last_error());
    return 1;
  }
  edgemt_decode_options decode;
  edgemt_decode_options_init(&decode);
  decode.beam_size = beam_size;

  char* line = NULL;
  size_t line_capacity = 0;
  size_t output_capacity = 256;
  char* output = (char*)malloc(output_capacity);
  for (size_t number = 1; output != NULL && read_line(&line, &line_capacity); ++number) {
    size_t length = 0;
    status = edgemt_translate_text(translator, line, &decode, output, output_capacity, &length);
    if (status == EDGEMT_BUFFER_TOO_SMALL) { /* grow to the size it said, and ask again */
      char* bigger = (char*)realloc(output, length + 1);
      if (bigger == NULL) break;
      output = bigger;
      output_capacity = length + 1;
      status = edgemt_translate_text(translator, line, &decode, output, output_capacity, &length);
    }
    if (status != EDGEMT_OK) {
      fprintf(stderr, "line %zu: %s\n", number, edgemt_last_error());
      output[0] = '\0';
    }
    puts(output);
  }
  free(line);
  free(output);
  edgemt_translator_free(translator);
  return 0;
}
