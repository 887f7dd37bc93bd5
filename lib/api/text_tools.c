/* The Moses tokenizer and BPE of the public API (include/nmt.h): nmt-tokenize and
 * nmt-bpe apply on one line. */
#include <nmt.h>
#include "api/api.h"
#include "base/err.h"
#include "text/bpe.h"
#include "text/tok.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct nmt_moses {
  tok_config cfg; /* read-only: each call has its own scratch */
};

struct nmt_subword {
  nmt_bpe *bpe;
  pthread_mutex_t lock; /* nmt_bpe_apply_line caches words */
};

nmt_status nmt_moses_new(nmt_moses **m, const char *lang, int flags) {
  if (!m) return api_status(nmt_fail(NMT_EUSAGE, "nmt_moses_new: NULL handle"));
  if (!(*m = calloc(1, sizeof **m))) return api_status(nmt_fail(NMT_EIO, "out of memory"));
  if (!lang) lang = "en";
  if (strlen(lang) >= sizeof (*m)->cfg.lang) {
    free(*m), *m = NULL;
    return api_status(nmt_fail(NMT_EUSAGE, "language '%s': too long a name", lang));
  }
  /* a language without a prefix list takes English's, as Moses does */
  (void)tok_config_init(&(*m)->cfg, lang, flags & NMT_MOSES_AGGRESSIVE, flags & NMT_MOSES_ESCAPE);
  return NMT_STATUS_OK;
}

typedef bool (*tok_fn)(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, nmt_strbuf *out);

static nmt_status moses(nmt_moses *m, tok_fn fn, const char *line, char **out) {
  if (!m || !line || !out) return api_status(nmt_fail(NMT_EUSAGE, "NULL tokenizer, line or output"));
  *out = NULL;
  size_t n = strlen(line);
  if (memchr(line, '\n', n)) return api_status(nmt_fail(NMT_EINPUT, "the line holds a newline (one line each)"));
  int st = nmt_utf8_check_line(line, n, "<line>", 1);
  tok_scratch s = {0};
  nmt_strbuf b = {0};
  if (!st && !fn(&m->cfg, &s, line, n, &b)) st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = 0; /* the functions end the line */
  if (!st && !b.s && !(b.s = strdup(""))) st = nmt_fail(NMT_EIO, "out of memory");
  tok_scratch_free(&s);
  if (st) free(b.s);
  else *out = b.s;
  return api_status(st);
}

nmt_status nmt_moses_tokenize(nmt_moses *m, const char *line, char **out) { return moses(m, tok_tokenize, line, out); }

nmt_status nmt_moses_detokenize(nmt_moses *m, const char *line, char **out) {
  return moses(m, tok_detokenize, line, out);
}

void nmt_moses_free(nmt_moses *m) {
  if (!m) return;
  tok_config_free(&m->cfg);
  free(m);
}

nmt_status nmt_subword_new(nmt_subword **b, const char *codes_path) {
  if (!b || !codes_path) return api_status(nmt_fail(NMT_EUSAGE, "nmt_subword_new: NULL handle or path"));
  if (!(*b = calloc(1, sizeof **b))) return api_status(nmt_fail(NMT_EIO, "out of memory"));
  nmt_bpe_opts o = {.merges = -1, .vocab_threshold = -1};
  int st = pthread_mutex_init(&(*b)->lock, NULL) ? nmt_fail(NMT_EIO, "cannot make a mutex") : NMT_OK;
  if (!st && (st = nmt_bpe_load(&(*b)->bpe, codes_path, &o))) pthread_mutex_destroy(&(*b)->lock);
  if (st) free(*b), *b = NULL;
  return api_status(st);
}

nmt_status nmt_subword_apply(nmt_subword *b, const char *line, char **out) {
  if (!b || !line || !out) return api_status(nmt_fail(NMT_EUSAGE, "NULL BPE, line or output"));
  *out = NULL;
  size_t n = strlen(line);
  if (memchr(line, '\n', n)) return api_status(nmt_fail(NMT_EINPUT, "the line holds a newline (one line each)"));
  nmt_strbuf s = {0};
  int st = nmt_utf8_check_line(line, n, "<line>", 1);
  if (!st) {
    pthread_mutex_lock(&b->lock);
    st = nmt_bpe_apply_line(b->bpe, line, n, &s);
    pthread_mutex_unlock(&b->lock);
  }
  if (!st && !s.s && !(s.s = strdup(""))) st = nmt_fail(NMT_EIO, "out of memory");
  if (st) free(s.s);
  else *out = s.s;
  return api_status(st);
}

void nmt_subword_free(nmt_subword *b) {
  if (!b) return;
  nmt_bpe_free(b->bpe);
  pthread_mutex_destroy(&b->lock);
  free(b);
}
