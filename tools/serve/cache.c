/* nmt-serve's translation cache (cache.h): a hash table of chained entries and a list from
 * the most to the least recently used; an answer is kept as the JSON text of
 * [translation, n_best or null, alignment or null], so that no JSON value is shared between
 * threads (jansson's reference counts are not atomic). */
#include "cache.h"
#include "base/err.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  struct entry *chain;      /* the next of its bucket */
  struct entry *newer, *older; /* the use list */
  uint64_t hash;
  char *key, *val; /* key (kn bytes), val (the answer's JSON, NUL-terminated) */
  size_t kn, bytes;
  size_t answer_bytes;
  int src_n, tgt_n;
} entry;

struct serve_cache {
  pthread_mutex_t mu;
  size_t cap, bytes;
  entry **buckets; /* (nb) */
  size_t nb, n;
  entry *newest, *oldest;
  unsigned long long hits, misses;
};

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
  return h;
}

int serve_cache_new(serve_cache **cp, size_t bytes) {
  serve_cache *c = calloc(1, sizeof *c);
  if (c) c->nb = 1024, c->buckets = calloc(c->nb, sizeof *c->buckets);
  if (!c || !c->buckets) return free(c), *cp = NULL, nmt_fail(NMT_EIO, "out of memory");
  c->cap = bytes;
  pthread_mutex_init(&c->mu, NULL);
  *cp = c;
  return NMT_OK;
}

char *serve_cache_key(int beam, bool n_best, int alignment, const char *prefix, const char *cons, const char *src,
                      size_t *n) {
  size_t pn = prefix ? strlen(prefix) : 0, cn = cons ? strlen(cons) : 0, sn = strlen(src), room = 96 + pn + cn + sn;
  char *k = malloc(room);
  if (!k) return NULL;
  /* the prefix's and constraints' lengths (-1: none) make the key unambiguous */
  int h = snprintf(k, room, "%d %d %d %ld %ld:", beam, n_best, alignment, prefix ? (long)pn : -1L,
                   cons ? (long)cn : -1L);
  memcpy(k + h, prefix ? prefix : "", pn), memcpy(k + h + pn, cons ? cons : "", cn);
  memcpy(k + h + pn + cn, src, sn);
  *n = (size_t)h + pn + cn + sn;
  return k;
}

static entry **slot(serve_cache *c, uint64_t hash, const char *key, size_t n) {
  entry **p = &c->buckets[hash & (c->nb - 1)];
  while (*p && !((*p)->hash == hash && (*p)->kn == n && !memcmp((*p)->key, key, n))) p = &(*p)->chain;
  return p;
}

static void unlink_use(serve_cache *c, entry *e) {
  if (e->newer) e->newer->older = e->older;
  else c->newest = e->older;
  if (e->older) e->older->newer = e->newer;
  else c->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void link_newest(serve_cache *c, entry *e) {
  e->older = c->newest, e->newer = NULL;
  if (c->newest) c->newest->newer = e;
  c->newest = e;
  if (!c->oldest) c->oldest = e;
}

/* Take e out of the cache and free it (lock held). */
static void drop(serve_cache *c, entry *e) {
  entry **p = slot(c, e->hash, e->key, e->kn);
  *p = e->chain;
  unlink_use(c, e);
  c->bytes -= e->bytes, c->n--;
  free(e->key), free(e->val), free(e);
}

/* Twice the buckets when the entries outnumber them (lock held; failing, chains grow). */
static void grow(serve_cache *c) {
  entry **b = calloc(2 * c->nb, sizeof *b);
  if (!b) return;
  for (size_t i = 0; i < c->nb; i++)
    for (entry *e = c->buckets[i], *next; e; e = next) {
      next = e->chain;
      entry **p = &b[e->hash & (2 * c->nb - 1)];
      e->chain = *p, *p = e;
    }
  free(c->buckets);
  c->buckets = b, c->nb *= 2;
}

bool serve_cache_get(serve_cache *c, const char *key, size_t n, serve_cached *out) {
  pthread_mutex_lock(&c->mu);
  entry *e = *slot(c, fnv1a(key, n), key, n);
  char *val = e ? strdup(e->val) : NULL; /* parsed outside the lock */
  if (val) {
    unlink_use(c, e), link_newest(c, e);
    *out = (serve_cached){.bytes = e->answer_bytes, .src_n = e->src_n, .tgt_n = e->tgt_n};
  }
  val ? c->hits++ : c->misses++;
  pthread_mutex_unlock(&c->mu);
  json_t *v = val ? json_loads(val, 0, NULL) : NULL;
  free(val);
  if (!v) return false;
  json_t *t = json_array_get(v, 0), *nb = json_array_get(v, 1), *al = json_array_get(v, 2);
  out->text = json_is_null(t) ? NULL : json_incref(t);
  out->nbest = json_is_null(nb) ? NULL : json_incref(nb);
  out->align = json_is_null(al) ? NULL : json_incref(al);
  json_decref(v);
  return true;
}

void serve_cache_put(serve_cache *c, const char *key, size_t n, const serve_cached *a) {
  json_t *v = json_pack("[O, O, O]", a->text ? a->text : json_null(), a->nbest ? a->nbest : json_null(),
                        a->align ? a->align : json_null());
  char *val = v ? json_dumps(v, JSON_COMPACT) : NULL;
  json_decref(v);
  entry *e = val ? calloc(1, sizeof *e) : NULL;
  if (e) e->key = malloc(n ? n : 1);
  if (!e || !e->key || sizeof *e + n + strlen(val) + 1 > c->cap) {
    if (e) free(e->key), free(e);
    free(val);
    return;
  }
  memcpy(e->key, key, n);
  e->hash = fnv1a(key, n), e->val = val, e->kn = n, e->bytes = sizeof *e + n + strlen(val) + 1;
  e->answer_bytes = a->bytes, e->src_n = a->src_n, e->tgt_n = a->tgt_n;
  pthread_mutex_lock(&c->mu);
  entry *old = *slot(c, e->hash, key, n);
  if (old) drop(c, old); /* the same answer, newer */
  while (c->oldest && c->bytes + e->bytes > c->cap) drop(c, c->oldest);
  entry **p = slot(c, e->hash, key, n);
  *p = e, link_newest(c, e);
  c->bytes += e->bytes, c->n++;
  if (c->n > c->nb) grow(c);
  pthread_mutex_unlock(&c->mu);
}

void serve_cache_stats_get(serve_cache *c, serve_cache_stats *s) {
  pthread_mutex_lock(&c->mu);
  *s = (serve_cache_stats){c->hits, c->misses, c->bytes, c->n};
  pthread_mutex_unlock(&c->mu);
}

void serve_cache_free(serve_cache *c) {
  if (!c) return;
  while (c->oldest) drop(c, c->oldest);
  pthread_mutex_destroy(&c->mu);
  free(c->buckets), free(c);
}
