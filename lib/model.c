/* Model create/save/load. Sections: "config" (key=value lines), "srcvocab",
 * "tgtvocab" (vocab text), "bpecodes" (optional), "tensors" ("name rows cols
 * offset" lines), "weights" (the parameter buffer, float32). */
#include "model.h"
#include "err.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by enum nn_attn_score, then "none"; by enum nn_luong_enc. */
static const char *const attn_names[] = {"dot", "general", "mlp", "none"};
static const char *const enc_names[] = {"unidirectional", "bidirectional", "bi-unidirectional"};

static int name_index(const char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (name && !strcmp(name, names[i])) return i;
  return -1;
}

static int config_of(nn_luong_cfg *c, const nmt_model_opts *o, int vs, int vt) {
  int score = name_index(attn_names, 4, o->attention);
  int enc = o->enc_type ? name_index(enc_names, 3, o->enc_type) : NN_ENC_UNI;
  if (score < 0) return nmt_fail(NMT_EUSAGE, "--attention must be dot, general, mlp or none");
  if (enc < 0)
    return nmt_fail(NMT_EUSAGE, "--enc-type must be unidirectional, bidirectional or bi-unidirectional");
  if (enc != NN_ENC_UNI && o->dim_rnn % 2)
    return nmt_fail(NMT_EUSAGE, "--dim-rnn must be even with a %s encoder (half per direction)",
                    enc_names[enc]);
  if (o->dropout < 0 || o->dropout >= 1) return nmt_fail(NMT_EUSAGE, "--dropout must be in [0, 1)");
  if (o->label_smoothing < 0 || o->label_smoothing >= 1)
    return nmt_fail(NMT_EUSAGE, "--label-smoothing must be in [0, 1)");
  bool none = score == 3;
  *c = (nn_luong_cfg){.src_vocab = vs, .tgt_vocab = vt, .emb = o->dim_emb, .hidden = o->dim_rnn,
                      .enc_layers = o->enc_depth, .dec_layers = o->dec_depth,
                      .enc_type = (enum nn_luong_enc)enc, .reverse_source = o->reverse_source,
                      .no_attention = none,
                      .attn = {none ? NN_ATTN_DOT : (enum nn_attn_score)score, o->local, (float)o->window},
                      .attn_size = o->dim_rnn, .input_feed = o->input_feed && !none,
                      .dropout = o->dropout, .label_smoothing = o->label_smoothing, .pad = NMT_PAD};
  return NMT_OK;
}

int nmt_model_create(nmt_model *m, const nmt_model_opts *o, nmt_vocab *src, nmt_vocab *tgt,
                     uint64_t seed) {
  memset(m, 0, sizeof *m);
  m->src = src;
  m->tgt = tgt;
  nn_luong_cfg c;
  int st = config_of(&c, o, nmt_vocab_size(src), nmt_vocab_size(tgt));
  if (!st) st = nn_luong_layout(&m->net, &c, &m->params);
  if (!st) st = nn_params_alloc(&m->params);
  if (!st) nn_params_init(&m->params, NN_INIT_UNIFORM, 0.1f, seed);
  return st;
}

void nmt_model_free(nmt_model *m) {
  nn_params_free(&m->params);
  nmt_vocab_free(m->src);
  nmt_vocab_free(m->tgt);
  free(m->bpe_codes);
  memset(m, 0, sizeof *m);
}

/* A language code: 1 to 15 letters, digits, '-' or '_'. */
static int set_lang(char dst[16], const char *val) {
  size_t n = strlen(val);
  if (!n || n >= 16 || strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != n)
    return -1;
  memcpy(dst, val, n + 1);
  return 0;
}

int nmt_tok_settings_set(nmt_tok_settings *t, const char *src_lang, const char *tgt_lang,
                         bool aggressive, bool escape, bool normalize) {
  *t = (nmt_tok_settings){.aggressive = aggressive, .escape = escape, .normalize = normalize};
  if (!src_lang != !tgt_lang) return nmt_fail(NMT_EUSAGE, "--src-lang and --tgt-lang go together");
  if (!src_lang && (aggressive || !escape || normalize))
    return nmt_fail(NMT_EUSAGE, "--tok-aggressive, --tok-no-escape and --tok-normalize need --src-lang and --tgt-lang");
  if (src_lang && (set_lang(t->src_lang, src_lang) || set_lang(t->tgt_lang, tgt_lang)))
    return nmt_fail(NMT_EUSAGE, "--src-lang/--tgt-lang: a language code such as fr or en (got '%s', '%s')",
                    src_lang, tgt_lang);
  return NMT_OK;
}

/* ---- saving ---- */

static int addf(nmt_strbuf *b, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  return nmt_strbuf_add(b, line, (size_t)n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static int config_text(const nn_luong_cfg *c, nmt_strbuf *b) {
  int st = addf(b, "family=luong\ndim-emb=%d\ndim-rnn=%d\nenc-depth=%d\ndec-depth=%d\nenc-type=%s\n"
                   "reverse-source=%d\n", c->emb, c->hidden, c->enc_layers, c->dec_layers,
                enc_names[c->enc_type], c->reverse_source);
  return st ? st : addf(b, "attention=%s\nlocal=%d\nwindow=%g\ninput-feed=%d\ndropout=%.9g\n"
                           "label-smoothing=%.9g\n", attn_names[c->no_attention ? 3 : c->attn.score],
                        c->attn.local, (double)c->attn.D, c->input_feed, (double)c->dropout,
                        (double)c->label_smoothing);
}

static int tok_text(const nmt_tok_settings *t, nmt_strbuf *b) {
  if (!t->src_lang[0]) return NMT_OK;
  return addf(b, "src-lang=%s\ntgt-lang=%s\ntok-aggressive=%d\ntok-escape=%d\ntok-normalize=%d\n",
              t->src_lang, t->tgt_lang, t->aggressive, t->escape, t->normalize);
}

static int tensor_table(const nn_params *p, nmt_strbuf *b) {
  int st = NMT_OK;
  for (int i = 0; i < p->nviews && !st; i++)
    st = addf(b, "%s %d %d %zu\n", p->views[i].name, p->views[i].rows, p->views[i].cols,
              p->views[i].off);
  return st;
}

int nmt_model_sections(const nmt_model *m, nmt_model_file *f, nmt_strbuf s[3]) {
  /* s[0] config, s[1] source then target vocabulary, s[2] tensor table */
  int st = config_text(&m->net.cfg, &s[0]);
  if (!st) st = tok_text(&m->tok, &s[0]);
  size_t src_len = 0;
  if (!st) st = nmt_vocab_text(m->src, &s[1]);
  if (!st) src_len = s[1].len, st = nmt_vocab_text(m->tgt, &s[1]);
  if (!st) st = tensor_table(&m->params, &s[2]);
  if (!st) st = nmt_mf_add(f, "config", s[0].s, s[0].len);
  if (!st) st = nmt_mf_add(f, "srcvocab", s[1].s, src_len);
  if (!st) st = nmt_mf_add(f, "tgtvocab", s[1].s + src_len, s[1].len - src_len);
  if (!st && m->bpe_codes) st = nmt_mf_add(f, "bpecodes", m->bpe_codes, m->bpe_len);
  if (!st) st = nmt_mf_add(f, "tensors", s[2].s, s[2].len);
  if (!st) st = nmt_mf_add(f, "weights", m->params.w, sizeof(float) * m->params.n);
  return st;
}

int nmt_model_save(const nmt_model *m, const char *path) {
  nmt_model_file f = {0};
  nmt_strbuf s[3] = {{0}};
  int st = nmt_model_sections(m, &f, s);
  if (!st) st = nmt_mf_write(&f, path);
  for (int i = 0; i < 3; i++) free(s[i].s);
  free(f.s);
  return st;
}

/* ---- loading ---- */

static const nmt_section *need(const nmt_model_file *f, const char *tag, const char *path) {
  const nmt_section *s = nmt_mf_get(f, tag);
  if (!s) nmt_fail(NMT_EINPUT, "%s: no '%s' section", path, tag);
  return s;
}

/* One "key=value" line into o or t (names point into the static tables).
 * "depth" is the older files' key for both depths. */
static int config_line(nmt_model_opts *o, nmt_tok_settings *t, const char *key, const char *val) {
  char *end;
  double x = strtod(val, &end);
  bool num = *val && !*end;
  if (!strcmp(key, "family")) return strcmp(val, "luong") ? -1 : 0;
  if (!strcmp(key, "attention")) {
    int i = name_index(attn_names, 4, val);
    o->attention = i < 0 ? NULL : attn_names[i];
    return i < 0 ? -1 : 0;
  }
  if (!strcmp(key, "enc-type")) {
    int i = name_index(enc_names, 3, val);
    o->enc_type = i < 0 ? NULL : enc_names[i];
    return i < 0 ? -1 : 0;
  }
  if (!strcmp(key, "src-lang")) return set_lang(t->src_lang, val);
  if (!strcmp(key, "tgt-lang")) return set_lang(t->tgt_lang, val);
  if (!num) return -1;
  if (!strcmp(key, "tok-aggressive")) t->aggressive = x != 0;
  else if (!strcmp(key, "tok-escape")) t->escape = x != 0;
  else if (!strcmp(key, "tok-normalize")) t->normalize = x != 0;
  else if (!strcmp(key, "dim-emb")) o->dim_emb = (int)x;
  else if (!strcmp(key, "dim-rnn")) o->dim_rnn = (int)x;
  else if (!strcmp(key, "depth")) o->enc_depth = o->dec_depth = (int)x;
  else if (!strcmp(key, "enc-depth")) o->enc_depth = (int)x;
  else if (!strcmp(key, "dec-depth")) o->dec_depth = (int)x;
  else if (!strcmp(key, "reverse-source")) o->reverse_source = x != 0;
  else if (!strcmp(key, "local")) o->local = x != 0;
  else if (!strcmp(key, "window")) o->window = (int)x;
  else if (!strcmp(key, "input-feed")) o->input_feed = x != 0;
  else if (!strcmp(key, "dropout")) o->dropout = (float)x;
  else if (!strcmp(key, "label-smoothing")) o->label_smoothing = (float)x;
  else return -1;
  return 0;
}

static int parse_config(nmt_model_opts *o, nmt_tok_settings *t, const nmt_section *s, const char *path) {
  char *text = strndup(s->data, s->len), *save = NULL;
  if (!text) return nmt_fail(NMT_EIO, "out of memory");
  int st = NMT_OK;
  for (char *line = strtok_r(text, "\n", &save); line && !st; line = strtok_r(NULL, "\n", &save)) {
    char *eq = strchr(line, '=');
    if (eq) *eq = 0;
    if (!eq || config_line(o, t, line, eq + 1))
      st = nmt_fail(NMT_EINPUT, "%s: config: cannot use '%s%s%s'", path, line, eq ? "=" : "",
                    eq ? eq + 1 : "");
  }
  free(text);
  return st;
}

/* Copy the tensors named in the table from `data` (floats) into buffer `dst`
 * laid out as m->params. */
static int copy_tensors(nn_params *p, float *dst, const nmt_section *table, const nmt_section *data,
                        const char *path) {
  char *text = strndup(table->data, table->len), *save = NULL;
  if (!text) return nmt_fail(NMT_EIO, "out of memory");
  int st = NMT_OK, found = 0;
  size_t nfloats = data->len / sizeof(float);
  for (char *line = strtok_r(text, "\n", &save); line && !st; line = strtok_r(NULL, "\n", &save)) {
    char name[64];
    int rows, cols;
    size_t off;
    if (sscanf(line, "%63s %d %d %zu", name, &rows, &cols, &off) != 4)
      st = nmt_fail(NMT_EINPUT, "%s: bad tensor table line '%s'", path, line);
    int i = st ? -1 : nn_params_find(p, name);
    if (!st && (i < 0 || p->views[i].rows != rows || p->views[i].cols != cols))
      st = nmt_fail(NMT_EINPUT, "%s: tensor %s (%d,%d) does not fit the configuration", path, name,
                    rows, cols);
    if (!st && (off > nfloats || (size_t)rows * cols > nfloats - off))
      st = nmt_fail(NMT_EINPUT, "%s: tensor %s lies outside the data", path, name);
    if (!st) {
      memcpy(dst + p->views[i].off, (const float *)data->data + off, sizeof(float) * (size_t)rows * cols);
      found++;
    }
  }
  free(text);
  if (!st && found != p->nviews)
    st = nmt_fail(NMT_EINPUT, "%s: %d of the model's %d tensors are missing", path,
                  p->nviews - found, p->nviews);
  return st;
}

int nmt_model_load_buffer(nmt_model *m, float *dst, const nmt_model_file *f, const char *tag,
                          const char *path) {
  const nmt_section *table = need(f, "tensors", path), *data = table ? need(f, tag, path) : NULL;
  return data ? copy_tensors(&m->params, dst, table, data, path) : nmt_errcode();
}

static int load_vocab(nmt_vocab **v, const nmt_model_file *f, const char *tag, const char *path) {
  const nmt_section *s = need(f, tag, path);
  if (!s) return nmt_errcode();
  char name[512];
  snprintf(name, sizeof name, "%s: %s", path, tag);
  return nmt_vocab_parse(v, s->data, s->len, name);
}

int nmt_model_from_file(nmt_model *m, const nmt_model_file *f, const char *path) {
  memset(m, 0, sizeof *m);
  nmt_model_opts o = {0};
  const nmt_section *cfg = need(f, "config", path), *codes = nmt_mf_get(f, "bpecodes");
  int st = cfg ? parse_config(&o, &m->tok, cfg, path) : nmt_errcode();
  if (!st && !m->tok.src_lang[0] != !m->tok.tgt_lang[0])
    st = nmt_fail(NMT_EINPUT, "%s: config: src-lang and tgt-lang go together", path);
  nn_luong_cfg c;
  if (!st) st = load_vocab(&m->src, f, "srcvocab", path);
  if (!st) st = load_vocab(&m->tgt, f, "tgtvocab", path);
  if (!st && config_of(&c, &o, nmt_vocab_size(m->src), nmt_vocab_size(m->tgt)))
    st = nmt_fail(NMT_EINPUT, "%s: config: %s", path, nmt_errmsg());
  if (!st && nn_luong_layout(&m->net, &c, &m->params))
    st = nmt_fail(NMT_EINPUT, "%s: config: %s", path, nmt_errmsg());
  if (!st) st = nn_params_alloc(&m->params);
  if (!st) st = nmt_model_load_buffer(m, m->params.w, f, "weights", path);
  if (!st && codes && !(m->bpe_codes = strndup(codes->data, codes->len)))
    st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && codes) m->bpe_len = codes->len;
  if (st) nmt_model_free(m);
  return st;
}

int nmt_model_load(nmt_model *m, const char *path) {
  nmt_model_file f;
  int st = nmt_mf_read(&f, path);
  if (st) return st;
  st = nmt_model_from_file(m, &f, path);
  nmt_mf_free(&f);
  return st;
}
