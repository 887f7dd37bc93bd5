/* nmt-serve's translation cache (--cache-bytes N): each sentence's answer (its translation,
 * n-best list and alignment as the request asked, serialized) under a key of the sentence
 * and every request field that changes that answer (beam_size, n_best, alignment, prefix);
 * a sampled answer is never kept. Least recently used entries make room; N bounds the
 * entries' bytes (keys, answers and their bookkeeping). Any thread may call any function
 * (one lock). */
#ifndef NMT_TOOLS_SERVE_CACHE_H
#define NMT_TOOLS_SERVE_CACHE_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct serve_cache serve_cache;

/* A sentence's answer: the JSON values a request's arrays take (NULL: none, the request's
 * default stays: an empty sentence's, a field not asked), its JSON bytes (--max-answer-bytes) and its subwords (the metrics). */
typedef struct {
  json_t *text, *nbest, *align;
  size_t bytes;
  int src_n, tgt_n;
} serve_cached;

/* The counters of /metrics, and what the cache holds now. */
typedef struct {
  unsigned long long hits, misses, bytes, entries;
} serve_cache_stats;

/* NMT_OK, or an error (message set). */
int serve_cache_new(serve_cache **c, size_t bytes);
void serve_cache_free(serve_cache *c);
/* The key of an answer: the request's fields that change it (beam, n_best, alignment kind,
 * prefix, constraints) and the sentence, into a malloc'ed string of *n bytes; NULL when out
 * of memory. */
char *serve_cache_key(int beam, bool n_best, int alignment, const char *prefix, const char *cons, const char *src,
                      size_t *n);
/* key's answer into *out (new references; the caller owns them): true on a hit. Counts a
 * hit or a miss. */
bool serve_cache_get(serve_cache *c, const char *key, size_t n, serve_cached *out);
/* Keep a's copy under key (an entry over the whole bound is not kept). */
void serve_cache_put(serve_cache *c, const char *key, size_t n, const serve_cached *a);
void serve_cache_stats_get(serve_cache *c, serve_cache_stats *s);

#endif
