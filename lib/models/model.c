/* Model create/save/load. Sections: "config" (key=value lines), "srcvocab",
 * "tgtvocab" (vocab text), "bpecodes" (optional), "srcspm" and "tgtspm"
 * (optional: .model files' bytes), "origin" and "traincfg" (optional text),
 * "tensors" ("name rows cols offset" lines), "weights" (the parameter
 * buffer, float32). */
#include "models/model.h"
#include "base/err.h"
#include "models/families.h"
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A NAME option's value: its index in the row's list (0 when NULL), or -1 with a message. */
static int name_option(const char *key, const char *val) {
  const nmt_option *r = nmt_option_by_key(key);
  if (!val) return 0;
  for (int i = 0; i < r->nnames; i++)
    if (!strcmp(val, r->names[i])) return i;
  char list[128] = "";
  for (int k = 0; k < r->nnames; k++) strcat(strcat(list, k ? k + 1 < r->nnames ? ", " : " or " : ""), r->names[k]);
  return nmt_fail(NMT_EUSAGE, "--%s must be %s (got '%s')", r->flag, list, val), -1;
}

static const char *name_of(const char *key, int i) { return nmt_option_by_key(key)->names[i]; }

/* The configuration of o; o's names are normalised to the tables'. */
static int config_of(nmt_net_cfg *c, nmt_model_opts *o, int vs, int vt) {
  const nmt_family *fam = nmt_family_find(o->type);
  if (!fam) return nmt_fail(NMT_EUSAGE, "unknown --type '%s' (types: %s)", o->type, nmt_family_names());
  const char *attention = o->attention ? o->attention : fam->default_attention ? fam->default_attention : "general";
  int score = name_option("attention", attention);
  int enc = name_option("enc-type", o->enc_type);
  int ecell = o->enc_cell ? name_option("enc-cell", o->enc_cell) : (int)fam->default_cell;
  int dcell = o->dec_cell ? name_option("dec-cell", o->dec_cell) : (int)fam->default_cell;
  if (score < 0 || enc < 0 || ecell < 0 || dcell < 0) return NMT_EUSAGE;
  o->type = fam->name, o->attention = name_of("attention", score), o->enc_type = name_of("enc-type", enc);
  o->enc_cell = name_of("enc-cell", ecell), o->dec_cell = name_of("dec-cell", dcell);
  if (o->dropout < 0 || o->dropout >= 1) return nmt_fail(NMT_EUSAGE, "--dropout must be in [0, 1)");
  if (o->label_smoothing < 0 || o->label_smoothing >= 1)
    return nmt_fail(NMT_EUSAGE, "--label-smoothing must be in [0, 1)");
  if (o->enc_cell_depth < 0 || o->dec_cell_depth < 0)
    return nmt_fail(NMT_EUSAGE, "--enc-cell-depth and --dec-cell-depth must be >= 1");
  if (o->recon_beta < 0) return nmt_fail(NMT_EUSAGE, "--reconstructor-beta must be >= 0");
  if (o->local && o->window < 1) return nmt_fail(NMT_EUSAGE, "--attention-window must be >= 1 with --local-attention");
  bool none = score == 3;
  *c = (nmt_net_cfg){.opt = *o, .family = fam, .src_vocab = vs, .tgt_vocab = vt, .emb = o->dim_emb, .hidden = o->dim_rnn,
                    .enc_layers = o->enc_depth, .dec_layers = o->dec_depth,
                    .enc_type = (enum nmt_enc_type)enc,
                    .no_attention = none,
                    .attn = {none ? NN_ATTN_DOT : (enum nn_attn_score)score, o->local, (float)o->window},
                    .attn_size = o->dim_rnn, .input_feed = o->input_feed && !none,
                    .dropout = o->dropout, .label_smoothing = o->label_smoothing, .pad = NMT_PAD,
                    .enc_cell = (enum nmt_cell)ecell, .dec_cell = (enum nmt_cell)dcell,
                    .enc_cell_depth = o->enc_cell_depth ? o->enc_cell_depth : 1,
                    .dec_cell_depth = o->dec_cell_depth ? o->dec_cell_depth : 1};
  return NMT_OK;
}

int nmt_model_create(nmt_model *m, const nmt_model_opts *o, nmt_vocab *src, nmt_vocab *tgt,
                     uint64_t seed) {
  memset(m, 0, sizeof *m);
  m->src = src;
  m->tgt = tgt;
  m->opts = *o;
  nmt_net_cfg c;
  /* sizes alone are checked at layout; a new model's vocabularies must be one */
  if (o->tied_embeddings_all && !nmt_vocab_equal(src, tgt))
    return nmt_fail(NMT_EUSAGE, "--tied-embeddings-all needs a joint vocabulary, but the source and target "
                    "vocabularies differ: give --vocabs the same file twice");
  int st = config_of(&c, &m->opts, nmt_vocab_size(src), nmt_vocab_size(tgt));
  if (!st) st = nmt_net_layout(&m->net, &c, &m->params);
  if (!st) st = nn_params_alloc(&m->params);
  if (!st) nn_params_init(&m->params, NN_INIT_UNIFORM, 0.1f, seed);
  return st;
}

void nmt_model_free(nmt_model *m) {
  nn_params_free(&m->params);
  nmt_vocab_free(m->src);
  nmt_vocab_free(m->tgt);
  free(m->bpe_codes);
  free(m->origin);
  free(m->train_config);
  for (int i = 0; i < 2; i++) {
    free(m->spm[i]);
    if (m->seg[i]) m->seg[i]->free(m->seg[i]);
  }
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

static int config_text(const nmt_model_opts *o, nmt_strbuf *b) {
  int st = NMT_OK;
  for (int i = 0; i < nmt_noptions && !st; i++) {
    char val[64];
    nmt_option_text(&nmt_options[i], o, val, sizeof val);
    st = nmt_strbuf_addf(b, "%s=%s\n", nmt_options[i].key, val);
  }
  return st;
}

int nmt_model_opts_conflicts(const nmt_model_opts *have, const nmt_model_opts *want,
                             bool (*given)(const void *ctx, const nmt_option *r), const void *ctx,
                             nmt_strbuf *out) {
  int st = NMT_OK;
  for (int i = 0; i < nmt_noptions && !st; i++) {
    const nmt_option *r = &nmt_options[i];
    char h[64], w[64];
    nmt_option_text(r, have, h, sizeof h);
    nmt_option_text(r, want, w, sizeof w);
    if (strcmp(h, w) && given(ctx, r))
      st = nmt_strbuf_addf(out, "%s%s=%s (checkpoint: %s)", out->len ? ", " : "", r->key, w, h);
  }
  return st;
}

static int tok_text(const nmt_tok_settings *t, nmt_strbuf *b) {
  if (!t->src_lang[0]) return NMT_OK;
  return nmt_strbuf_addf(b, "src-lang=%s\ntgt-lang=%s\ntok-aggressive=%d\ntok-escape=%d\ntok-normalize=%d\n",
              t->src_lang, t->tgt_lang, t->aggressive, t->escape, t->normalize);
}

static int tensor_table(const nn_params *p, nmt_strbuf *b) {
  int st = NMT_OK;
  for (int i = 0; i < p->nviews && !st; i++)
    st = nmt_strbuf_addf(b, "%s %d %d %zu\n", p->views[i].name, p->views[i].rows, p->views[i].cols,
              p->views[i].off);
  return st;
}

static const char *const spm_tags[2] = {"srcspm", "tgtspm"};

int nmt_model_sections(const nmt_model *m, nmt_model_file *f, nmt_strbuf s[3]) {
  /* s[0] config, s[1] source then target vocabulary, s[2] tensor table */
  int st = config_text(&m->opts, &s[0]);
  if (!st) st = tok_text(&m->tok, &s[0]);
  size_t src_len = 0;
  if (!st) st = nmt_vocab_text(m->src, &s[1]);
  if (!st) src_len = s[1].len, st = nmt_vocab_text(m->tgt, &s[1]);
  if (!st) st = tensor_table(&m->params, &s[2]);
  if (!st) st = nmt_mf_add(f, "config", s[0].s, s[0].len);
  if (!st) st = nmt_mf_add(f, "srcvocab", s[1].s, src_len);
  if (!st) st = nmt_mf_add(f, "tgtvocab", s[1].s + src_len, s[1].len - src_len);
  if (!st && m->bpe_codes) st = nmt_mf_add(f, "bpecodes", m->bpe_codes, m->bpe_len);
  if (!st && m->origin) st = nmt_mf_add(f, "origin", m->origin, strlen(m->origin));
  if (!st && m->train_config) st = nmt_mf_add(f, "traincfg", m->train_config, strlen(m->train_config));
  for (int i = 0; i < 2 && !st; i++)
    if (m->spm[i]) st = nmt_mf_add(f, spm_tags[i], m->spm[i], m->spm_len[i]);
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
  if (!strcmp(key, "src-lang")) return set_lang(t->src_lang, val);
  if (!strcmp(key, "tgt-lang")) return set_lang(t->tgt_lang, val);
  if (!strcmp(key, "depth")) /* both depths */
    return nmt_option_read(nmt_option_by_key("enc-depth"), o, val) ? -1 : (o->dec_depth = o->enc_depth, 0);
  if (!strcmp(key, "tok-aggressive") && num) return t->aggressive = x != 0, 0;
  if (!strcmp(key, "tok-escape") && num) return t->escape = x != 0, 0;
  if (!strcmp(key, "tok-normalize") && num) return t->normalize = x != 0, 0;
  const nmt_option *r = nmt_option_by_key(key);
  return r ? nmt_option_read(r, o, val) : -1;
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
  /* a tensor named twice must not stand in for a missing one */
  bool *seen = calloc((size_t)p->nviews + 1, sizeof *seen);
  if (!seen) st = nmt_fail(NMT_EIO, "out of memory");
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
    if (!st && seen[i]) st = nmt_fail(NMT_EINPUT, "%s: tensor %s is in the table twice", path, name);
    if (!st && (off > nfloats || (size_t)rows * cols > nfloats - off))
      st = nmt_fail(NMT_EINPUT, "%s: tensor %s lies outside the data", path, name);
    if (!st) {
      memcpy(dst + p->views[i].off, (const float *)data->data + off, sizeof(float) * (size_t)rows * cols);
      seen[i] = true, found++;
    }
  }
  free(seen);
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

/* The configuration refused by config_of or the layout: their message, copied
 * first because nmt_fail writes the buffer nmt_errmsg() returns. */
static int config_refused(const char *path) {
  char why[512];
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  return nmt_fail(NMT_EINPUT, "%s: config: %s", path, why);
}

/* Checked before allocating: a configuration bigger than the weights the
 * file holds is a damaged file, not a request for memory. */
static int weights_fit(const nn_params *p, const nmt_model_file *f, const char *path) {
  const nmt_section *w = need(f, "weights", path);
  if (!w) return nmt_errcode();
  size_t have = w->len / sizeof(float);
  return have >= p->n ? NMT_OK
                      : nmt_fail(NMT_EINPUT, "%s: the weights hold %zu floats, the configuration needs %zu",
                                 path, have, p->n);
}

/* A copy of optional section tag: *out NULL when f has none. */
static int copy_section(char **out, size_t *len, const nmt_model_file *f, const char *tag) {
  const nmt_section *s = nmt_mf_get(f, tag);
  if (!s) return NMT_OK;
  if (!(*out = malloc(s->len ? s->len : 1))) return nmt_fail(NMT_EIO, "out of memory");
  memcpy(*out, s->data, s->len);
  *len = s->len;
  return NMT_OK;
}

/* A text section the file may lack, copied NUL-terminated. */
static int optional_text(char **dst, const nmt_model_file *f, const char *tag) {
  const nmt_section *s = nmt_mf_get(f, tag);
  if (s && !(*dst = strndup(s->data, s->len))) return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

int nmt_model_from_file(nmt_model *m, const nmt_model_file *f, const char *path, bool training) {
  memset(m, 0, sizeof *m);
  nmt_model_opts o = {0};
  const nmt_section *cfg = need(f, "config", path), *codes = nmt_mf_get(f, "bpecodes");
  int st = cfg ? parse_config(&o, &m->tok, cfg, path) : nmt_errcode();
  if (!st && !m->tok.src_lang[0] != !m->tok.tgt_lang[0])
    st = nmt_fail(NMT_EINPUT, "%s: config: src-lang and tgt-lang go together", path);
  nmt_net_cfg c;
  m->opts = o;
  if (!st) st = load_vocab(&m->src, f, "srcvocab", path);
  if (!st) st = load_vocab(&m->tgt, f, "tgtvocab", path);
  if (!st && config_of(&c, &m->opts, nmt_vocab_size(m->src), nmt_vocab_size(m->tgt)))
    st = config_refused(path);
  if (!st && nmt_net_layout(&m->net, &c, &m->params)) st = config_refused(path);
  if (!st) st = weights_fit(&m->params, f, path);
  if (!st) st = training ? nn_params_alloc(&m->params) : nn_params_alloc_weights(&m->params);
  if (!st) st = nmt_model_load_buffer(m, m->params.w, f, "weights", path);
  if (!st && codes && !(m->bpe_codes = strndup(codes->data, codes->len)))
    st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && codes) m->bpe_len = codes->len;
  if (!st) st = optional_text(&m->origin, f, "origin");
  if (!st) st = optional_text(&m->train_config, f, "traincfg");
  for (int i = 0; i < 2 && !st; i++) st = copy_section(&m->spm[i], &m->spm_len[i], f, spm_tags[i]);
  if (!st && !m->spm[0] != !m->spm[1])
    st = nmt_fail(NMT_EINPUT, "%s: a SentencePiece model for one side only (srcspm and tgtspm go together)", path);
  if (st) nmt_model_free(m);
  return st;
}

int nmt_model_load(nmt_model *m, const char *path) {
  nmt_model_file f;
  int st = nmt_mf_read(&f, path);
  if (st) return st;
  st = nmt_model_from_file(m, &f, path, false);
  nmt_mf_free(&f);
  return st;
}
