/* nmt-serve's API keys (api_keys.h): SHA-256 digests, each with its rate bucket. */
#include "api_keys.h"
#include "base/clock.h"
#include "base/err.h"
#include <math.h>
#include <nettle/sha2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t digest[SHA256_DIGEST_SIZE];
  double tokens; /* requests it may send now (the rate's bucket) */
  double at;     /* when tokens was counted (nmt_seconds) */
} key_entry;

struct serve_keys {
  pthread_mutex_t mu;
  char *path;
  double per_min; /* 0: no rate */
  key_entry *v;   /* (n) */
  int n;
};

static void digest_of(const char *s, size_t n, uint8_t out[SHA256_DIGEST_SIZE]) {
  struct sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, n, (const uint8_t *)s);
  sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

/* One line: its key's bounds in *b, *e; false for a blank line or a comment. */
static bool key_in(char *line, char **b, char **e) {
  *b = line + strspn(line, " \t");
  *e = *b + strlen(*b);
  while (*e > *b && strchr(" \t\r\n", (*e)[-1])) (*e)--;
  return *e > *b && **b != '#';
}

/* The file's keys into *v, *n. */
static int read_keys(const char *path, key_entry **v, int *n) {
  FILE *f = fopen(path, "r");
  if (!f) return nmt_fail_errno(NMT_EIO, "--api-keys %s", path);
  char *line = NULL, *b, *e;
  size_t cap = 0;
  int st = NMT_OK;
  *v = NULL, *n = 0;
  while (!st && getline(&line, &cap, f) >= 0) {
    if (!key_in(line, &b, &e)) continue;
    key_entry *w = realloc(*v, sizeof *w * (size_t)(*n + 1));
    if (!w) st = nmt_fail(NMT_EIO, "out of memory");
    else *v = w, (*v)[*n] = (key_entry){.tokens = -1}, digest_of(b, (size_t)(e - b), (*v)[(*n)++].digest);
  }
  if (!st && ferror(f)) st = nmt_fail_errno(NMT_EIO, "--api-keys %s", path);
  if (!st && !*n) st = nmt_fail(NMT_EIO, "--api-keys %s: no key (one a line)", path);
  fclose(f), free(line);
  if (st) free(*v), *v = NULL, *n = 0;
  return st;
}

int serve_keys_open(serve_keys **kp, const char *path, double per_min) {
  serve_keys *k = calloc(1, sizeof *k);
  int st = k && (k->path = strdup(path)) ? read_keys(path, &k->v, &k->n) : nmt_fail(NMT_EIO, "out of memory");
  if (st) {
    if (k) free(k->path), free(k);
    return *kp = NULL, st;
  }
  k->per_min = per_min;
  pthread_mutex_init(&k->mu, NULL);
  *kp = k;
  return NMT_OK;
}

int serve_keys_reload(serve_keys *k) {
  key_entry *v;
  int n, st = read_keys(k->path, &v, &n);
  if (st) return st;
  pthread_mutex_lock(&k->mu);
  for (int i = 0; i < n; i++) /* a key kept keeps its bucket */
    for (int j = 0; j < k->n; j++)
      if (!memcmp(v[i].digest, k->v[j].digest, SHA256_DIGEST_SIZE)) v[i].tokens = k->v[j].tokens, v[i].at = k->v[j].at;
  free(k->v);
  k->v = v, k->n = n;
  pthread_mutex_unlock(&k->mu);
  return NMT_OK;
}

/* Whether the key's bucket lets a request pass now (lock held); else *retry_after. */
static bool within_rate(const serve_keys *k, key_entry *e, int *retry_after) {
  double now = nmt_seconds(), per_s = k->per_min / 60;
  if (e->tokens < 0) e->tokens = k->per_min; /* a key's first request: a full bucket */
  else e->tokens = fmin(k->per_min, e->tokens + (now - e->at) * per_s);
  e->at = now;
  if (e->tokens >= 1) return e->tokens -= 1, true;
  *retry_after = (int)ceil((1 - e->tokens) / per_s);
  return false;
}

int serve_keys_check(serve_keys *k, const char *key, size_t n, int *retry_after) {
  if (!key) return 401;
  uint8_t d[SHA256_DIGEST_SIZE];
  digest_of(key, n, d);
  pthread_mutex_lock(&k->mu);
  int found = -1;
  for (int i = 0; i < k->n; i++) { /* every key, each whole: no early exit */
    uint8_t diff = 0;
    for (int j = 0; j < SHA256_DIGEST_SIZE; j++) diff |= (uint8_t)(d[j] ^ k->v[i].digest[j]);
    int same = diff == 0;
    found = same ? i : found;
  }
  int st = found < 0 ? 403 : k->per_min > 0 && !within_rate(k, &k->v[found], retry_after) ? 429 : 0;
  pthread_mutex_unlock(&k->mu);
  return st;
}

int serve_keys_count(serve_keys *k) {
  pthread_mutex_lock(&k->mu);
  int n = k->n;
  pthread_mutex_unlock(&k->mu);
  return n;
}

void serve_keys_free(serve_keys *k) {
  if (!k) return;
  pthread_mutex_destroy(&k->mu);
  free(k->v), free(k->path), free(k);
}

double serve_keys_rate(const char *s) {
  char *end;
  double n = strtod(s, &end);
  return n > 0 && isfinite(n) && !strcmp(end, "/min") ? n : -1;
}
