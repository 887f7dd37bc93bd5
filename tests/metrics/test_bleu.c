/* nmt-bleu against sacreBLEU 2.6.0 and multi-bleu.perl: every row of
 * ../shared/refs/bleu/expected.tsv (run once per hyp/refs/options group),
 * plus unit checks of the library pieces. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/bleu.h"
#include "io/io.h"
#include "metrics/npy_rng.h"
#include "metrics/sacre_text.h"
#include "metrics/sacre_tok.h"
#include "metrics/ter.h"
#include "test.h"

typedef struct {
  char *col[9]; /* hyp, refs, options, metric, score_2dp, score_full, signature, line, detail */
} row;

static row *load_expected(size_t *n) {
  char *data;
  size_t len;
  *n = 0;
  if (nmt_read_file(t_shared("refs/bleu/expected.tsv"), &data, &len)) return NULL;
  row *rows = NULL;
  size_t cap = 0;
  char *save = NULL;
  for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    if (!strncmp(l, "hyp\t", 4)) continue;
    if (*n == cap) rows = realloc(rows, sizeof *rows * (cap = cap ? cap * 2 : 256));
    row *r = &rows[(*n)++];
    for (int c = 0; c < 9; c++) {
      r->col[c] = l;
      char *tab = strchr(l, '\t');
      if (tab) { *tab = 0; l = tab + 1; }
      else l += strlen(l);
    }
  }
  return rows; /* rows point into data, kept for the process */
}

/* The references column as command-line paths. multibleu/single/X.ref was a
 * copy of X.ref0 that refs/bleu does not ship. */
static void ref_args(const char *refs, char *out, size_t n) {
  out[0] = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", refs);
  char *save = NULL;
  for (char *r = strtok_r(buf, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
    char path[512];
    if (!strncmp(r, "multibleu/single/", 17)) snprintf(path, sizeof path, "multibleu/%s0", r + 17);
    else snprintf(path, sizeof path, "%s", r);
    strncat(out, path, n - strlen(out) - 2);
    strncat(out, " ", n - strlen(out) - 1);
  }
}

static bool same_group(const row *a, const row *b) {
  return !strcmp(a->col[0], b->col[0]) && !strcmp(a->col[1], b->col[1]) && !strcmp(a->col[2], b->col[2]);
}

/* Parse "NAME|SIG = SCORE VERBOSE" (leading alignment blanks allowed). */
static bool parse_text(char *l, char **name, char **sig, double *score, char **verbose) {
  while (*l == ' ') l++;
  char *bar = strchr(l, '|'), *eq = strstr(l, " = ");
  if (!bar || !eq) return false;
  *bar = 0;
  *eq = 0;
  *name = l;
  *sig = bar + 1;
  char *end;
  *score = strtod(eq + 3, &end);
  *verbose = *end == ' ' ? end + 1 : end;
  return true;
}

static void check_row(const row *r, const char *name, const char *sig, double score, const char *verbose) {
  double want = strtod(r->col[5], NULL);
  char got2[32];
  snprintf(got2, sizeof got2, "%.2f", score);
  bool ok = !strcmp(name, r->col[3]) && fabs(score - want) <= 1e-9 * (1 + fabs(want)) &&
            !strcmp(got2, r->col[4]) && (!r->col[8][0] || !strcmp(verbose, r->col[8])) &&
            (strncmp(r->col[6], "nrefs", 5) || !strcmp(sig, r->col[6]));
  if (!ok)
    T_FAIL("%s vs %s [%s] line %s: got %s %.17g '%s' '%s', want %s %s '%s' '%s'", r->col[0], r->col[1],
           r->col[2], r->col[7], name, score, sig, verbose, r->col[3], r->col[5], r->col[6], r->col[8]);
}

/* Run one group of rows with the given option filter; returns rows checked. */
static size_t run_groups(bool (*want)(const row *)) {
  size_t n, checked = 0;
  row *rows = load_expected(&n);
  if (!rows) { T_FAIL("cannot read expected.tsv"); return 0; }
  char dir[PATH_MAX];
  if (!realpath(t_shared("refs/bleu"), dir)) { T_FAIL("no refs/bleu"); return 0; }
  const char *out = t_tmp("out.txt");
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && same_group(&rows[i], &rows[j])) j++;
    if (!want(&rows[i])) { i = j; continue; }
    char refs[2048];
    ref_args(rows[i].col[1], refs, sizeof refs);
    const char *opt = rows[i].col[2];
    int st;
    if (!strncmp(opt, "multi-bleu.perl", 15))
      st = t_sh("cd '%s' && nmt-bleu --multi-bleu %s %s < %s > '%s'", dir, opt + 15, refs, rows[i].col[0], out);
    else
      st = t_sh("cd '%s' && nmt-bleu %s -i %s %s -w 17 -q --format text > '%s'", dir, refs, rows[i].col[0], opt, out);
    CHECK_INT(st, 0);
    char *data;
    size_t len;
    if (nmt_read_file(out, &data, &len)) { T_FAIL("no output"); return checked; }
    char *lines[4096];
    size_t nl = 0;
    char *save = NULL;
    for (char *l = strtok_r(data, "\n", &save); l && nl < 4096; l = strtok_r(NULL, "\n", &save)) lines[nl++] = l;
    for (size_t k = i; k < j; k++) {
      const row *r = &rows[k];
      char *name, *sig, *verbose;
      double score;
      if (!strncmp(opt, "multi-bleu.perl", 15)) {
        /* "BLEU = 66.46, 100.0/86.8/... (BP=...)" */
        char *comma = nl ? strstr(lines[0], ", ") : NULL;
        if (!comma) { T_FAIL("bad multi-bleu output"); break; }
        score = strtod(lines[0] + 7, NULL);
        char got2[32];
        snprintf(got2, sizeof got2, "%.2f", score);
        if (strcmp(got2, r->col[4]) || strcmp(comma + 2, r->col[8]))
          T_FAIL("%s %s: got '%s', want %s %s", r->col[0], opt, lines[0], r->col[4], r->col[8]);
      } else {
        size_t at = r->col[7][0] ? (size_t)atol(r->col[7]) - 1 : k - i;
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", at < nl ? lines[at] : "");
        if (!parse_text(copy, &name, &sig, &score, &verbose)) { T_FAIL("unparsable output line %zu", at + 1); continue; }
        check_row(r, name, sig, score, verbose);
      }
      checked++;
    }
    free(data);
    i = j;
  }
  return checked;
}

static bool is_sentence(const row *r) { return strstr(r->col[2], "--sentence-level") != NULL; }
static bool is_multibleu(const row *r) { return !strncmp(r->col[2], "multi-bleu.perl", 15); }
static bool is_corpus(const row *r) { return !is_sentence(r) && !is_multibleu(r); }

TEST(bleu_expected_corpus) { CHECK_INT(run_groups(is_corpus), 387); }
TEST(bleu_expected_sentence) { CHECK_INT(run_groups(is_sentence), 2048); }
TEST(bleu_expected_multibleu) { CHECK_INT(run_groups(is_multibleu), 18); }

static const char *tok13a(const char *s) {
  static nmt_strbuf out;
  nmt_tokenizer *t;
  nmt_tokenizer_new(&t, "13a");
  CHECK_INT(nmt_tokenize(t, s, strlen(s), &out), 0);
  nmt_tokenizer_free(t);
  /* collapse to single spaces like ' '.join(split()) */
  static char buf[512];
  nmt_span *sp = NULL;
  size_t cap = 0, n = 0, k = 0;
  CHECK_INT(nmt_py_split(out.s, out.len, &sp, &cap, &n), 0);
  for (size_t i = 0; i < n; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%.*s", i ? " " : "", (int)sp[i].len, out.s + sp[i].off);
  buf[k] = 0;
  free(sp);
  return buf;
}

TEST(bleu_tokenizer_13a) {
  CHECK_STR(tok13a("It's 1,000.50 dollars."), "It's 1,000.50 dollars .");
  CHECK_STR(tok13a("&quot;x&quot; &amp; y &lt;z&gt; &apos;w&apos;"), "\" x \" & y < z > & apos ; w & apos ;");
  CHECK_STR(tok13a("3.14 10-12 1/2 $5"), "3.14 10 - 12 1 / 2 $ 5");
  CHECK_STR(tok13a("<skipped> text"), "text");
}

TEST(bleu_python_text) {
  nmt_strbuf b = {0};
  CHECK_INT(nmt_py_lower("İSTANBUL ΟΔΟΣ", strlen("İSTANBUL ΟΔΟΣ"), &b), 0);
  CHECK(b.len == strlen("i̇stanbul οδος") && !memcmp(b.s, "i̇stanbul οδος", b.len));
  CHECK_INT(nmt_py_rstrip("a b\xc2\xa0\r\t ", 8), 3);
  nmt_strbuf_free(&b);
}

TEST(bleu_corpus_api) {
  const char *hyp[] = {"the cat sat on the mat", ""};
  const char *ref[] = {"the cat sat on the mat", "a dog"};
  nmt_bleu_opts o = nmt_bleu_defaults();
  nmt_bleu_score s;
  CHECK_INT(nmt_bleu_corpus(hyp, ref, 2, &o, &s), 0);
  CHECK_INT(s.sys_len, 6);
  CHECK_INT(s.ref_len, 8); /* an empty hypothesis still counts its reference length */
  CHECK_NEAR(s.score, 100 * exp(1 - 8.0 / 6), 1e-9);
}

/* Edit counts as sacreBLEU's lib_ter.translation_edit_rate gives them: a shift,
 * length ratios far from 1 (the beam widens, or the last row spans the rest). */
TEST(ter_edits) {
  static uint32_t many[2000];
  long e;
  CHECK_INT(nmt_ter_edits((const uint32_t[]){1, 2, 3, 4, 0}, 5, (const uint32_t[]){0, 1, 2, 3, 4}, 5, &e), 0);
  CHECK_INT(e, 1);
  CHECK_INT(nmt_ter_edits((const uint32_t[]){3, 1, 2, 9, 9, 4}, 6, (const uint32_t[]){1, 2, 3, 4, 5, 6}, 6, &e), 0);
  CHECK_INT(e, 4);
  for (int i = 0; i < 2000; i++) many[i] = 9;
  CHECK_INT(nmt_ter_edits((const uint32_t[]){7, 8}, 2, many, 2000, &e), 0);
  CHECK_INT(e, 2000);
  CHECK_INT(nmt_ter_edits(many, 2000, many, 2, &e), 0);
  CHECK_INT(e, 1998);
  CHECK_INT(nmt_ter_edits(many, 0, many, 5, &e), 0);
  CHECK_INT(e, 5);
}

/* numpy's SeedSequence reference data (random/tests/test_seed_sequence.py). */
TEST(bleu_numpy_seed_sequence) {
  const uint32_t in[4] = {3735928559u, 195939070u, 229505742u, 305419896u};
  uint32_t out[4];
  nmt_npy_seed_sequence(in, 4, out, 4);
  CHECK(out[0] == 3914649087u && out[1] == 576849849u && out[2] == 3593928901u && out[3] == 2229911004u);
}

/* default_rng(0xdeadbeaf)'s first raw PCG64 outputs, as computed by an
 * independent pure-Python transcription of SeedSequence + PCG64 (no numpy here
 * to ask; the SeedSequence half is pinned by numpy's own data above). */
TEST(bleu_numpy_pcg64) {
  nmt_npy_rng r;
  nmt_npy_rng_seed(&r, 0xdeadbeaf);
  CHECK(nmt_npy_next64(&r) == 0x60d24054e17a0698ULL);
  CHECK(nmt_npy_next64(&r) == 0xd5e79d89856e4f12ULL);
  CHECK(nmt_npy_next64(&r) == 0xd254972fe64bd782ULL);
}
