/* --preset: paper 004's ablation configurations (Blach-Laffèche et al., "NMT
 * like it's 2015", Multi30k Fr->En: a one-layer LSTM of 1024, embeddings 300,
 * batch 32, Adam 3e-4, 25 epochs; each row adds one thing) and the PyTorch
 * peer's configuration (../shared/peers). A preset is a list of flags parsed
 * before the command line's, so every flag given overrides it; each preset of a
 * chain is one layer (nmt_cli_parse call), so it may override its base. */
#include "base/err.h"
#include "train_tool.h"
#include <stdlib.h>
#include <string.h>

struct train_preset {
  const char *name, *base; /* base: a preset whose flags come first */
  const char *const *flags;
};

#define FLAGS(...) (const char *const[]){__VA_ARGS__, NULL}

static const train_preset presets[] = {
    {"luong-base", NULL,
     FLAGS("--enc-type", "unidirectional", "--enc-depth", "1", "--dec-depth", "1", "--dim-emb", "300",
           "--dim-rnn", "1024", "--attention", "none", "--dropout", "0", "--mini-batch", "32",
           "--learn-rate", "3e-4", "--after-epochs", "25")},
    {"luong-reverse", "luong-base", FLAGS("--reverse-source")},
    {"luong-dropout", "luong-reverse", FLAGS("--dropout", "0.05")},
    /* 004's score is concat, v^T tanh(W[h;h_s]) (its eq. 9) */
    {"luong-global", "luong-dropout", FLAGS("--attention", "mlp", "--no-input-feed")},
    {"luong-global-feed", "luong-dropout", FLAGS("--attention", "mlp")},
    /* 004's Gaussian sigma 15 = D/2 */
    {"luong-local-p-feed", "luong-dropout",
     FLAGS("--attention", "mlp", "--local-attention", "--attention-window", "30")},
    {"peer", NULL,
     FLAGS("--enc-type", "bidirectional", "--enc-depth", "1", "--dec-depth", "1", "--dim-emb", "256",
           "--dim-rnn", "512", "--attention", "general", "--dropout", "0.3", "--learn-rate", "1e-3",
           "--mini-batch", "64", "--clip-norm", "5", "--max-length", "80")},
    /* Paper 001 (Zhang et al. 2018, ATR): RNNSearch with a bidirectional encoder, the two-level
     * decoder, MLP attention, deep output, dropout 0.2 on the output layer, Adam, clip 5, batch 80,
     * length 80, rate halved each epoch. CPU-sized (emb 256, hidden 512 for 620/1000); Multi30k is
     * ~150x smaller than WMT14, so the halving starts at epoch 6 instead of 1. */
    {"rnnsearch-atr", NULL,
     FLAGS("--type", "rnnsearch", "--enc-cell", "atr", "--dec-cell", "atr", "--enc-type", "bidirectional",
           "--enc-depth", "1", "--dec-depth", "1", "--dim-emb", "256", "--dim-rnn", "512", "--attention",
           "mlp", "--dropout", "0.2", "--learn-rate", "5e-4", "--mini-batch", "80", "--clip-norm", "5",
           "--max-length", "80", "--lr-decay", "0.5", "--lr-decay-start-epoch", "6", "--after-epochs", "12")},
    {"rnnsearch-atr-ca", "rnnsearch-atr", FLAGS("--context-aware")}, /* + the CA encoder */
    {"rnnsearch-gru", "rnnsearch-atr", FLAGS("--enc-cell", "gru", "--dec-cell", "gru")},
    {"rnnsearch-lstm", "rnnsearch-atr", FLAGS("--enc-cell", "lstm", "--dec-cell", "lstm")},
    /* GNMT + ATR: a bidirectional first layer, 4+4 layers, residual connections (paper: 512 units) */
    {"gnmt-atr", "rnnsearch-atr",
     FLAGS("--enc-type", "bi-unidirectional", "--enc-depth", "4", "--dec-depth", "4", "--skip")},
    /* Paper 003 (Parmar & Devi, RHN): RHN encoder and decoder in Luong's frame (bidirectional
     * encoder, general attention, input feeding), dropout 0.2, batch 32, 30 epochs, one layer;
     * recurrence depth L in both (d1..d3); -rec adds the reconstructor at beta 0.1 (its best row).
     * CPU-sized (emb 256, hidden 512); Adam 1e-3 for the paper's SGD 0.1 (nmt-train has Adam only). */
    {"rhn-d1", NULL,
     FLAGS("--type", "rhn", "--enc-cell", "rhn", "--dec-cell", "rhn", "--enc-cell-depth", "1",
           "--dec-cell-depth", "1", "--enc-type", "bidirectional", "--enc-depth", "1", "--dec-depth", "1",
           "--dim-emb", "256", "--dim-rnn", "512", "--attention", "general", "--dropout", "0.2",
           "--mini-batch", "32", "--learn-rate", "1e-3", "--clip-norm", "5", "--max-length", "80",
           "--after-epochs", "30")},
    {"rhn-d2", "rhn-d1", FLAGS("--enc-cell-depth", "2", "--dec-cell-depth", "2")},
    {"rhn-d3", "rhn-d1", FLAGS("--enc-cell-depth", "3", "--dec-cell-depth", "3")},
    {"rhn-d2-rec", "rhn-d2", FLAGS("--reconstructor-beta", "0.1")},
    /* Paper 002 (Zhou et al. 2016, Deep-Att/Deep-ED): interleaved bi-directional LSTM columns with
     * peepholes and F-F links, Bahdanau (MLP) attention, dropout 0.1 on h, Adam; -N is n_e = n_d = N
     * (its Table 2: 1+1 and 2+2 with and without F-F). CPU-sized: emb 256, 256 cells per LSTM for 512,
     * batch 64 for 500-800; one Adam rate 1e-3 for the paper's recurrent/feed-forward 5e-4/4e-5:
     * a lower feed-forward rate (tried: 4e-4) slowed every row, the plain stacks most (val ppl after
     * one epoch, 1+1 without F-F: 121 against 53), --learn-rate-recurrent still gives the paper's. */
    {"deep-att-1", NULL,
     FLAGS("--type", "deep-att", "--enc-depth", "1", "--dec-depth", "1", "--fast-forward", "--peephole",
           "--dim-emb", "256", "--dim-rnn", "256", "--attention", "mlp", "--dropout", "0.1",
           "--mini-batch", "64", "--learn-rate", "1e-3",
           "--clip-norm", "5", "--max-length", "80", "--after-epochs", "15")},
    {"deep-att-1-noff", "deep-att-1", FLAGS("--no-ff")},
    {"deep-att-2", "deep-att-1", FLAGS("--enc-depth", "2", "--dec-depth", "2")},
    {"deep-att-2-noff", "deep-att-2", FLAGS("--no-ff")},
    {"deep-ed-2", "deep-att-2", FLAGS("--type", "deep-ed", "--attention", "none")}, /* the fixed 10H context, no attention */
    /* Paper 000 (Di Gangi & Federico 2018, SR-NMT): N encoder and N decoder layers of
     * layer-normalised weakly-recurrent units with highways, LN-MLP attention in every decoder
     * layer, dropout 0.1 before every matrix, Adam 3e-4, batch 64, sentences up to 50 tokens;
     * -Nl is N (its Table 1: 1..4). Its SRU baseline: 3+3 SRU layers, attention on the top.
     * CPU-sized: emb 256, hidden 512 for 500 (layer 0's highways read x·Wp); the paper's second
     * stage at 1.5e-4 after convergence is left to a resumed run. */
    {"srnmt-1l", NULL,
     FLAGS("--type", "srnmt", "--enc-cell", "srnmt", "--dec-cell", "srnmt", "--enc-type",
           "bidirectional", "--enc-depth", "1", "--dec-depth", "1", "--dim-emb", "256", "--dim-rnn",
           "512", "--attention", "mlp", "--dropout", "0.1", "--mini-batch", "64", "--learn-rate",
           "3e-4", "--clip-norm", "5", "--max-length", "50", "--after-epochs", "20")},
    {"srnmt-2l", "srnmt-1l", FLAGS("--enc-depth", "2", "--dec-depth", "2")},
    {"srnmt-3l", "srnmt-1l", FLAGS("--enc-depth", "3", "--dec-depth", "3")},
    {"srnmt-4l", "srnmt-1l", FLAGS("--enc-depth", "4", "--dec-depth", "4")},
    {"sru-3l", "srnmt-3l", FLAGS("--enc-cell", "sru", "--dec-cell", "sru")},
};
enum { NPRESETS = sizeof presets / sizeof presets[0] };

const train_preset *train_preset_find(const char *name) {
  for (int i = 0; i < NPRESETS; i++)
    if (!strcmp(presets[i].name, name)) return &presets[i];
  return NULL;
}

int train_preset_parse(const train_preset *p, const nmt_cli *cli) {
  int st = p->base ? train_preset_parse(train_preset_find(p->base), cli) : NMT_OK;
  int n = 1;
  for (const char *const *f = p->flags; *f; f++) n++;
  char **v = malloc(sizeof *v * (size_t)(n + 1));
  if (!v) return nmt_fail(NMT_EIO, "out of memory");
  v[0] = (char *)cli->prog; /* argv is only read */
  memcpy(v + 1, p->flags, sizeof *v * (size_t)n); /* the flags and their NULL */
  nmt_strlist pos = {0};
  if (!st) st = nmt_cli_parse(cli, n, v, &pos);
  free(pos.v);
  free(v);
  return st;
}

bool train_flag_in(int n, const char *const *args, const char *flag) {
  size_t k = strlen(flag);
  for (int i = 0; i < n; i++)
    if (!strncmp(args[i], "--", 2) && !strncmp(args[i] + 2, flag, k) && (args[i][2 + k] == 0 || args[i][2 + k] == '='))
      return true;
  return false;
}

bool train_preset_has_flag(const train_preset *p, const char *flag) {
  int n = 0;
  while (p->flags[n]) n++;
  if (train_flag_in(n, p->flags, flag)) return true;
  return p->base && train_preset_has_flag(train_preset_find(p->base), flag);
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
    for (const char *const *f = p->flags; *f && n < sizeof text; f++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", f == p->flags && !p->base ? "" : " ", *f);
  }
  return text;
}
