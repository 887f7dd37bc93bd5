/* N-best lists with scores and alignments, written as nmt-decode --n-best -b BEAM
 * --alignment ALIGN writes them ("N ||| text ||| alignment ||| F0= score ||| score";
 * ALIGN "-": no alignment field), through the installed library alone:
 *   cc nbest.c $(pkg-config --cflags --libs nmt) -o nbest
 *   ./nbest m.bin 5 hard --raw < test.fr */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <nmt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 10000 };

/* Line i's hypothesis k (an empty line: one empty hypothesis of score 0) */
static void show(const nmt_result *r, int i, int k, int align) {
  int none = nmt_result_hypotheses(r, i) == 0;
  double score = none ? 0.0 : nmt_result_score(r, i, k);
  printf("%d ||| %s", i, nmt_result_text(r, i, k));
  if (align) printf(" ||| %s", nmt_result_alignment(r, i, k));
  printf(" ||| F0= %.6f ||| %.6f\n", score, score);
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: %s MODEL BEAM ALIGN|- [--raw] < in > out\n", argv[0]), 1;
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.beam_size = atoi(argv[2]), o.n_best = 1;
  o.alignment = strcmp(argv[3], "-") ? argv[3] : NULL;
  o.raw = argc > 4 && !strcmp(argv[4], "--raw");
  nmt_translator *t;
  if (nmt_translator_new(&t, (const char *const *)&argv[1], 1, &o))
    return fprintf(stderr, "nbest: %s\n", nmt_last_error()), 2;
  static char *lines[MAX_LINES];
  size_t cap = 0;
  int n = 0, st = 0;
  for (ssize_t len; n < MAX_LINES && (len = getline(&lines[n], &cap, stdin)) >= 0; n++, cap = 0)
    if (len && lines[n][len - 1] == '\n') lines[n][len - 1] = 0; /* getline's buffer: the line's own */
  nmt_result *r;
  if ((st = nmt_translator_translate(t, (const char *const *)lines, n, &r)))
    return fprintf(stderr, "nbest: %s\n", nmt_last_error()), st;
  for (int i = 0; i < nmt_result_size(r); i++)
    for (int k = 0; k < nmt_result_hypotheses(r, i) || k == 0; k++) show(r, i, k, o.alignment != NULL);
  nmt_result_free(r);
  nmt_translator_free(t);
  for (int i = 0; i <= n && i < MAX_LINES; i++) free(lines[i]); /* (and the buffer of the last getline) */
  return 0;
}
