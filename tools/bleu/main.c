/* nmt-bleu: sacreBLEU 2.6.0-compatible BLEU, chrF(++) and TER of one or more
 * systems against one or more references, with sentence-level scores,
 * bootstrap confidence intervals, paired significance tests, and Moses
 * multi-bleu.perl's mode. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/cli.h"
#include "base/err.h"
#include "io/io.h"
#include "metric.h"
#include "multibleu.h"
#include "report.h"
#include "metrics/bleu_signif.h"
#include "metrics/sacre_text.h"
#include "base/utf8.h"
#include "tool.h"

static const char *PROG = "nmt-bleu";
#define SACRE_VERSION "2.6.0"

typedef struct {
  nmt_strlist refs, input, metrics;
  const char *tokenize, *smooth, *format;
  double smooth_value;
  bool lowercase, force, sentence, score_only, quiet, multibleu, confidence, paired_bs, paired_ar;
  long width, cc, cw, beta, confidence_n, paired_bs_n, paired_ar_n;
  bool chrf_ws, chrf_lc, chrf_eps, ter_cs, ter_asian, ter_nopunct, ter_norm;
} args;

/* Input streams: references then systems, read in lock step. */
typedef struct {
  int n;
  nmt_reader **r;
  const char **name;
  long *count;
  char **line;
  size_t *len;
} streams;

static int read_all(streams *s, int *done) {
  int ended = 0;
  for (int i = 0; i < s->n; i++) {
    int k = nmt_reader_next(s->r[i], &s->line[i], &s->len[i]);
    if (k < 0) return nmt_errcode();
    if (k == 0) { ended++; s->line[i] = NULL; continue; }
    s->count[i]++;
    if (nmt_utf8_check_line(s->line[i], s->len[i], s->name[i], s->count[i])) return NMT_EINPUT;
    s->len[i] = nmt_py_rstrip(s->line[i], s->len[i]);
  }
  if (ended == 0) { *done = 0; return NMT_OK; }
  *done = 1;
  if (ended == s->n) return NMT_OK;
  /* a length mismatch: count the rest to name both lengths */
  for (int i = 0; i < s->n; i++) {
    char *l;
    size_t n;
    int k;
    if (s->line[i])
      while ((k = nmt_reader_next(s->r[i], &l, &n)) == 1) s->count[i]++;
  }
  int a = s->n - 1, b = 0; /* a system against the first stream that differs */
  for (int i = s->n - 1; i >= 0; i--)
    if (s->count[i] != s->count[a]) b = i;
  return nmt_fail(NMT_EINPUT, "%s has %ld lines but %s has %ld", s->name[a], s->count[a], s->name[b],
                  s->count[b]);
}

static void signature(const args *a, const metric *m, int nrefs, bool bs, long n_bs, char *buf, size_t n) {
  const char *seed = getenv("SACREBLEU_SEED");
  char extra[96] = "";
  if (bs) snprintf(extra, sizeof extra, "|bs:%ld|seed:%s", n_bs, seed ? seed : "12345");
  snprintf(buf, n, "nrefs:%d%s|%s|version:%s", nrefs, extra, m->sig, SACRE_VERSION);
  (void)a;
}

/* sacreBLEU reads the variable as a Python int: anything else is refused, not taken as 0. */
static uint64_t seed_value(void) {
  const char *s = getenv("SACREBLEU_SEED");
  if (!s) return 12345;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (!*s || *end || errno || *s == '-' || *s == ' ') {
    nmt_fail(NMT_EUSAGE, "SACREBLEU_SEED must be an integer >= 0 that fits 64 bits (got '%s')", s);
    nmt_die(PROG, NMT_EUSAGE);
  }
  return v;
}

/* Out of memory in the tool itself: one line, exit 3, as lib's failures. */
static void *need(void *p) {
  if (!p) { nmt_fail(NMT_EIO, "out of memory"); nmt_die(PROG, NMT_EIO); }
  return p;
}

static void check(int st) {
  if (st) nmt_die(PROG, st);
}

static const char *sys_name(const args *a, int s) { return a->input.n ? a->input.v[s] : "<stdin>"; }

/* Several systems: their scores and, with a paired test, p-values against the
 * first (sacreBLEU's multi-system mode). */
static void report_systems(const args *a, metric *ms, int nm, int nsys, int nrefs, const double *sum,
                           int width, const double *kept, size_t nseg, bool json) {
  bool paired = a->paired_bs || a->paired_ar;
  /* several systems: scores, and with a paired test p-values against the first */
  int n_samples = (int)(a->paired_bs ? a->paired_bs_n : a->paired_ar_n);
  double score[nsys][3], pval[nsys][3], mean[nsys][3], ci[nsys][3];
  bool has_ci[3] = {false};
  for (int m = 0, off = 0; m < nm; off += ms[m].nstats, m++) {
    for (int sy = 0; sy < nsys; sy++) score[sy][m] = metric_score(&ms[m], sum + sy * width + off, false, NULL, 0);
    if (!paired) continue;
    int ns = ms[m].nstats;
    double **st_m = need(malloc(sizeof *st_m * nsys));
    for (int sy = 0; sy < nsys; sy++) {
      st_m[sy] = need(malloc(sizeof **st_m * nseg * ns));
      for (size_t i = 0; i < nseg; i++) memcpy(st_m[sy] + i * ns, kept + (i * nsys + sy) * width + off, sizeof **st_m * ns);
    }
    if (a->paired_bs) {
      double *bs = need(malloc(sizeof *bs * (size_t)nsys * n_samples)), *tmp = need(malloc(sizeof *tmp * n_samples));
      check(nmt_bootstrap_scores((const double *const *)st_m, nsys, nseg, ns, n_samples, seed_value(), metric_score_fn, &ms[m], bs));
      for (int sy = 0; sy < nsys; sy++) {
        if (sy) check(nmt_paired_bs_pvalue(bs, bs + (size_t)sy * n_samples, n_samples, fabs(score[0][m] - score[sy][m]), &pval[sy][m]));
        memcpy(tmp, bs + (size_t)sy * n_samples, sizeof *tmp * n_samples);
        nmt_estimate_ci(tmp, n_samples, ms[m].kind == M_TER, &mean[sy][m], &ci[sy][m]);
      }
      has_ci[m] = true;
      free(bs); free(tmp);
    } else {
      for (int sy = 1; sy < nsys; sy++)
        check(nmt_paired_ar_pvalue(st_m[0], st_m[sy], nseg, ns, n_samples, seed_value(), metric_score_fn, &ms[m], fabs(score[0][m] - score[sy][m]), &pval[sy][m]));
    }
    for (int sy = 0; sy < nsys; sy++) free(st_m[sy]);
    free(st_m);
  }
  if (json) {
    printf("[\n");
    for (int sy = 0; sy < nsys; sy++) {
      printf("    {\n        \"system\": ");
      char nm0[1024];
      snprintf(nm0, sizeof nm0, "%s%s", paired && sy == 0 ? "Baseline: " : "", sys_name(a, sy));
      bleu_json_string(stdout, nm0);
      for (int m = 0; m < nm; m++) {
        printf(",\n        \"%s\": ", ms[m].name);
        if (!paired) { printf("\"%.*f\"", (int)a->width, score[sy][m]); continue; }
        char v[64];
        py_repr(score[sy][m], v, sizeof v);
        printf("{\n            \"score\": %s,\n            \"p_value\": ", v);
        if (sy) { py_repr(pval[sy][m], v, sizeof v); printf("%s", v); } else printf("null");
        if (has_ci[m]) {
          py_repr(mean[sy][m], v, sizeof v);
          printf(",\n            \"mean\": %s,\n            \"ci\": ", v);
          py_repr(ci[sy][m], v, sizeof v);
          printf("%s\n        }", v);
        } else printf(",\n            \"mean\": null,\n            \"ci\": null\n        }");
      }
      printf("\n    }%s\n", sy + 1 < nsys ? "," : "");
    }
    printf("]\n");
  } else {
    /* a plain table (sacreBLEU draws a grid with the tabulate package) */
    printf("%-30s", "System");
    for (int m = 0; m < nm; m++) printf("  %-28s", ms[m].name);
    printf("\n");
    for (int sy = 0; sy < nsys; sy++) {
      char nm0[1024];
      snprintf(nm0, sizeof nm0, "%s%s", paired && sy == 0 ? "Baseline: " : "", sys_name(a, sy));
      printf("%-30s", nm0);
      for (int m = 0; m < nm; m++) {
        char cell[128];
        int k = snprintf(cell, sizeof cell, "%.*f", (int)a->width, score[sy][m]);
        if (paired && has_ci[m]) k += snprintf(cell + k, sizeof cell - k, " (%.*f ± %.*f)", (int)a->width, mean[sy][m], (int)a->width, ci[sy][m]);
        if (paired && sy) snprintf(cell + k, sizeof cell - k, " (p = %.4f)%s", pval[sy][m], pval[sy][m] <= 0.05 ? "*" : "");
        printf("  %-28s", cell);
      }
      printf("\n");
    }
    printf("\nMetric signatures:\n");
    for (int m = 0; m < nm; m++) {
      char sig[256];
      signature(a, &ms[m], nrefs, a->paired_bs, a->paired_bs_n, sig, sizeof sig);
      printf(" - %-10s %s\n", ms[m].name, sig);
    }
  }
}

int main(int argc, char **argv) {
  tool_init(PROG);
  args a = {.smooth = "exp", .format = "json", .smooth_value = -1, .width = 1, .cc = 6, .cw = 0,
            .beta = 2, .confidence_n = 1000, .paired_bs_n = 1000, .paired_ar_n = 10000};
  const nmt_opt opts[] = {
      {"input", 'i', NMT_OPT_LIST, &a.input, "HYP", "system output file(s); stdin without -i. Several: the first is the baseline"},
      {"metrics", 'm', NMT_OPT_LIST, &a.metrics, "M", "bleu, chrf, ter (default: bleu)"},
      {"tokenize", 0, NMT_OPT_STR, &a.tokenize, "TOK", "BLEU tokenizer: 13a (default), intl, none, char"},
      {"tok", 0, NMT_OPT_STR, &a.tokenize, "TOK", "= --tokenize"},
      {"lowercase", 0, NMT_OPT_FLAG, &a.lowercase, NULL, "case-insensitive BLEU (also -lc)"},
      {"lc", 0, NMT_OPT_FLAG, &a.lowercase, NULL, "= --lowercase"},
      {"smooth-method", 's', NMT_OPT_STR, &a.smooth, "M", "BLEU smoothing: exp (default), floor, add-k, none"},
      {"smooth-value", 0, NMT_OPT_DOUBLE, &a.smooth_value, "V", "value for floor (0.1) and add-k (1); 0 to 100", .min = 0, .max = 100},
      {"force", 0, NMT_OPT_FLAG, &a.force, NULL, "no warning about tokenized-looking input"},
      {"chrf-char-order", 0, NMT_OPT_INT, &a.cc, "N", "chrF character n-gram order (6)", .min = 0, .max = NMT_CHRF_MAX_ORDER},
      {"chrf-word-order", 0, NMT_OPT_INT, &a.cw, "N", "chrF word n-gram order (0; 2 = chrF++); the orders sum to 1..16",
       .min = 0, .max = NMT_CHRF_MAX_ORDER},
      {"chrf-beta", 0, NMT_OPT_INT, &a.beta, "N", "chrF recall weight (2; 0 to 100)", .min = 0, .max = 100},
      {"chrf-whitespace", 0, NMT_OPT_FLAG, &a.chrf_ws, NULL, "keep whitespace in character n-grams"},
      {"chrf-lowercase", 0, NMT_OPT_FLAG, &a.chrf_lc, NULL, "case-insensitive chrF"},
      {"chrf-eps-smoothing", 0, NMT_OPT_FLAG, &a.chrf_eps, NULL, "chrF++.py's eps smoothing"},
      {"ter-case-sensitive", 0, NMT_OPT_FLAG, &a.ter_cs, NULL, "case-sensitive TER"},
      {"ter-asian-support", 0, NMT_OPT_FLAG, &a.ter_asian, NULL, "TER: split CJK characters"},
      {"ter-no-punct", 0, NMT_OPT_FLAG, &a.ter_nopunct, NULL, "TER: remove punctuation"},
      {"ter-normalized", 0, NMT_OPT_FLAG, &a.ter_norm, NULL, "TER: tokenize like tercom's normaliser"},
      {"cc", 0, NMT_OPT_INT, &a.cc, "N", "= --chrf-char-order", .min = 0, .max = NMT_CHRF_MAX_ORDER},
      {"cw", 0, NMT_OPT_INT, &a.cw, "N", "= --chrf-word-order", .min = 0, .max = NMT_CHRF_MAX_ORDER},
      {"sv", 0, NMT_OPT_DOUBLE, &a.smooth_value, "V", "= --smooth-value", .min = 0, .max = 100},
      {"sentence-level", 0, NMT_OPT_FLAG, &a.sentence, NULL, "one score per line (one metric)"},
      {"sl", 0, NMT_OPT_FLAG, &a.sentence, NULL, "= --sentence-level"},
      {"confidence", 0, NMT_OPT_FLAG, &a.confidence, NULL, "bootstrap 95% confidence interval"},
      {"confidence-n", 0, NMT_OPT_INT, &a.confidence_n, "N", "bootstrap resamples (1000; up to 1000000)", .min = 1, .max = 1000000},
      {"ci", 0, NMT_OPT_FLAG, &a.confidence, NULL, "= --confidence"},
      {"cin", 0, NMT_OPT_INT, &a.confidence_n, "N", "= --confidence-n", .min = 1, .max = 1000000},
      {"paired-bs", 0, NMT_OPT_FLAG, &a.paired_bs, NULL, "paired bootstrap test against the first system"},
      {"paired-bs-n", 0, NMT_OPT_INT, &a.paired_bs_n, "N", "paired bootstrap resamples (1000; up to 1000000)", .min = 1, .max = 1000000},
      {"paired-ar", 0, NMT_OPT_FLAG, &a.paired_ar, NULL, "paired approximate randomization test"},
      {"paired-ar-n", 0, NMT_OPT_INT, &a.paired_ar_n, "N", "randomization trials (10000; up to 1000000)", .min = 1, .max = 1000000},
      {"pbs", 0, NMT_OPT_FLAG, &a.paired_bs, NULL, "= --paired-bs"},
      {"pbsn", 0, NMT_OPT_INT, &a.paired_bs_n, "N", "= --paired-bs-n", .min = 1, .max = 1000000},
      {"par", 0, NMT_OPT_FLAG, &a.paired_ar, NULL, "= --paired-ar"},
      {"part", 0, NMT_OPT_INT, &a.paired_ar_n, "N", "= --paired-ar-n", .min = 1, .max = 1000000},
      {"score-only", 'b', NMT_OPT_FLAG, &a.score_only, NULL, "print only the score"},
      {"width", 'w', NMT_OPT_INT, &a.width, "N", "decimals (1; up to 30)", .min = 0, .max = 30},
      {"format", 'f', NMT_OPT_STR, &a.format, "F", "json (default, as sacreBLEU) or text"},
      {"quiet", 'q', NMT_OPT_FLAG, &a.quiet, NULL, "no warnings"},
      {"multi-bleu", 0, NMT_OPT_FLAG, &a.multibleu, NULL, "Moses multi-bleu.perl on tokenized text (REF is its stem)"},
      {NULL, 0, 0, NULL, NULL, NULL}};
  const nmt_cli cli = {
      .prog = PROG,
      .usage = "REF [REF...] [-i HYP...] [options]",
      .summary = "Score translations with BLEU, chrF and TER exactly as sacreBLEU 2.6.0 does.",
      .example = "nmt-bleu newstest.de -i output.de -m bleu chrf ter --format text",
      .opts = opts,
      .single_dash_long = true};
  int st = nmt_cli_parse(&cli, argc, argv, &a.refs);
  if (st) nmt_die(PROG, st);
  if (!a.refs.n) { nmt_fail(NMT_EUSAGE, "need at least one reference file (see --help)"); nmt_die(PROG, NMT_EUSAGE); }
  if (a.multibleu) {
    if (a.input.n > 1) { nmt_fail(NMT_EUSAGE, "--multi-bleu scores one system"); nmt_die(PROG, NMT_EUSAGE); }
    st = multibleu_run(a.refs.v, a.refs.n, a.input.n ? a.input.v[0] : NULL, a.lowercase);
    if (st) nmt_die(PROG, st);
    free(a.refs.v); free(a.input.v); free(a.metrics.v);
    return 0;
  }
  bool json = !strcmp(a.format, "json");
  if (!json && strcmp(a.format, "text")) { nmt_fail(NMT_EUSAGE, "unknown format '%s' (json, text)", a.format); nmt_die(PROG, NMT_EUSAGE); }

  /* metrics, in sacreBLEU's output order */
  metric_opts mo = {.bleu = nmt_bleu_defaults(), .chrf = nmt_chrf_defaults()};
  mo.bleu.tokenize = a.tokenize ? a.tokenize : "13a";
  mo.bleu.lowercase = a.lowercase;
  mo.bleu.smooth = a.smooth;
  mo.bleu.smooth_value = a.smooth_value;
  mo.bleu.effective_order = a.sentence;
  mo.chrf = (nmt_chrf_opts){(int)a.cc, (int)a.cw, (int)a.beta, a.chrf_lc, a.chrf_ws, a.chrf_eps};
  mo.ter = (nmt_tercom_opts){a.ter_norm, a.ter_nopunct, a.ter_asian, a.ter_cs};
  static const char *const order[] = {"bleu", "chrf", "ter"};
  metric ms[3];
  int nm = 0;
  for (int i = 0; i < a.metrics.n; i++) {
    bool known = false;
    for (int k = 0; k < 3; k++) known |= !strcmp(a.metrics.v[i], order[k]);
    if (!known) { nmt_fail(NMT_EUSAGE, "unknown metric '%s' (bleu, chrf, ter)", a.metrics.v[i]); nmt_die(PROG, NMT_EUSAGE); }
  }
  for (int k = 0; k < 3; k++) {
    bool want = !a.metrics.n && k == 0;
    for (int i = 0; i < a.metrics.n; i++) want |= !strcmp(a.metrics.v[i], order[k]);
    if (want && (st = metric_open(&ms[nm++], order[k], &mo))) nmt_die(PROG, st);
  }
  int nsys = a.input.n ? a.input.n : 1, nrefs = a.refs.n;
  bool paired = a.paired_bs || a.paired_ar;
  if (a.sentence && nm > 1) { nmt_fail(NMT_EUSAGE, "--sentence-level takes one metric"); nmt_die(PROG, NMT_EUSAGE); }
  if (a.sentence && (nsys > 1 || a.confidence || paired)) { nmt_fail(NMT_EUSAGE, "--sentence-level scores one system, without statistical tests"); nmt_die(PROG, NMT_EUSAGE); }
  if (a.paired_bs && a.paired_ar) { nmt_fail(NMT_EUSAGE, "--paired-bs and --paired-ar exclude each other"); nmt_die(PROG, NMT_EUSAGE); }
  if (paired && nsys < 2) { nmt_fail(NMT_EUSAGE, "paired tests need several systems given to -i"); nmt_die(PROG, NMT_EUSAGE); }
  if (a.confidence && nsys > 1) { nmt_fail(NMT_EUSAGE, "use --paired-bs or --paired-ar for several systems"); nmt_die(PROG, NMT_EUSAGE); }

  streams s = {.n = nrefs + nsys};
  s.r = need(calloc((size_t)s.n, sizeof *s.r));
  s.name = need(calloc((size_t)s.n, sizeof *s.name));
  s.count = need(calloc((size_t)s.n, sizeof *s.count));
  s.line = need(calloc((size_t)s.n, sizeof *s.line));
  s.len = need(calloc((size_t)s.n, sizeof *s.len));
  for (int i = 0; i < s.n; i++) {
    const char *path = i < nrefs ? a.refs.v[i] : (a.input.n ? a.input.v[i - nrefs] : NULL);
    if ((st = nmt_reader_open(&s.r[i], path))) nmt_die(PROG, st);
    s.name[i] = nmt_reader_name(s.r[i]);
  }

  /* statistics: corpus sums, and per segment when a test needs them */
  bool keep = a.confidence || paired;
  int width = 0;
  for (int m = 0; m < nm; m++) width += ms[m].nstats;
  double *sum = need(calloc((size_t)nsys * width, sizeof *sum)), *seg = need(calloc((size_t)width, sizeof *seg));
  double *kept = NULL;
  size_t nseg = 0, kcap = 0;
  long tokenized_looking = 0;
  for (;;) {
    int done = 0;
    if ((st = read_all(&s, &done))) nmt_die(PROG, st);
    if (done) break;
    const char *const *refs = (const char *const *)s.line;
    for (int sy = 0; sy < nsys; sy++) {
      const char *hyp = s.line[nrefs + sy];
      size_t hl = s.len[nrefs + sy];
      if (hl >= 2 && hyp[hl - 1] == '.' && hyp[hl - 2] == ' ') tokenized_looking++;
      int off = 0;
      for (int m = 0; m < nm; m++) {
        if ((st = metric_segment(&ms[m], hyp, hl, refs, s.len, nrefs, seg + off))) {
          /* bad input names its line; other failures stand alone */
          if (st == NMT_EINPUT) {
            char why[256];
            snprintf(why, sizeof why, "%s", nmt_errmsg());
            nmt_fail(st, "%s:%ld: %s", s.name[nrefs + sy], s.count[nrefs + sy], why);
          }
          nmt_die(PROG, st);
        }
        if (a.sentence) {
          char verbose[256], sig[256], *out;
          double sc = metric_score(&ms[m], seg + off, false, verbose, sizeof verbose);
          signature(&a, &ms[m], nrefs, false, 0, sig, sizeof sig);
          result r = {ms[m].name, sig, verbose, sc, false, 0, 0};
          format_result(&r, (int)a.width, a.score_only, false, &out);
          puts(out);
          free(out);
        }
        off += ms[m].nstats;
      }
      for (int k = 0; k < width; k++) sum[sy * width + k] += seg[k];
      if (keep) {
        if ((nseg + 1) * nsys > kcap) {
          kcap = kcap ? kcap * 2 : 1024 * (size_t)nsys;
          kept = need(realloc(kept, sizeof *kept * kcap * width));
        }
        memcpy(kept + (nseg * nsys + sy) * width, seg, sizeof *seg * width);
      }
    }
    nseg++;
  }
  if (!nseg) { nmt_fail(NMT_EINPUT, "%s: no input lines", s.name[nrefs]); nmt_die(PROG, NMT_EINPUT); }
  bool has_bleu = ms[0].kind == M_BLEU;
  if (has_bleu && !a.force && !a.quiet && tokenized_looking >= 100)
    nmt_warn(PROG, "%ld lines end in a tokenized period (' .'): detokenize your output, or pass --force", tokenized_looking);
  if (a.sentence) goto out;

  if (nsys == 1) {
    char *lines[3];
    for (int m = 0, off = 0; m < nm; off += ms[m].nstats, m++) {
      char verbose[256], sig[256];
      result r = {ms[m].name, sig, verbose, metric_score(&ms[m], sum + off, false, verbose, sizeof verbose), false, 0, 0};
      if (a.confidence) {
        double *st_m = need(malloc(sizeof *st_m * nseg * ms[m].nstats)), *scores = need(malloc(sizeof *scores * a.confidence_n));
        for (size_t i = 0; i < nseg; i++) memcpy(st_m + i * ms[m].nstats, kept + i * width + off, sizeof *st_m * ms[m].nstats);
        const double *one[1] = {st_m};
        check(nmt_bootstrap_scores(one, 1, nseg, ms[m].nstats, (int)a.confidence_n, seed_value(), metric_score_fn, &ms[m], scores));
        nmt_estimate_ci(scores, (int)a.confidence_n, ms[m].kind == M_TER, &r.mean, &r.ci);
        r.has_ci = true;
        free(st_m); free(scores);
      }
      signature(&a, &ms[m], nrefs, a.confidence, a.confidence_n, sig, sizeof sig);
      format_result(&r, (int)a.width, a.score_only, json, &lines[m]);
    }
    print_results(stdout, lines, nm, json);
    goto out;
  }

  report_systems(&a, ms, nm, nsys, nrefs, sum, width, kept, nseg, json);
out:
  for (int i = 0; i < s.n; i++) nmt_reader_close(s.r[i]);
  for (int m = 0; m < nm; m++) metric_close(&ms[m]);
  free(sum); free(seg); free(kept);
  free(s.r); free(s.name); free(s.count); free(s.line); free(s.len);
  free(a.refs.v); free(a.input.v); free(a.metrics.v);
  if (fflush(stdout)) { nmt_fail_errno(NMT_EIO, "<stdout>: write error"); nmt_die(PROG, NMT_EIO); }
  return 0;
}
