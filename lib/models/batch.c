/* Parallel corpus reading, epoch planning and batch filling; see models/batch.h. */
#include "models/batch.h"
#include "base/err.h"
#include "nn/rng.h"
#include "text/tstream_ids.h"
#include <stdlib.h>
#include <string.h>

/* Philox streams for data shuffling, apart from init (0) and dropout (step << 32). */
#define SHUFFLE_STREAM (1ull << 63)

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return NMT_OK;
  size_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return nmt_fail(NMT_EIO, "out of memory");
  *p = q;
  *cap = c;
  return NMT_OK;
}

/* One side's accumulating storage while reading. */
typedef struct {
  int **ids;
  long **off;
  size_t cap_ids, cap_off;
} side;

static int push_side(side *s, long n, const int *ids, int len) {
  long at = (*s->off)[n];
  if (grow((void **)s->ids, &s->cap_ids, (size_t)(at + len), sizeof(int)) ||
      grow((void **)s->off, &s->cap_off, (size_t)n + 2, sizeof(long)))
    return NMT_EIO;
  if (len) memcpy(*s->ids + at, ids, sizeof(int) * (size_t)len);
  (*s->off)[n + 1] = at + len;
  return NMT_OK;
}

static long count_rest(nmt_id_reader *r) {
  const int *ids;
  int n;
  while (nmt_id_reader_next(r, &ids, &n) == 1) {
  }
  return nmt_id_reader_count(r);
}

static int read_pairs(nmt_corpus *c, nmt_id_reader *rs, nmt_id_reader *rt, long max_length) {
  side ss = {&c->src, &c->src_off, 0, 0}, st_ = {&c->tgt, &c->tgt_off, 0, 0};
  const int *a, *b;
  int na, nb, st = NMT_OK;
  if (grow((void **)&c->src_off, &ss.cap_off, 1, sizeof(long)) ||
      grow((void **)&c->tgt_off, &st_.cap_off, 1, sizeof(long)))
    return NMT_EIO;
  c->src_off[0] = c->tgt_off[0] = 0;
  for (;;) {
    int ka = nmt_id_reader_next(rs, &a, &na), kb = ka < 0 ? 0 : nmt_id_reader_next(rt, &b, &nb);
    if (ka < 0 || kb < 0) { st = nmt_errcode(); break; }
    if (ka != kb) {
      long ns = ka ? count_rest(rs) : nmt_id_reader_count(rs), nt = kb ? count_rest(rt) : nmt_id_reader_count(rt);
      st = nmt_fail(NMT_EINPUT, "%s has %ld lines but %s has %ld", nmt_id_reader_name(rs), ns,
                    nmt_id_reader_name(rt), nt);
      break;
    }
    if (!ka) break;
    if (max_length > 0 && (na > max_length || nb > max_length)) {
      c->dropped++;
      continue;
    }
    if ((st = push_side(&ss, c->n, a, na)) || (st = push_side(&st_, c->n, b, nb))) break;
    c->n++;
  }
  if (!st && !c->n)
    st = nmt_fail(NMT_EINPUT, "%s, %s: no sentence pairs%s", nmt_id_reader_name(rs),
                  nmt_id_reader_name(rt), c->dropped ? " within --max-length" : "");
  return st;
}

int nmt_corpus_read(nmt_corpus *c, const char *src_path, const char *tgt_path,
                    const nmt_vocab *vs, const nmt_vocab *vt, nmt_segmenter *const seg[2],
                    long max_length) {
  memset(c, 0, sizeof *c);
  nmt_id_reader *rs = NULL, *rt = NULL;
  int st = nmt_id_reader_open(&rs, src_path, vs);
  if (!st) st = nmt_id_reader_open(&rt, tgt_path, vt);
  if (!st && seg) nmt_id_reader_segment(rs, seg[0]), nmt_id_reader_segment(rt, seg[1]);
  if (!st) st = read_pairs(c, rs, rt, max_length);
  nmt_id_reader_close(rs);
  nmt_id_reader_close(rt);
  if (st) nmt_corpus_free(c);
  return st;
}

void nmt_corpus_free(nmt_corpus *c) {
  free(c->src);
  free(c->tgt);
  free(c->src_off);
  free(c->tgt_off);
  memset(c, 0, sizeof *c);
}

/* ---- planning ---- */

void nmt_shuffle(long *a, long n, uint64_t seed, uint64_t stream) {
  for (long i = n - 1; i > 0; i--) {
    uint64_t r = ((uint64_t)nn_rng_u32(seed, stream, 2 * (uint64_t)i) << 32) |
                 nn_rng_u32(seed, stream, 2 * (uint64_t)i + 1);
    long j = (long)(r % (uint64_t)(i + 1)), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

static long len_of(const long *off, long i) { return off[i + 1] - off[i]; }

static const char *const sorts[] = {[NMT_SORT_SRC] = "src", [NMT_SORT_TRG] = "trg", [NMT_SORT_NONE] = "none"};

const char *nmt_batch_sort_name(nmt_batch_sort s) { return sorts[s]; }

int nmt_batch_sort_parse(const char *flag, const char *name, nmt_batch_sort *s) {
  for (int i = 0; i < (int)(sizeof sorts / sizeof *sorts); i++)
    if (!strcmp(name, sorts[i])) return *s = (nmt_batch_sort)i, NMT_OK;
  return nmt_fail(NMT_EUSAGE, "--%s must be src, trg or none (got '%s')", flag, name);
}

/* The window's order: one side's length, then the other's (sort_key). */
typedef struct {
  const long *first, *second; /* offsets */
} sort_key;

static int by_length(const void *x, const void *y, void *key) {
  const sort_key *k = key;
  long a = *(const long *)x, b = *(const long *)y;
  long d = len_of(k->first, a) - len_of(k->first, b);
  if (!d) d = len_of(k->second, a) - len_of(k->second, b);
  if (!d) d = a - b; /* total order: the same plan on every libc */
  return d < 0 ? -1 : d > 0;
}

/* Cut p->pairs into batches; returns the number. */
static long cut(nmt_plan *p, const nmt_corpus *c, const nmt_batch_opts *o) {
  long nb = 0, b = 0, maxt = 0;
  p->start[0] = 0;
  for (long i = 0; i < c->n; i++) {
    long t = len_of(c->tgt_off, p->pairs[i]) + 1;
    long mt = t > maxt ? t : maxt;
    if (b > 0 && (b >= o->max_sents || (o->max_words > 0 && (b + 1) * mt > o->max_words))) {
      p->start[++nb] = i;
      b = 0;
      mt = t;
    }
    b++;
    maxt = mt;
  }
  p->start[++nb] = c->n;
  return nb;
}

/* Shuffle the order of whole batches: rebuild pairs and start. */
static int shuffle_batches(nmt_plan *p, long n, uint64_t seed, long epoch) {
  long *order = malloc(sizeof *order * (size_t)p->nbatches);
  long *pairs = malloc(sizeof *pairs * (size_t)n), *start = malloc(sizeof *start * (size_t)(p->nbatches + 1));
  if (!order || !pairs || !start) {
    free(order), free(pairs), free(start);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  for (long b = 0; b < p->nbatches; b++) order[b] = b;
  nmt_shuffle(order, p->nbatches, seed, SHUFFLE_STREAM + 2 * (uint64_t)epoch + 1);
  long at = 0;
  for (long b = 0; b < p->nbatches; b++) {
    start[b] = at;
    for (long i = p->start[order[b]]; i < p->start[order[b] + 1]; i++) pairs[at++] = p->pairs[i];
  }
  start[p->nbatches] = at;
  free(order), free(p->pairs), free(p->start);
  p->pairs = pairs;
  p->start = start;
  return NMT_OK;
}

int nmt_plan_epoch(nmt_plan *p, const nmt_corpus *c, const nmt_batch_opts *o, uint64_t seed,
                   long epoch) {
  memset(p, 0, sizeof *p);
  p->pairs = malloc(sizeof *p->pairs * (size_t)c->n);
  p->start = malloc(sizeof *p->start * (size_t)(c->n + 1));
  if (!p->pairs || !p->start) {
    nmt_plan_free(p);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  for (long i = 0; i < c->n; i++) p->pairs[i] = i;
  if (o->shuffle) nmt_shuffle(p->pairs, c->n, seed, SHUFFLE_STREAM + 2 * (uint64_t)epoch);
  sort_key key = o->sort == NMT_SORT_SRC ? (sort_key){c->src_off, c->tgt_off} : (sort_key){c->tgt_off, c->src_off};
  for (long i = 0; o->window > 1 && o->sort != NMT_SORT_NONE && i < c->n; i += o->window)
    qsort_r(p->pairs + i, (size_t)(c->n - i < o->window ? c->n - i : o->window), sizeof(long), by_length, &key);
  p->nbatches = cut(p, c, o);
  int st = o->shuffle ? shuffle_batches(p, c->n, seed, epoch) : NMT_OK;
  if (st) nmt_plan_free(p);
  return st;
}

void nmt_plan_free(nmt_plan *p) {
  free(p->pairs);
  free(p->start);
  memset(p, 0, sizeof *p);
}

/* ---- batches ---- */

void nmt_seq_masks(const int *len, int T, int B, float *steps, float *rows) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      float real = t < len[b];
      if (steps) steps[(size_t)t * B + b] = real;
      if (rows) rows[(size_t)b * T + t] = real;
    }
}

/* Room for the ids (src, src_len, tgt_in, tgt_out, tgt_len) of a B×S, B×T batch. */
static int *own_ids(nmt_batch *b, int B, int S, int T) {
  size_t n = (size_t)S * B + 3 * (size_t)B + 2 * (size_t)T * B;
  return grow((void **)&b->own.ids, &b->own.cap_ids, n, sizeof(int)) ? NULL : b->own.ids;
}

void nmt_batch_set_masks(nmt_batch *b, int *tgt_len, float *masks) {
  int B = b->B, S = b->S, T = b->T;
  if (!b->tgt_len) { /* ids given: the targets count up to the first pad */
    for (int i = 0; i < B; i++)
      for (tgt_len[i] = 0; tgt_len[i] < T && b->tgt_out[(size_t)tgt_len[i] * B + i] != NMT_PAD;) tgt_len[i]++;
    b->tgt_len = tgt_len;
  }
  float *m = masks;
  nmt_seq_masks(b->src_len, S, B, m, m + (size_t)S * B);
  nmt_seq_masks(b->tgt_len, T, B, m + 2 * (size_t)S * B, m + (2 * (size_t)S + T) * B);
  b->src_mask = m, b->src_rows = m + (size_t)S * B;
  b->tgt_mask = m + 2 * (size_t)S * B, b->tgt_rows = m + (2 * (size_t)S + T) * B;
}

int nmt_batch_masks(nmt_batch *b) {
  int B = b->B, S = b->S, T = b->T;
  int *ids = b->tgt_len ? NULL : own_ids(b, B, S, T);
  if (!b->tgt_len && !ids) return NMT_EIO;
  if (grow((void **)&b->own.masks, &b->own.cap_masks, 2 * ((size_t)S + T) * B, sizeof(float))) return NMT_EIO;
  nmt_batch_set_masks(b, ids ? ids + (size_t)S * B + 2 * (size_t)T * B + B : NULL, b->own.masks);
  return NMT_OK;
}

int nmt_batch_fill(nmt_batch *b, const nmt_corpus *c, const long *pairs, int n) {
  int S = 0, T = 0;
  for (int i = 0; i < n; i++) {
    int s = (int)len_of(c->src_off, pairs[i]) + 1, t = (int)len_of(c->tgt_off, pairs[i]) + 1;
    S = s > S ? s : S;
    T = t > T ? t : T;
  }
  int *src = own_ids(b, n, S, T);
  if (!src) return NMT_EIO;
  int *tgt_in = src + (size_t)S * n, *tgt_out = tgt_in + (size_t)T * n, *src_len = tgt_out + (size_t)T * n;
  int *tgt_len = src_len + n;
  b->B = n, b->S = S, b->T = T, b->words = 0;
  b->src = src, b->src_len = src_len, b->tgt_in = tgt_in, b->tgt_out = tgt_out, b->tgt_len = tgt_len;
  for (int i = 0; i < n; i++) {
    const int *x = c->src + c->src_off[pairs[i]], *y = c->tgt + c->tgt_off[pairs[i]];
    int m = (int)len_of(c->src_off, pairs[i]), k = (int)len_of(c->tgt_off, pairs[i]);
    src_len[i] = m + 1, tgt_len[i] = k + 1;
    for (int s = 0; s < S; s++) src[s * n + i] = s < m ? x[s] : s == m ? NMT_EOS : NMT_PAD;
    for (int t = 0; t < T; t++) {
      tgt_in[t * n + i] = t == 0 ? NMT_BOS : t <= k ? y[t - 1] : NMT_PAD;
      tgt_out[t * n + i] = t < k ? y[t] : t == k ? NMT_EOS : NMT_PAD;
    }
    b->words += k + 1;
  }
  return nmt_batch_masks(b);
}

void nmt_batch_free(nmt_batch *b) {
  free(b->own.ids);
  free(b->own.masks);
  memset(b, 0, sizeof *b);
}
