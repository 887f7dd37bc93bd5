/* Translate stdin's lines with a model, as nmt-decode -m MODEL [--raw] does, through
 * the installed library alone:
 *   cc translate.c $(pkg-config --cflags --libs nmt) -o translate
 *   ./translate m.bin --raw < test.fr > test.en */
#include <nmt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 10000 };

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s MODEL [--raw] < in > out\n", argv[0]), 1;
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.raw = argc > 2 && !strcmp(argv[2], "--raw");
  nmt_translator *t;
  if (nmt_translator_new(&t, (const char *const *)&argv[1], 1, &o))
    return fprintf(stderr, "translate: %s\n", nmt_last_error()), 2;
  static char *lines[MAX_LINES];
  char buf[65536];
  int n = 0;
  while (n < MAX_LINES && fgets(buf, sizeof buf, stdin)) {
    buf[strcspn(buf, "\n")] = 0;
    if (!(lines[n++] = strdup(buf))) return fprintf(stderr, "translate: out of memory\n"), 3;
  }
  nmt_result *r;
  int st = nmt_translator_translate(t, (const char *const *)lines, n, &r);
  if (st) return fprintf(stderr, "translate: %s\n", nmt_last_error()), st;
  for (int i = 0; i < nmt_result_size(r); i++) puts(nmt_result_text(r, i, 0));
  nmt_result_free(r);
  nmt_translator_free(t);
  for (int i = 0; i < n; i++) free(lines[i]);
  return 0;
}
