/* nmt-train's command line: its own options' rows (options.def) around the model
 * options' (models/options.def), under a preset and -c's file. */
#include "base/err.h"
#include "nn/gemm_path.h"
#include "train_tool.h"
#include <float.h> /* the rates are floats in the optimizer */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows: options.def's, a model option's and a BOOL's negation, the end. */
enum {
  MAX_ROWS = 2 * NMT_NOPTIONS + 1
#define INPUT(...) +1
#define TRAINING(...) +1
#include "options.def"
#undef INPUT
#undef TRAINING
};

/* The nmt-train rows of the model options: one per option with the row's default (a number
 * as text that reads back the same; a NAME's, NULL when it is the family's), a BOOL's
 * negation beside it. */
static int model_rows(nmt_opt *rows, train_model_flags *v) {
  static char neg_names[NMT_NOPTIONS][64], neg_help[NMT_NOPTIONS][96], dflt[NMT_NOPTIONS][32];
  static const char *const meta[] = {"N", NULL, "X", "P", "NAME", "FAMILY"};
  static const int kinds[] = {NMT_OPT_INT, NMT_OPT_FLAG, NMT_OPT_DOUBLE, NMT_OPT_DOUBLE, NMT_OPT_STR, NMT_OPT_STR};
  int n = 0;
  for (int k = 0; k < nmt_noptions; k++) {
    const nmt_option *r = &nmt_options[k];
    void *dst = r->kind == NMT_KIND_INT ? (void *)&v->i[k]
                : r->kind == NMT_KIND_BOOL ? (void *)&v->on[k]
                : r->kind == NMT_KIND_FLOAT || r->kind == NMT_KIND_PROB ? (void *)&v->f[k] : (void *)&v->s[k];
    bool number = r->kind == NMT_KIND_INT || r->kind == NMT_KIND_FLOAT || r->kind == NMT_KIND_PROB;
    snprintf(dflt[k], sizeof dflt[k], "%.15g", r->dflt);
    if (strtod(dflt[k], NULL) != r->dflt) snprintf(dflt[k], sizeof dflt[k], "%.17g", r->dflt);
    rows[n++] = (nmt_opt){r->flag, 0, kinds[r->kind], dst, meta[r->kind], r->help,
                          .min = number ? r->min : 0, .max = number ? r->max : 0,
                          .open_max = r->kind == NMT_KIND_PROB,
                          .dflt = number ? dflt[k] : r->kind == NMT_KIND_BOOL ? NULL : r->dflt_name};
    if (r->kind != NMT_KIND_BOOL) continue;
    if (!r->neg) snprintf(neg_names[k], sizeof neg_names[k], "no-%s", r->flag);
    snprintf(neg_help[k], sizeof neg_help[k], "without --%s (over a preset's)", r->flag);
    rows[n++] = (nmt_opt){r->neg ? r->neg : neg_names[k], 0, NMT_OPT_FLAG, &v->off[k], NULL, neg_help[k]};
  }
  return n;
}

/* After a layer of flags: its BOOLs over the layers below (both spellings in one
 * layer contradict each other), then every value into args->arch. */
static int fold_layer(void *ctx) {
  train_args *a = ctx;
  train_model_flags *v = &a->flags;
  for (int k = 0; k < nmt_noptions; k++) {
    const nmt_option *r = &nmt_options[k];
    void *f = (char *)&a->arch + r->off;
    switch (r->kind) {
    case NMT_KIND_BOOL:
      if (v->on[k] && v->off[k])
        return nmt_fail(NMT_EUSAGE, "--%s and --%s%s contradict each other", r->flag, r->neg ? "" : "no-",
                        r->neg ? r->neg : r->flag);
      if (v->on[k] || v->off[k]) *(bool *)f = v->on[k], v->turned_on[k] = v->on[k];
      v->on[k] = v->off[k] = false;
      break;
    case NMT_KIND_INT: *(int *)f = (int)v->i[k]; break;
    case NMT_KIND_FLOAT:
    case NMT_KIND_PROB: *(float *)f = (float)v->f[k]; break;
    default: *(const char **)f = v->s[k];
    }
  }
  return NMT_OK;
}

/* A model BOOL's negation, for -c's `FLAG: false`; NULL for other flags (off by default). */
static const char *negation(const char *flag) {
  static char neg[80];
  for (int k = 0; k < nmt_noptions; k++) {
    const nmt_option *r = &nmt_options[k];
    if (r->kind != NMT_KIND_BOOL || strcmp(r->flag, flag)) continue;
    snprintf(neg, sizeof neg, "no-%s", flag);
    return r->neg ? r->neg : neg;
  }
  return NULL;
}

/* A FLAG row's value for --dump-config: a model BOOL's from the folded options (its
 * negation left out), any other's as parsed. */
static int flag_value(void *ctx, const nmt_opt *o) {
  train_args *a = ctx;
  const bool *on = a->flags.on, *off = a->flags.off, *b = o->dst;
  if (b >= off && b < off + NMT_NOPTIONS) return -1;
  if (b >= on && b < on + NMT_NOPTIONS) return *(const bool *)((const char *)&a->arch + nmt_options[b - on].off);
  return *b;
}

/* --valid-metrics' names, each once, --optimizer's and --maxi-batch-sort's. */
static int methods(train_args *a) {
  nmt_valid_opts *o = &a->valid_opts;
  *o = (nmt_valid_opts){.beam = (int)a->valid_beam, .max_length_factor = (float)a->valid_max_length_factor};
  for (int i = 0; i < a->valid_metrics_given.n; i++) {
    nmt_vmetric m;
    int st = nmt_vmetric_parse("valid-metrics", a->valid_metrics_given.v[i], &m);
    for (int k = 0; !st && k < o->n; k++)
      if (o->metrics[k] == m) st = nmt_fail(NMT_EUSAGE, "--valid-metrics: %s given twice", nmt_vmetric_name(m));
    if (st) return st;
    o->metrics[o->n++] = m;
  }
  int st = nmt_optimizer_parse("optimizer", a->optimizer_name, &a->optimizer);
  return st ? st : nmt_batch_sort_parse("maxi-batch-sort", a->maxi_batch_sort, &a->sort);
}

/* The schedules in Marian's units; --after N sets the limit of its unit. */
static int schedules(train_args *a) {
  train_freq after = {0};
  int st = train_freq_parse("valid-freq", a->valid_freq, &a->valid_every);
  if (!st) st = train_freq_parse("save-freq", a->save_freq, &a->save_every);
  if (!st) st = train_freq_parse("log-freq", a->log_freq, &a->log_every);
  if (!st && a->after) st = train_freq_parse("after", a->after, &after);
  if (st || !a->after) return st;
  long *limit = after.unit == 'e' ? &a->after_epochs : after.unit == 't' ? &a->after_tokens : &a->after_batches;
  *limit = after.n;
  return NMT_OK;
}

/* nmt-train's rows: the INPUT rows of options.def, the model options' rows, the TRAINING rows. */
static void train_rows(train_args *a, nmt_opt *rows) {
  const nmt_opt input[] = {
#define INPUT(...) NMT_CLI_ROW(a, __VA_ARGS__)
#define TRAINING(...)
#include "options.def"
#undef INPUT
#undef TRAINING
      {0}};
  const nmt_opt training[] = {
#define INPUT(...)
#define TRAINING(...) NMT_CLI_ROW(a, __VA_ARGS__)
#include "options.def"
#undef INPUT
#undef TRAINING
      {0}};
  int n = 0;
  for (const nmt_opt *o = input; o->lng; o++) rows[n++] = *o;
  n += model_rows(rows + n, &a->flags);
  for (const nmt_opt *o = training; o->lng; o++) rows[n++] = *o;
  rows[n] = (nmt_opt){0};
}

/* --help's text above the options: the exit codes, the rate schedule, the presets. */
static const char *summary(void) {
  static char text[8192];
  snprintf(text, sizeof text, "%s%s",
           "Train a recurrent NMT model (--type) on BPE'd parallel text. Exit 0 done, 1 usage,\n"
           "2 bad input or divergence, 3 I/O; SIGINT/SIGTERM/SIGHUP save MODEL.ckpt and exit 128+signal.\n"
           "The rate schedule: --optimizer at --learn-rate, times --lr-decay after each validation that\n"
           "does not improve the first --valid-metrics and, with --lr-decay-start-epoch N, after every epoch from N on;\n"
           "update t's rate is that times min(1, t / --lr-warmup) and, past --lr-decay-inv-sqrt D, sqrt(D / t).",
           train_presets_help());
  return text;
}

/* The command line over the defaults and, given a preset p, over p's options, then
 * over cfg's (-c) when given. */
static int parse(train_args *a, const train_preset *p, const train_config *cfg, int argc, char **argv) {
  *a = (train_args){.config = cfg ? *cfg : (train_config){0}}; /* the rows' defaults below */
  nmt_model_opts_defaults(&a->arch);
  nmt_opt opts[MAX_ROWS];
  train_rows(a, opts);
  const nmt_cli cli = {
      PROG, "--train-sets SRC TGT -m MODEL [options]", summary(),
      PROG " --preset peer --train-sets train.bpe.fr train.bpe.en --valid-sets val.bpe.fr val.bpe.en\n"
           "           -m fr-en.bin --after-epochs 10 --valid-freq 500",
      opts, false, nn_gemm_path_line};
  nmt_strlist pos = {0};
  int st = nmt_cli_defaults(&cli);
  if (!st && p) st = train_preset_apply(p, &cli, fold_layer, a);
  if (!st && cfg && !(st = train_config_apply(cfg, &cli, negation))) st = fold_layer(a);
  if (!st) st = nmt_cli_parse(&cli, argc, argv, &pos);
  /* the first pass reads -c's file against these rows: a bad key ends it there */
  if (!st && !cfg && a->config_path) st = train_config_read(&a->config, a->config_path, &cli);
  if (!st) st = fold_layer(a);
  if (!st) st = schedules(a);
  if (!st) st = methods(a);
  if (!st) st = train_config_dump(&a->effective, &cli, flag_value, a);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  a->argc = argc, a->argv = argv;
  if (!st)
    st = nmt_tok_settings_set(&a->tok, a->src_lang, a->tgt_lang, a->tok_aggressive, !a->tok_no_escape, a->tok_normalize);
  return st;
}

/* The preset -c's file names (the command line's --preset comes first). */
static const char *config_preset(const train_config *c) {
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->e[i].key, "preset") && c->e[i].nvals == 1) return c->e[i].vals[0];
  return NULL;
}

/* The command line alone names -c's file and the preset; with either, parse it again
 * over the preset's options and the file's. */
int train_parse_args(train_args *a, int argc, char **argv) {
  int st = parse(a, NULL, NULL, argc, argv);
  if (st || (!a->preset && !a->config_path)) return st;
  train_config cfg = a->config; /* the file's entries, moved out of the first pass */
  a->config = (train_config){0};
  const char *name = a->preset ? a->preset : config_preset(&cfg);
  const train_preset *p = name ? train_preset_find(name) : NULL;
  if (name && !p) st = nmt_fail(NMT_EUSAGE, "unknown --preset '%s' (presets: %s)", name, train_preset_names());
  train_args_free(a);
  if (st) {
    train_config_free(&cfg);
    return st;
  }
  return parse(a, p, a->config_path ? &cfg : NULL, argc, argv);
}

void train_args_free(train_args *a) {
  free(a->train.v), free(a->valid.v), free(a->vocabs.v), free(a->valid_metrics_given.v), free(a->effective.s);
  train_config_free(&a->config);
  a->train.v = a->valid.v = a->vocabs.v = a->valid_metrics_given.v = NULL, a->effective = (nmt_strbuf){0};
}

/* "--flag" or "--flag=..." among the command line's arguments. */
static bool on_command_line(const train_args *a, const char *flag) {
  size_t k = strlen(flag);
  for (int i = 1; i < a->argc; i++) {
    const char *s = a->argv[i];
    if (!strncmp(s, "--", 2) && !strncmp(s + 2, flag, k) && (s[2 + k] == 0 || s[2 + k] == '=')) return true;
  }
  return false;
}

bool train_flag_given(const train_args *a, const char *flag) {
  if (on_command_line(a, flag) || train_config_sets(&a->config, flag)) return true;
  const train_preset *p = a->preset ? train_preset_find(a->preset) : NULL;
  return p && train_preset_sets(p, flag);
}

bool train_option_given(const void *args, const nmt_option *r) {
  const train_args *a = args;
  char neg[80];
  snprintf(neg, sizeof neg, "no-%s", r->flag);
  return train_flag_given(a, r->flag) || (r->kind == NMT_KIND_BOOL && train_flag_given(a, r->neg ? r->neg : neg));
}

bool train_turned_on(const train_args *a, const char *key) {
  const nmt_option *r = nmt_option_by_key(key);
  return r && a->flags.turned_on[r - nmt_options];
}
