/* sacreBLEU-compatible BLEU (see metrics/bleu.h). N-grams get dense per-sentence ids
 * (metrics/ngram_ids.h), so clipped counts are flat-array lookups. */
#include "metrics/bleu.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "metrics/ngram_ids.h"
#include "metrics/sacre_text.h"
#include "metrics/sacre_tok.h"

typedef struct {
  nmt_strbuf text;   /* tokenized line; token spans point into it */
  nmt_span *tok;
  size_t ntok, tcap;
} side;

struct nmt_bleu {
  nmt_bleu_opts o;
  int smooth;     /* index into smooth_names */
  double smooth_value;
  nmt_tokenizer *tok;
  nmt_strbuf low;
  side *sides;    /* [0] hypothesis, [1..] references */
  int nsides;
  nmt_idmap words, grams;
  uint32_t *ids, *prev;
  size_t idcap;
  uint32_t *refmax, *cur, *stamp, *hits;
  size_t gcap;
};

enum { SM_EXP, SM_FLOOR, SM_ADDK, SM_NONE };
static const char *const smooth_names[] = {"exp", "floor", "add-k", "none"};
static const double smooth_defaults[] = {0, 0.1, 1, 0};

nmt_bleu_opts nmt_bleu_defaults(void) {
  return (nmt_bleu_opts){.tokenize = "13a", .smooth = "exp", .smooth_value = -1};
}

int nmt_bleu_new(nmt_bleu **out, const nmt_bleu_opts *o) {
  nmt_bleu *b = calloc(1, sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  b->o = *o;
  const char *sm = o->smooth ? o->smooth : "exp";
  b->smooth = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(sm, smooth_names[i])) b->smooth = i;
  if (b->smooth < 0) {
    free(b);
    return nmt_fail(NMT_EUSAGE, "unknown smoothing method '%s' (exp, floor, add-k, none)", sm);
  }
  b->smooth_value = o->smooth_value >= 0 ? o->smooth_value : smooth_defaults[b->smooth];
  if (!o->multibleu) {
    int st = nmt_tokenizer_new(&b->tok, o->tokenize ? o->tokenize : "13a");
    if (st) { free(b); return st; }
  }
  *out = b;
  return NMT_OK;
}

void nmt_bleu_free(nmt_bleu *b) {
  if (!b) return;
  nmt_tokenizer_free(b->tok);
  nmt_strbuf_free(&b->low);
  for (int i = 0; i < b->nsides; i++) { nmt_strbuf_free(&b->sides[i].text); free(b->sides[i].tok); }
  free(b->sides);
  nmt_idmap_free(&b->words);
  nmt_idmap_free(&b->grams);
  free(b->ids); free(b->prev);
  free(b->refmax); free(b->cur); free(b->stamp); free(b->hits);
  free(b);
}

static int grow_u32(uint32_t **p, size_t n) {
  uint32_t *q = realloc(*p, n * sizeof *q);
  if (!q) return nmt_fail(NMT_EIO, "out of memory");
  *p = q;
  return NMT_OK;
}

/* multi-bleu.perl: bytes, ASCII lowercase, split on [ \t\n\r\f\v]. */
static int split_ascii(side *s) {
  s->ntok = 0;
  const char *p = s->text.s;
  size_t n = s->text.len, i = 0;
  while (i < n) {
    while (i < n && strchr(" \t\n\r\f\v", p[i]) && p[i]) i++;
    if (i >= n) break;
    size_t st = i;
    while (i < n && !(strchr(" \t\n\r\f\v", p[i]) && p[i])) i++;
    if (s->ntok == s->tcap) {
      size_t cap = s->tcap ? s->tcap * 2 : 64;
      nmt_span *tok = realloc(s->tok, cap * sizeof *tok);
      if (!tok) return nmt_fail(NMT_EIO, "out of memory");
      s->tok = tok;
      s->tcap = cap;
    }
    s->tok[s->ntok++] = (nmt_span){(uint32_t)st, (uint32_t)(i - st)};
  }
  return NMT_OK;
}

static int prepare(nmt_bleu *b, side *s, const char *line, size_t n) {
  if (b->o.multibleu) {
    s->text.len = 0;
    if (nmt_strbuf_add(&s->text, line, n)) return NMT_EIO;
    if (b->o.lowercase)
      for (size_t i = 0; i < n; i++)
        if (s->text.s[i] >= 'A' && s->text.s[i] <= 'Z') s->text.s[i] += 32;
    return split_ascii(s);
  }
  n = nmt_py_rstrip(line, n);
  if (b->o.lowercase) {
    if (nmt_py_lower(line, n, &b->low)) return NMT_EIO;
    line = b->low.s;
    n = b->low.len;
  }
  if (nmt_tokenize(b->tok, line, n, &s->text)) return NMT_EIO;
  return nmt_py_split(s->text.s, s->text.len, &s->tok, &s->tcap, &s->ntok);
}

/* Ids of the side's tokens into b->ids; then, order by order, b->prev[i] holds
 * the id of the n-gram starting at i. visit() sees each n-gram id. */
static void word_ids(nmt_bleu *b, const side *s) {
  for (size_t i = 0; i < s->ntok; i++)
    b->ids[i] = nmt_idmap_str(&b->words, s->text.s + s->tok[i].off, s->tok[i].len);
}

static inline uint32_t gram_id(nmt_bleu *b, int n, size_t i, bool *fresh) {
  uint32_t pre = n == 1 ? UINT32_MAX : b->prev[i];
  uint32_t id = nmt_idmap_key(&b->grams, nmt_ngram_key(pre, b->ids[i + n - 1], 0), fresh);
  b->prev[i] = id;
  if (*fresh) b->refmax[id] = b->cur[id] = b->stamp[id] = b->hits[id] = 0;
  return id;
}

int nmt_bleu_segment(nmt_bleu *b, const char *hyp, size_t hyp_len, const char *const *refs,
                     const size_t *ref_lens, int nrefs, double *stats) {
  if (b->nsides < nrefs + 1) {
    side *sides = realloc(b->sides, (size_t)(nrefs + 1) * sizeof *sides);
    if (!sides) return nmt_fail(NMT_EIO, "out of memory");
    b->sides = sides;
    memset(b->sides + b->nsides, 0, (size_t)(nrefs + 1 - b->nsides) * sizeof *b->sides);
    b->nsides = nrefs + 1;
  }
  size_t total = 0, longest = 0;
  for (int r = 0; r <= nrefs; r++) {
    side *s = &b->sides[r];
    if (prepare(b, s, r ? refs[r - 1] : hyp, r ? ref_lens[r - 1] : hyp_len)) return NMT_EIO;
    total += s->ntok;
    if (s->ntok > longest) longest = s->ntok;
  }
  if (nmt_idmap_reset(&b->words, total, true) || nmt_idmap_reset(&b->grams, total * NMT_BLEU_ORDER, false))
    return NMT_EIO;
  if (longest + 1 > b->idcap) {
    if (grow_u32(&b->ids, longest + 1) || grow_u32(&b->prev, longest + 1)) return NMT_EIO;
    b->idcap = longest + 1;
  }
  size_t grams = total * NMT_BLEU_ORDER + 1;
  if (grams > b->gcap) {
    if (grow_u32(&b->refmax, grams) || grow_u32(&b->cur, grams) || grow_u32(&b->stamp, grams) ||
        grow_u32(&b->hits, grams))
      return NMT_EIO;
    b->gcap = grams;
  }
  bool fresh;
  /* reference counts: max over references of each n-gram's count */
  long hyp_n = (long)b->sides[0].ntok, closest = -1, closest_diff = -1;
  for (int r = 1; r <= nrefs; r++) {
    const side *s = &b->sides[r];
    long len = (long)s->ntok, diff = labs(hyp_n - len);
    if (closest_diff == -1 || diff < closest_diff) { closest_diff = diff; closest = len; }
    else if (diff == closest_diff && len < closest) closest = len;
    word_ids(b, s);
    for (int n = 1; n <= NMT_BLEU_ORDER; n++)
      for (size_t i = 0; i + n <= s->ntok; i++) {
        uint32_t id = gram_id(b, n, i, &fresh);
        if (b->stamp[id] != (uint32_t)r) { b->stamp[id] = (uint32_t)r; b->cur[id] = 0; }
        if (++b->cur[id] > b->refmax[id]) b->refmax[id] = b->cur[id];
      }
  }
  /* hypothesis: clipped matches */
  const side *h = &b->sides[0];
  word_ids(b, h);
  double *correct = stats + 2, *totals = stats + 2 + NMT_BLEU_ORDER;
  for (int n = 1; n <= NMT_BLEU_ORDER; n++) {
    long c = 0, t = 0;
    for (size_t i = 0; i + n <= h->ntok; i++) {
      uint32_t id = gram_id(b, n, i, &fresh);
      t++;
      if (b->hits[id] < b->refmax[id]) { b->hits[id]++; c++; }
    }
    correct[n - 1] = (double)c;
    totals[n - 1] = (double)t;
  }
  stats[0] = (double)hyp_n;
  stats[1] = (double)closest;
  return NMT_OK;
}

/* log floored at -9999999999 for zero, as sacreBLEU's my_log */
static double my_log(double x) { return x == 0.0 ? -9999999999.0 : log(x); }

void nmt_bleu_compute(const nmt_bleu *b, const double *stats, nmt_bleu_score *out) {
  memset(out, 0, sizeof *out);
  double correct[NMT_BLEU_ORDER], total[NMT_BLEU_ORDER];
  long sys_len = (long)stats[0], ref_len = (long)stats[1];
  bool any = false;
  for (int n = 0; n < NMT_BLEU_ORDER; n++) {
    correct[n] = stats[2 + n];
    total[n] = stats[2 + NMT_BLEU_ORDER + n];
    out->counts[n] = (long)correct[n];
    out->totals[n] = (long)total[n];
    if (correct[n] != 0) any = true;
  }
  out->sys_len = sys_len;
  out->ref_len = ref_len;
  out->ratio = ref_len ? (double)sys_len / (double)ref_len : 0;
  if (sys_len < ref_len) out->bp = sys_len > 0 ? exp(1.0 - (double)ref_len / (double)sys_len) : 0.0;
  else out->bp = 1.0;
  if (!any) return; /* no matches at all: BLEU 0 */
  double smooth_mteval = 1.0;
  int eff_order = NMT_BLEU_ORDER;
  for (int n = 1; n <= NMT_BLEU_ORDER; n++) {
    if (b->smooth == SM_ADDK && n > 1) {
      correct[n - 1] += b->smooth_value;
      total[n - 1] += b->smooth_value;
    }
    if (total[n - 1] == 0) break;
    if (b->o.effective_order) eff_order = n;
    if (correct[n - 1] == 0) {
      if (b->smooth == SM_EXP) {
        smooth_mteval *= 2;
        out->precisions[n - 1] = 100. / (smooth_mteval * total[n - 1]);
      } else if (b->smooth == SM_FLOOR)
        out->precisions[n - 1] = 100. * b->smooth_value / total[n - 1];
    } else
      out->precisions[n - 1] = 100. * correct[n - 1] / total[n - 1];
  }
  double sum = 0;
  for (int n = 0; n < eff_order; n++) sum += my_log(out->precisions[n]);
  out->score = out->bp * exp(sum / eff_order);
}

void nmt_bleu_signature(const nmt_bleu *b, char *buf, size_t n) {
  char smooth[32];
  if (b->smooth == SM_FLOOR || b->smooth == SM_ADDK)
    snprintf(smooth, sizeof smooth, "%s[%.2f]", smooth_names[b->smooth], b->smooth_value);
  else
    snprintf(smooth, sizeof smooth, "%s", smooth_names[b->smooth]);
  snprintf(buf, n, "case:%s|eff:%s|tok:%s|smooth:%s", b->o.lowercase ? "lc" : "mixed",
           b->o.effective_order ? "yes" : "no", b->tok ? nmt_tokenizer_name(b->tok) : "none", smooth);
}

void nmt_bleu_verbose(const nmt_bleu_score *s, char *buf, size_t n) {
  snprintf(buf, n, "%.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %ld ref_len = %ld)",
           s->precisions[0], s->precisions[1], s->precisions[2], s->precisions[3], s->bp, s->ratio,
           s->sys_len, s->ref_len);
}

int nmt_bleu_corpus(const char *const *hyps, const char *const *refs, size_t n,
                    const nmt_bleu_opts *o, nmt_bleu_score *out) {
  nmt_bleu *b;
  int st = nmt_bleu_new(&b, o);
  if (st) return st;
  double total[NMT_BLEU_NSTATS] = {0}, seg[NMT_BLEU_NSTATS];
  for (size_t i = 0; i < n; i++) {
    size_t rl = strlen(refs[i]);
    if ((st = nmt_bleu_segment(b, hyps[i], strlen(hyps[i]), &refs[i], &rl, 1, seg))) break;
    for (int k = 0; k < NMT_BLEU_NSTATS; k++) total[k] += seg[k];
  }
  if (!st) nmt_bleu_compute(b, total, out);
  nmt_bleu_free(b);
  return st;
}
