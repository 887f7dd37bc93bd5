/* --preset: paper 004's ablation configurations (Blach-Laffèche et al., "NMT
 * like it's 2015", Multi30k Fr->En: a one-layer LSTM of 1024, embeddings 300,
 * batch 32, Adam 3e-4, 25 epochs; each row adds one thing), Luong et al. 2015's own
 * SGD schedule on 004's last row, and the PyTorch
 * peer's configuration (../shared/peers). A preset is data: options (nmt-train's
 * row names: the model table's, models/options.def, or the training ones) and
 * their values, set before the command line's, so every flag given overrides
 * it; each preset of a chain is one layer, so it may override its base. */
#include "base/err.h"
#include "train_tool.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name, *value; /* value NULL: a flag */
} preset_opt;

struct train_preset {
  const char *name, *base; /* base: a preset whose options come first */
  const preset_opt *opts;  /* ending with {NULL} */
};

#define OPTS(...) (const preset_opt[]){__VA_ARGS__, {NULL}}

static const train_preset presets[] = {
    {"luong-base", NULL,
     OPTS({"enc-type", "unidirectional"}, {"enc-depth", "1"}, {"dec-depth", "1"}, {"dim-emb", "300"},
          {"dim-rnn", "1024"}, {"attention", "none"}, {"dropout", "0"}, {"mini-batch", "32"},
          {"learn-rate", "3e-4"}, {"after-epochs", "25"})},
    {"luong-reverse", "luong-base", OPTS({"reverse-source"})},
    {"luong-dropout", "luong-reverse", OPTS({"dropout", "0.05"})},
    /* 004's score is concat, v^T tanh(W[h;h_s]) (its eq. 9) */
    {"luong-global", "luong-dropout", OPTS({"attention", "mlp"}, {"no-input-feed"})},
    {"luong-global-feed", "luong-dropout", OPTS({"attention", "mlp"})},
    /* 004's Gaussian sigma 15 = D/2 */
    {"luong-local-p-feed", "luong-dropout",
     OPTS({"attention", "mlp"}, {"local-attention"}, {"attention-window", "30"})},
    /* Luong et al. 2015's plain SGD at 1.0, batch 128, clip 5, uniform +-0.1 init (the default);
     * its dropout models' schedule: 12 epochs, the rate halved after each from the 8th on */
    {"luong-sgd", "luong-local-p-feed",
     OPTS({"optimizer", "sgd"}, {"learn-rate", "1"}, {"mini-batch", "128"}, {"clip-norm", "5"}, {"lr-decay", "0.5"},
          {"lr-decay-start-epoch", "8"}, {"after-epochs", "12"})},
    {"peer", NULL,
     OPTS({"enc-type", "bidirectional"}, {"enc-depth", "1"}, {"dec-depth", "1"}, {"dim-emb", "256"},
          {"dim-rnn", "512"}, {"attention", "general"}, {"dropout", "0.3"}, {"learn-rate", "1e-3"},
          {"mini-batch", "64"}, {"clip-norm", "5"}, {"max-length", "80"})},
    /* The peer's model and budget with the end-of-training gains (bench/README.md, "The best
     * recipe"): label smoothing, and validation and model files from the weights' moving
     * average, whose 1e-3 spans about two Multi30k epochs of batch 64 (Marian's 1e-4 is tuned
     * for WMT's hundred thousand updates; here that would average in the first epochs). */
    {"best", "peer", OPTS({"label-smoothing", "0.1"}, {"exponential-smoothing", "1e-3"})},
    /* Paper 001 (Zhang et al. 2018, ATR): RNNSearch with a bidirectional encoder, the two-level
     * decoder, MLP attention, deep output, dropout 0.2 on the output layer, Adam, clip 5, batch 80,
     * length 80, rate halved each epoch. CPU-sized (emb 256, hidden 512 for 620/1000); Multi30k is
     * ~150x smaller than WMT14, so the halving starts at epoch 6 instead of 1. */
    {"rnnsearch-atr", NULL,
     OPTS({"type", "rnnsearch"}, {"enc-cell", "atr"}, {"dec-cell", "atr"}, {"enc-type", "bidirectional"},
          {"enc-depth", "1"}, {"dec-depth", "1"}, {"dim-emb", "256"}, {"dim-rnn", "512"}, {"attention", "mlp"},
          {"dropout", "0.2"}, {"learn-rate", "5e-4"}, {"mini-batch", "80"}, {"clip-norm", "5"},
          {"max-length", "80"}, {"lr-decay", "0.5"}, {"lr-decay-start-epoch", "6"}, {"after-epochs", "12"})},
    {"rnnsearch-atr-ca", "rnnsearch-atr", OPTS({"context-aware"})}, /* + the CA encoder */
    {"rnnsearch-gru", "rnnsearch-atr", OPTS({"enc-cell", "gru"}, {"dec-cell", "gru"})},
    {"rnnsearch-lstm", "rnnsearch-atr", OPTS({"enc-cell", "lstm"}, {"dec-cell", "lstm"})},
    /* GNMT + ATR: a bidirectional first layer, 4+4 layers, residual connections (paper: 512 units) */
    {"gnmt-atr", "rnnsearch-atr",
     OPTS({"enc-type", "bi-unidirectional"}, {"enc-depth", "4"}, {"dec-depth", "4"}, {"skip"})},
    /* Paper 003 (Parmar & Devi, RHN): RHN encoder and decoder in Luong's frame (bidirectional
     * encoder, general attention, input feeding), dropout 0.2, batch 32, 30 epochs, one layer;
     * recurrence depth L in both (d1..d3); -rec adds the reconstructor at beta 0.1 (its best row).
     * CPU-sized (emb 256, hidden 512); Adam 1e-3 for the paper's SGD 0.1 (rhn-d1-sgd: the paper's). */
    {"rhn-d1", NULL,
     OPTS({"type", "rhn"}, {"enc-cell", "rhn"}, {"dec-cell", "rhn"}, {"enc-cell-depth", "1"},
          {"dec-cell-depth", "1"}, {"enc-type", "bidirectional"}, {"enc-depth", "1"}, {"dec-depth", "1"},
          {"dim-emb", "256"}, {"dim-rnn", "512"}, {"attention", "general"}, {"dropout", "0.2"},
          {"mini-batch", "32"}, {"learn-rate", "1e-3"}, {"clip-norm", "5"}, {"max-length", "80"},
          {"after-epochs", "30"})},
    {"rhn-d1-sgd", "rhn-d1", OPTS({"optimizer", "sgd"}, {"learn-rate", "0.1"})},
    {"rhn-d2", "rhn-d1", OPTS({"enc-cell-depth", "2"}, {"dec-cell-depth", "2"})},
    {"rhn-d3", "rhn-d1", OPTS({"enc-cell-depth", "3"}, {"dec-cell-depth", "3"})},
    {"rhn-d2-rec", "rhn-d2", OPTS({"reconstructor-beta", "0.1"})},
    /* Paper 002 (Zhou et al. 2016, Deep-Att/Deep-ED): interleaved bi-directional LSTM columns with
     * peepholes and F-F links, Bahdanau (MLP) attention, dropout 0.1 on h, Adam; -N is n_e = n_d = N
     * (its Table 2: 1+1 and 2+2 with and without F-F). CPU-sized: emb 256, 256 cells per LSTM for 512,
     * batch 64 for 500-800; one Adam rate 1e-3 for the paper's recurrent/feed-forward 5e-4/4e-5:
     * a lower feed-forward rate (tried: 4e-4) slowed every row, the plain stacks most (val ppl after
     * one epoch, 1+1 without F-F: 121 against 53), --learn-rate-recurrent still gives the paper's. */
    {"deep-att-1", NULL,
     OPTS({"type", "deep-att"}, {"enc-depth", "1"}, {"dec-depth", "1"}, {"fast-forward"}, {"peephole"},
          {"dim-emb", "256"}, {"dim-rnn", "256"}, {"attention", "mlp"}, {"dropout", "0.1"},
          {"mini-batch", "64"}, {"learn-rate", "1e-3"}, {"clip-norm", "5"}, {"max-length", "80"},
          {"after-epochs", "15"})},
    {"deep-att-1-noff", "deep-att-1", OPTS({"no-ff"})},
    {"deep-att-2", "deep-att-1", OPTS({"enc-depth", "2"}, {"dec-depth", "2"})},
    {"deep-att-2-noff", "deep-att-2", OPTS({"no-ff"})},
    {"deep-ed-2", "deep-att-2", OPTS({"type", "deep-ed"},
                                     {"attention", "none"})}, /* the fixed 10H context, no attention */
    /* Paper 000 (Di Gangi & Federico 2018, SR-NMT): N encoder and N decoder layers of
     * layer-normalised weakly-recurrent units with highways, LN-MLP attention in every decoder
     * layer, dropout 0.1 before every matrix, Adam 3e-4, batch 64, sentences up to 50 tokens;
     * -Nl is N (its Table 1: 1..4). Its SRU baseline: 3+3 SRU layers, attention on the top.
     * CPU-sized: emb 256, hidden 512 for 500 (layer 0's highways read x·Wp); the paper's second
     * stage at 1.5e-4 after convergence is left to a resumed run. */
    {"srnmt-1l", NULL,
     OPTS({"type", "srnmt"}, {"enc-cell", "srnmt"}, {"dec-cell", "srnmt"}, {"enc-type", "bidirectional"},
          {"enc-depth", "1"}, {"dec-depth", "1"}, {"dim-emb", "256"}, {"dim-rnn", "512"}, {"attention", "mlp"},
          {"dropout", "0.1"}, {"mini-batch", "64"}, {"learn-rate", "3e-4"}, {"clip-norm", "5"},
          {"max-length", "50"}, {"after-epochs", "20"})},
    {"srnmt-2l", "srnmt-1l", OPTS({"enc-depth", "2"}, {"dec-depth", "2"})},
    {"srnmt-3l", "srnmt-1l", OPTS({"enc-depth", "3"}, {"dec-depth", "3"})},
    {"srnmt-4l", "srnmt-1l", OPTS({"enc-depth", "4"}, {"dec-depth", "4"})},
    {"sru-3l", "srnmt-3l", OPTS({"enc-cell", "sru"}, {"dec-cell", "sru"})},
};
enum { NPRESETS = sizeof presets / sizeof presets[0] };

const train_preset *train_preset_find(const char *name) {
  for (int i = 0; i < NPRESETS; i++)
    if (!strcmp(presets[i].name, name)) return &presets[i];
  return NULL;
}

int train_preset_apply(const train_preset *p, const nmt_cli *cli, int (*layer_done)(void *ctx), void *ctx) {
  int st = p->base ? train_preset_apply(train_preset_find(p->base), cli, layer_done, ctx) : NMT_OK;
  for (const preset_opt *o = p->opts; o->name && !st; o++) {
    const nmt_opt *row = nmt_cli_find(cli, o->name);
    if (!row) return nmt_fail(NMT_EUSAGE, "--preset %s: no option --%s", p->name, o->name);
    if (row->kind == NMT_OPT_FLAG) *(bool *)row->dst = true;
    else st = nmt_cli_set(row, o->value);
  }
  return st ? st : layer_done(ctx);
}

bool train_preset_sets(const train_preset *p, const char *flag) {
  for (const preset_opt *o = p->opts; o->name; o++)
    if (!strcmp(o->name, flag)) return true;
  return p->base && train_preset_sets(train_preset_find(p->base), flag);
}

const char *train_preset_names(void) {
  static char names[2048];
  if (names[0]) return names;
  size_t n = 0;
  for (int i = 0; i < NPRESETS && n < sizeof names; i++)
    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", presets[i].name);
  return names;
}

const char *train_presets_help(void) {
  static char text[8192];
  if (text[0]) return text;
  size_t n = (size_t)snprintf(text, sizeof text, "\nPresets (--preset NAME; flags given override its flags):");
  for (int i = 0; i < NPRESETS && n < sizeof text; i++) {
    const train_preset *p = &presets[i];
    n += (size_t)snprintf(text + n, sizeof text - n, "\n  %-20s%s%s", p->name, p->base ? p->base : "",
                          p->base ? " +" : "");
    for (const preset_opt *o = p->opts; o->name && n < sizeof text; o++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s--%s%s%s", o == p->opts && !p->base ? "" : " ",
                            o->name, o->value ? " " : "", o->value ? o->value : "");
  }
  return text;
}
