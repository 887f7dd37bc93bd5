/* sacreBLEU's TER (lib_ter.py) on word ids. Its beam keeps the edit distance to
 * a band of columns around the pseudo-diagonal; cells outside it stay infinite.
 * Only the band is stored (nh rows of the widest band's width), so memory is
 * O(length x beam), not nh x nr. Rows depend only on the hypothesis prefix
 * (shifts keep the length), so a new hypothesis restarts at the first word where
 * it differs from the stored one, as sacreBLEU's cache does; shift candidates
 * need no trace and roll two rows. Everything that decides a result is kept in
 * sacreBLEU's order. */
#include "metrics/ter.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "metrics/ngram_ids.h"

enum { MAX_SHIFT_SIZE = 10, MAX_SHIFT_DIST = 50, BEAM_WIDTH = 25, MAX_SHIFT_CANDIDATES = 1000 };
/* Above every finite cost (at most nh + nr, bounded by NMT_TER_MAX_WORDS). */
static const int32_t INF = INT32_MAX / 2;

typedef struct {
  int nh, nr, width;     /* width: the widest row's band */
  const uint32_t *ref;
  int *lo, *hi;          /* row i (1..nh) computes columns [lo[i], hi[i]) */
  int32_t *cost;         /* rows 1..nh: (nh, width); column j of row i at (i-1)*width + j-lo[i] */
  char *op;              /* the same layout: ' ' keep, 's' substitute, 'd' drop, 'i' insert */
  uint32_t *words;       /* the hypothesis whose rows are stored */
  int valid;             /* how many of its rows are (none before the first kept call) */
  int32_t *roll;         /* (2, width): rows of a shift candidate */
  int32_t *up;           /* width + 1: the previous row under the current band */
  char *trace;           /* nh + nr ops rewriting the stored hypothesis into ref */
  int ntrace;
} editd;

/* The bands, as sacreBLEU's beam: the width grows with the length ratio so
 * consecutive rows always overlap; the last row reaches the end. */
static void set_bands(editd *ed) {
  int nh = ed->nh, nr = ed->nr;
  double ratio = nh ? (double)nr / nh : 1;
  int beam = BEAM_WIDTH < ratio / 2 ? (int)ceil(ratio / 2 + BEAM_WIDTH) : BEAM_WIDTH;
  ed->width = 1;
  for (int i = 1; i <= nh; i++) {
    int diag = (int)floor(i * ratio);
    ed->lo[i] = diag - beam > 0 ? diag - beam : 0;
    ed->hi[i] = i == nh || diag + beam > nr + 1 ? nr + 1 : diag + beam;
    if (ed->hi[i] - ed->lo[i] > ed->width) ed->width = ed->hi[i] - ed->lo[i];
  }
}

/* Cost at column j of row i whose band is `row` (row 0: j insertions). */
static inline int32_t cell(const editd *ed, int i, const int32_t *row, int j) {
  if (i == 0) return j;
  return j >= ed->lo[i] && j < ed->hi[i] ? row[j - ed->lo[i]] : INF;
}

/* Row i for hypothesis word w from row i-1 (`up`); ops may be NULL.
 * Tercom prefers keep/substitute, then drop, then insert: strict comparisons
 * in that order, starting from an infinite cell. */
static void dp_row(const editd *ed, int i, uint32_t w, const int32_t *up, int32_t *row, char *ops) {
  int lo = ed->lo[i], n = ed->hi[i] - lo;
  int32_t *u = ed->up; /* u[k] = row i-1 at column lo-1+k, so the loop has no bounds tests */
  for (int k = 0; k <= n; k++) u[k] = lo - 1 + k < 0 ? INF : cell(ed, i - 1, up, lo - 1 + k);
  int32_t left = INF;
  int k = 0;
  if (lo == 0) { /* column 0: a drop, unconditionally */
    left = row[0] = u[1] + 1;
    if (ops) ops[0] = 'd';
    k = 1;
  }
  for (; k < n; k++) {
    bool same = w == ed->ref[lo + k - 1]; /* column lo+k's reference word */
    int32_t sub = u[k] + !same, del = u[k + 1] + 1, ins = left + 1, best = INF;
    if (ops) {
      char o = 'x';
      if (best > sub) { best = sub; o = same ? ' ' : 's'; }
      if (best > del) { best = del; o = 'd'; }
      if (best > ins) { best = ins; o = 'i'; }
      ops[k] = o;
    } else {
      best = sub < best ? sub : best;
      best = del < best ? del : best;
      best = ins < best ? ins : best;
    }
    left = row[k] = best;
  }
}

static int32_t *stored_row(const editd *ed, int i) { return i ? ed->cost + (size_t)(i - 1) * ed->width : NULL; }

/* Edit distance of h to the reference. keep: h's rows (and ops) replace the
 * stored ones; otherwise they roll through ed->roll. Either way the rows h
 * shares with the stored hypothesis are reused. */
static int32_t distance(editd *ed, const uint32_t *h, bool keep) {
  int nh = ed->nh, p = 0;
  while (p < ed->valid && ed->words[p] == h[p]) p++;
  const int32_t *up = stored_row(ed, p);
  int32_t *row = NULL;
  for (int i = p + 1; i <= nh; i++, up = row) {
    row = keep ? stored_row(ed, i) : ed->roll + (size_t)(i & 1) * ed->width;
    dp_row(ed, i, h[i - 1], up, row, keep ? ed->op + (size_t)(i - 1) * ed->width : NULL);
  }
  if (keep) { memcpy(ed->words, h, sizeof *h * (size_t)nh); ed->valid = nh; }
  return cell(ed, nh, p == nh ? stored_row(ed, nh) : row, ed->nr);
}

/* The stored hypothesis's trace, from its last cell back. Outside the band an
 * op is 'x', which the best path never meets (taken as a drop). */
static void make_trace(editd *ed) {
  int i = ed->nh, j = ed->nr, n = 0;
  while (i > 0 || j > 0) {
    char o = 'i';
    if (i > 0) o = j >= ed->lo[i] && j < ed->hi[i] ? ed->op[(size_t)(i - 1) * ed->width + j - ed->lo[i]] : 'x';
    ed->trace[n++] = o;
    if (o == ' ' || o == 's') { i--; j--; }
    else if (o == 'i') j--;
    else i--;
  }
  for (int a = 0, b = n - 1; a < b; a++, b--) { char t = ed->trace[a]; ed->trace[a] = ed->trace[b]; ed->trace[b] = t; }
  ed->ntrace = n;
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

/* Scratch of one nmt_ter_edits call: O(nh + nr) besides the band. */
typedef struct {
  editd ed;
  uint32_t *cur, *next, *tmp; /* hypotheses: this round's, the best shift, a candidate */
  int *align;                 /* reference position -> hypothesis position */
  char *herr, *rerr;
} ter_work;

/* One round of shift search on w->cur; returns the best gain (0 if none) and
 * writes the shifted words to w->next. */
static long shift_round(ter_work *w, int *checked) {
  editd *ed = &w->ed;
  const uint32_t *h = w->cur;
  int nh = ed->nh, nr = ed->nr, *align = w->align;
  char *herr = w->herr, *rerr = w->rerr;
  long pre = distance(ed, h, true);
  make_trace(ed);
  /* alignment from the flipped trace (rewriting ref into hyp) */
  int ph = -1, pr = -1, nherr = 0, nrerr = 0;
  for (int k = 0; k < ed->ntrace; k++) {
    char o = ed->trace[k];
    if (o == ' ' || o == 's') { ph++; pr++; align[pr] = ph; herr[nherr++] = rerr[nrerr++] = o == 's'; }
    else if (o == 'd') { ph++; herr[nherr++] = 1; } /* flipped: insertion of a hyp word */
    else { pr++; align[pr] = ph; rerr[nrerr++] = 1; }
  }
  cand best = {0};
  for (int sh = 0; sh < nh; sh++) {
    /* only start_r with |start_r - start_h| <= MAX_SHIFT_DIST, in sacreBLEU's order */
    int sr_end = sh + MAX_SHIFT_DIST < nr ? sh + MAX_SHIFT_DIST + 1 : nr;
    for (int sr = sh > MAX_SHIFT_DIST ? sh - MAX_SHIFT_DIST : 0; sr < sr_end; sr++) {
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
            perform_shift(h, nh, sh, len, idx, w->tmp);
            cand c = {pre - distance(ed, w->tmp, false), len, sh, idx, true};
            ++*checked;
            if (better(&c, &best)) { best = c; memcpy(w->next, w->tmp, sizeof *w->tmp * (size_t)nh); }
          }
          if (*checked >= MAX_SHIFT_CANDIDATES) return best.set ? best.score : 0;
        }
        if (nh == sh + len || nr == sr + len) break;
      }
    }
  }
  return best.set ? best.score : 0;
}

static void work_free(ter_work *w) {
  free(w->ed.lo); free(w->ed.hi); free(w->ed.cost); free(w->ed.op); free(w->ed.words);
  free(w->ed.roll); free(w->ed.up); free(w->ed.trace);
  free(w->cur); free(w->next); free(w->tmp); free(w->align); free(w->herr); free(w->rerr);
}

static int work_alloc(ter_work *w, int nh, int nr, const uint32_t *ref) {
  editd *ed = &w->ed;
  *w = (ter_work){.ed = {.nh = nh, .nr = nr, .ref = ref}};
  size_t h = (size_t)nh + 1, r = (size_t)nr + 1;
  ed->lo = malloc(sizeof *ed->lo * h);
  ed->hi = malloc(sizeof *ed->hi * h);
  if (ed->lo && ed->hi) set_bands(ed);
  size_t cells = (size_t)nh * ed->width; /* + 1 below: an empty hypothesis still gets non-NULL */
  ed->cost = malloc(sizeof *ed->cost * cells + 1);
  ed->op = malloc(cells + 1);
  ed->words = malloc(sizeof *ed->words * h);
  ed->roll = malloc(sizeof *ed->roll * 2 * (size_t)ed->width);
  ed->up = malloc(sizeof *ed->up * ((size_t)ed->width + 1));
  ed->trace = malloc(h + r);
  w->cur = malloc(sizeof *w->cur * h);
  w->next = malloc(sizeof *w->next * h);
  w->tmp = malloc(sizeof *w->tmp * h);
  w->align = malloc(sizeof *w->align * r);
  w->herr = malloc(h + r);
  w->rerr = malloc(h + r);
  if (ed->lo && ed->hi && ed->cost && ed->op && ed->words && ed->roll && ed->up && ed->trace && w->cur &&
      w->next && w->tmp && w->align && w->herr && w->rerr)
    return NMT_OK;
  work_free(w);
  return nmt_fail(NMT_EIO, "out of memory");
}

int nmt_ter_edits(const uint32_t *hyp, int nh, const uint32_t *ref, int nr, long *edits) {
  if (nr == 0) { *edits = nh; return NMT_OK; }
  ter_work w;
  int st = work_alloc(&w, nh, nr, ref);
  if (st) return st;
  memcpy(w.cur, hyp, sizeof *w.cur * (size_t)nh);
  long shifts = 0;
  int checked = 0;
  for (;;) {
    long delta = shift_round(&w, &checked);
    if (checked >= MAX_SHIFT_CANDIDATES || delta <= 0) break;
    shifts++;
    uint32_t *t = w.cur; w.cur = w.next; w.next = t;
  }
  *edits = shifts + distance(&w.ed, w.cur, false);
  work_free(&w);
  return NMT_OK;
}

struct nmt_ter {
  nmt_tercom_opts o;
  nmt_strbuf *text, tmp;
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
  for (int i = 0; i < t->ntext; i++) nmt_strbuf_free(&t->text[i]);
  free(t->text);
  nmt_strbuf_free(&t->tmp);
  free(t->tok);
  nmt_idmap_free(&t->words);
  free(t->ids);
  free(t);
}

int nmt_ter_segment(nmt_ter *t, const char *hyp, size_t hyp_len, const char *const *refs,
                    const size_t *ref_lens, int nrefs, double *stats) {
  if (t->ntext < nrefs + 1) {
    nmt_strbuf *text = realloc(t->text, sizeof *t->text * (size_t)(nrefs + 1));
    if (!text) return nmt_fail(NMT_EIO, "out of memory");
    t->text = text;
    memset(t->text + t->ntext, 0, sizeof *t->text * (size_t)(nrefs + 1 - t->ntext));
    t->ntext = nrefs + 1;
  }
  size_t total = 0;
  for (int r = 0; r <= nrefs; r++) {
    const char *s = r ? refs[r - 1] : hyp;
    size_t n = nmt_py_rstrip(s, r ? ref_lens[r - 1] : hyp_len);
    if (nmt_tercom_tokenize(&t->o, s, n, &t->text[r], &t->tmp)) return NMT_EIO;
    total += t->text[r].len / 2 + 1;
  }
  if (nmt_idmap_reset(&t->words, total, true)) return NMT_EIO;
  if (total > t->idcap) {
    uint32_t *ids = realloc(t->ids, sizeof *t->ids * total);
    if (!ids) return nmt_fail(NMT_EIO, "out of memory");
    t->ids = ids;
    t->idcap = total;
  }
  /* ids of every side, hypothesis first */
  size_t start[nrefs + 2], k = 0;
  for (int r = 0; r <= nrefs; r++) {
    start[r] = k;
    size_t nt;
    if (nmt_py_split(t->text[r].s, t->text[r].len, &t->tok, &t->tcap, &nt)) return NMT_EIO;
    if (nt > NMT_TER_MAX_WORDS) return nmt_fail(NMT_EINPUT, "TER: a line has more than %d words", NMT_TER_MAX_WORDS);
    for (size_t i = 0; i < nt; i++)
      t->ids[k++] = nmt_idmap_str(&t->words, t->text[r].s + t->tok[i].off, t->tok[i].len);
  }
  start[nrefs + 1] = k;
  int nh = (int)(start[1] - start[0]);
  long best = -1;
  double ref_lengths = 0;
  for (int r = 1; r <= nrefs; r++) {
    int nr = (int)(start[r + 1] - start[r]);
    long e;
    int st = nmt_ter_edits(t->ids, nh, t->ids + start[r], nr, &e);
    if (st) return st;
    ref_lengths += nr;
    if (best < 0 || e < best) best = e;
  }
  stats[0] = (double)best;
  stats[1] = ref_lengths / nrefs;
  return NMT_OK;
}

double nmt_ter_score(const double *st, int f32) {
  if (st[1] > 0) return f32 ? (double)(100 * ((float)st[0] / (float)st[1])) : 100 * (st[0] / st[1]);
  return st[0] > 0 ? 100.0 : 0.0;
}

void nmt_ter_signature(const nmt_ter *t, char *buf, size_t n) {
  snprintf(buf, n, "case:%s|tok:tercom|norm:%s|punct:%s|asian:%s", t->o.case_sensitive ? "mixed" : "lc",
           t->o.normalized ? "yes" : "no", t->o.no_punct ? "no" : "yes", t->o.asian_support ? "yes" : "no");
}
