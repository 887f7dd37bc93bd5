/* sacreBLEU's TER (lib_ter.py) on word ids. Its edit-distance cache only saves
 * time (rows depend on the prefix, and shifts keep the length), so it is left
 * out; everything that decides a result is kept in the same order. */
#include "ter.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "ngram_ids.h"

enum { MAX_SHIFT_SIZE = 10, MAX_SHIFT_DIST = 50, BEAM_WIDTH = 25, MAX_SHIFT_CANDIDATES = 1000 };
static const long INF = 1L << 40;

typedef struct {
  int nh, nr;
  const uint32_t *ref;
  long *cost; /* (nh+1) x (nr+1) */
  char *op;
  char *trace; /* nh + nr ops */
  int ntrace;
} editd;

/* Beam edit distance of hyp vs ed->ref; fills ed->trace (ops rewriting hyp into ref:
 * ' ' keep, 's' substitute, 'd' drop a hyp word, 'i' insert a ref word). */
static long edit_distance(editd *ed, const uint32_t *h) {
  int nh = ed->nh, nr = ed->nr, w = nr + 1;
  long *cost = ed->cost;
  char *op = ed->op;
  for (int j = 0; j <= nr; j++) { cost[j] = j; op[j] = 'i'; }
  for (size_t k = (size_t)w; k < (size_t)(nh + 1) * w; k++) { cost[k] = INF; op[k] = 'x'; }
  double ratio = nh ? (double)nr / nh : 1;
  int beam = BEAM_WIDTH < ratio / 2 ? (int)ceil(ratio / 2 + BEAM_WIDTH) : BEAM_WIDTH;
  for (int i = 1; i <= nh; i++) {
    int diag = (int)floor(i * ratio);
    int lo = diag - beam > 0 ? diag - beam : 0;
    int hi = diag + beam < nr + 1 ? diag + beam : nr + 1;
    if (i == nh) hi = nr + 1;
    long *row = cost + (size_t)i * w, *up = row - w;
    char *orow = op + (size_t)i * w;
    for (int j = lo; j < hi; j++) {
      if (j == 0) { row[0] = up[0] + 1; orow[0] = 'd'; continue; }
      bool same = h[i - 1] == ed->ref[j - 1];
      long c = up[j - 1] + (same ? 0 : 1);
      if (row[j] > c) { row[j] = c; orow[j] = same ? ' ' : 's'; }
      c = up[j] + 1;
      if (row[j] > c) { row[j] = c; orow[j] = 'd'; }
      c = row[j - 1] + 1;
      if (row[j] > c) { row[j] = c; orow[j] = 'i'; }
    }
  }
  /* trace, built backwards then reversed */
  int i = nh, j = nr, n = 0;
  while (i > 0 || j > 0) {
    char o = op[(size_t)i * w + j];
    ed->trace[n++] = o;
    if (o == ' ' || o == 's') { i--; j--; }
    else if (o == 'i') j--;
    else i--; /* 'd' ('x' cannot be on the best path) */
  }
  for (int a = 0, b = n - 1; a < b; a++, b--) { char t = ed->trace[a]; ed->trace[a] = ed->trace[b]; ed->trace[b] = t; }
  ed->ntrace = n;
  return cost[(size_t)nh * w + nr];
}

/* words[start..start+len) moved before position target (sacreBLEU's _perform_shift). */
static void perform_shift(const uint32_t *w, int n, int start, int len, int target, uint32_t *out) {
  int k = 0;
  if (target < start) {
    for (int i = 0; i < target; i++) out[k++] = w[i];
    for (int i = start; i < start + len; i++) out[k++] = w[i];
    for (int i = target; i < start; i++) out[k++] = w[i];
    for (int i = start + len; i < n; i++) out[k++] = w[i];
  } else if (target > start + len) {
    for (int i = 0; i < start; i++) out[k++] = w[i];
    for (int i = start + len; i < target; i++) out[k++] = w[i];
    for (int i = start; i < start + len; i++) out[k++] = w[i];
    for (int i = target; i < n; i++) out[k++] = w[i];
  } else {
    for (int i = 0; i < start; i++) out[k++] = w[i];
    for (int i = start + len; i < len + target && i < n; i++) out[k++] = w[i];
    for (int i = start; i < start + len; i++) out[k++] = w[i];
    for (int i = len + target; i < n; i++) out[k++] = w[i];
  }
}

typedef struct {
  long score;
  int len, start_h, idx; /* ranking: score, len, -start_h, -idx */
  bool set;
} cand;

static bool better(const cand *a, const cand *b) {
  if (!b->set) return true;
  if (a->score != b->score) return a->score > b->score;
  if (a->len != b->len) return a->len > b->len;
  if (a->start_h != b->start_h) return a->start_h < b->start_h;
  return a->idx < b->idx;
}

/* One round of shift search; returns the best gain (0 if none) and writes the
 * shifted words to best_words. */
static long shift_round(editd *ed, const uint32_t *h, int *checked, uint32_t *best_words,
                        uint32_t *tmp, int *align, char *herr, char *rerr) {
  int nh = ed->nh, nr = ed->nr;
  long pre = edit_distance(ed, h);
  /* alignment from the flipped trace (rewriting ref into hyp) */
  int ph = -1, pr = -1, nherr = 0, nrerr = 0;
  for (int k = 0; k < ed->ntrace; k++) {
    char o = ed->trace[k];
    if (o == ' ' || o == 's') { ph++; pr++; align[pr] = ph; herr[nherr++] = rerr[nrerr++] = o == 's'; }
    else if (o == 'd') { ph++; herr[nherr++] = 1; } /* flipped: insertion of a hyp word */
    else { pr++; align[pr] = ph; rerr[nrerr++] = 1; }
  }
  cand best = {0};
  for (int sh = 0; sh < nh; sh++)
    for (int sr = 0; sr < nr; sr++) {
      if (abs(sr - sh) > MAX_SHIFT_DIST) continue;
      for (int len = 0; h[sh + len] == ed->ref[sr + len] && len < MAX_SHIFT_SIZE;) {
        len++;
        /* candidate pair (sh, sr, len) */
        bool herrs = false, rerrs = false;
        for (int k = sh; k < sh + len && k < nherr; k++) herrs |= herr[k];
        for (int k = sr; k < sr + len && k < nrerr; k++) rerrs |= rerr[k];
        if (herrs && rerrs && !(sh <= align[sr] && align[sr] < sh + len)) {
          int prev_idx = -1;
          for (int off = -1; off < len; off++) {
            int idx;
            if (sr + off == -1) idx = 0;
            else if (sr + off < nr) idx = align[sr + off] + 1;
            else break;
            if (idx == prev_idx) continue;
            prev_idx = idx;
            perform_shift(h, nh, sh, len, idx, tmp);
            cand c = {pre - edit_distance(ed, tmp), len, sh, idx, true};
            ++*checked;
            if (better(&c, &best)) { best = c; memcpy(best_words, tmp, sizeof *tmp * (size_t)nh); }
          }
          if (*checked >= MAX_SHIFT_CANDIDATES) return best.set ? best.score : 0;
        }
        if (nh == sh + len || nr == sr + len) break;
      }
    }
  return best.set ? best.score : 0;
}

long nmt_ter_edits(const uint32_t *hyp, int nh, const uint32_t *ref, int nr) {
  if (nr == 0) return nh;
  editd ed = {nh, nr, ref, NULL, NULL, NULL, 0};
  size_t cells = (size_t)(nh + 1) * (nr + 1);
  ed.cost = malloc(cells * sizeof *ed.cost);
  ed.op = malloc(cells);
  ed.trace = malloc((size_t)(nh + nr + 1));
  uint32_t *cur = malloc(sizeof *cur * (size_t)(nh + 1)), *next = malloc(sizeof *next * (size_t)(nh + 1)),
           *tmp = malloc(sizeof *tmp * (size_t)(nh + 1));
  int *align = malloc(sizeof *align * (size_t)(nr + 1));
  char *herr = malloc((size_t)nh + nr + 1), *rerr = malloc((size_t)nh + nr + 1);
  if (!ed.cost || !ed.op || !ed.trace || !cur || !next || !tmp || !align || !herr || !rerr) abort();
  memcpy(cur, hyp, sizeof *cur * (size_t)nh);
  long shifts = 0;
  int checked = 0;
  for (;;) {
    long delta = shift_round(&ed, cur, &checked, next, tmp, align, herr, rerr);
    if (checked >= MAX_SHIFT_CANDIDATES || delta <= 0) break;
    shifts++;
    uint32_t *t = cur; cur = next; next = t;
  }
  long edits = shifts + edit_distance(&ed, cur);
  free(ed.cost); free(ed.op); free(ed.trace); free(cur); free(next); free(tmp);
  free(align); free(herr); free(rerr);
  return edits;
}

struct nmt_ter {
  nmt_tercom_opts o;
  nmt_buf *text, tmp;
  int ntext;
  nmt_span *tok;
  size_t tcap;
  nmt_idmap words;
  uint32_t *ids;
  size_t idcap;
};

int nmt_ter_new(nmt_ter **out, const nmt_tercom_opts *o) {
  nmt_ter *t = calloc(1, sizeof *t);
  if (!t) return nmt_fail(NMT_EIO, "out of memory");
  t->o = *o;
  *out = t;
  return NMT_OK;
}

void nmt_ter_free(nmt_ter *t) {
  if (!t) return;
  for (int i = 0; i < t->ntext; i++) nmt_buf_free(&t->text[i]);
  free(t->text);
  nmt_buf_free(&t->tmp);
  free(t->tok);
  nmt_idmap_free(&t->words);
  free(t->ids);
  free(t);
}

void nmt_ter_segment(nmt_ter *t, const char *hyp, size_t hyp_len, const char *const *refs,
                     const size_t *ref_lens, int nrefs, double *stats) {
  if (t->ntext < nrefs + 1) {
    t->text = realloc(t->text, sizeof *t->text * (size_t)(nrefs + 1));
    if (!t->text) abort();
    memset(t->text + t->ntext, 0, sizeof *t->text * (size_t)(nrefs + 1 - t->ntext));
    t->ntext = nrefs + 1;
  }
  size_t total = 0;
  for (int r = 0; r <= nrefs; r++) {
    const char *s = r ? refs[r - 1] : hyp;
    size_t n = nmt_py_rstrip(s, r ? ref_lens[r - 1] : hyp_len);
    nmt_tercom_tokenize(&t->o, s, n, &t->text[r], &t->tmp);
    total += t->text[r].n / 2 + 1;
  }
  nmt_idmap_reset(&t->words, total);
  if (total > t->idcap) {
    t->idcap = total;
    t->ids = realloc(t->ids, sizeof *t->ids * total);
    if (!t->ids) abort();
  }
  /* ids of every side, hypothesis first */
  size_t start[nrefs + 2], k = 0;
  for (int r = 0; r <= nrefs; r++) {
    start[r] = k;
    size_t nt = nmt_py_split(t->text[r].p, t->text[r].n, &t->tok, &t->tcap);
    for (size_t i = 0; i < nt; i++)
      t->ids[k++] = nmt_idmap_str(&t->words, t->text[r].p + t->tok[i].off, t->tok[i].len);
  }
  start[nrefs + 1] = k;
  int nh = (int)(start[1] - start[0]);
  long best = -1;
  double ref_lengths = 0;
  for (int r = 1; r <= nrefs; r++) {
    int nr = (int)(start[r + 1] - start[r]);
    long e = nmt_ter_edits(t->ids, nh, t->ids + start[r], nr);
    ref_lengths += nr;
    if (best < 0 || e < best) best = e;
  }
  stats[0] = (double)best;
  stats[1] = ref_lengths / nrefs;
}

double nmt_ter_score(const double *st, int f32) {
  if (st[1] > 0) return f32 ? (double)(100 * ((float)st[0] / (float)st[1])) : 100 * (st[0] / st[1]);
  return st[0] > 0 ? 100.0 : 0.0;
}

void nmt_ter_signature(const nmt_ter *t, char *buf, size_t n) {
  snprintf(buf, n, "case:%s|tok:tercom|norm:%s|punct:%s|asian:%s", t->o.case_sensitive ? "mixed" : "lc",
           t->o.normalized ? "yes" : "no", t->o.no_punct ? "no" : "yes", t->o.asian_support ? "yes" : "no");
}
