/* Glossaries as apply_bpe.py uses them, with PCRE2 in Unicode mode standing
 * in for Python's re: a word matching '^(g1|g2|...)$' is kept whole, and each
 * glossary in turn splits words around its matches (re.split with a group). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/bpe_internal.h"
#include "base/err.h"
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  pcre2_code *whole;  /* '^' g '$' (no group: the precedence is apply_bpe.py's) */
  pcre2_code *split;  /* '(' g ')' */
  pcre2_match_data *md;
} gloss;

struct nmt_bpe_gloss {
  pcre2_code *any;    /* '^(' g1 '|' g2 ... ')$' */
  pcre2_match_data *any_md;
  gloss *g;
  int n;
  nmt_strbuf seg[2];  /* segments of this and the next round: (uint32 length, bytes)... */
};

static int compile(pcre2_code **out, const char *pre, const char *const *res, int n, const char *post) {
  nmt_strbuf pat = {0};
  int bad = nmt_strbuf_add(&pat, pre, strlen(pre));
  for (int i = 0; i < n && !bad; i++)
    bad = (i && nmt_strbuf_addc(&pat, '|')) || nmt_strbuf_add(&pat, res[i], strlen(res[i]));
  if (bad || nmt_strbuf_add(&pat, post, strlen(post))) {
    free(pat.s);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  int err;
  PCRE2_SIZE at;
  *out = pcre2_compile((PCRE2_SPTR)pat.s, pat.len, PCRE2_UTF | PCRE2_UCP, &err, &at, NULL);
  free(pat.s);
  if (*out) return NMT_OK;
  PCRE2_UCHAR msg[256];
  pcre2_get_error_message(err, msg, sizeof msg);
  return nmt_fail(NMT_EUSAGE, "bad glossary regex '%s': %s", n == 1 ? res[0] : "(all)", (char *)msg);
}

int nmt_bpe_gloss_new(nmt_bpe_gloss **out, const char *const *res, int n) {
  nmt_bpe_gloss *g = calloc(1, sizeof *g);
  if (!g || !(g->g = calloc((size_t)n, sizeof *g->g))) {
    free(g);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  g->n = n;
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    if (!(st = compile(&g->g[i].whole, "^", &res[i], 1, "$")) &&
        !(st = compile(&g->g[i].split, "(", &res[i], 1, ")")) &&
        !(g->g[i].md = pcre2_match_data_create_from_pattern(g->g[i].split, NULL)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && !(st = compile(&g->any, "^(", res, n, ")$")) &&
      !(g->any_md = pcre2_match_data_create_from_pattern(g->any, NULL)))
    st = nmt_fail(NMT_EIO, "out of memory");
  if (st) {
    nmt_bpe_gloss_free(g);
    return st;
  }
  *out = g;
  return NMT_OK;
}

void nmt_bpe_gloss_free(nmt_bpe_gloss *g) {
  if (!g) return;
  for (int i = 0; i < g->n; i++) {
    pcre2_code_free(g->g[i].whole);
    pcre2_code_free(g->g[i].split);
    pcre2_match_data_free(g->g[i].md);
  }
  free(g->g);
  pcre2_code_free(g->any);
  pcre2_match_data_free(g->any_md);
  free(g->seg[0].s);
  free(g->seg[1].s);
  free(g);
}

static bool matches(pcre2_code *re, pcre2_match_data *md, const char *w, size_t n) {
  return pcre2_match(re, (PCRE2_SPTR)w, n, 0, 0, md, NULL) >= 0;
}

bool nmt_bpe_gloss_whole(nmt_bpe_gloss *g, const char *w, size_t n) {
  return matches(g->any, g->any_md, w, n);
}

static int add_seg(nmt_strbuf *b, const char *s, size_t n) {
  if (!n) return NMT_OK; /* filter(None, ...) drops empty pieces */
  uint32_t len = (uint32_t)n;
  if (nmt_strbuf_add(b, &len, sizeof len) || nmt_strbuf_add(b, s, n)) return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

static size_t seg_len(const nmt_strbuf *b, size_t p) {
  uint32_t len;
  memcpy(&len, b->s + p, sizeof len);
  return len;
}

/* isolate_glossary(): w itself when it is the glossary or holds none of it;
 * otherwise re.split(r'(g)', w) without empty pieces, the last one stripped. */
static int isolate_one(gloss *gl, const char *w, size_t n, nmt_strbuf *out) {
  if (matches(gl->whole, gl->md, w, n) || !matches(gl->split, gl->md, w, n)) return add_seg(out, w, n);
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(gl->md);
  size_t last = 0, at = 0;
  uint32_t opts = 0;
  int st = NMT_OK;
  while (at <= n && !st) {
    int rc = pcre2_match(gl->split, (PCRE2_SPTR)w, n, at, opts, gl->md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) {
      if (!opts) break;
      /* no non-empty match where the empty one was: step over one character */
      at++;
      while (at < n && ((unsigned char)w[at] & 0xC0) == 0x80) at++;
      opts = 0;
      continue;
    }
    if (rc < 0) return nmt_fail(NMT_EINPUT, "glossary match failed (PCRE2 error %d)", rc);
    st = add_seg(out, w + last, ov[0] - last);
    for (int k = 1; k < rc && !st; k++)
      if (ov[2 * k] != PCRE2_UNSET) st = add_seg(out, w + ov[2 * k], ov[2 * k + 1] - ov[2 * k]);
    last = ov[1];
    opts = ov[0] == ov[1] ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0;
    at = ov[1];
  }
  const char *tail = w + last;
  size_t tn = n - last;
  nmt_bpe_strip(&tail, &tn);
  return st ? st : add_seg(out, tail, tn);
}

int nmt_bpe_gloss_isolate(nmt_bpe_gloss *g, const char *w, size_t n,
                          int (*emit)(void *ctx, const char *s, size_t n), void *ctx) {
  nmt_strbuf *cur = &g->seg[0], *next = &g->seg[1];
  cur->len = 0;
  int st = add_seg(cur, w, n);
  for (int i = 0; i < g->n && !st; i++) {
    next->len = 0;
    for (size_t p = 0; p < cur->len && !st; p += 4 + seg_len(cur, p))
      st = isolate_one(&g->g[i], cur->s + p + 4, seg_len(cur, p), next);
    nmt_strbuf *t = cur; cur = next; next = t;
  }
  for (size_t p = 0; p < cur->len && !st; p += 4 + seg_len(cur, p))
    st = emit(ctx, cur->s + p + 4, seg_len(cur, p));
  return st;
}
