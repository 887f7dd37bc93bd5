/* The Luong model: whole-model gradients and learning a toy copy task. */
#include "base/err.h"
#include "models/luong.h"
#include "nn/ops.h"
#include "test.h"
#include "nn/grad_check.h"
#include "models/model_case.h"

enum { PAD = 0, BOS = 1, EOS = 2, V = 7, B = 3, S = 4, T = 5 };

/* Three sentences of lengths 4, 2, 3 (source) and their copies as targets. */
static const int *const src = copy_src, *const src_len = copy_src_len; /* models/model_case.h */
static const int *const tgt_in = copy_tgt_in, *const tgt_out = copy_tgt_out;

static nmt_net_cfg tiny_cfg(void) {
  return (nmt_net_cfg){.family = &nmt_family_luong, .src_vocab = V, .tgt_vocab = V, .emb = 5, .hidden = 6, .enc_layers = 2,
                        .dec_layers = 2,
                        .attn = {NN_ATTN_GENERAL, false, 0}, .attn_size = 4, .input_feed = true,
                        .dropout = 0, .label_smoothing = 0.1f, .pad = PAD};
}

static void setup(model_case *mc, nn_params *p, const nmt_net_cfg *cfg, uint64_t seed) {
  model_setup(mc, p, cfg, (nmt_batch){B, S, T, src, src_len, tgt_in, tgt_out}, seed);
}

TEST(nn_model_luong_grad) {
  nmt_net_cfg cfgs[3] = {tiny_cfg(), tiny_cfg(), tiny_cfg()};
  cfgs[1].attn = (nn_attn_cfg){NN_ATTN_MLP, true, 2}; /* local-p with MLP scores */
  cfgs[1].dropout = 0.2f;
  cfgs[2].input_feed = false;
  cfgs[2].enc_layers = cfgs[2].dec_layers = 1;
  cfgs[2].attn.score = NN_ATTN_DOT;
  for (int i = 0; i < 3; i++) {
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfgs[i], 50 + i);
    T_NN_GRADCHECK(&p, build_model, &mc);
    CHECK_INT(mc.ntokens, 12);
    nn_params_free(&p);
  }
}

/* The encoder and decoder variants of issue 3 (H = 6: 3 per direction). */
TEST(nn_model_luong_variants_grad) {
  nmt_net_cfg cfgs[5] = {tiny_cfg(), tiny_cfg(), tiny_cfg(), tiny_cfg(), tiny_cfg()};
  cfgs[0].enc_type = NMT_ENC_BI; /* two stacks of 2, general, input feeding */
  cfgs[0].dropout = 0.2f;
  cfgs[1].enc_type = NMT_ENC_BI_UNI; /* one bi layer under two uni ones */
  cfgs[1].enc_layers = 3;
  cfgs[1].attn = (nn_attn_cfg){NN_ATTN_MLP, true, 2};
  cfgs[2].opt.reverse_source = true; /* deeper decoder: its top layer starts at zero */
  cfgs[2].enc_layers = 1;
  cfgs[2].dec_layers = 3;
  cfgs[3].no_attention = true;
  cfgs[3].enc_type = NMT_ENC_BI;
  cfgs[3].dropout = 0.2f;
  cfgs[4].enc_type = NMT_ENC_BI; /* deeper encoder, reversed, dot */
  cfgs[4].opt.reverse_source = true;
  cfgs[4].enc_layers = 3;
  cfgs[4].dec_layers = 1;
  cfgs[4].attn.score = NN_ATTN_DOT;
  for (int i = 0; i < 5; i++) {
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfgs[i], 60 + i);
    T_NN_GRADCHECK(&p, build_model, &mc);
    CHECK_INT(mc.ntokens, 12);
    nn_params_free(&p);
  }
}

/* The loss of the batch with source ids src (evaluation mode). */
static double loss_of(model_case *mc, nn_params *p, const int *srcs) {
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  mc->batch.src = srcs;
  nn_tensor *loss = build_model(&g, p, mc);
  double l = loss ? loss->v[0] : -1;
  nn_graph_free(&g);
  mc->batch.src = src;
  return l;
}

/* --reverse-source on x equals the plain model (same weights) on reversed x. */
TEST(nn_model_luong_reverse_source) {
  static const int reversed[S * B] = {5, 5, 3, 4, 4, 6, 6, PAD, 5, 3, PAD, PAD};
  for (int bi = 0; bi < 2; bi++) {
    nmt_net_cfg cfg = tiny_cfg();
    cfg.enc_type = bi ? NMT_ENC_BI : NMT_ENC_UNI;
    model_case plain, rev;
    nn_params p, q;
    setup(&plain, &p, &cfg, 70);
    cfg.opt.reverse_source = true;
    setup(&rev, &q, &cfg, 70);
    nn_params_init(&p, NN_INIT_UNIFORM, 1, 70); /* big enough for the order to matter */
    nn_params_init(&q, NN_INIT_UNIFORM, 1, 70);
    CHECK_NEAR(loss_of(&rev, &q, src), loss_of(&plain, &p, reversed), 1e-5);
    CHECK(fabs(loss_of(&rev, &q, src) - loss_of(&plain, &p, src)) > 1e-3);
    nn_params_free(&p);
    nn_params_free(&q);
  }
}

/* The encoder of sentence 1 (2 tokens) alone, in a batch of 1. */
static const int one_src[2] = {4, 5}, one_len[1] = {2};

/* A bidirectional encoder: padding changes nothing; the forward half of
 * position 0 ignores later tokens, the backward half reads them. */
TEST(nn_model_luong_bidirectional_encoder) {
  nmt_net_cfg cfg = tiny_cfg();
  cfg.enc_type = NMT_ENC_BI;
  model_case mc;
  nn_params p;
  setup(&mc, &p, &cfg, 80);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  float mask[S * B], mask1[2] = {1, 1};
  for (int i = 0; i < S * B; i++) mask[i] = i / B < src_len[i % B];
  nmt_enc_out e = {0}, e1 = {0}, e2 = {0};
  int changed[2] = {4, 3}; /* the last token differs */
  float h_changed[6];
  CHECK_INT(nmt_family_luong.encode(&g, &mc.m, &p, src, src_len, S, B, mask, &e), 0);
  CHECK_INT(nmt_family_luong.encode(&g, &mc.m, &p, one_src, one_len, 2, 1, mask1, &e1), 0);
  CHECK_INT(nmt_family_luong.encode(&g, &mc.m, &p, changed, one_len, 2, 1, mask1, &e2), 0);
  nn_tensor *Hs = e.mem[0], *Hs1 = e1.mem[0], *Hs2 = e2.mem[0];
  CHECK(Hs && Hs1 && Hs2);
  for (int s = 0; s < 2 && Hs && Hs1; s++)
    for (int j = 0; j < 6; j++) CHECK_NEAR(Hs->v[(s * B + 1) * 6 + j], Hs1->v[s * 6 + j], 1e-6);
  for (int j = 0; j < 6 && Hs1 && Hs2; j++) h_changed[j] = fabsf(Hs1->v[j] - Hs2->v[j]);
  CHECK(h_changed[0] == 0 && h_changed[1] == 0 && h_changed[2] == 0);
  CHECK(h_changed[3] > 1e-4 || h_changed[4] > 1e-4 || h_changed[5] > 1e-4);
  nn_graph_free(&g);
  nn_params_free(&p);
}

TEST(nn_model_luong_layout) {
  model_case mc;
  nn_params p;
  nmt_net_cfg cfg = tiny_cfg();
  setup(&mc, &p, &cfg, 1);
  int wh = nn_params_find(&p, "dec.l0.Wh");
  CHECK(wh == mc.m.luong.dec_wh[0] && p.views[wh].rows == 12 && p.views[wh].cols == 24);
  CHECK(nn_params_find(&p, "attn.Wa") >= 0 && nn_params_find(&p, "attn.Wq") < 0);
  nn_params_free(&p);
  cfg.dec_layers = 0;
  CHECK_INT(nmt_net_layout(&mc.m, &cfg, &p), NMT_EUSAGE);
  nn_params_free(&p);
  /* bidirectional, no attention: halves per direction, no attn.* weights, no input feeding */
  cfg = tiny_cfg();
  cfg.enc_type = NMT_ENC_BI;
  cfg.no_attention = true;
  setup(&mc, &p, &cfg, 1);
  int fw = nn_params_find(&p, "enc.l1.Wx"), bw = nn_params_find(&p, "enc.l1r.Wh");
  CHECK(fw >= 0 && p.views[fw].rows == 3 && p.views[fw].cols == 12);
  CHECK(bw >= 0 && p.views[bw].rows == 3 && p.views[bw].cols == 12);
  CHECK(nn_params_find(&p, "attn.Wc") < 0 && !mc.m.cfg.input_feed);
  CHECK_INT(p.views[nn_params_find(&p, "dec.l0.Wh")].rows, 6);
  nn_params_free(&p);
  /* The peer (torch_rnn_nmt.py): bi-LSTM 256 per direction, decoder 512, emb 256, vocab 10 each:
   * 4,474,890 weights in PyTorch, less its second LSTM biases (b_hh: 2·1024 + 2048). */
  cfg = (nmt_net_cfg){.family = &nmt_family_luong, .src_vocab = 10, .tgt_vocab = 10, .emb = 256, .hidden = 512, .enc_layers = 1,
                       .dec_layers = 1, .enc_type = NMT_ENC_BI, .attn = {NN_ATTN_GENERAL, false, 0},
                       .input_feed = true};
  setup(&mc, &p, &cfg, 1);
  long total = 0;
  for (int i = 0; i < p.nviews; i++) total += (long)p.views[i].rows * p.views[i].cols;
  CHECK_INT(total, 4474890 - 4096);
  nn_params_free(&p);
  cfg = tiny_cfg();
  cfg.enc_type = NMT_ENC_BI;
  cfg.hidden = 7; /* odd: no halves */
  CHECK_INT(nmt_net_layout(&mc.m, &cfg, &p), NMT_EUSAGE);
  nn_params_free(&p);
}

/* 200 Adam steps on the copy batch: the per-token loss falls well below its start. */
TEST(nn_model_luong_learns_copy) {
  model_case mc;
  nn_params p;
  nmt_net_cfg cfg = tiny_cfg();
  cfg.hidden = 8;
  setup(&mc, &p, &cfg, 7);
  nn_params_init(&p, NN_INIT_UNIFORM, 0.1f, 7);
  double first, last;
  model_train(&mc, &p, 200, 0.02f, &first, &last);
  /* Label smoothing 0.1 over 7 words bounds the loss below by about 0.33. */
  CHECK(first > 1.8);
  if (!(last < 0.6)) T_FAIL("loss %.3f -> %.3f after 200 steps", first, last);
  nn_params_free(&p);
}
