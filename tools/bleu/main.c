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
  nmt_strlist refs; /* the positionals */
#define OPTION NMT_CLI_FIELD
#include "options.def"
#undef OPTION
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

/* Several systems under nm (<= 3) metrics: each one's score and, with a paired test, its
 * p-value against the first and, with the bootstrap, its mean and 95% interval. */
typedef struct {
  int nsys, nm;
  bool paired, has_ci[3];
  double (*score)[3], (*pval)[3], (*mean)[3], (*ci)[3]; /* [nsys][metric] */
} sys_table;

/* Metric m's statistics of each system, segment by segment: [nsys][nseg * nstats]
 * out of kept's rows (nseg × nsys rows of width, the metric's at off). */
static double **system_stats(const metric *m, int nsys, int off, int width, const double *kept,
                             size_t nseg) {
  int ns = m->nstats;
  double **st = need(malloc(sizeof *st * nsys));
  for (int sy = 0; sy < nsys; sy++) {
    st[sy] = need(malloc(sizeof **st * nseg * ns));
    for (size_t i = 0; i < nseg; i++)
      memcpy(st[sy] + i * ns, kept + (i * nsys + sy) * width + off, sizeof **st * ns);
  }
  return st;
}

/* The paired bootstrap of metric m: p-values, means and intervals. */
static void paired_bs(const args *a, sys_table *t, metric *ms, int m, double **st, size_t nseg) {
  int nsys = t->nsys, n_samples = (int)a->paired_bs_n;
  double *bs = need(malloc(sizeof *bs * (size_t)nsys * n_samples)), *tmp = need(malloc(sizeof *tmp * n_samples));
  check(nmt_bootstrap_scores((const double *const *)st, nsys, nseg, ms[m].nstats, n_samples, seed_value(), metric_score_fn, &ms[m], bs));
  for (int sy = 0; sy < nsys; sy++) {
    if (sy) check(nmt_paired_bs_pvalue(bs, bs + (size_t)sy * n_samples, n_samples, fabs(t->score[0][m] - t->score[sy][m]), &t->pval[sy][m]));
    memcpy(tmp, bs + (size_t)sy * n_samples, sizeof *tmp * n_samples);
    nmt_estimate_ci(tmp, n_samples, ms[m].kind == M_TER, &t->mean[sy][m], &t->ci[sy][m]);
  }
  t->has_ci[m] = true;
  free(bs); free(tmp);
}

/* The paired approximate randomization of metric m: p-values. */
static void paired_ar(const args *a, sys_table *t, metric *ms, int m, double **st, size_t nseg) {
  for (int sy = 1; sy < t->nsys; sy++)
    check(nmt_paired_ar_pvalue(st[0], st[sy], nseg, ms[m].nstats, (int)a->paired_ar_n, seed_value(), metric_score_fn, &ms[m], fabs(t->score[0][m] - t->score[sy][m]), &t->pval[sy][m]));
}

/* Every system's scores from sum (a row of width a system), and the paired test's figures
 * from kept (a row a segment and system). */
static void score_systems(const args *a, sys_table *t, metric *ms, const double *sum, int width,
                          const double *kept, size_t nseg) {
  for (int m = 0, off = 0; m < t->nm; off += ms[m].nstats, m++) {
    for (int sy = 0; sy < t->nsys; sy++) t->score[sy][m] = metric_score(&ms[m], sum + sy * width + off, false, NULL, 0);
    if (!t->paired) continue;
    double **st = system_stats(&ms[m], t->nsys, off, width, kept, nseg);
    if (a->paired_bs) paired_bs(a, t, ms, m, st, nseg);
    else paired_ar(a, t, ms, m, st, nseg);
    for (int sy = 0; sy < t->nsys; sy++) free(st[sy]);
    free(st);
  }
}

/* A system's name, "Baseline: " before the first one's under a paired test */
static void system_label(const args *a, const sys_table *t, int sy, char *buf, size_t n) {
  snprintf(buf, n, "%s%s", t->paired && sy == 0 ? "Baseline: " : "", sys_name(a, sy));
}

/* System sy's figures of metric m as a JSON value (a string, or an object under a paired test) */
static void print_json_value(const args *a, const sys_table *t, int sy, int m) {
  if (!t->paired) { printf("\"%.*f\"", (int)a->width, t->score[sy][m]); return; }
  char v[64];
  py_repr(t->score[sy][m], v, sizeof v);
  printf("{\n            \"score\": %s,\n            \"p_value\": ", v);
  if (sy) { py_repr(t->pval[sy][m], v, sizeof v); printf("%s", v); } else printf("null");
  if (t->has_ci[m]) {
    py_repr(t->mean[sy][m], v, sizeof v);
    printf(",\n            \"mean\": %s,\n            \"ci\": ", v);
    py_repr(t->ci[sy][m], v, sizeof v);
    printf("%s\n        }", v);
  } else printf(",\n            \"mean\": null,\n            \"ci\": null\n        }");
}

static void print_systems_json(const args *a, const sys_table *t, const metric *ms) {
  printf("[\n");
  for (int sy = 0; sy < t->nsys; sy++) {
    printf("    {\n        \"system\": ");
    char nm0[1024];
    system_label(a, t, sy, nm0, sizeof nm0);
    bleu_json_string(stdout, nm0);
    for (int m = 0; m < t->nm; m++) {
      printf(",\n        \"%s\": ", ms[m].name);
      print_json_value(a, t, sy, m);
    }
    printf("\n    }%s\n", sy + 1 < t->nsys ? "," : "");
  }
  printf("]\n");
}

/* A plain table (sacreBLEU draws a grid with the tabulate package), then the signatures */
static void print_systems_text(const args *a, const sys_table *t, const metric *ms, int nrefs) {
  int w = (int)a->width;
  printf("%-30s", "System");
  for (int m = 0; m < t->nm; m++) printf("  %-28s", ms[m].name);
  printf("\n");
  for (int sy = 0; sy < t->nsys; sy++) {
    char nm0[1024];
    system_label(a, t, sy, nm0, sizeof nm0);
    printf("%-30s", nm0);
    for (int m = 0; m < t->nm; m++) {
      char cell[128];
      int k = snprintf(cell, sizeof cell, "%.*f", w, t->score[sy][m]);
      if (t->paired && t->has_ci[m]) k += snprintf(cell + k, sizeof cell - k, " (%.*f ± %.*f)", w, t->mean[sy][m], w, t->ci[sy][m]);
      if (t->paired && sy) snprintf(cell + k, sizeof cell - k, " (p = %.4f)%s", t->pval[sy][m], t->pval[sy][m] <= 0.05 ? "*" : "");
      printf("  %-28s", cell);
    }
    printf("\n");
  }
  printf("\nMetric signatures:\n");
  for (int m = 0; m < t->nm; m++) {
    char sig[256];
    signature(a, &ms[m], nrefs, a->paired_bs, a->paired_bs_n, sig, sizeof sig);
    printf(" - %-10s %s\n", ms[m].name, sig);
  }
}

/* Several systems: their scores and, with a paired test, p-values against the
 * first (sacreBLEU's multi-system mode). */
static void report_systems(const args *a, metric *ms, int nm, int nsys, int nrefs, const double *sum,
                           int width, const double *kept, size_t nseg, bool json) {
  double score[nsys][3], pval[nsys][3], mean[nsys][3], ci[nsys][3];
  sys_table t = {nsys, nm, a->paired_bs || a->paired_ar, {false}, score, pval, mean, ci};
  score_systems(a, &t, ms, sum, width, kept, nseg);
  if (json) print_systems_json(a, &t, ms);
  else print_systems_text(a, &t, ms, nrefs);
}

/* The command line over the table's defaults; a usage error ends the run. */
static void parse_args(args *a, int argc, char **argv) {
  *a = (args){.smooth_value = -1}; /* the smoothing method's own value */
  const nmt_opt opts[] = {
#define OPTION(...) NMT_CLI_ROW(a, __VA_ARGS__)
#include "options.def"
#undef OPTION
      {0}};
  const nmt_cli cli = {
      .prog = PROG,
      .usage = "REF [REF...] [-i HYP...] [options]",
      .summary = "Score translations with BLEU, chrF and TER exactly as sacreBLEU 2.6.0 does.",
      .example = "nmt-bleu newstest.de -i output.de -m bleu chrf ter --format text",
      .opts = opts,
      .single_dash_long = true};
  int st = nmt_cli_defaults(&cli);
  check(st ? st : nmt_cli_parse(&cli, argc, argv, &a->refs));
  if (!a->refs.n) check(nmt_fail(NMT_EUSAGE, "need at least one reference file (see --help)"));
}

static void free_args(args *a) { free(a->refs.v), free(a->input.v), free(a->metrics.v); }

/* --multi-bleu: Moses' script on one system. */
static int multi_bleu(args *a) {
  if (a->input.n > 1) check(nmt_fail(NMT_EUSAGE, "--multi-bleu scores one system"));
  check(multibleu_run(a->refs.v, a->refs.n, a->input.n ? a->input.v[0] : NULL, a->lowercase));
  free_args(a);
  return 0;
}

/* The metrics -m names, opened in sacreBLEU's output order (BLEU, chrF, TER); their count. */
static int open_metrics(const args *a, metric *ms) {
  metric_opts mo = {.bleu = nmt_bleu_defaults(), .chrf = nmt_chrf_defaults()};
  mo.bleu.tokenize = a->tokenize;
  mo.bleu.lowercase = a->lowercase;
  mo.bleu.smooth = a->smooth;
  mo.bleu.smooth_value = a->smooth_value;
  mo.bleu.effective_order = a->sentence;
  mo.chrf = (nmt_chrf_opts){(int)a->cc, (int)a->cw, (int)a->beta, a->chrf_lc, a->chrf_ws, a->chrf_eps};
  mo.ter = (nmt_tercom_opts){a->ter_norm, a->ter_nopunct, a->ter_asian, a->ter_cs};
  static const char *const order[] = {"bleu", "chrf", "ter"};
  for (int i = 0; i < a->metrics.n; i++) {
    bool known = false;
    for (int k = 0; k < 3; k++) known |= !strcmp(a->metrics.v[i], order[k]);
    if (!known) check(nmt_fail(NMT_EUSAGE, "unknown metric '%s' (bleu, chrf, ter)", a->metrics.v[i]));
  }
  int nm = 0;
  for (int k = 0; k < 3; k++) {
    bool want = !a->metrics.n && k == 0;
    for (int i = 0; i < a->metrics.n; i++) want |= !strcmp(a->metrics.v[i], order[k]);
    if (want) check(metric_open(&ms[nm++], order[k], &mo));
  }
  return nm;
}

/* The modes that exclude each other. */
static void check_modes(const args *a, int nm, int nsys) {
  bool paired = a->paired_bs || a->paired_ar;
  if (a->sentence && nm > 1) check(nmt_fail(NMT_EUSAGE, "--sentence-level takes one metric"));
  if (a->sentence && (nsys > 1 || a->confidence || paired))
    check(nmt_fail(NMT_EUSAGE, "--sentence-level scores one system, without statistical tests"));
  if (a->paired_bs && a->paired_ar) check(nmt_fail(NMT_EUSAGE, "--paired-bs and --paired-ar exclude each other"));
  if (paired && nsys < 2) check(nmt_fail(NMT_EUSAGE, "paired tests need several systems given to -i"));
  if (a->confidence && nsys > 1) check(nmt_fail(NMT_EUSAGE, "use --paired-bs or --paired-ar for several systems"));
}

/* The references, then the systems (stdin without -i). */
static void open_streams(const args *a, streams *s) {
  int nrefs = a->refs.n;
  s->r = need(calloc((size_t)s->n, sizeof *s->r));
  s->name = need(calloc((size_t)s->n, sizeof *s->name));
  s->count = need(calloc((size_t)s->n, sizeof *s->count));
  s->line = need(calloc((size_t)s->n, sizeof *s->line));
  s->len = need(calloc((size_t)s->n, sizeof *s->len));
  for (int i = 0; i < s->n; i++) {
    const char *path = i < nrefs ? a->refs.v[i] : (a->input.n ? a->input.v[i - nrefs] : NULL);
    check(nmt_reader_open(&s->r[i], path));
    s->name[i] = nmt_reader_name(s->r[i]);
  }
}

static void close_streams(streams *s) {
  for (int i = 0; i < s->n; i++) nmt_reader_close(s->r[i]);
  free(s->r), free(s->name), free(s->count), free(s->line), free(s->len);
}

/* What the lines add up to: per system, the metrics' statistics one after another (width
 * numbers) summed and, when a test needs them, each line's kept (line by line, system by
 * system). */
typedef struct {
  int width;
  bool keep;
  double *sum, *seg, *kept;
  size_t nseg, kcap;
  long tokenized_looking; /* hypotheses ending in " ." */
} tally;

/* --sentence-level: the line's score, as sacreBLEU prints it. */
static void print_sentence(const args *a, const metric *m, const double *seg) {
  char verbose[256], sig[256], *out;
  double sc = metric_score(m, seg, false, verbose, sizeof verbose);
  signature(a, m, a->refs.n, false, 0, sig, sizeof sig);
  result r = {m->name, sig, verbose, sc, false, 0, 0};
  format_result(&r, (int)a->width, a->score_only, false, &out);
  puts(out);
  free(out);
}

/* One line of the references and of every system into the tally. */
static void score_line(const args *a, const streams *s, metric *ms, int nm, tally *t) {
  int nrefs = a->refs.n, nsys = s->n - nrefs, width = t->width;
  const char *const *refs = (const char *const *)s->line;
  for (int sy = 0; sy < nsys; sy++) {
    const char *hyp = s->line[nrefs + sy];
    size_t hl = s->len[nrefs + sy];
    if (hl >= 2 && hyp[hl - 1] == '.' && hyp[hl - 2] == ' ') t->tokenized_looking++;
    for (int m = 0, off = 0; m < nm; off += ms[m].nstats, m++) {
      int st = metric_segment(&ms[m], hyp, hl, refs, s->len, nrefs, t->seg + off);
      if (st == NMT_EINPUT) { /* bad input names its line; other failures stand alone */
        char why[256];
        snprintf(why, sizeof why, "%s", nmt_errmsg());
        nmt_fail(st, "%s:%ld: %s", s->name[nrefs + sy], s->count[nrefs + sy], why);
      }
      check(st);
      if (a->sentence) print_sentence(a, &ms[m], t->seg + off);
    }
    for (int k = 0; k < width; k++) t->sum[sy * width + k] += t->seg[k];
    if (!t->keep) continue;
    if ((t->nseg + 1) * nsys > t->kcap) {
      t->kcap = t->kcap ? t->kcap * 2 : 1024 * (size_t)nsys;
      t->kept = need(realloc(t->kept, sizeof *t->kept * t->kcap * width));
    }
    memcpy(t->kept + (t->nseg * nsys + sy) * width, t->seg, sizeof *t->seg * width);
  }
  t->nseg++;
}

/* One system: each metric's score and, with --confidence, its bootstrap interval. */
static void report_one(const args *a, metric *ms, int nm, const tally *t, bool json) {
  char *lines[3];
  for (int m = 0, off = 0; m < nm; off += ms[m].nstats, m++) {
    char verbose[256], sig[256];
    int ns = ms[m].nstats;
    result r = {ms[m].name, sig, verbose, metric_score(&ms[m], t->sum + off, false, verbose, sizeof verbose), false, 0, 0};
    if (a->confidence) {
      double *st_m = need(malloc(sizeof *st_m * t->nseg * ns)), *scores = need(malloc(sizeof *scores * a->confidence_n));
      for (size_t i = 0; i < t->nseg; i++) memcpy(st_m + i * ns, t->kept + i * t->width + off, sizeof *st_m * ns);
      const double *one[1] = {st_m};
      check(nmt_bootstrap_scores(one, 1, t->nseg, ns, (int)a->confidence_n, seed_value(), metric_score_fn, &ms[m], scores));
      nmt_estimate_ci(scores, (int)a->confidence_n, ms[m].kind == M_TER, &r.mean, &r.ci);
      r.has_ci = true;
      free(st_m), free(scores);
    }
    signature(a, &ms[m], a->refs.n, a->confidence, a->confidence_n, sig, sizeof sig);
    format_result(&r, (int)a->width, a->score_only, json, &lines[m]);
  }
  print_results(stdout, lines, nm, json);
}

int main(int argc, char **argv) {
  tool_init(PROG);
  args a;
  parse_args(&a, argc, argv);
  if (a.multibleu) return multi_bleu(&a);
  bool json = !strcmp(a.format, "json");
  if (!json && strcmp(a.format, "text")) check(nmt_fail(NMT_EUSAGE, "unknown format '%s' (json, text)", a.format));
  metric ms[3];
  int nm = open_metrics(&a, ms), nsys = a.input.n ? a.input.n : 1, nrefs = a.refs.n;
  check_modes(&a, nm, nsys);
  streams s = {.n = nrefs + nsys};
  open_streams(&a, &s);

  /* statistics: corpus sums, and per segment when a test needs them */
  tally t = {.keep = a.confidence || a.paired_bs || a.paired_ar};
  for (int m = 0; m < nm; m++) t.width += ms[m].nstats;
  t.sum = need(calloc((size_t)nsys * t.width, sizeof *t.sum)), t.seg = need(calloc((size_t)t.width, sizeof *t.seg));
  for (;;) {
    int done = 0;
    check(read_all(&s, &done));
    if (done) break;
    score_line(&a, &s, ms, nm, &t);
  }
  if (!t.nseg) check(nmt_fail(NMT_EINPUT, "%s: no input lines", s.name[nrefs]));
  if (ms[0].kind == M_BLEU && !a.force && !a.quiet && t.tokenized_looking >= 100)
    nmt_warn(PROG, "%ld lines end in a tokenized period (' .'): detokenize your output, or pass --force", t.tokenized_looking);
  if (!a.sentence && nsys == 1) report_one(&a, ms, nm, &t, json); /* --sentence-level printed line by line */
  if (!a.sentence && nsys > 1) report_systems(&a, ms, nm, nsys, nrefs, t.sum, t.width, t.kept, t.nseg, json);
  close_streams(&s);
  for (int m = 0; m < nm; m++) metric_close(&ms[m]);
  free(t.sum), free(t.seg), free(t.kept);
  free_args(&a);
  if (fflush(stdout)) check(nmt_fail_errno(NMT_EIO, "<stdout>: write error"));
  return 0;
}
