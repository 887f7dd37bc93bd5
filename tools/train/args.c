/* nmt-train's options: Marian's names where Marian has the option. The model
 * options' rows come from the option table (models/options.def). */
#include "base/err.h"
#include "nn/gemm_path.h"
#include "train_tool.h"
#include <float.h> /* the rates are floats in the optimizer */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ROWS = 64 + 2 * NMT_NOPTIONS };

/* The nmt-train rows of the model options: one per option, a BOOL's negation beside it. */
static int model_rows(nmt_opt *rows, train_model_flags *v) {
  static char neg_names[NMT_NOPTIONS][64], neg_help[NMT_NOPTIONS][96];
  static const char *const meta[] = {"N", NULL, "X", "P", "NAME", "FAMILY"};
  static const int kinds[] = {NMT_OPT_INT, NMT_OPT_FLAG, NMT_OPT_DOUBLE, NMT_OPT_DOUBLE, NMT_OPT_STR, NMT_OPT_STR};
  int n = 0;
  for (int k = 0; k < nmt_noptions; k++) {
    const nmt_option *r = &nmt_options[k];
    void *dst = r->kind == NMT_KIND_INT ? (void *)&v->i[k]
                : r->kind == NMT_KIND_BOOL ? (void *)&v->on[k]
                : r->kind == NMT_KIND_FLOAT || r->kind == NMT_KIND_PROB ? (void *)&v->f[k] : (void *)&v->s[k];
    bool number = r->kind == NMT_KIND_INT || r->kind == NMT_KIND_FLOAT || r->kind == NMT_KIND_PROB;
    rows[n++] = (nmt_opt){r->flag, 0, kinds[r->kind], dst, meta[r->kind], r->help,
                          .min = number ? r->min : 0, .max = number ? r->max : 0,
                          .open_max = r->kind == NMT_KIND_PROB};
    if (r->kind != NMT_KIND_BOOL) continue;
    if (!r->neg) snprintf(neg_names[k], sizeof neg_names[k], "no-%s", r->flag);
    snprintf(neg_help[k], sizeof neg_help[k], "without --%s (over a preset's)", r->flag);
    rows[n++] = (nmt_opt){r->neg ? r->neg : neg_names[k], 0, NMT_OPT_FLAG, &v->off[k], NULL, neg_help[k]};
  }
  return n;
}

/* Every option at its default, before any layer. */
static void model_defaults(train_model_flags *v, nmt_model_opts *arch) {
  memset(v, 0, sizeof *v);
  nmt_model_opts_defaults(arch);
  for (int k = 0; k < nmt_noptions; k++) {
    const nmt_option *r = &nmt_options[k];
    v->i[k] = (long)r->dflt, v->f[k] = r->dflt, v->s[k] = r->dflt_name;
  }
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

/* --valid-metrics' names, each once, and --optimizer's. */
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
  return nmt_optimizer_parse("optimizer", a->optimizer_name, &a->optimizer);
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

/* The command line over the defaults and, given a preset p, over p's options, then
 * over cfg's (-c) when given. */
static int parse(train_args *a, const train_preset *p, const train_config *cfg, int argc, char **argv) {
  *a = (train_args){.config = cfg ? *cfg : (train_config){0}, .mini_batch = 64, .maxi_batch = 100, .optimizer_delay = 1, .comm_timeout = 600, .max_length = 100,
                    .valid_freq = "1000", .save_freq = "0", .log_freq = "100", .early_stopping = 10, .seed = 1234, .learn_rate = 1e-3, .lr_decay = 0.5,
                    .clip_norm = 5, .optimizer_name = "adam", .valid_beam = 1, .valid_max_length_factor = 2};
  model_defaults(&a->flags, &a->arch);
  const char *src_lang = NULL, *tgt_lang = NULL; /* tokenizer settings recorded in the model */
  bool tok_aggressive = false, tok_no_escape = false, tok_normalize = false;
  const nmt_opt before[] = {
      {"config", 'c', NMT_OPT_STR, &a->config_path, "FILE.yml",
       "options from a YAML file (keys: these long options); over a preset, under the flags given"},
      {"dump-config", 0, NMT_OPT_FLAG, &a->dump_config, NULL, "print the effective options as YAML for -c, and exit"},
      {"preset", 0, NMT_OPT_STR, &a->preset, "NAME", "a paper's configuration (listed above); flags given override it"},
      {"train-sets", 't', NMT_OPT_LIST, &a->train, "SRC TGT", "parallel BPE'd training text (zstd allowed)"},
      {"valid-sets", 0, NMT_OPT_LIST, &a->valid, "SRC TGT", "validation text (--valid-metrics)"},
      {"model", 'm', NMT_OPT_STR, &a->model, "FILE", "best model; MODEL.ckpt holds the last state (required)"},
      {"vocabs", 'v', NMT_OPT_LIST, &a->vocabs, "SRC TGT",
       "vocabulary files (built from the training data), or SentencePiece models (X.model, nmt-spm train): "
       "then the sets are raw text, segmented as read, and the models go into MODEL for nmt-decode --raw"},
      {"bpe-codes", 0, NMT_OPT_STR, &a->bpe_codes, "CODES", "BPE codes to embed in the model"},
      {"src-lang", 0, NMT_OPT_STR, &src_lang, "L", "the source's nmt-tokenize -l (recorded for nmt-decode --raw)"},
      {"tgt-lang", 0, NMT_OPT_STR, &tgt_lang, "L", "the target's: nmt-decode detokenizes as L"},
      {"tok-aggressive", 0, NMT_OPT_FLAG, &tok_aggressive, NULL, "the text was tokenized with -a (recorded)"},
      {"tok-no-escape", 0, NMT_OPT_FLAG, &tok_no_escape, NULL, "the text was tokenized with --no-escape (recorded)"},
      {"tok-normalize", 0, NMT_OPT_FLAG, &tok_normalize, NULL, "the text was tokenized with --normalize (recorded)"},
      {0}};
  const nmt_opt after[] = {
      {"mini-batch", 0, NMT_OPT_INT, &a->mini_batch, "N", "sentences per batch (64; up to 10000)", .min = 1, .max = 10000},
      {"mini-batch-words", 0, NMT_OPT_INT, &a->mini_batch_words, "N", "padded target tokens per batch (0: no limit)",
       .min = 0, .max = INFINITY},
      {"maxi-batch", 0, NMT_OPT_INT, &a->maxi_batch, "N", "batches sorted by length together (100; up to 1000)",
       .min = 1, .max = 1000},
      {"optimizer-delay", 0, NMT_OPT_INT, &a->optimizer_delay, "D",
       "an update sums the gradients of D batches' worth, run one after the other (1; up to 64): "
       "a batch D times bigger in the memory of one", .min = 1, .max = 64},
      {"max-length", 0, NMT_OPT_INT, &a->max_length, "N", "drop pairs with a side over N tokens (100, up to 100000; 0: none)",
       .min = 0, .max = 100000},
      {"after-epochs", 'e', NMT_OPT_INT, &a->after_epochs, "N", "stop after N epochs (0: no limit)", .min = 0, .max = INFINITY},
      {"after-batches", 0, NMT_OPT_INT, &a->after_batches, "N", "stop after N steps (0: no limit)", .min = 0, .max = INFINITY},
      {"after", 0, NMT_OPT_STR, &a->after, "N[u|e|t]",
       "stop after N updates (u, the default), epochs (e) or target tokens (t): the limit of that unit (Marian's)"},
      {"valid-freq", 0, NMT_OPT_STR, &a->valid_freq, "N[u|e|t]",
       "validate every N updates (1000), epochs (Ne) or target tokens (Nt); 0: never"},
      {"save-freq", 0, NMT_OPT_STR, &a->save_freq, "N[u|e|t]", "checkpoint every N updates, epochs or tokens (0: at --valid-freq)"},
      {"valid-metrics", 0, NMT_OPT_LIST, &a->valid_metrics_given, "M",
       "what validation computes, of perplexity, ce-mean-words (ln ppl), bleu and chrf (default: perplexity bleu "
       "chrf); the first decides the best model, --keep-best, --lr-decay and --early-stopping (BLEU, chrF: "
       "higher is better); translations only for bleu and chrf", .once = true},
      {"valid-beam-size", 0, NMT_OPT_INT, &a->valid_beam, "K", "beam of the validation's translations (1: greedy)",
       .min = 1, .max = 100},
      {"valid-max-length-factor", 0, NMT_OPT_DOUBLE, &a->valid_max_length_factor, "F",
       "their length: at most F times (source tokens + 1) (2)", .min = 0, .max = 100, .open_min = true},
      {"early-stopping", 0, NMT_OPT_INT, &a->early_stopping, "N", "stop after N validations without improvement (10; 0: never)",
       .min = 0, .max = 1000000},
      {"early-stopping-epsilon", 0, NMT_OPT_DOUBLE, &a->early_stopping_epsilon, "E",
       "an improvement of the first metric by at most E is no improvement for --early-stopping and --lr-decay; "
       "the model is still saved as the best (0)",
       .min = 0, .max = FLT_MAX},
      {"keep-best", 0, NMT_OPT_INT, &a->keep_best, "N",
       "also keep the N best validated models (by the first --valid-metrics) as MODEL.best-STEP, for nmt-model "
       "average (0: none)",
       .min = 0, .max = NMT_MAX_KEEP},
      {"optimizer", 0, NMT_OPT_STR, &a->optimizer_name, "NAME",
       "adam (the default; betas 0.9, 0.999, eps 1e-8) or sgd: plain w -= lr * g, no momentum (Luong 2015)"},
      {"learn-rate", 'l', NMT_OPT_DOUBLE, &a->learn_rate, "LR", "learning rate (0.001)", .min = 0, .max = FLT_MAX,
       .open_min = true},
      {"learn-rate-recurrent", 0, NMT_OPT_DOUBLE, &a->lr_recurrent, "LR", "rate for recurrent weight matrices (deep-att; 0: --learn-rate)",
       .min = 0, .max = FLT_MAX},
      {"lr-decay", 0, NMT_OPT_DOUBLE, &a->lr_decay, "F", "multiply the rate by F when validation stalls (0.5; > 0, up to 1)",
       .min = 0, .max = 1, .open_min = true},
      {"lr-decay-start-epoch", 0, NMT_OPT_INT, &a->lr_decay_start_epoch, "N", "also after epoch N and every epoch after it (Luong: 5; 0: off)",
       .min = 0, .max = INFINITY},
      {"lr-warmup", 0, NMT_OPT_INT, &a->lr_warmup, "N", "raise the rate linearly over the first N updates (0: off)",
       .min = 0, .max = INFINITY},
      {"lr-decay-inv-sqrt", 0, NMT_OPT_INT, &a->lr_decay_inv_sqrt, "N",
       "after N updates, the rate times sqrt(N / updates) (0: off)", .min = 0, .max = INFINITY},
      {"clip-norm", 0, NMT_OPT_DOUBLE, &a->clip_norm, "N", "clip the gradient norm to N (5; 0: off)", .min = 0, .max = INFINITY},
      {"exponential-smoothing", 0, NMT_OPT_DOUBLE, &a->exp_smoothing, "[F]",
       "validate and save the weights' moving average, decay F (alone: 1e-4; 0: off)",
       .min = 0, .max = 1, .implicit = "1e-4"},
      {"seed", 0, NMT_OPT_INT, &a->seed, "N", "seed of init, shuffling and dropout (1234; any integer >= 0)",
       .min = 0, .max = INFINITY},
      {"comm-timeout", 0, NMT_OPT_DOUBLE, &a->comm_timeout, "S",
       "under mpirun: end the job when a rank waits over S seconds for the others (600; 0: never)",
       .min = 0, .max = 1e9},
      {"cpu-threads", 0, NMT_OPT_INT, &a->cpu_threads, "N", "worker threads, each a part of every batch (the cores, at most 8)",
       .min = 1, .max = 256},
      {"device", 0, NMT_OPT_STR, &a->device, "DEV", "cpu (default), cuda or cuda:N (falls back to cpu with a notice)"},
      {"log-freq", 0, NMT_OPT_STR, &a->log_freq, "N[u|e|t]", "log every N updates (100), epochs or target tokens; 0: never"},
      {"disp-freq", 0, NMT_OPT_STR, &a->log_freq, "N[u|e|t]", "= --log-freq (Marian's name)"},
      {"quiet", 'q', NMT_OPT_FLAG, &a->quiet, NULL, "no log lines or progress line (warnings and errors only; --log still gets every line)"},
      {"metrics", 0, NMT_OPT_STR, &a->metrics, "FILE",
       "CSV: step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s,peak_rss_mib, a row per log line;\n"
       "                                 valid_ppl,valid_bleu,valid_chrf,best_valid_ppl, a row per validation (the last:\n"
       "                                 best_valid_bleu etc. when --valid-metrics puts another metric first)"},
      {"plot", 0, NMT_OPT_STR, &a->plot, "FILE.svg",
       "at each validation, draw the --metrics file as an SVG learning curve (or: nmt-model plot)"},
      {"log", 0, NMT_OPT_STR, &a->log, "FILE", "append every line stderr gets (not the progress line) with its time"},
      {"resume", 0, NMT_OPT_FLAG, &a->resume, NULL, "continue from MODEL.ckpt when it exists"},
      {"overwrite", 0, NMT_OPT_FLAG, &a->overwrite, NULL, "start afresh even if MODEL or MODEL.ckpt exists (replaced once saved)"},
      {0}};
  nmt_opt opts[MAX_ROWS];
  int n = 0;
  for (const nmt_opt *o = before; o->lng; o++) opts[n++] = *o;
  n += model_rows(opts + n, &a->flags);
  for (const nmt_opt *o = after; o->lng; o++) opts[n++] = *o;
  opts[n] = (nmt_opt){0};
  char summary[8192];
  snprintf(summary, sizeof summary, "%s%s",
           "Train a recurrent NMT model (--type) on BPE'd parallel text. Exit 0 done, 1 usage,\n"
           "2 bad input or divergence, 3 I/O; SIGINT/SIGTERM/SIGHUP save MODEL.ckpt and exit 128+signal.\n"
           "The rate schedule: --optimizer at --learn-rate, times --lr-decay after each validation that\n"
           "does not improve the first --valid-metrics and, with --lr-decay-start-epoch N, after every epoch from N on;\n"
           "update t's rate is that times min(1, t / --lr-warmup) and, past --lr-decay-inv-sqrt D, sqrt(D / t).",
           train_presets_help());
  const nmt_cli cli = {
      PROG, "--train-sets SRC TGT -m MODEL [options]", summary,
      PROG " --preset peer --train-sets train.bpe.fr train.bpe.en --valid-sets val.bpe.fr val.bpe.en\n"
           "           -m fr-en.bin --after-epochs 10 --valid-freq 500",
      opts, false, nn_gemm_path_line};
  nmt_strlist pos = {0};
  int st = p ? train_preset_apply(p, &cli, fold_layer, a) : NMT_OK;
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
  if (!st) st = nmt_tok_settings_set(&a->tok, src_lang, tgt_lang, tok_aggressive, !tok_no_escape, tok_normalize);
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
