/* The SR-NMT / SRU family (models/srnmt.h): layout, encoder, decoder
 * layers, the training loss, encode and step. */
#include "models/srnmt.h"
#include "models/encoder.h"
#include "models/parts.h"
#include "base/err.h"
#include "nn/ops.h"
#include "nn/cells/highway.h"
#include "nn/cells/wscan.h"
#include "nn/cells/srnmt_attn.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const float LN_EPS = 1e-5f;

/* A layer's views, at slot base + k. */
enum layer_view {
  L_W,               /* (in, 3H): x̃, g, z */
  L_G, L_B,          /* (1, 3H): LN gain (stored minus 1) and bias; or the bias alone (SRU) */
  L_WP,              /* (in, H): the highway's input projection where in != H */
  A_WS, A_WH, A_V,   /* attention: W_as (H,A), W_ah (H,A), v (1,A) */
  A_SG, A_SB,        /* LN of s̃·W_as (1,A) */
  A_HG, A_HB,        /* LN of h·W_ah (1,A) */
  O_WS, O_WC,        /* W_s, W_c (H,H) */
  O_SG, O_SB,        /* LN of s̃·W_s (1,H) */
  O_CG, O_CB,        /* LN of c·W_c (1,H) */
  NVIEW
};
enum { SRC_EMB, TGT_EMB, OUT_W, OUT_B, ENC0, ENC_VIEWS = L_WP + 1 };
enum { DEC0 = ENC0 + NMT_MAX_LAYERS * ENC_VIEWS };
_Static_assert(DEC0 + NMT_MAX_LAYERS * NVIEW <= NMT_NET_MAX_VIEWS, "srnmt views fit nmt_net.slot");

static int enc_slot(int l) { return ENC0 + l * ENC_VIEWS; }
static int dec_slot(int l) { return DEC0 + l * NVIEW; }

/* SRU where asked for; srnmt also stands for lstm, the cells' default (no --*-cell given). */
static bool is_sru(const nmt_net_cfg *c) { return c->dec_cell == NMT_CELL_SRU; }
/* Decoder layers with attention: every one (SR-NMT), the top one (SRU). */
static bool attends(const nmt_net_cfg *c, int l) { return !is_sru(c) || l == c->dec_layers - 1; }

/* ---- layout ---- */

static void add(nmt_net *m, nn_params *p, int *st, int slot, const char *prefix, const char *name,
                int rows, int cols) {
  char full[64];
  snprintf(full, sizeof full, "%s.%s", prefix, name);
  nmt_net_add(p, st, &m->slot[slot], full, rows, cols);
}

/* A layer's projection [x̃, g, z] of its `in`-wide input. */
static void add_layer(nmt_net *m, nn_params *p, int *st, const char *prefix, int base, int in) {
  const nmt_net_cfg *c = &m->cfg;
  int H = c->hidden;
  add(m, p, st, base + L_W, prefix, "W", in, 3 * H);
  if (!is_sru(c) || c->opt.layer_norm) {
    add(m, p, st, base + L_G, prefix, "ln.g", 1, 3 * H);
    add(m, p, st, base + L_B, prefix, "ln.b", 1, 3 * H);
  } else {
    add(m, p, st, base + L_B, prefix, "b", 1, 3 * H);
  }
  if (in != H) add(m, p, st, base + L_WP, prefix, "Wp", in, H);
}

static void add_attention(nmt_net *m, nn_params *p, int *st, const char *prefix, int base) {
  int H = m->cfg.hidden, A = m->cfg.attn_size;
  static const struct {
    int k;
    const char *name;
    bool by_a; /* (·, A) rather than (·, H) */
    bool row;  /* (1, ·) */
  } v[] = {{A_WS, "attn.Was", 1, 0},  {A_WH, "attn.Wah", 1, 0},  {A_V, "attn.v", 1, 1},
           {A_SG, "attn.ln_as.g", 1, 1}, {A_SB, "attn.ln_as.b", 1, 1}, {A_HG, "attn.ln_ah.g", 1, 1},
           {A_HB, "attn.ln_ah.b", 1, 1}, {O_WS, "Ws", 0, 0},     {O_WC, "Wc", 0, 0},
           {O_SG, "ln_s.g", 0, 1},     {O_SB, "ln_s.b", 0, 1},     {O_CG, "ln_c.g", 0, 1},
           {O_CB, "ln_c.b", 0, 1}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    add(m, p, st, base + v[i].k, prefix, v[i].name, v[i].row ? 1 : H, v[i].by_a ? A : H);
}

static int check_cfg(const nmt_net_cfg *c) {
  int st = nmt_net_cells(c, 1u << NMT_CELL_SRU | 1u << NMT_CELL_SRNMT);
  if (st) return st;
  if ((c->enc_cell == NMT_CELL_SRU) != is_sru(c))
    return nmt_fail(NMT_EUSAGE, "--type srnmt: --enc-cell and --dec-cell must both be srnmt or both sru");
  if (c->no_attention) return nmt_fail(NMT_EUSAGE, "--type srnmt needs attention (not --attention none)");
  if (c->enc_layers < 1 || c->enc_layers > NMT_MAX_LAYERS || c->dec_layers < 1 ||
      c->dec_layers > NMT_MAX_LAYERS)
    return nmt_fail(NMT_EUSAGE, "--type srnmt: --enc-depth and --dec-depth must be 1..%d", NMT_MAX_LAYERS);
  if (!is_sru(c) && c->dec_layers > NMT_NET_MAX_MEM - 1)
    return nmt_fail(NMT_EUSAGE, "--type srnmt: at most %d decoder layers (one attention memory each)",
                    NMT_NET_MAX_MEM - 1);
  if (c->emb < 1 || c->hidden < 1 || c->attn_size < 1 || c->src_vocab < 1 || c->tgt_vocab < 1)
    return nmt_fail(NMT_EUSAGE, "--type srnmt: sizes must be at least 1");
  if (nmt_enc_bi_layers(c) && c->hidden % 2)
    return nmt_fail(NMT_EUSAGE, "--type srnmt: --dim-rnn must be even with a bidirectional encoder");
  return NMT_OK;
}

static int layout(nmt_net *m, nn_params *p) {
  const nmt_net_cfg *c = &m->cfg;
  int st = check_cfg(c), E = c->emb, H = c->hidden;
  if (st) return st;
  nmt_net_add_embeddings(p, &st, &m->slot[SRC_EMB], &m->slot[TGT_EMB], c);
  char prefix[32];
  for (int l = 0; l < c->enc_layers; l++) {
    snprintf(prefix, sizeof prefix, "enc.l%d", l);
    add_layer(m, p, &st, prefix, enc_slot(l), l ? H : E);
  }
  for (int l = 0; l < c->dec_layers; l++) {
    snprintf(prefix, sizeof prefix, "dec.l%d", l);
    add_layer(m, p, &st, prefix, dec_slot(l), l ? H : E);
    if (attends(c, l)) add_attention(m, p, &st, prefix, dec_slot(l));
  }
  nmt_net_add_output(p, &st, &m->slot[OUT_W], &m->slot[OUT_B], H, m->slot[TGT_EMB], c);
  return st;
}

/* ---- layers ---- */

static nn_tensor *view(nn_graph *g, const nmt_net *m, nn_params *p, int slot) {
  return nmt_net_param(g, p, m->slot[slot]);
}

/* Layer norm with gain and bias at slots gain, gain + 1. The gain is stored
 * as its offset from 1, so every initialisation starts it near 1 (uniform
 * ±0.1) or at 1 (Xavier's zero row vectors). */
static nn_tensor *norm(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *x, int gain) {
  nn_tensor *gw = view(g, m, p, gain);
  return gw ? nn_layernorm(g, x, nn_shift(g, gw, 1), view(g, m, p, gain + 1), LN_EPS) : NULL;
}

/* x·W for the view at slot. */
static nn_tensor *times(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *x, int slot) {
  return nn_matmul(g, x, false, view(g, m, p, slot), false);
}

/* [x̃, g, z] (rows, 3H) of a layer's dropped-out input: LN(x·W) or x·W + b. */
static nn_tensor *project(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *xd, int base) {
  if (m->slot[base + L_G] >= 0) return norm(g, m, p, times(g, m, p, xd, base + L_W), base + L_G);
  return nn_linear(g, xd, view(g, m, p, base + L_W), view(g, m, p, base + L_B));
}

/* The highway's input: x, or xd·W_p where the layer's input is not H wide. */
static nn_tensor *highway_input(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *x,
                                nn_tensor *xd, int base) {
  return m->slot[base + L_WP] >= 0 ? times(g, m, p, xd, base + L_WP) : x;
}

/* The encoder over src (S*B) → the top layer's outputs H (S*B, H). */
static nn_tensor *encode_src(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, int S,
                             int B, const float *mask) {
  const nmt_net_cfg *c = &m->cfg;
  int H = c->hidden, nbi = nmt_enc_bi_layers(c);
  nn_tensor *x = nn_embed(g, view(g, m, p, SRC_EMB), src, S * B);
  for (int l = 0; l < c->enc_layers && !g->failed; l++) {
    int base = enc_slot(l);
    nn_tensor *xd = nn_dropout(g, x, c->dropout), *G = project(g, m, p, xd, base);
    nn_tensor *cs = nn_wscan(g, G, NULL, mask, S, H, l < nbi ? H / 2 : H);
    x = nn_highway(g, G, 2 * H, is_sru(c) ? nn_tanh(g, cs) : cs, highway_input(g, m, p, x, xd, base));
  }
  return g->failed ? NULL : x;
}

/* What the decoder's attention reads. */
typedef struct {
  nn_tensor *Hs;               /* (S*rows, H): the top encoder outputs, the values */
  nn_tensor *K[NMT_MAX_LAYERS]; /* decoder layer l's keys LN(Hs·W_ah) (S*rows, A) */
  const float *mask;           /* (queries, S): 1 real source position */
  int S;
  const nmt_dec_ctx *ctx;       /* decoding: queries for ctx->n of ctx->R rows */
  nn_tensor *align;            /* the last attention's weights */
} memory;

static void make_keys(nn_graph *g, const nmt_net *m, nn_params *p, memory *mem) {
  nn_tensor *Hd = nn_dropout(g, mem->Hs, m->cfg.dropout);
  for (int l = 0; l < m->cfg.dec_layers; l++)
    if (attends(&m->cfg, l))
      mem->K[l] = norm(g, m, p, times(g, m, p, Hd, dec_slot(l) + A_WH), dec_slot(l) + A_HG);
}

/* Decoder layer l's attention for queries s (rows, H), all steps at once:
 * o = tanh(LN(s·W_s) + LN(c·W_c)), c the context scaled by 1/√H. */
static nn_tensor *attend(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *s, memory *mem,
                         int l) {
  int base = dec_slot(l);
  float dropout = m->cfg.dropout;
  nn_tensor *sd = nn_dropout(g, s, dropout);
  nn_tensor *q = norm(g, m, p, times(g, m, p, sd, base + A_WS), base + A_SG);
  if (mem->ctx) q = nmt_dec_scatter(g, mem->ctx, q);
  nn_tensor *score = nn_attn_mlp_seq(g, q, mem->K[l], view(g, m, p, base + A_V), mem->S);
  nn_tensor *a = nn_softmax(g, score, mem->mask);
  nn_tensor *c = nn_attn_context_seq(g, a, mem->Hs, 1 / sqrtf((float)m->cfg.hidden));
  if (mem->ctx) {
    c = nmt_dec_gather(g, mem->ctx, c);
    a = nmt_dec_gather(g, mem->ctx, a);
  }
  mem->align = a;
  nn_tensor *cd = nn_dropout(g, c, dropout);
  nn_tensor *os = norm(g, m, p, times(g, m, p, sd, base + O_WS), base + O_SG);
  return nn_tanh(g, nn_add(g, os, norm(g, m, p, times(g, m, p, cd, base + O_WC), base + O_CG)));
}

/* Decoder layer l over T steps of y (T*rows, in): the scan from c0 (NULL:
 * zero) with mask (T*rows) or NULL; *state gets the scan states (T*rows, H). */
static nn_tensor *dec_layer(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *y,
                            const float *mask, int T, int l, nn_tensor *c0, nn_tensor **state,
                            memory *mem) {
  const nmt_net_cfg *c = &m->cfg;
  int base = dec_slot(l), H = c->hidden;
  nn_tensor *yd = nn_dropout(g, y, c->dropout), *G = project(g, m, p, yd, base);
  nn_tensor *s = *state = nn_wscan(g, G, c0, mask, T, H, H);
  nn_tensor *a = is_sru(c) ? nn_tanh(g, s) : attend(g, m, p, s, mem, l);
  nn_tensor *out = nn_highway(g, G, 2 * H, a, highway_input(g, m, p, y, yd, base));
  return is_sru(c) && attends(c, l) ? attend(g, m, p, out, mem, l) : out;
}

/* The decoder stack; state[l] (rows, H) in and out, or NULL (training: zero
 * initial states). */
static nn_tensor *decode(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *y,
                         const float *mask, int T, nn_tensor **state, memory *mem) {
  nn_tensor *unused;
  for (int l = 0; l < m->cfg.dec_layers && !g->failed; l++)
    y = dec_layer(g, m, p, y, mask, T, l, state ? state[l] : NULL, state ? &state[l] : &unused, mem);
  return g->failed ? NULL : y;
}

/* ---- the family's entry points ---- */

/* The summed loss of the rows of top (T*B, O) that have a target; the output
 * layer runs on those rows only. */
static nn_tensor *target_loss(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *top,
                              const int *tgt_out, int n_all, long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  nmt_targets tg = nmt_net_targets(g, m, tgt_out, n_all);
  if (!tg.n) return NULL;
  nn_tensor *x = nn_dropout(g, nn_embed(g, top, tg.rows, tg.n), c->dropout);
  nn_tensor *logits = nmt_net_logits(g, x, view(g, m, p, OUT_W), view(g, m, p, OUT_B), nmt_net_tied_output(c));
  return nn_xent(g, logits, tg.ids, c->pad, c->label_smoothing, ntokens);
}

static nn_tensor *forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                          long *ntokens) {
  int B = bt->B, S = bt->S, T = bt->T;
  nmt_batch d; /* bt's arrays as the ops take them */
  /* the attention's queries are all T*B decoder rows: row t*B+b reads sentence b's mask */
  float *attn_mask = nn_alloc(g, sizeof(float) * (size_t)T * B * S);
  if (g->failed || !nmt_batch_upload(g, bt, &d)) return NULL;
  for (int t = 0; t < T; t++)
    memcpy(attn_mask + (size_t)t * B * S, bt->src_rows, sizeof(float) * (size_t)B * S);
  memory mem = {.Hs = encode_src(g, m, p, d.src, S, B, d.src_mask), .S = S,
                .mask = nn_floats(g, (size_t)T * B * S, attn_mask)};
  if (!mem.Hs) return NULL;
  make_keys(g, m, p, &mem);
  nn_tensor *y = nn_embed(g, view(g, m, p, TGT_EMB), d.tgt_in, T * B);
  nn_tensor *top = decode(g, m, p, y, d.tgt_mask, T, NULL, &mem);
  return top ? target_loss(g, m, p, top, bt->tgt_out, T * B, ntokens) : NULL;
}

/* Memories: the top encoder outputs, then the keys of each attending layer;
 * states: each decoder layer's scan vector, zero. */
static int encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                  int S, int B, const float *src_mask, nmt_enc_out *out) {
  const nmt_net_cfg *c = &m->cfg;
  memory mem = {.Hs = encode_src(g, m, p, nn_ints(g, (size_t)S * B, src), S, B, src_mask)};
  if (!mem.Hs) return nmt_errcode();
  make_keys(g, m, p, &mem);
  out->nmem = 0;
  out->mem[out->nmem++] = mem.Hs;
  for (int l = 0; l < c->dec_layers; l++)
    if (attends(c, l)) out->mem[out->nmem++] = mem.K[l];
  out->nstate = c->dec_layers;
  for (int l = 0; l < c->dec_layers; l++) out->state[l] = nn_zeros(g, B, c->hidden);
  return g->failed ? nmt_errcode() : NMT_OK;
}

/* The decoder layers run on the live rows; each attention's scores on all
 * rows (a dead row gets a zero query). */
static nn_tensor *step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                       nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align) {
  memory mem = {.Hs = ctx->mem[0], .mask = ctx->mask, .S = ctx->S, .ctx = ctx};
  for (int l = 0, k = 1; l < m->cfg.dec_layers; l++)
    if (attends(&m->cfg, l)) mem.K[l] = ctx->mem[k++];
  nn_tensor *y = nn_embed(g, view(g, m, p, TGT_EMB), prev, ctx->n);
  nn_tensor *top = decode(g, m, p, y, NULL, 1, state, &mem);
  if (align) *align = top ? mem.align : NULL;
  return top;
}

const nmt_family nmt_family_srnmt = {"srnmt", layout, forward, encode, step, "mlp", NMT_CELL_SRNMT, false};
