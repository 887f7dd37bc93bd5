/* Open-addressing id tables for per-sentence n-gram counting (see metrics/ngram_ids.h). */
#include "metrics/ngram_ids.h"
#include <stdlib.h>
#include <string.h>
#include "base/err.h"

int nmt_idmap_reset(nmt_idmap *m, size_t expected, bool strings) {
  size_t need = 16;
  while (need < expected * 2 + 16) need *= 2;
  if (!m->slot || need > m->mask + 1) {
    nmt_id_slot *slot = calloc(need, sizeof *slot);
    if (!slot) return nmt_fail(NMT_EIO, "out of memory");
    free(m->slot);
    m->slot = slot;
    m->mask = need - 1;
    m->gen = 0;
  }
  if (strings && expected > m->scap) {
    const char **str = realloc(m->str, expected * sizeof *str);
    if (str) m->str = str;
    uint32_t *len = realloc(m->len, expected * sizeof *len);
    if (len) m->len = len;
    if (!str || !len) return nmt_fail(NMT_EIO, "out of memory");
    m->scap = expected;
  }
  if (++m->gen == 0) { /* wrapped: old stamps could collide */
    memset(m->slot, 0, (m->mask + 1) * sizeof *m->slot);
    m->gen = 1;
  }
  m->count = 0;
  return NMT_OK;
}

void nmt_idmap_free(nmt_idmap *m) {
  free(m->slot);
  free(m->str);
  free(m->len);
  memset(m, 0, sizeof *m);
}

uint32_t nmt_idmap_str(nmt_idmap *m, const char *str, uint32_t len) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
  size_t k = 0;
  for (; k + 8 <= len; k += 8) {
    uint64_t w;
    memcpy(&w, str + k, 8);
    h = (h ^ w) * 0x100000001B3ULL;
    h ^= h >> 29;
  }
  if (k < len) {
    uint64_t w = 0;
    memcpy(&w, str + k, len - k);
    h = (h ^ w) * 0x100000001B3ULL;
  }
  h = nmt_mix64(h);
  size_t i = h & m->mask;
  for (;;) {
    nmt_id_slot *s = &m->slot[i];
    if (s->gen != m->gen) {
      s->gen = m->gen;
      s->key = h;
      s->id = m->count++;
      m->str[s->id] = str;
      m->len[s->id] = len;
      return s->id;
    }
    if (s->key == h && m->len[s->id] == len && !memcmp(m->str[s->id], str, len)) return s->id;
    i = (i + 1) & m->mask;
  }
}
