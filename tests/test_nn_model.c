/* The Luong model: whole-model gradients and learning a toy copy task. */
#include "err.h"
#include "nn_model_luong.h"
#include "nn_ops.h"
#include "test.h"
#include "test_nn_check.h"

enum { PAD = 0, BOS = 1, EOS = 2, V = 7, B = 3, S = 4, T = 5 };

/* Three sentences of lengths 4, 2, 3 (source) and their copies as targets. */
static const int src[S * B] = {3, 4, 5, 6, 5, 6, 4, PAD, 3, 5, PAD, PAD};
static const int src_len[B] = {4, 2, 3};
static const int tgt_in[T * B] = {BOS, BOS, BOS, 3, 4, 5, 6, 5, 6, 4, PAD, 3, 5, PAD, PAD};
static const int tgt_out[T * B] = {3, 4, 5, 6, 5, 6, 4, EOS, 3, 5, PAD, EOS, EOS, PAD, PAD};

static nn_luong_cfg tiny_cfg(void) {
  return (nn_luong_cfg){.src_vocab = V, .tgt_vocab = V, .emb = 5, .hidden = 6, .layers = 2,
                        .attn = {NN_ATTN_GENERAL, false, 0}, .attn_size = 4, .input_feed = true,
                        .dropout = 0, .label_smoothing = 0.1f, .pad = PAD};
}

typedef struct {
  nn_luong m;
  nn_luong_batch batch;
  long ntokens;
} model_case;

static nn_tensor *build_model(nn_graph *g, nn_params *p, void *ctx) {
  model_case *mc = ctx;
  return nn_luong_forward(g, &mc->m, p, &mc->batch, &mc->ntokens);
}

static void setup(model_case *mc, nn_params *p, const nn_luong_cfg *cfg, uint64_t seed) {
  *p = (nn_params){0};
  CHECK_INT(nn_luong_layout(&mc->m, cfg, p), 0);
  CHECK_INT(nn_params_alloc(p), 0);
  nn_params_init(p, NN_INIT_UNIFORM, 0.3f, seed);
  mc->batch = (nn_luong_batch){B, S, T, src, src_len, tgt_in, tgt_out};
}

TEST(nn_model_luong_grad) {
  nn_luong_cfg cfgs[3] = {tiny_cfg(), tiny_cfg(), tiny_cfg()};
  cfgs[1].attn = (nn_attn_cfg){NN_ATTN_MLP, true, 2}; /* local-p with MLP scores */
  cfgs[1].dropout = 0.2f;
  cfgs[2].input_feed = false;
  cfgs[2].layers = 1;
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

TEST(nn_model_luong_layout) {
  model_case mc;
  nn_params p;
  nn_luong_cfg cfg = tiny_cfg();
  setup(&mc, &p, &cfg, 1);
  int wh = nn_params_find(&p, "dec.l0.Wh");
  CHECK(wh == mc.m.dec_wh[0] && p.views[wh].rows == 12 && p.views[wh].cols == 24);
  CHECK(nn_params_find(&p, "attn.Wa") >= 0 && nn_params_find(&p, "attn.Wq") < 0);
  nn_params_free(&p);
  cfg.layers = 0;
  CHECK_INT(nn_luong_layout(&mc.m, &cfg, &p), NMT_EUSAGE);
  nn_params_free(&p);
}

/* 200 Adam steps on the copy batch: the per-token loss falls well below its start. */
TEST(nn_model_luong_learns_copy) {
  model_case mc;
  nn_params p;
  nn_luong_cfg cfg = tiny_cfg();
  cfg.hidden = 8;
  setup(&mc, &p, &cfg, 7);
  nn_params_init(&p, NN_INIT_UNIFORM, 0.1f, 7);
  nn_graph g = {.seed = 1};
  nn_adam opt = {0.02f, 0.9f, 0.999f, 1e-8f};
  double first = 0, last = 0;
  for (int step = 0; step < 200; step++) {
    nn_graph_reset(&g, true, (uint64_t)step);
    nn_params_zero_grad(&p);
    nn_tensor *loss = build_model(&g, &p, &mc);
    if (!loss) {
      T_FAIL("forward: %s", nmt_errmsg());
      break;
    }
    CHECK_INT(nn_tape_backward(&g, loss, 1.0f / mc.ntokens), 0);
    nn_params_clip(&p, 5);
    nn_adam_step(&p, &opt);
    double per_token = loss->v[0] / mc.ntokens;
    if (step == 0) first = per_token;
    last = per_token;
  }
  /* Label smoothing 0.1 over 7 words bounds the loss below by about 0.33. */
  CHECK(first > 1.8);
  if (!(last < 0.6)) T_FAIL("loss %.3f -> %.3f after 200 steps", first, last);
  nn_graph_free(&g);
  nn_params_free(&p);
}
