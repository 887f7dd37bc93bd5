/* --preset: paper 004's ablation configurations (Blach-Laffèche et al., "NMT
 * like it's 2015", Multi30k Fr->En: a one-layer LSTM of 1024, embeddings 300,
 * batch 32, Adam 3e-4, 25 epochs; each row adds one thing) and the PyTorch
 * peer's configuration (../shared/peers). A preset is a list of flags put
 * before the command line's, so every flag given overrides it. */
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
};
enum { NPRESETS = sizeof presets / sizeof presets[0] };

const train_preset *train_preset_find(const char *name) {
  for (int i = 0; i < NPRESETS; i++)
    if (!strcmp(presets[i].name, name)) return &presets[i];
  return NULL;
}

static int count_flags(const train_preset *p) {
  int n = p->base ? count_flags(train_preset_find(p->base)) : 0;
  for (const char *const *f = p->flags; *f; f++) n++;
  return n;
}

static char **put_flags(const train_preset *p, char **out) {
  if (p->base) out = put_flags(train_preset_find(p->base), out);
  for (const char *const *f = p->flags; *f; f++) *out++ = (char *)*f; /* argv is only read */
  return out;
}

char **train_preset_argv(const train_preset *p, int argc, char **argv, int *n) {
  *n = argc + count_flags(p);
  char **v = malloc(sizeof *v * (size_t)(*n + 1));
  if (!v) return NULL;
  v[0] = argv[0];
  char **rest = put_flags(p, v + 1);
  memcpy(rest, argv + 1, sizeof *v * (size_t)argc); /* argv[1..argc] and its NULL */
  return v;
}

const char *train_preset_names(void) {
  static char names[256];
  if (!names[0])
    for (int i = 0; i < NPRESETS; i++)
      strcat(strcat(names, i ? ", " : ""), presets[i].name);
  return names;
}

const char *train_presets_help(void) {
  static char text[2048];
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
