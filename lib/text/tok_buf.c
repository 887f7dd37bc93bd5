/* Buffers and UTF-8 conversion for the tok_* passes. */
#include "text/tok.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text/tok_unicode.h"

bool tok_cps_reserve(tok_cps *c, size_t need) {
  if (need <= c->cap) return true;
  size_t cap = c->cap ? c->cap : 256;
  while (cap < need) cap *= 2;
  uint32_t *p = realloc(c->p, cap * sizeof *p);
  if (!p) return false;
  c->p = p, c->cap = cap;
  return true;
}

void tok_scratch_free(tok_scratch *s) {
  free(s->a.p), free(s->b.p), free(s->s.s), free(s->t.s), free(s->word.s), free(s->words);
  memset(s, 0, sizeof *s);
}

bool tok_decode(tok_cps *c, const char *str, size_t n) {
  if (!tok_cps_reserve(c, n + 1)) return false;
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0, k = 0;
  while (i < n) c->p[k++] = nmt_utf8_next(s, &i);
  c->n = k;
  return true;
}

bool tok_encode(nmt_strbuf *o, const uint32_t *cp, size_t n) {
  if (nmt_strbuf_reserve(o, 4 * n)) return false;
  char *q = o->s + o->len;
  for (size_t i = 0; i < n; i++) q = nmt_utf8_put(q, cp[i]);
  o->len = (size_t)(q - o->s);
  return true;
}

bool tok_config_init(tok_config *cfg, const char *lang, bool aggressive, bool escape) {
  tok_unicode_init();
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->lang, sizeof cfg->lang, "%s", lang);
  cfg->aggressive = aggressive, cfg->escape = escape;
  cfg->nbp = tok_nbp_new(lang);
  if (cfg->nbp) return true;
  cfg->nbp = tok_nbp_new("en");
  return false;
}

void tok_config_free(tok_config *cfg) {
  tok_nbp_free(cfg->nbp);
  cfg->nbp = NULL;
}
