/* Source preparation and output post-processing; see decode/text.h. */
#include "decode/text.h"
#include "text/bpe.h"
#include "base/err.h"
#include "text/tok.h"
#include <string.h>

int nmt_bpe_join(const char *s, size_t n, nmt_strbuf *out) {
  for (size_t i = 0; i < n; i++) {
    bool mark = s[i] == '@' && i + 1 < n && s[i + 1] == '@' && (i + 2 == n || s[i + 2] == ' ');
    if (mark) {
      i += 2; /* skips the "@@" and the space after it */
      continue;
    }
    if (nmt_strbuf_addc(out, s[i])) return nmt_fail(NMT_EIO, "out of memory");
  }
  return NMT_OK;
}

int nmt_ids_text(const nmt_vocab *v, const int *ids, int n, bool join, nmt_strbuf *out) {
  nmt_strbuf plain = {0};
  nmt_strbuf *b = join ? &plain : out;
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    const char *tok = nmt_vocab_token(v, ids[i]);
    if ((i && nmt_strbuf_addc(b, ' ')) || nmt_strbuf_add(b, tok, strlen(tok)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && join && plain.len) st = nmt_bpe_join(plain.s, plain.len, out);
  free(plain.s);
  return st;
}

int nmt_ids_desegment(const nmt_vocab *v, const nmt_segmenter *seg, const int *ids, int n, nmt_strbuf *out) {
  nmt_strbuf toks = {0};
  int st = nmt_ids_text(v, ids, n, false, &toks);
  if (!st) st = seg->join(seg, toks.s ? toks.s : "", toks.len, out);
  free(toks.s);
  return st;
}

struct nmt_text {
  const nmt_model *m;
  const char *path;      /* the model's, for messages */
  bool raw, join, detok;
  bool tokenize; /* raw without SentencePiece: the Moses tokenizer and BPE */
  tok_config src, tgt;
  tok_scratch scratch;
  nmt_strbuf norm, tok;   /* the tokenizer's passes; each line ends in '\n' */
  nmt_bpe *bpe;
  nmt_strbuf bpe_out, words, toks;
  nmt_strbuf target;     /* a target text's tokens (nmt_text_target_tokens) */
};

void nmt_text_set_cache(nmt_text *t, size_t bytes) {
  if (t->bpe) nmt_bpe_set_cache(t->bpe, bytes);
}

int nmt_text_new(nmt_text **tp, const nmt_model *m, const char *path, bool raw, bool postprocess) {
  const nmt_tok_settings *s = &m->tok;
  bool has_tok = s->src_lang[0], spm = m->seg[0];
  if (raw && !has_tok && !spm)
    return nmt_fail(NMT_EUSAGE, "%s: --raw needs tokenizer settings in the model (nmt-train --src-lang L --tgt-lang L) "
                    "or SentencePiece vocabularies (--vocabs X.model Y.model)", path);
  if (raw && !spm && !m->bpe_codes)
    return nmt_fail(NMT_EUSAGE, "%s: --raw needs BPE codes in the model (nmt-train --bpe-codes CODES)", path);
  nmt_text *t = calloc(1, sizeof *t);
  if (!t) return nmt_fail(NMT_EIO, "out of memory");
  *t = (nmt_text){.m = m, .path = path, .raw = raw, .join = postprocess, .detok = postprocess && has_tok,
                  .tokenize = raw && !spm};
  /* Unknown languages fall back to English prefixes, as nmt-tokenize (which warned at training). */
  if (t->tokenize) tok_config_init(&t->src, s->src_lang, s->aggressive, s->escape);
  if (t->detok) tok_config_init(&t->tgt, s->tgt_lang, s->aggressive, s->escape);
  int st = t->tokenize ? nmt_bpe_load_text(&t->bpe, m->bpe_codes, m->bpe_len, path, &(nmt_bpe_opts){.merges = -1, .vocab_threshold = -1})
                       : NMT_OK;
  if (st) nmt_text_free(t), t = NULL;
  *tp = t;
  return st;
}

void nmt_text_free(nmt_text *t) {
  if (!t) return;
  if (t->tokenize) tok_config_free(&t->src);
  if (t->detok) tok_config_free(&t->tgt);
  tok_scratch_free(&t->scratch);
  free(t->norm.s), free(t->tok.s), free(t->bpe_out.s), free(t->words.s), free(t->toks.s), free(t->target.s);
  nmt_bpe_free(t->bpe);
  free(t);
}

/* The Moses tokenizer as cfg (the source's or target's language) and BPE with the model's
 * codes (none: the tokens) into out. */
static int tokenize_bpe(nmt_text *t, const tok_config *cfg, const char *line, size_t n, nmt_strbuf *out) {
  t->norm.len = t->tok.len = 0;
  bool ok = true;
  if (t->m->tok.normalize) {
    ok = tok_normalize(cfg, &t->scratch, line, n, &t->norm);
    line = t->norm.s, n = t->norm.len - 1; /* without its '\n' */
  }
  if (!ok || !tok_tokenize(cfg, &t->scratch, line, n, &t->tok)) return nmt_fail(NMT_EIO, "out of memory");
  if (t->bpe) return nmt_bpe_apply_line(t->bpe, t->tok.s, t->tok.len - 1, out);
  return nmt_strbuf_add(out, t->tok.s, t->tok.len - 1) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

int nmt_text_source(nmt_text *t, const char *line, size_t n, const char **out, size_t *out_n) {
  if (!t->raw) return *out = line, *out_n = n, NMT_OK;
  t->bpe_out.len = 0;
  const nmt_segmenter *seg = t->m->seg[0];
  int st = seg ? seg->split(seg, line, n, &t->bpe_out) : tokenize_bpe(t, &t->src, line, n, &t->bpe_out);
  *out = t->bpe_out.s ? t->bpe_out.s : "";
  *out_n = t->bpe_out.len;
  return st;
}

int nmt_text_target_tokens(nmt_text *t, const char *line, size_t n, const char **out, size_t *out_n) {
  const nmt_segmenter *seg = t->m->seg[1];
  t->target.len = 0;
  int st = NMT_OK;
  if (t->join && !seg && !t->bpe && t->m->bpe_codes) /* loaded for the first target text */
    st = nmt_bpe_load_text(&t->bpe, t->m->bpe_codes, t->m->bpe_len, t->path,
                           &(nmt_bpe_opts){.merges = -1, .vocab_threshold = -1});
  if (st) return st;
  if (!t->join) st = nmt_strbuf_add(&t->target, line, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
  else if (seg) st = seg->split(seg, line, n, &t->target);
  else if (t->detok) st = tokenize_bpe(t, &t->tgt, line, n, &t->target);
  else if (t->bpe) st = nmt_bpe_apply_line(t->bpe, line, n, &t->target);
  else st = nmt_strbuf_add(&t->target, line, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
  *out = t->target.s ? t->target.s : "";
  *out_n = t->target.len;
  return st;
}

int nmt_text_target(nmt_text *t, const int *ids, int n, nmt_strbuf *out) {
  t->toks.len = 0;
  int st = nmt_ids_text(t->m->tgt, ids, n, false, &t->toks);
  return st ? st : nmt_text_output(t, t->toks.s ? t->toks.s : "", t->toks.len, out);
}

int nmt_text_output(nmt_text *t, const char *toks, size_t n, nmt_strbuf *out) {
  if (!t->join) return nmt_strbuf_add(out, toks, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
  if (t->m->seg[1]) return t->m->seg[1]->join(t->m->seg[1], toks, n, out);
  if (!t->detok) return nmt_bpe_join(toks, n, out);
  t->words.len = 0;
  int st = nmt_bpe_join(toks, n, &t->words);
  t->tok.len = 0;
  if (!st && t->words.len &&
      !tok_detokenize(&t->tgt, &t->scratch, t->words.s, t->words.len, &t->tok))
    st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && t->words.len && nmt_strbuf_add(out, t->tok.s, t->tok.len - 1))
    st = nmt_fail(NMT_EIO, "out of memory");
  return st;
}
