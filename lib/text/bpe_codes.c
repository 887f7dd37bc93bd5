/* Loading codes and vocabulary files as apply_bpe.py reads them. */
#include "text/bpe.h"
#include "text/bpe_internal.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "#version: 0.2" -> 2: the last word of the line without trailing ".0"
 * groups, as apply_bpe.py reads it. */
static int parse_version(const char *line, size_t len, const char *path, int *version) {
  const char *end = line + len;
  while (end > line && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t')) end--;
  const char *v = end;
  while (v > line && v[-1] != ' ' && v[-1] != '\t' && v[-1] != ':') v--;
  size_t n = (size_t)(end - v);
  for (;;) {
    size_t z = n;
    while (z > 0 && v[z - 1] == '0') z--;
    if (z == n || z == 0 || v[z - 1] != '.') break;
    n = z - 1;
  }
  if (n == 3 && !strncmp(v, "0.1", 3)) *version = 1;
  else if (n == 3 && !strncmp(v, "0.2", 3)) *version = 2;
  else return nmt_fail(NMT_EINPUT, "%s:1: unsupported codes version '%.*s'", path, (int)(end - v), v);
  return NMT_OK;
}

typedef struct {
  int32_t left, right, merged;
} code;

static int32_t intern2(nmt_strmap *m, nmt_strbuf *sb, const char *a, size_t na, const char *b, size_t nb) {
  sb->len = 0;
  if (nmt_strbuf_add(sb, a, na) || nmt_strbuf_add(sb, b, nb)) return -1;
  return nmt_strmap_intern(m, sb->s, sb->len);
}

/* apply_bpe.py's bpe_codes_reverse: for a merged string, the pair whose last
 * occurrence in the codes comes first (dict insertion order, last write wins). */
static int build_reverse(nmt_bpe *b, const code *codes, long n) {
  int32_t nsym = nmt_strmap_size(b->syms);
  b->rev_left = malloc(((size_t)nsym + 1) * sizeof *b->rev_left);
  b->rev_right = malloc(((size_t)nsym + 1) * sizeof *b->rev_right);
  nmt_u64map seen = {0};
  if (!b->rev_left || !b->rev_right) return nmt_fail(NMT_EIO, "out of memory");
  memset(b->rev_left, 0xff, (size_t)nsym * sizeof *b->rev_left);
  memset(b->rev_right, 0xff, (size_t)nsym * sizeof *b->rev_right);
  for (long i = n - 1; i >= 0; i--) {
    bool added;
    if (!nmt_u64map_put(&seen, (uint64_t)codes[i].left << 32 | (uint32_t)codes[i].right, 0, &added)) {
      nmt_u64map_free(&seen);
      return nmt_fail(NMT_EIO, "out of memory");
    }
    if (!added) continue;
    b->rev_left[codes[i].merged] = codes[i].left;
    b->rev_right[codes[i].merged] = codes[i].right;
  }
  nmt_u64map_free(&seen);
  return NMT_OK;
}

static int parse_codes(nmt_bpe *b, const char *data, size_t len, const char *path, long merges) {
  const char *p = data, *end = data + len;
  long lineno = 1;
  if (len >= 9 && !strncmp(data, "#version:", 9)) {
    const char *nl = memchr(p, '\n', len);
    size_t n = nl ? (size_t)(nl - p) : len;
    int st = parse_version(p, n, path, &b->version);
    if (st) return st;
    p = nl ? nl + 1 : end;
    lineno = 2;
  } else {
    b->version = 1;
  }
  while (end > p && end[-1] == '\n') end--; /* read().rstrip('\n') */
  code *codes = NULL;
  long n = 0, cap = 0;
  nmt_strbuf sb = {0};
  int st = NMT_OK;
  for (; p < end && (merges < 0 || n < merges); lineno++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *s = p;
    size_t sl = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
    if ((st = nmt_utf8_check_line(s, sl, path, lineno))) break;
    nmt_bpe_strip(&s, &sl);
    const char *sp = memchr(s, ' ', sl);
    if (!sp || memchr(sp + 1, ' ', (size_t)(s + sl - sp - 1))) {
      st = nmt_fail(NMT_EINPUT, "%s:%ld: expected two units separated by one space, got '%.*s'", path, lineno,
                    (int)(sl > 60 ? 60 : sl), s);
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 1024;
      code *c = realloc(codes, (size_t)cap * sizeof *c);
      if (!c) { st = nmt_fail(NMT_EIO, "out of memory"); break; }
      codes = c;
    }
    size_t ln = (size_t)(sp - s), rn = sl - ln - 1;
    code c = {nmt_strmap_intern(b->syms, s, ln), nmt_strmap_intern(b->syms, sp + 1, rn),
              intern2(b->syms, &sb, s, ln, sp + 1, rn)};
    bool added;
    uint64_t *v = c.left < 0 || c.right < 0 || c.merged < 0 ? NULL
                  : nmt_u64map_put(&b->pairs, (uint64_t)c.left << 32 | (uint32_t)c.right, 0, &added);
    if (!v) { st = nmt_fail(NMT_EIO, "out of memory"); break; }
    if (added) *v = (uint64_t)n << 32 | (uint32_t)c.merged; /* duplicates keep the first rank */
    codes[n++] = c;
  }
  if (!st) st = build_reverse(b, codes, n);
  free(codes);
  free(sb.s);
  return st;
}

/* read_vocabulary(): "WORD COUNT" lines; words with COUNT >= threshold. */
static int load_vocab(nmt_bpe *b, const char *path, long threshold) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path);
  if (st) return st;
  if (!(b->vocab = nmt_strmap_new())) st = nmt_fail(NMT_EIO, "out of memory");
  char *line;
  size_t len;
  int k = 0;
  while (!st && (k = nmt_reader_next(r, &line, &len)) == 1) {
    long no = nmt_reader_lineno(r);
    if ((st = nmt_utf8_check_line(line, len, path, no))) break;
    const char *s = line;
    nmt_bpe_strip(&s, &len);
    const char *sp = memchr(s, ' ', len);
    char *e = NULL;
    long count = sp ? strtol(sp + 1, &e, 10) : 0;
    if (!sp || sp == s || e == sp + 1 || e != s + len)
      st = nmt_fail(NMT_EINPUT, "%s:%ld: expected 'WORD COUNT'", path, no);
    else if ((threshold < 0 || count >= threshold) && nmt_strmap_intern(b->vocab, s, (size_t)(sp - s)) < 0)
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (k < 0) st = nmt_errcode();
  nmt_reader_close(r);
  return st;
}

int nmt_bpe_load(nmt_bpe **out, const char *codes_path, const nmt_bpe_opts *o) {
  char *data;
  size_t len;
  int st = nmt_read_file(codes_path, &data, &len);
  if (st) return st;
  st = nmt_bpe_load_text(out, data, len, codes_path, o);
  free(data);
  return st;
}

int nmt_bpe_load_text(nmt_bpe **out, const char *codes, size_t len, const char *name, const nmt_bpe_opts *o) {
  nmt_bpe *b = calloc(1, sizeof *b);
  if (!b || !(b->syms = nmt_strmap_new())) {
    nmt_bpe_free(b);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  b->cache.budget = NMT_BPE_CACHE_BYTES;
  const char *sep = o && o->separator ? o->separator : "@@";
  b->sep = strdup(sep);
  b->seplen = strlen(sep);
  int st = parse_codes(b, codes, len, name, o ? o->merges : -1);
  b->eow_id = nmt_strmap_find(b->syms, NMT_BPE_EOW, NMT_BPE_EOW_LEN);
  if (!st && o && o->vocab_path) st = load_vocab(b, o->vocab_path, o->vocab_threshold);
  if (!st && o && o->n_glossaries) st = nmt_bpe_gloss_new(&b->gloss, o->glossaries, o->n_glossaries);
  if (st) {
    nmt_bpe_free(b);
    return st;
  }
  *out = b;
  return NMT_OK;
}

void nmt_bpe_free(nmt_bpe *b) {
  if (!b) return;
  nmt_strmap_free(b->syms);
  nmt_u64map_free(&b->pairs);
  free(b->rev_left);
  free(b->rev_right);
  free(b->sep);
  nmt_strmap_free(b->vocab);
  nmt_bpe_gloss_free(b->gloss);
  nmt_bpe_cache_free(&b->cache);
  free(b->key.s);
  free(b->sym);
  free(b);
}
