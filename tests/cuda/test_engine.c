/* The whole engine on the CUDA backend against the CPU backend: for every
 * family, the same model on the copy batch (tests/models/model_case.h), its
 * training loss within 1e-5 relative and every parameter gradient within 1e-4
 * of the gradients' scale, the graph on nn_cuda_backend reading parameters
 * copied to the device (nn_params_upload). On the emulator (make emu) the
 * kernel rows check that they are given device memory only, and guard mode
 * fences device memory off from host code, so an op or a family that touches
 * tensor memory from the host, or hands a host array to a kernel, fails here. */
#include "base/err.h"
#include "cuda/gpu_case.h"
#include "models/deepatt.h"
#include "models/luong.h"
#include "models/model_case.h"
#include "models/rhn_recon.h"
#include "models/rnnsearch.h"
#include "models/srnmt.h"
#include "nn/optim.h"
#include "nn/cuda/nn_cuda.h"
#include "test.h"
#include <math.h>
#include <stdlib.h>

enum { PAD = 0, V = 7, B = 3, S = 4, T = 5 };

/* The loss of mc in graph g (on its backend) with parameters p; gradients in
 * p. A graph kept from step to step allocates nothing once it has seen the
 * batch, as in training (guard mode fences each allocation at every launch). */
static bool loss_in(nn_graph *g, model_case *mc, nn_params *p, float *loss) {
  nn_graph_reset(g, true, 3);
  nn_params_zero_grad(p);
  nn_tensor *l = build_model(g, p, mc);
  bool ok = l && nn_to_host(g, l, loss) && !nn_tape_backward(g, l, 1.0f / (float)mc->ntokens);
  if (!ok) T_FAIL("%s: %s", g->be->name, nmt_errmsg());
  return ok;
}

static bool loss_on(const nn_backend *be, model_case *mc, nn_params *p, float *loss) {
  nn_graph g = {.be = be, .seed = 1};
  bool ok = loss_in(&g, mc, p, loss);
  nn_graph_free(&g);
  return ok;
}

static void compare(const char *what, const nmt_net_cfg *cfg) {
  model_case mc;
  nn_params p, d, back = {0};
  if (!model_setup(&mc, &p, cfg, (nmt_batch){B, S, T, copy_src, copy_src_len, copy_tgt_in, copy_tgt_out}, 7))
    return;
  float cpu_loss = 0, gpu_loss = 0;
  bool ok = loss_on(NULL, &mc, &p, &cpu_loss);
  if (nn_params_upload(&d, &p, &nn_cuda_backend)) T_FAIL("upload: %s", nmt_errmsg());
  ok = ok && loss_on(&nn_cuda_backend, &mc, &d, &gpu_loss) && nnc_sync() == NMT_OK;
  if (ok) {
    back = p;
    back.g = malloc(p.n * sizeof(float));
    nn_params cpu_side = p; /* the device's four buffers come back; only g is compared */
    float *w = malloc(p.n * sizeof(float)), *m = malloc(p.n * sizeof(float)), *v = malloc(p.n * sizeof(float));
    cpu_side.w = w, cpu_side.m = m, cpu_side.v = v, cpu_side.g = back.g;
    CHECK_INT(nn_params_download(&cpu_side, &d), NMT_OK);
    if (!(fabsf(gpu_loss - cpu_loss) <= 1e-5f * fabsf(cpu_loss)))
      T_FAIL("%s: loss %.9g on the device, %.9g on the CPU", what, gpu_loss, cpu_loss);
    double scale = 0;
    for (size_t i = 0; i < p.n; i++) scale = fmax(scale, fabs(p.g[i]));
    int bad = 0;
    for (int k = 0; k < p.nviews; k++)
      for (size_t i = p.views[k].off; i < p.views[k].off + (size_t)p.views[k].rows * p.views[k].cols; i++)
        if (!(fabs(back.g[i] - p.g[i]) <= 1e-4 * scale) && bad++ < 3)
          T_FAIL("%s: gradient of %s[%zu] %.9g on the device, %.9g on the CPU", what, p.views[k].name,
                 i - p.views[k].off, back.g[i], p.g[i]);
    free(w), free(m), free(v), free(back.g);
  }
  nn_params_free(&d);
  nn_params_free(&p);
}

/* Training on backend be: `steps` steps of clipping at 1 and Adam (or SGD) with a
 * moving average, each step's loss into loss[]. */
static bool train_on(const nn_backend *be, model_case *mc, nn_params *p, int steps, bool sgd, float *loss) {
  nn_graph g = {.be = be, .seed = 1};
  bool ok = true;
  for (int t = 0; t < steps && ok; t++) {
    ok = loss_in(&g, mc, p, &loss[t]);
    nn_params_clip(p, 1);
    if (sgd) nn_sgd_step(p, 0.5f, 1);
    else nn_adam_step(p, &(nn_adam){3e-3f, 0.9f, 0.999f, 1e-8f, 1});
    nn_ema_step(p, nn_ema_decay(1e-2, p->step));
  }
  nn_graph_free(&g);
  return ok;
}

/* 20 steps on the device follow the CPU's losses within 1e-4 relative, and
 * the weights and their average come back close. */
static void compare_training(const char *what, const nmt_net_cfg *cfg, bool sgd) {
  enum { STEPS = 20 };
  model_case mc;
  nn_params p, d, back;
  if (!model_setup(&mc, &p, cfg, (nmt_batch){B, S, T, copy_src, copy_src_len, copy_tgt_in, copy_tgt_out}, 7) ||
      nn_params_keep_ema(&p, true))
    return;
  float cpu[STEPS], gpu[STEPS];
  if (nn_params_upload(&d, &p, &nn_cuda_backend)) T_FAIL("upload: %s", nmt_errmsg());
  else if (train_on(NULL, &mc, &p, STEPS, sgd, cpu) && train_on(&nn_cuda_backend, &mc, &d, STEPS, sgd, gpu)) {
    for (int t = 0; t < STEPS; t++)
      if (!(fabsf(gpu[t] - cpu[t]) <= 1e-4f * fabsf(cpu[t])))
        T_FAIL("%s: step %d loss %.9g on the device, %.9g on the CPU", what, t, gpu[t], cpu[t]);
    CHECK(cpu[STEPS - 1] < cpu[0]);
    model_setup(&mc, &back, cfg, mc.batch, 7);
    nn_params_keep_ema(&back, true);
    CHECK_INT(nn_params_download(&back, &d), NMT_OK);
    CHECK_INT(back.step, STEPS);
    double dw = 0, de = 0;
    for (size_t i = 0; i < p.n; i++)
      dw = fmax(dw, fabs(back.w[i] - p.w[i])), de = fmax(de, fabs(back.ema[i] - p.ema[i]));
    if (!(dw <= 1e-4 && de <= 1e-4)) T_FAIL("%s: weights differ by %g, averages by %g", what, dw, de);
    nn_params_free(&back);
  }
  nn_params_free(&d);
  nn_params_free(&p);
}

static nmt_net_cfg base(const nmt_family *fam) {
  return (nmt_net_cfg){.family = fam, .src_vocab = V, .tgt_vocab = V, .emb = 5, .hidden = 6,
                      .enc_layers = 2, .dec_layers = 2, .attn = {NN_ATTN_GENERAL, false, 0},
                      .attn_size = 4, .input_feed = true, .dropout = 0.2f, .label_smoothing = 0.1f,
                      .pad = PAD, .enc_cell_depth = 1, .dec_cell_depth = 1};
}

TEST(gpu_engine_luong) {
  NEED_GPU();
  nmt_net_cfg c = base(&nmt_family_luong);
  compare("luong", &c);
  compare_training("luong", &c, false);
  compare_training("luong with sgd", &c, true);
  c.enc_type = NMT_ENC_BI, c.attn = (nn_attn_cfg){NN_ATTN_MLP, true, 2};
  compare("luong bi, local-p", &c);
}

TEST(gpu_engine_rnnsearch) {
  NEED_GPU();
  enum nmt_cell cells[] = {NMT_CELL_LSTM, NMT_CELL_GRU, NMT_CELL_ATR};
  for (int i = 0; i < 3; i++) {
    nmt_net_cfg c = base(&nmt_family_rnnsearch);
    c.enc_layers = c.dec_layers = 1, c.enc_type = NMT_ENC_BI, c.attn.score = NN_ATTN_MLP;
    c.enc_cell = c.dec_cell = cells[i];
    c.opt.context_aware = i == 2;
    compare(cells[i] == NMT_CELL_LSTM ? "rnnsearch lstm" : cells[i] == NMT_CELL_GRU ? "rnnsearch gru" : "rnnsearch atr", &c);
    if (i == 2) compare_training("rnnsearch atr", &c, false);
  }
}

TEST(gpu_engine_srnmt) {
  NEED_GPU();
  for (int i = 0; i < 2; i++) {
    nmt_net_cfg c = base(&nmt_family_srnmt);
    c.enc_type = NMT_ENC_BI, c.attn.score = NN_ATTN_MLP, c.input_feed = false;
    c.enc_cell = c.dec_cell = i ? NMT_CELL_SRU : NMT_CELL_SRNMT;
    compare(i ? "sru" : "srnmt", &c);
    if (!i) compare_training("srnmt", &c, false);
  }
}

TEST(gpu_engine_rhn) {
  NEED_GPU();
  nmt_net_cfg c = base(&nmt_family_rhn);
  c.enc_cell = c.dec_cell = NMT_CELL_RHN, c.enc_cell_depth = c.dec_cell_depth = 2;
  c.enc_type = NMT_ENC_BI, c.opt.recon_beta = 0.5f;
  compare("rhn with the reconstructor", &c);
  compare_training("rhn with the reconstructor", &c, false);
}

TEST(gpu_engine_deep) {
  NEED_GPU();
  for (int i = 0; i < 2; i++) {
    nmt_net_cfg c = base(i ? &nmt_family_deep_ed : &nmt_family_deep_att);
    c.attn.score = NN_ATTN_MLP, c.input_feed = false, c.no_attention = i == 1;
    c.opt.fast_forward = c.opt.peephole = true;
    compare(i ? "deep-ed" : "deep-att", &c);
    compare_training(i ? "deep-ed" : "deep-att", &c, false);
  }
}
