/* multi-bleu.perl's mode (see multibleu.h): byte-oriented lines, ASCII
 * lowercase, references with fewer lines than the hypothesis count as length
 * 9999 as in the script. */
#include "multibleu.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "metrics/bleu.h"
#include "base/err.h"
#include "io/io.h"

static double my_log(double x) { return x == 0 ? -9999999999.0 : log(x); }

static int add_file(const char ***files, int *nf, const char *name) {
  const char **f = realloc(*files, sizeof *f * (size_t)(*nf + 1));
  if (!f) return nmt_fail(NMT_EIO, "out of memory");
  f[(*nf)++] = name;
  *files = f;
  return NMT_OK;
}

int multibleu_run(const char *const *stems, int nstems, const char *hyp, bool lowercase) {
  /* reference files, in the script's order */
  const char **files = NULL;
  int nf = 0;
  for (int s = 0; s < nstems; s++) {
    if (s == 0) {
      for (int k = 0;; k++) {
        char *name;
        if (asprintf(&name, "%s%d", stems[0], k) < 0) return nmt_fail(NMT_EIO, "out of memory");
        if (access(name, F_OK)) { free(name); break; }
        if (add_file(&files, &nf, name)) return NMT_EIO;
      }
    }
    if (!access(stems[s], F_OK) && add_file(&files, &nf, stems[s])) return NMT_EIO;
  }
  if (!nf) return nmt_fail(NMT_EIO, "could not find reference file %s", stems[0]);
  /* all files in lock step; a reference that ended contributes nothing */
  int nr = nf + 1, st;
  nmt_reader **r = calloc((size_t)nr, sizeof *r);
  char **line = calloc((size_t)nr, sizeof *line);
  size_t *len = calloc((size_t)nr, sizeof *len);
  bool *live = calloc((size_t)nr, sizeof *live);
  if (!r || !line || !len || !live) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < nr; i++) {
    if ((st = nmt_reader_open(&r[i], i < nf ? files[i] : hyp))) return st;
    live[i] = true;
  }
  nmt_bleu_opts o = nmt_bleu_defaults();
  o.multibleu = true;
  o.lowercase = lowercase;
  nmt_bleu *b;
  if ((st = nmt_bleu_new(&b, &o))) return st;
  double total[NMT_BLEU_NSTATS] = {0}, seg[NMT_BLEU_NSTATS];
  const char **rl = malloc(sizeof *rl * (size_t)nf);
  size_t *rn = malloc(sizeof *rn * (size_t)nf);
  if (!rl || !rn) return nmt_fail(NMT_EIO, "out of memory");
  for (;;) {
    int k = nmt_reader_next(r[nf], &line[nf], &len[nf]), nref = 0;
    if (k < 0) return nmt_errcode();
    if (!k) break;
    for (int i = 0; i < nf; i++) {
      if (!live[i]) continue;
      int kr = nmt_reader_next(r[i], &line[i], &len[i]);
      if (kr < 0) return nmt_errcode();
      if (!kr) { live[i] = false; continue; }
      rl[nref] = line[i];
      rn[nref++] = len[i];
    }
    if ((st = nmt_bleu_segment(b, line[nf], len[nf], rl, rn, nref, seg))) return st;
    if (!nref) seg[1] = 9999; /* the script's "closest length" when no reference line exists */
    for (int t = 0; t < NMT_BLEU_NSTATS; t++) total[t] += seg[t];
  }
  double hyp_len = total[0], ref_len = total[1], p[NMT_BLEU_ORDER];
  for (int n = 0; n < NMT_BLEU_ORDER; n++) {
    double c = total[2 + n], t = total[2 + NMT_BLEU_ORDER + n];
    p[n] = t ? c / t : 0;
  }
  if (ref_len == 0) {
    printf("BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)\n");
    st = NMT_EINPUT;
    nmt_fail(st, "references are empty");
  } else {
    double bp = hyp_len < ref_len ? exp(1 - ref_len / hyp_len) : 1;
    double bleu = bp * exp((my_log(p[0]) + my_log(p[1]) + my_log(p[2]) + my_log(p[3])) / 4);
    printf("BLEU = %.2f, %.1f/%.1f/%.1f/%.1f (BP=%.3f, ratio=%.3f, hyp_len=%.0f, ref_len=%.0f)\n",
           100 * bleu, 100 * p[0], 100 * p[1], 100 * p[2], 100 * p[3], bp, hyp_len / ref_len,
           hyp_len, ref_len);
  }
  nmt_bleu_free(b);
  for (int i = 0; i < nr; i++) nmt_reader_close(r[i]);
  free(r); free(line); free(len); free(live); free(rl); free(rn);
  return st;
}
