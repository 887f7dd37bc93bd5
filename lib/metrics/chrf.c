/* sacreBLEU-compatible chrF/chrF++ (see metrics/chrf.h). Character n-grams are keyed by
 * code points, word n-grams by word ids, both through dense per-sentence ids. */
#include "metrics/chrf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "metrics/ngram_ids.h"
#include "metrics/sacre_text.h"

typedef struct {
  nmt_strbuf text;    /* the (lowercased) line; word spans point into it */
  uint32_t *cps;   /* code points (whitespace removed unless kept) */
  size_t ncp, cpcap;
  nmt_span *words; /* punctuation-split words */
  size_t nw, wcap;
} side;

struct nmt_chrf {
  nmt_chrf_opts o;
  int order;        /* char_order + word_order */
  side *sides;      /* [0] hypothesis */
  int nsides;
  nmt_span *tmp;
  size_t tcap;
  nmt_idmap words, grams;
  uint32_t *ids, *prev, *hyp_ids; /* hyp_ids: every hypothesis n-gram, order by order */
  size_t idcap, hcap;
  struct counts { uint32_t refcnt, rstamp, hits, hstamp; } *cnt; /* by n-gram id */
  size_t gcap;
};

nmt_chrf_opts nmt_chrf_defaults(void) {
  return (nmt_chrf_opts){.char_order = 6, .word_order = 0, .beta = 2};
}

int nmt_chrf_new(nmt_chrf **out, const nmt_chrf_opts *o) {
  if (o->char_order < 0 || o->word_order < 0 || o->char_order + o->word_order < 1 ||
      o->char_order + o->word_order > NMT_CHRF_MAX_ORDER)
    return nmt_fail(NMT_EUSAGE, "chrF orders must be >= 0 and sum to 1..%d", NMT_CHRF_MAX_ORDER);
  nmt_chrf *c = calloc(1, sizeof *c);
  if (!c) return nmt_fail(NMT_EIO, "out of memory");
  c->o = *o;
  c->order = o->char_order + o->word_order;
  *out = c;
  return NMT_OK;
}

void nmt_chrf_free(nmt_chrf *c) {
  if (!c) return;
  for (int i = 0; i < c->nsides; i++) {
    nmt_strbuf_free(&c->sides[i].text);
    free(c->sides[i].cps);
    free(c->sides[i].words);
  }
  free(c->sides); free(c->tmp);
  nmt_idmap_free(&c->words); nmt_idmap_free(&c->grams);
  free(c->ids); free(c->prev); free(c->hyp_ids);
  free(c->cnt);
  free(c);
}

int nmt_chrf_nstats(const nmt_chrf *c) { return 3 * c->order; }

/* p resized to n items of `size` bytes, or NULL (p kept) with the error recorded. */
static void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, n * size);
  if (!q) nmt_fail(NMT_EIO, "out of memory");
  return q;
}

static bool is_punct(char ch) { return ch && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", ch); }

static int add_word(side *s, size_t off, size_t len) {
  if (s->nw == s->wcap) {
    size_t cap = s->wcap ? s->wcap * 2 : 64;
    nmt_span *w = grow(s->words, cap, sizeof *w);
    if (!w) return NMT_EIO;
    s->words = w;
    s->wcap = cap;
  }
  s->words[s->nw++] = (nmt_span){(uint32_t)off, (uint32_t)len};
  return NMT_OK;
}

static int prepare(nmt_chrf *c, side *s, const char *line, size_t n) {
  if (c->o.lowercase) { if (nmt_py_lower(line, n, &s->text)) return NMT_EIO; }
  else { s->text.len = 0; if (nmt_strbuf_add(&s->text, line, n)) return NMT_EIO; }
  const char *p = s->text.s;
  n = s->text.len;
  if (s->cpcap < n + 1) {
    uint32_t *cps = grow(s->cps, n + 1, sizeof *cps);
    if (!cps) return NMT_EIO;
    s->cps = cps;
    s->cpcap = n + 1;
  }
  s->ncp = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp = nmt_utf8_next(p, &i);
    if (c->o.whitespace || !nmt_py_space(cp)) s->cps[s->ncp++] = cp;
  }
  s->nw = 0;
  if (!c->o.word_order) return NMT_OK;
  /* chrF++ words: a trailing, else a leading, punctuation mark is split off */
  size_t nt;
  if (nmt_py_split(p, n, &c->tmp, &c->tcap, &nt)) return NMT_EIO;
  for (size_t k = 0; k < nt; k++) {
    size_t off = c->tmp[k].off, len = c->tmp[k].len, j = off;
    nmt_utf8_next(p, &j);
    int st;
    if (j == off + len) st = add_word(s, off, len); /* one code point */
    else if (is_punct(p[off + len - 1])) st = add_word(s, off, len - 1) || add_word(s, off + len - 1, 1);
    else if (is_punct(p[off])) st = add_word(s, off, 1) || add_word(s, off + 1, len - 1);
    else st = add_word(s, off, len);
    if (st) return NMT_EIO;
  }
  return NMT_OK;
}

/* Calls back with each n-gram id of side s, order by order (o = 0..order-1). */
#define FOR_EACH_GRAM(c, sd, o, id, body)                                                   \
  do {                                                                                    \
    bool fresh_;                                                                          \
    for (int o = 0; o < (c)->order; o++) {                                                \
      bool word_ = o >= (c)->o.char_order;                                                \
      int n_ = word_ ? o - (c)->o.char_order + 1 : o + 1;                                \
      size_t len_ = word_ ? (sd)->nw : (sd)->ncp;                                           \
      if (word_ && n_ == 1)                                                               \
        for (size_t i_ = 0; i_ < len_; i_++)                                              \
          (c)->ids[i_] = nmt_idmap_str(&(c)->words, (sd)->text.s + (sd)->words[i_].off,     \
                                       (sd)->words[i_].len);                               \
      for (size_t i_ = 0; i_ + n_ <= len_; i_++) {                                        \
        uint32_t item_ = word_ ? (c)->ids[i_ + n_ - 1] : (sd)->cps[i_ + n_ - 1];           \
        uint32_t pre_ = n_ == 1 ? UINT32_MAX : (c)->prev[i_];                             \
        uint32_t id = nmt_idmap_key(&(c)->grams, nmt_ngram_key(pre_, item_, word_), &fresh_); \
        (c)->prev[i_] = id;                                                               \
        if (fresh_) (c)->cnt[id] = (struct counts){0, 0, 0, 0};                     \
        body                                                                              \
      }                                                                                   \
    }                                                                                     \
  } while (0)

double nmt_chrf_score(const nmt_chrf *c, const double *st, bool f32) {
  const double eps = 1e-16;
  double factor = (double)c->o.beta * c->o.beta, score = 0, avg_prec = 0, avg_rec = 0;
  int eff = 0;
  for (int i = 0; i < c->order; i++) {
    double n_hyp = st[3 * i], n_ref = st[3 * i + 1], n_match = st[3 * i + 2];
    double prec = n_hyp > 0 ? (f32 ? (double)((float)n_match / (float)n_hyp) : n_match / n_hyp) : eps;
    double rec = n_ref > 0 ? (f32 ? (double)((float)n_match / (float)n_ref) : n_match / n_ref) : eps;
    double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    if (n_hyp > 0 && n_ref > 0) { avg_prec += prec; avg_rec += rec; eff++; }
  }
  if (c->o.eps_smoothing) return 100 * score / c->order;
  if (eff == 0) avg_prec = avg_rec = 0;
  else { avg_prec /= eff; avg_rec /= eff; }
  if (avg_prec + avg_rec == 0) return 0.0;
  score = (1 + factor) * avg_prec * avg_rec;
  score /= (factor * avg_prec) + avg_rec;
  return 100 * score;
}

int nmt_chrf_segment(nmt_chrf *c, const char *hyp, size_t hyp_len, const char *const *refs,
                     const size_t *ref_lens, int nrefs, double *stats) {
  if (c->nsides < nrefs + 1) {
    side *sides = grow(c->sides, (size_t)nrefs + 1, sizeof *sides);
    if (!sides) return NMT_EIO;
    c->sides = sides;
    memset(c->sides + c->nsides, 0, (size_t)(nrefs + 1 - c->nsides) * sizeof *c->sides);
    c->nsides = nrefs + 1;
  }
  size_t grams = 0, words = 0, longest = 0;
  for (int r = 0; r <= nrefs; r++) {
    side *s = &c->sides[r];
    if (prepare(c, s, r ? refs[r - 1] : hyp, r ? ref_lens[r - 1] : hyp_len)) return NMT_EIO;
    grams += s->ncp * (size_t)c->o.char_order + s->nw * (size_t)c->o.word_order;
    words += s->nw;
    if (s->ncp > longest) longest = s->ncp;
    if (s->nw > longest) longest = s->nw;
  }
  if (nmt_idmap_reset(&c->words, words, true) || nmt_idmap_reset(&c->grams, grams, false)) return NMT_EIO;
  if (longest + 1 > c->idcap) {
    uint32_t *ids = grow(c->ids, longest + 1, sizeof *ids);
    if (ids) c->ids = ids;
    uint32_t *prev = grow(c->prev, longest + 1, sizeof *prev);
    if (prev) c->prev = prev;
    if (!ids || !prev) return NMT_EIO;
    c->idcap = longest + 1;
  }
  if (grams + 1 > c->gcap) {
    struct counts *cnt = grow(c->cnt, grams + 1, sizeof *cnt);
    if (!cnt) return NMT_EIO;
    c->cnt = cnt;
    c->gcap = grams + 1;
  }
  /* hypothesis n-gram ids once, in order */
  const side *h = &c->sides[0];
  size_t hn = h->ncp * (size_t)c->o.char_order + h->nw * (size_t)c->o.word_order + 1;
  if (hn > c->hcap) {
    uint32_t *hyp_ids = grow(c->hyp_ids, hn, sizeof *hyp_ids);
    if (!hyp_ids) return NMT_EIO;
    c->hyp_ids = hyp_ids;
    c->hcap = hn;
  }
  size_t nh = 0, hyp_count[NMT_CHRF_MAX_ORDER] = {0};
  FOR_EACH_GRAM(c, h, o, id, { c->hyp_ids[nh++] = id; hyp_count[o]++; });

  double best_f = -1.0, cur[3 * NMT_CHRF_MAX_ORDER];
  for (int r = 1; r <= nrefs; r++) {
    const side *s = &c->sides[r];
    size_t ref_count[NMT_CHRF_MAX_ORDER] = {0}, match[NMT_CHRF_MAX_ORDER] = {0};
    FOR_EACH_GRAM(c, s, o, id, {
      struct counts *k = &c->cnt[id];
      if (k->rstamp != (uint32_t)r) { k->rstamp = (uint32_t)r; k->refcnt = 0; }
      k->refcnt++;
      ref_count[o]++;
    });
    size_t k = 0;
    for (int o = 0; o < c->order; o++)
      for (size_t i = 0; i < hyp_count[o]; i++) {
        struct counts *e = &c->cnt[c->hyp_ids[k++]];
        if (e->hstamp != (uint32_t)r) { e->hstamp = (uint32_t)r; e->hits = 0; }
        uint32_t avail = e->rstamp == (uint32_t)r ? e->refcnt : 0;
        if (e->hits < avail) { e->hits++; match[o]++; }
      }
    for (int o = 0; o < c->order; o++) {
      cur[3 * o] = ref_count[o] ? (double)hyp_count[o] : 0; /* no reference n-grams: no hits counted */
      cur[3 * o + 1] = (double)ref_count[o];
      cur[3 * o + 2] = (double)match[o];
    }
    double f = nmt_chrf_score(c, cur, false);
    if (f > best_f) {
      best_f = f;
      memcpy(stats, cur, sizeof(double) * 3 * (size_t)c->order);
    }
  }
  return NMT_OK;
}

void nmt_chrf_name(const nmt_chrf *c, char *buf, size_t n) {
  int k = snprintf(buf, n, "chrF%d", c->o.beta);
  for (int i = 0; i < c->o.word_order && (size_t)k + 1 < n; i++) buf[k++] = '+', buf[k] = 0;
}

void nmt_chrf_signature(const nmt_chrf *c, char *buf, size_t n) {
  snprintf(buf, n, "case:%s|eff:%s|nc:%d|nw:%d|space:%s", c->o.lowercase ? "lc" : "mixed",
           c->o.eps_smoothing ? "no" : "yes", c->o.char_order, c->o.word_order,
           c->o.whitespace ? "yes" : "no");
}
