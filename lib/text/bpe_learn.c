/* Learning merges exactly as learn_bpe.py does, but touching only the words
 * that contain the merged pair. To give the same codes in every case this
 * mirrors subword-nmt's bookkeeping, quirks included: the pruned `stats` and
 * the full `big_stats` (a pruned pair that gains later is overwritten, not
 * added to), the per-word pair index, the recount when the best pruned pair
 * falls below the threshold, and ties broken by the larger (left, right)
 * string pair. The best pair comes from a max-heap with lazy deletion. */
#include "text/bpe.h"
#include "text/bpe_internal.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t count;
  int32_t pair;
} heap_ent;

typedef struct {
  int32_t *v;
  int32_t n, cap;
} ivec;

typedef struct {
  nmt_strmap *syms;
  /* words: symbols of word j are sym[off[j] .. off[j] + len[j]) */
  int32_t *sym;
  size_t *off;
  int32_t *len;
  int64_t *freq;
  int32_t nwords;
  /* pairs */
  nmt_u64map pair_ids;   /* (a << 32 | b) -> pair id */
  int32_t *pa, *pb;
  int64_t *stats, *big;  /* learn_bpe.py's stats (when present) and big_stats */
  uint8_t *present, *in_big;
  int32_t *present_pos;  /* index in `live` */
  ivec *words_of;        /* words ever indexed under the pair */
  int32_t npairs, pcap;
  ivec live;             /* pairs present in stats */
  ivec bigs;             /* pairs present in big_stats */
  nmt_u64map index;      /* (pair << 32 | word) -> count (int64 as uint64) */
  heap_ent *heap;
  size_t hn, hcap;
  int oom;
} learner;

static int ivec_push(ivec *v, int32_t x) {
  if (v->n == v->cap) {
    int32_t cap = v->cap ? v->cap * 2 : 4;
    int32_t *p = realloc(v->v, (size_t)cap * sizeof *p);
    if (!p) return -1;
    v->v = p;
    v->cap = cap;
  }
  v->v[v->n++] = x;
  return 0;
}

static int cmp_str(const nmt_strmap *m, int32_t x, int32_t y) {
  size_t lx = nmt_strmap_len(m, x), ly = nmt_strmap_len(m, y);
  int c = memcmp(nmt_strmap_str(m, x), nmt_strmap_str(m, y), lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

/* Python's (count, (left, right)) order; UTF-8 byte order is code point order. */
static int better(const learner *L, heap_ent x, heap_ent y) {
  if (x.count != y.count) return x.count > y.count;
  int c = cmp_str(L->syms, L->pa[x.pair], L->pa[y.pair]);
  if (!c) c = cmp_str(L->syms, L->pb[x.pair], L->pb[y.pair]);
  return c > 0;
}

static void heap_push(learner *L, int32_t pair) {
  if (L->hn == L->hcap) {
    size_t cap = L->hcap ? L->hcap * 2 : 1024;
    heap_ent *h = realloc(L->heap, cap * sizeof *h);
    if (!h) { L->oom = 1; return; }
    L->heap = h;
    L->hcap = cap;
  }
  heap_ent e = {L->stats[pair], pair};
  size_t i = L->hn++;
  while (i && better(L, e, L->heap[(i - 1) / 2])) {
    L->heap[i] = L->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  L->heap[i] = e;
}

static void heap_pop(learner *L) {
  heap_ent e = L->heap[--L->hn];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= L->hn) break;
    if (c + 1 < L->hn && better(L, L->heap[c + 1], L->heap[c])) c++;
    if (!better(L, L->heap[c], e)) break;
    L->heap[i] = L->heap[c];
    i = c;
  }
  if (L->hn) L->heap[i] = e;
}

static void heap_rebuild(learner *L) {
  L->hn = 0;
  for (int32_t k = 0; k < L->live.n; k++) heap_push(L, L->live.v[k]);
}

/* The best present pair, or -1 when stats is empty. */
static int32_t heap_best(learner *L) {
  while (L->hn) {
    heap_ent t = L->heap[0];
    if (L->present[t.pair] && L->stats[t.pair] == t.count) return t.pair;
    heap_pop(L);
  }
  return -1;
}

static int grow_array(void *pp, size_t elem, int32_t cap) {
  void *p = realloc(*(void **)pp, elem * (size_t)cap);
  if (!p) return -1;
  *(void **)pp = p;
  return 0;
}

static int grow_pairs(learner *L) {
  int32_t cap = L->pcap ? L->pcap * 2 : 1 << 14;
  if (grow_array(&L->pa, sizeof *L->pa, cap) || grow_array(&L->pb, sizeof *L->pb, cap) ||
      grow_array(&L->stats, sizeof *L->stats, cap) || grow_array(&L->big, sizeof *L->big, cap) ||
      grow_array(&L->present, 1, cap) || grow_array(&L->in_big, 1, cap) ||
      grow_array(&L->present_pos, sizeof *L->present_pos, cap) ||
      grow_array(&L->words_of, sizeof *L->words_of, cap))
    return -1;
  L->pcap = cap;
  return 0;
}

static int32_t pair_id(learner *L, int32_t a, int32_t b) {
  bool added;
  uint64_t *v = nmt_u64map_put(&L->pair_ids, (uint64_t)(uint32_t)a << 32 | (uint32_t)b, 0, &added);
  if (!v) { L->oom = 1; return 0; }
  if (!added) return (int32_t)*v;
  if (L->npairs == L->pcap && grow_pairs(L)) { L->oom = 1; return 0; }
  int32_t id = L->npairs++;
  *v = (uint64_t)id;
  L->pa[id] = a;
  L->pb[id] = b;
  L->stats[id] = L->big[id] = 0;
  L->present[id] = L->in_big[id] = 0;
  L->words_of[id] = (ivec){0};
  return id;
}

static void make_present(learner *L, int32_t p, int64_t value) {
  if (!L->present[p]) {
    L->present[p] = 1;
    L->present_pos[p] = L->live.n;
    if (ivec_push(&L->live, p)) L->oom = 1;
  }
  L->stats[p] = value;
  heap_push(L, p);
}

static void drop_present(learner *L, int32_t p) {
  int32_t pos = L->present_pos[p], last = L->live.v[--L->live.n];
  L->live.v[pos] = last;
  L->present_pos[last] = pos;
  L->present[p] = 0;
}

/* stats[p] += delta (a missing entry starts at 0, as in a defaultdict). */
static void stats_add(learner *L, int32_t p, int64_t delta) {
  make_present(L, p, (L->present[p] ? L->stats[p] : 0) + delta);
}

static void index_add(learner *L, int32_t p, int32_t word, int64_t delta) {
  bool added;
  uint64_t *v = nmt_u64map_put(&L->index, (uint64_t)(uint32_t)p << 32 | (uint32_t)word, 0, &added);
  if (!v) { L->oom = 1; return; }
  *v = (uint64_t)((int64_t)*v + delta);
  if (added && ivec_push(&L->words_of[p], word)) L->oom = 1;
}

static int64_t index_get(const learner *L, int32_t p, int32_t word) {
  uint64_t *v = nmt_u64map_get(&L->index, (uint64_t)(uint32_t)p << 32 | (uint32_t)word);
  return v ? (int64_t)*v : 0;
}

static void set_big(learner *L, int32_t p, int64_t value) {
  L->big[p] = value;
  if (!L->in_big[p]) {
    L->in_big[p] = 1;
    if (ivec_push(&L->bigs, p)) L->oom = 1;
  }
}

/* learn_bpe.py's prune_stats. */
static void prune(learner *L, double threshold) {
  for (int32_t k = 0; k < L->live.n;) {
    int32_t p = L->live.v[k];
    int64_t f = L->stats[p];
    if ((double)f < threshold) {
      drop_present(L, p); /* moves another pair into slot k */
      set_big(L, p, f < 0 ? L->big[p] + f : f);
    } else {
      k++;
    }
  }
  if (L->hn > 2 * (size_t)L->live.n + 4096) heap_rebuild(L);
}

/* stats = copy(big_stats) */
static void restore_big(learner *L) {
  while (L->live.n) drop_present(L, L->live.v[L->live.n - 1]);
  L->hn = 0;
  for (int32_t k = 0; k < L->bigs.n; k++) make_present(L, L->bigs.v[k], L->big[L->bigs.v[k]]);
}

static int load_words(learner *L, const nmt_wordfreq *wf) {
  int32_t *order = nmt_wordfreq_sorted(wf);
  size_t total = 0;
  for (int32_t j = 0; j < wf->n; j++) total += nmt_strmap_len(wf->words, j) + 1;
  L->nwords = wf->n;
  L->sym = malloc((total + 1) * sizeof *L->sym);
  L->off = malloc(((size_t)wf->n + 1) * sizeof *L->off);
  L->len = malloc(((size_t)wf->n + 1) * sizeof *L->len);
  L->freq = malloc(((size_t)wf->n + 1) * sizeof *L->freq);
  char *buf = malloc(64);
  if (!order || !L->sym || !L->off || !L->len || !L->freq || !buf) {
    free(order); free(buf);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  size_t at = 0;
  for (int32_t j = 0; j < wf->n; j++) {
    int32_t w = order[j];
    const char *s = nmt_strmap_str(wf->words, w);
    size_t n = nmt_strmap_len(wf->words, w);
    L->off[j] = at;
    L->freq[j] = wf->counts[w];
    for (size_t i = 0; i < n;) {
      uint32_t cp;
      int k = nmt_utf8_decode(s + i, n - i, &cp);
      if (k <= 0) k = 1; /* counted text was validated; be safe anyway */
      int32_t id;
      if (i + (size_t)k == n) { /* the last character carries the end-of-word mark */
        memcpy(buf, s + i, (size_t)k);
        memcpy(buf + k, NMT_BPE_EOW, NMT_BPE_EOW_LEN);
        id = nmt_strmap_intern(L->syms, buf, (size_t)k + NMT_BPE_EOW_LEN);
      } else {
        id = nmt_strmap_intern(L->syms, s + i, (size_t)k);
      }
      if (id < 0) { free(order); free(buf); return nmt_fail(NMT_EIO, "out of memory"); }
      L->sym[at++] = id;
      i += (size_t)k;
    }
    L->len[j] = (int32_t)(at - L->off[j]);
  }
  free(order);
  free(buf);
  return NMT_OK;
}

/* Merge (a, b) -> c in word j and update stats and index around it, as
 * replace_pair + update_pair_statistics do (same deltas, same quirks). */
static int merge_word(learner *L, int32_t j, int32_t a, int32_t b, int32_t c, int32_t *old) {
  int32_t *w = L->sym + L->off[j];
  int32_t n = L->len[j], m = 0;
  int64_t f = L->freq[j];
  memcpy(old, w, (size_t)n * sizeof *w);
  for (int32_t k = 0; k < n;) {
    if (old[k] == a && k + 1 < n && old[k + 1] == b) { w[m++] = c; k += 2; }
    else w[m++] = old[k++];
  }
  L->len[j] = m;
  for (int32_t i = 0; i < n;) {
    if (old[i] != a) { i++; continue; }
    if (i < n - 1 && old[i + 1] == b) {
      if (i) {
        int32_t p = pair_id(L, old[i - 1], old[i]);
        stats_add(L, p, -f);
        index_add(L, p, j, -1);
      }
      if (i < n - 2 && (old[i + 2] != a || i >= n - 3 || old[i + 3] != b)) {
        int32_t p = pair_id(L, old[i + 1], old[i + 2]);
        stats_add(L, p, -f);
        index_add(L, p, j, -1);
      }
      i += 2;
    } else {
      i++;
    }
  }
  for (int32_t i = 0; i < m; i++) {
    if (w[i] != c) continue;
    if (i) {
      int32_t p = pair_id(L, w[i - 1], w[i]);
      stats_add(L, p, f);
      index_add(L, p, j, 1);
    }
    if (i < m - 1 && w[i + 1] != c) {
      int32_t p = pair_id(L, w[i], w[i + 1]);
      stats_add(L, p, f);
      index_add(L, p, j, 1);
    }
  }
  return L->oom ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static int apply_merge(learner *L, int32_t best, int32_t *old, ivec *changed, nmt_strbuf *sb) {
  int32_t a = L->pa[best], b = L->pb[best];
  sb->len = 0;
  if (nmt_strbuf_add(sb, nmt_strmap_str(L->syms, a), nmt_strmap_len(L->syms, a)) ||
      nmt_strbuf_add(sb, nmt_strmap_str(L->syms, b), nmt_strmap_len(L->syms, b)))
    return nmt_fail(NMT_EIO, "out of memory");
  int32_t c = nmt_strmap_intern(L->syms, sb->s, sb->len);
  if (c < 0) return nmt_fail(NMT_EIO, "out of memory");
  ivec *ws = &L->words_of[best];
  changed->n = 0;
  for (int32_t k = 0; k < ws->n; k++)
    if (index_get(L, best, ws->v[k]) >= 1 && ivec_push(changed, ws->v[k])) return nmt_fail(NMT_EIO, "out of memory");
  make_present(L, best, 0);
  for (int32_t k = 0; k < ws->n; k++) *nmt_u64map_get(&L->index, (uint64_t)best << 32 | (uint32_t)ws->v[k]) = 0;
  for (int32_t k = 0; k < changed->n; k++)
    if (merge_word(L, changed->v[k], a, b, c, old)) return NMT_EIO;
  make_present(L, best, 0);
  return L->oom ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static void count_chars(const learner *L, nmt_bpe_learn_info *info) {
  int32_t n = nmt_strmap_size(L->syms);
  uint8_t *seen = calloc((size_t)n + 1, 1);
  if (!seen) return;
  for (int32_t j = 0; j < L->nwords; j++) {
    const int32_t *w = L->sym + L->off[j];
    for (int32_t k = 0; k < L->len[j]; k++) {
      uint8_t bit = k + 1 == L->len[j] ? 2 : 1;
      if (!(seen[w[k]] & bit)) {
        seen[w[k]] |= bit;
        if (bit == 1) info->chars_internal++;
        else info->chars_final++;
      }
    }
  }
  free(seen);
}

static void learner_free(learner *L) {
  nmt_strmap_free(L->syms);
  free(L->sym); free(L->off); free(L->len); free(L->freq);
  nmt_u64map_free(&L->pair_ids);
  nmt_u64map_free(&L->index);
  for (int32_t p = 0; p < L->npairs; p++) free(L->words_of[p].v);
  free(L->words_of);
  free(L->pa); free(L->pb); free(L->stats); free(L->big);
  free(L->present); free(L->in_big); free(L->present_pos);
  free(L->live.v); free(L->bigs.v); free(L->heap);
}

static int learn_loop(learner *L, const nmt_bpe_learn_opts *o, long symbols, nmt_strbuf *codes,
                      nmt_bpe_learn_info *info) {
  int32_t maxlen = 0;
  for (int32_t j = 0; j < L->nwords; j++) {
    if (L->len[j] > maxlen) maxlen = L->len[j];
    const int32_t *w = L->sym + L->off[j];
    for (int32_t k = 0; k + 1 < L->len[j]; k++) {
      int32_t p = pair_id(L, w[k], w[k + 1]);
      stats_add(L, p, L->freq[j]);
      index_add(L, p, j, 1);
    }
  }
  if (L->oom) return nmt_fail(NMT_EIO, "out of memory");
  int64_t maxf = 0;
  for (int32_t k = 0; k < L->live.n; k++) {
    int32_t p = L->live.v[k];
    set_big(L, p, L->stats[p]);
    if (L->stats[p] > maxf) maxf = L->stats[p];
  }
  heap_rebuild(L);
  double threshold = (double)maxf / 10;
  int32_t *old = malloc(((size_t)maxlen + 1) * sizeof *old);
  ivec changed = {0};
  nmt_strbuf sb = {0};
  int st = old ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  for (long i = 0; i < symbols && !st; i++) {
    int32_t best = heap_best(L);
    if (best < 0 || (i && (double)L->stats[best] < threshold)) {
      prune(L, threshold);
      restore_big(L);
      best = heap_best(L);
      if (best < 0) break; /* no pair at all (learn_bpe.py fails on max() here) */
      threshold = (double)(L->stats[best] * i) / ((double)i + 10000.0);
      prune(L, threshold);
      if (!L->present[best]) make_present(L, best, 0);
    }
    if (L->stats[best] < o->min_frequency) {
      info->stopped = true;
      break;
    }
    int32_t a = L->pa[best], b = L->pb[best];
    if (nmt_strbuf_add(codes, nmt_strmap_str(L->syms, a), nmt_strmap_len(L->syms, a)) ||
        nmt_strbuf_addc(codes, ' ') ||
        nmt_strbuf_add(codes, nmt_strmap_str(L->syms, b), nmt_strmap_len(L->syms, b)) ||
        nmt_strbuf_addc(codes, '\n'))
      st = nmt_fail(NMT_EIO, "out of memory");
    if (!st) st = apply_merge(L, best, old, &changed, &sb);
    info->merges++;
    if (!st && i % 100 == 0) prune(L, threshold);
    if (!st && L->oom) st = nmt_fail(NMT_EIO, "out of memory");
  }
  free(old);
  free(changed.v);
  free(sb.s);
  return st;
}

int nmt_bpe_learn(const nmt_wordfreq *wf, const nmt_bpe_learn_opts *o, nmt_strbuf *codes,
                  nmt_bpe_learn_info *info) {
  memset(info, 0, sizeof *info);
  learner L = {0};
  static const char header[] = "#version: 0.2\n";
  if (nmt_strbuf_add(codes, header, sizeof header - 1)) return nmt_fail(NMT_EIO, "out of memory");
  if (!(L.syms = nmt_strmap_new()) || nmt_u64map_init(&L.pair_ids, 1 << 16) ||
      nmt_u64map_init(&L.index, 1 << 18)) {
    learner_free(&L);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  int st = load_words(&L, wf);
  long symbols = o->symbols;
  if (!st && o->total_symbols) {
    count_chars(&L, info);
    symbols -= info->chars_internal + info->chars_final;
  }
  if (!st) st = learn_loop(&L, o, symbols, codes, info);
  learner_free(&L);
  return st;
}
