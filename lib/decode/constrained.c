/* Constrained beam search (dynamic beam allocation); see decode/constrained.h. */
#include "decode/constrained.h"
#include "base/err.h"
#include "text/vocab.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int tok[NMT_CONS_MAX];
  bool seq[NMT_CONS_MAX]; /* a phrase goes on after this token */
  int n;
} phrases;

typedef struct {
  float score;
  int row, tok, bank;
} cand;

struct nmt_cons {
  phrases *p; /* (B) */
  const bool *joins; /* nmt_search_opts.joins */
  cand *buf;  /* the candidates of one sentence */
  int cap;
};

/* A hypothesis's progress: the tokens met (bit i: tok[i]), the last one met (-1: none), and
 * whether its last token joins the next (inside a word: no phrase starts there). */
typedef struct {
  uint64_t met;
  int last;
  bool glued;
} state;

static uint64_t all(const phrases *p) { return p->n >= 64 ? ~0ull : (1ull << p->n) - 1; }

/* Sockeye's ConstrainedHypothesis.advance, where a phrase starts only at a word's start. */
static state step(const nmt_cons *c, const phrases *p, state s, int w) {
  bool glued = s.glued;
  s.glued = c->joins && c->joins[w];
  if (s.last >= 0 && p->seq[s.last]) { /* inside a phrase: its next token, or it unwinds */
    if (w == p->tok[s.last + 1]) return (state){s.met | 1ull << (s.last + 1), s.last + 1, s.glued};
    for (int i = s.last; i >= 0 && p->seq[i]; i--) s.met &= ~(1ull << i);
    return (state){s.met, -1, s.glued};
  }
  for (int i = 0; i < p->n && !glued; i++)
    if (p->tok[i] == w && (i == 0 || !p->seq[i - 1]) && !(s.met >> i & 1))
      return (state){s.met | 1ull << i, i, s.glued};
  return s;
}

static state replay(const nmt_cons *c, const phrases *p, const int *ids, int n) {
  state s = {0, -1, false};
  for (int i = 0; i < n; i++) s = step(c, p, s, ids[i]);
  return s;
}

int nmt_cons_new(nmt_cons **c, const nmt_sent *in, int B, int K, const bool *joins) {
  *c = NULL;
  bool any = false;
  for (int b = 0; b < B; b++) any |= in[b].cons_n > 0;
  if (!any) return NMT_OK;
  nmt_cons *x = calloc(1, sizeof *x);
  if (!x) return nmt_fail(NMT_EIO, "out of memory");
  x->cap = 2 * K + K * (NMT_CONS_MAX + 1), x->joins = joins;
  x->p = calloc((size_t)B, sizeof *x->p);
  x->buf = malloc(sizeof *x->buf * (size_t)x->cap);
  int st = x->p && x->buf ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B && !st; b++) {
    phrases *p = &x->p[b];
    for (int i = 0; i < in[b].cons_n && !st; i++) {
      int w = in[b].cons[i];
      if (w < 0) continue; /* a phrase's end */
      if (p->n == NMT_CONS_MAX) st = nmt_fail(NMT_EUSAGE, "more than %d constraint tokens", NMT_CONS_MAX);
      else p->tok[p->n] = w, p->seq[p->n++] = i + 1 < in[b].cons_n && in[b].cons[i + 1] >= 0;
    }
  }
  if (st) nmt_cons_free(x);
  else *c = x;
  return st;
}

void nmt_cons_free(nmt_cons *c) {
  if (!c) return;
  free(c->p), free(c->buf), free(c);
}

bool nmt_cons_has(const nmt_cons *c, int i) { return c && c->p[i].n > 0; }

bool nmt_cons_met(const nmt_cons *c, int i, const int *ids, int n) {
  return !nmt_cons_has(c, i) || replay(c, &c->p[i], ids, n).met == all(&c->p[i]);
}

/* Candidate (k, w) of row k in state s, unless it is </s> before every constraint is met. */
static void add(nmt_cons *c, int *n, const phrases *p, const nmt_cons_rows *r, int k, state s, int w) {
  float v = r->base[k] + r->logp[(size_t)k * r->V + w];
  if (*n >= c->cap || v == -INFINITY || w == NMT_PAD || (w == NMT_EOS && s.met != all(p))) return;
  c->buf[(*n)++] = (cand){v, k, w, __builtin_popcountll(w == NMT_EOS ? s.met : step(c, p, s, w).met)};
}

/* Row k's allowed constraint tokens and its best single token. */
static void add_row(nmt_cons *c, int *n, const phrases *p, const nmt_cons_rows *r, int k, state s) {
  if (s.last >= 0 && p->seq[s.last]) add(c, n, p, r, k, s, p->tok[s.last + 1]);
  else if (!s.glued)
    for (int i = 0; i < p->n; i++)
      if (!(s.met >> i & 1) && (i == 0 || !p->seq[i - 1])) add(c, n, p, r, k, s, p->tok[i]);
  const float *row = r->logp + (size_t)k * r->V;
  int best = -1;
  for (int v = 0; v < r->V; v++)
    if (v != NMT_PAD && (v != NMT_EOS || s.met == all(p)) && (best < 0 || row[v] > row[best])) best = v;
  if (best >= 0) add(c, n, p, r, k, s, best);
}

static int by_score(const void *x, const void *y) {
  const cand *a = x, *b = y;
  if (a->score != b->score) return a->score > b->score ? -1 : 1;
  return a->row != b->row ? a->row - b->row : a->tok - b->tok;
}

/* Sockeye's get_bank_sizes: cap over C + 1 banks, the remainder to the last; moving down,
 * a bank's slots beyond its candidates go to the bank below. */
static void bank_sizes(int *size, const int *count, int banks, int cap) {
  for (int i = 0; i < banks; i++) size[i] = cap / banks;
  size[banks - 1] += cap - cap / banks * banks;
  for (int i = banks - 1; i >= 0; i--) {
    int over = size[i] - count[i];
    if (over > 0) size[i] -= over, size[(i - 1 + banks) % banks] += over;
  }
}

void nmt_cons_select(nmt_cons *c, int i, const nmt_cons_rows *r, int cap, float *score, int *index, int k2) {
  const phrases *p = &c->p[i];
  int n = 0, V = r->V, banks = p->n + 1;
  for (int j = 0; j < k2 && index[j] >= 0; j++) {
    int k = index[j] / V;
    add(c, &n, p, r, k, replay(c, p, r->hist + (size_t)k * r->stride, r->t), index[j] % V);
  }
  for (int k = 0; k < r->K; k++)
    if (r->base[k] != -INFINITY) add_row(c, &n, p, r, k, replay(c, p, r->hist + (size_t)k * r->stride, r->t));
  qsort(c->buf, (size_t)n, sizeof *c->buf, by_score);
  int m = 0, count[NMT_CONS_MAX + 1] = {0}, size[NMT_CONS_MAX + 1] = {0};
  for (int j = 0; j < n; j++) /* duplicates are neighbours: the same score */
    if (!m || c->buf[j].row != c->buf[m - 1].row || c->buf[j].tok != c->buf[m - 1].tok) c->buf[m++] = c->buf[j];
  for (int j = 0; j < m; j++) count[c->buf[j].bank]++;
  bank_sizes(size, count, banks, cap);
  int out = 0;
  memset(count, 0, sizeof count);
  for (int j = 0; j < m && out < cap && out < k2; j++) {
    const cand *x = &c->buf[j];
    if (count[x->bank] >= size[x->bank]) continue;
    count[x->bank]++;
    score[out] = x->score, index[out++] = x->row * V + x->tok;
  }
  for (; out < k2; out++) index[out] = -1;
}

int nmt_cons_retry(nmt_dec *d, const nmt_models *e, const nmt_sent *in, int B, const nmt_search_opts *o,
                   nmt_nbest *out) {
  int n = 0, st = NMT_OK;
  for (int b = 0; b < B; b++) n += in[b].cons_n > 0 && !out[b].n;
  if (!n) return NMT_OK;
  nmt_sent *again = malloc(sizeof *again * (size_t)n);
  nmt_nbest *res = malloc(sizeof *res * (size_t)n);
  if (!again || !res) st = nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0, j = 0; b < B && !st; b++)
    if (in[b].cons_n > 0 && !out[b].n) again[j] = in[b], again[j].cons = NULL, again[j++].cons_n = 0;
  if (!st) st = nmt_search_sents(d, e, again, n, o, res);
  for (int b = 0, j = 0; b < B && !st; b++)
    if (in[b].cons_n > 0 && !out[b].n) nmt_nbest_free(&out[b]), out[b] = res[j++], out[b].unmet = true;
  free(again), free(res);
  return st;
}
