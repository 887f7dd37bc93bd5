/* nmt-train's options: Marian's names where Marian has the option. */
#include "base/err.h"
#include "train_tool.h"
#include <float.h> /* the rates are floats in the optimizer */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The command line over the defaults and, given a preset p, over p's flags. */
static int parse(train_args *a, const train_preset *p, int argc, char **argv) {
  *a = (train_args){.enc_type = "bidirectional", .dim_emb = 256, .dim_rnn = 512, .enc_depth = 1,
                    .dec_depth = 1, .window = 10, .mini_batch = 64, .maxi_batch = 100,
                    .max_length = 100, .valid_freq = 1000, .log_freq = 100, .early_stopping = 10,
                    .seed = 1234, .learn_rate = 1e-3, .lr_decay = 0.5, .clip_norm = 5};
  const char *src_lang = NULL, *tgt_lang = NULL; /* tokenizer settings recorded in the model */
  bool tok_aggressive = false, tok_no_escape = false, tok_normalize = false;
  const nmt_opt opts[] = {
      {"preset", 0, NMT_OPT_STR, &a->preset, "NAME", "a paper's configuration (listed above); flags given override it"},
      {"train-sets", 't', NMT_OPT_LIST, &a->train, "SRC TGT", "parallel BPE'd training text (zstd allowed)"},
      {"valid-sets", 0, NMT_OPT_LIST, &a->valid, "SRC TGT", "validation text: perplexity and greedy BLEU"},
      {"model", 'm', NMT_OPT_STR, &a->model, "FILE", "best model; MODEL.ckpt holds the last state (required)"},
      {"vocabs", 'v', NMT_OPT_LIST, &a->vocabs, "SRC TGT", "vocabulary files (built from the training data)"},
      {"bpe-codes", 0, NMT_OPT_STR, &a->bpe_codes, "CODES", "BPE codes to embed in the model"},
      {"src-lang", 0, NMT_OPT_STR, &src_lang, "L", "the source's nmt-tokenize -l (recorded for nmt-decode --raw)"},
      {"tgt-lang", 0, NMT_OPT_STR, &tgt_lang, "L", "the target's: nmt-decode detokenizes as L"},
      {"tok-aggressive", 0, NMT_OPT_FLAG, &tok_aggressive, NULL, "the text was tokenized with -a (recorded)"},
      {"tok-no-escape", 0, NMT_OPT_FLAG, &tok_no_escape, NULL, "the text was tokenized with --no-escape (recorded)"},
      {"tok-normalize", 0, NMT_OPT_FLAG, &tok_normalize, NULL, "the text was tokenized with --normalize (recorded)"},
      {"type", 0, NMT_OPT_STR, &a->type, "FAMILY", "model family: luong (default), srnmt, rnnsearch, rhn, deep-att, deep-ed (docs/models.md)"},
      {"enc-cell", 0, NMT_OPT_STR, &a->enc_cell, "CELL", "encoder cell: lstm, gru, atr, sru, srnmt, rhn (the family's)"},
      {"dec-cell", 0, NMT_OPT_STR, &a->dec_cell, "CELL", "decoder cell, likewise"},
      {"enc-cell-depth", 0, NMT_OPT_INT, &a->enc_cell_depth, "N", "transitions per encoder step (RHN recurrence depth; 1)",
       .min = 1, .max = 16},
      {"dec-cell-depth", 0, NMT_OPT_INT, &a->dec_cell_depth, "N", "transitions per decoder step (1)", .min = 1, .max = 16},
      {"skip", 0, NMT_OPT_FLAG, &a->skip, NULL, "residual connections between stacked layers"},
      {"layer-normalization", 0, NMT_OPT_FLAG, &a->layer_norm, NULL, "layer normalisation in the cells"},
      {"context-aware", 0, NMT_OPT_FLAG, &a->context_aware, NULL, "rnnsearch: context-aware encoder (ATR paper)"},
      {"cond-gru", 0, NMT_OPT_FLAG, &a->cond_gru, NULL, "rnnsearch: Nematus' conditional GRU decoder"},
      {"fast-forward", 0, NMT_OPT_FLAG, &a->fast_forward, NULL, "deep-att/deep-ed: fast-forward connections"},
      {"no-ff", 0, NMT_OPT_FLAG, &a->no_ff, NULL, "deep-att/deep-ed: without them (overrides --fast-forward)"},
      {"peephole", 0, NMT_OPT_FLAG, &a->peephole, NULL, "LSTM peephole connections"},
      {"rhn-coupled", 0, NMT_OPT_FLAG, &a->rhn_coupled, NULL, "rhn: carry gate c = 1 - t"},
      {"reconstructor-beta", 0, NMT_OPT_DOUBLE, &a->recon_beta, "B", "rhn: reconstructor loss weight (0: none; up to 100)",
       .min = 0, .max = 100},
      {"dim-emb", 0, NMT_OPT_INT, &a->dim_emb, "N", "embedding size (256; up to 65536)", .min = 1, .max = 65536},
      {"dim-rnn", 0, NMT_OPT_INT, &a->dim_rnn, "N", "LSTM size (512, up to 65536; a bidirectional layer: N/2 per direction)",
       .min = 1, .max = 65536},
      {"enc-type", 0, NMT_OPT_STR, &a->enc_type, "TYPE", "bidirectional (every layer; default), bi-unidirectional (the first) or unidirectional"},
      {"enc-depth", 0, NMT_OPT_INT, &a->enc_depth, "N", "encoder layers (1; up to 8)", .min = 1, .max = NN_MAX_LAYERS},
      {"dec-depth", 0, NMT_OPT_INT, &a->dec_depth, "N", "decoder layers (1; up to 8); those beyond --enc-depth start at zero",
       .min = 1, .max = NN_MAX_LAYERS},
      {"reverse-source", 0, NMT_OPT_FLAG, &a->reverse_source, NULL, "read each source sentence backwards"},
      {"attention", 0, NMT_OPT_STR, &a->attention, "TYPE", "dot, general, mlp or none (the family's: luong general, rnnsearch/srnmt mlp; none: no input feeding)"},
      {"local-attention", 0, NMT_OPT_FLAG, &a->local, NULL, "local-p attention instead of global"},
      {"attention-window", 0, NMT_OPT_INT, &a->window, "D", "local-p half-width (10; up to 10000)", .min = 1, .max = 10000},
      {"input-feed", 0, NMT_OPT_FLAG, &a->input_feed, NULL, "feed h~ to the next step (default with attention)"},
      {"no-input-feed", 0, NMT_OPT_FLAG, &a->no_input_feed, NULL, "do not feed h~ to the next step"},
      {"mini-batch", 0, NMT_OPT_INT, &a->mini_batch, "N", "sentences per batch (64; up to 10000)", .min = 1, .max = 10000},
      {"mini-batch-words", 0, NMT_OPT_INT, &a->mini_batch_words, "N", "padded target tokens per batch (0: no limit)",
       .min = 0, .max = INFINITY},
      {"maxi-batch", 0, NMT_OPT_INT, &a->maxi_batch, "N", "batches sorted by length together (100; up to 1000)",
       .min = 1, .max = 1000},
      {"max-length", 0, NMT_OPT_INT, &a->max_length, "N", "drop pairs with a side over N tokens (100, up to 100000; 0: none)",
       .min = 0, .max = 100000},
      {"after-epochs", 'e', NMT_OPT_INT, &a->after_epochs, "N", "stop after N epochs (0: no limit)", .min = 0, .max = INFINITY},
      {"after-batches", 0, NMT_OPT_INT, &a->after_batches, "N", "stop after N steps (0: no limit)", .min = 0, .max = INFINITY},
      {"valid-freq", 0, NMT_OPT_INT, &a->valid_freq, "N", "validate every N steps (1000; 0: never)", .min = 0, .max = INFINITY},
      {"save-freq", 0, NMT_OPT_INT, &a->save_freq, "N", "checkpoint every N steps (0: at --valid-freq)", .min = 0, .max = INFINITY},
      {"early-stopping", 0, NMT_OPT_INT, &a->early_stopping, "N", "stop after N validations without improvement (10; 0: never)",
       .min = 0, .max = 1000000},
      {"learn-rate", 'l', NMT_OPT_DOUBLE, &a->learn_rate, "LR", "Adam learning rate (0.001)", .min = 0, .max = FLT_MAX,
       .open_min = true},
      {"learn-rate-recurrent", 0, NMT_OPT_DOUBLE, &a->lr_recurrent, "LR", "rate for recurrent weight matrices (deep-att; 0: --learn-rate)",
       .min = 0, .max = FLT_MAX},
      {"lr-decay", 0, NMT_OPT_DOUBLE, &a->lr_decay, "F", "multiply the rate by F when validation stalls (0.5; > 0, up to 1)",
       .min = 0, .max = 1, .open_min = true},
      {"lr-decay-start-epoch", 0, NMT_OPT_INT, &a->lr_decay_start_epoch, "N", "also after epoch N and every epoch after it (Luong: 5; 0: off)",
       .min = 0, .max = INFINITY},
      {"clip-norm", 0, NMT_OPT_DOUBLE, &a->clip_norm, "N", "clip the gradient norm to N (5; 0: off)", .min = 0, .max = INFINITY},
      {"dropout", 0, NMT_OPT_DOUBLE, &a->dropout, "P", "dropout on embeddings, between layers, on h~ (0; below 1)",
       .min = 0, .max = 1, .open_max = true},
      {"label-smoothing", 0, NMT_OPT_DOUBLE, &a->label_smoothing, "E", "label smoothing (0; below 1)", .min = 0, .max = 1, .open_max = true},
      {"seed", 0, NMT_OPT_INT, &a->seed, "N", "seed of init, shuffling and dropout (1234; any integer >= 0)",
       .min = 0, .max = INFINITY},
      {"cpu-threads", 0, NMT_OPT_INT, &a->cpu_threads, "N", "worker threads, each a part of every batch (the cores, at most 8)",
       .min = 1, .max = 256},
      {"device", 0, NMT_OPT_STR, &a->device, "DEV", "cpu (default), cuda or cuda:N (falls back to cpu with a notice)"},
      {"log-freq", 0, NMT_OPT_INT, &a->log_freq, "N", "log every N steps (100; 0: never)", .min = 0, .max = INFINITY},
      {"quiet", 'q', NMT_OPT_FLAG, &a->quiet, NULL, "no log lines or progress line (warnings and errors only)"},
      {"metrics", 0, NMT_OPT_STR, &a->metrics, "FILE", "CSV: step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s,peak_rss_mib"},
      {"resume", 0, NMT_OPT_FLAG, &a->resume, NULL, "continue from MODEL.ckpt when it exists"},
      {"overwrite", 0, NMT_OPT_FLAG, &a->overwrite, NULL, "start afresh even if MODEL or MODEL.ckpt exists (replaced once saved)"},
      {0}};
  char summary[8192];
  snprintf(summary, sizeof summary, "%s%s",
           "Train a recurrent NMT model (--type) on BPE'd parallel text. Exit 0 done, 1 usage,\n"
           "2 bad input or divergence, 3 I/O; SIGINT/SIGTERM/SIGHUP save MODEL.ckpt and exit 128+signal.\n"
           "The rate schedule: Adam at --learn-rate, times --lr-decay after each validation that\n"
           "does not improve perplexity and, with --lr-decay-start-epoch N, after every epoch from N on.",
           train_presets_help());
  const nmt_cli cli = {
      PROG, "--train-sets SRC TGT -m MODEL [options]", summary,
      PROG " --preset peer --train-sets train.bpe.fr train.bpe.en --valid-sets val.bpe.fr val.bpe.en\n"
           "           -m fr-en.bin --after-epochs 10 --valid-freq 500",
      opts, false};
  nmt_strlist pos = {0};
  int st = p ? train_preset_parse(p, &cli) : NMT_OK;
  if (!st) st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  a->argc = argc, a->argv = argv;
  if (!st) st = nmt_tok_settings_set(&a->tok, src_lang, tgt_lang, tok_aggressive, !tok_no_escape, tok_normalize);
  return st;
}

/* The command line alone names the preset; with --preset, parse it again over the preset's flags. */
int train_parse_args(train_args *a, int argc, char **argv) {
  int st = parse(a, NULL, argc, argv);
  if (!st && a->input_feed && a->no_input_feed)
    st = nmt_fail(NMT_EUSAGE, "--input-feed and --no-input-feed contradict each other");
  if (st || !a->preset) return st;
  const train_preset *p = train_preset_find(a->preset);
  if (!p) return nmt_fail(NMT_EUSAGE, "unknown --preset '%s' (presets: %s)", a->preset, train_preset_names());
  free(a->train.v), free(a->valid.v), free(a->vocabs.v);
  st = parse(a, p, argc, argv);
  if (a->input_feed) a->no_input_feed = false; /* only the command line says --input-feed */
  return st;
}

/* The flags a config key of the model file comes from. */
static const char *const key_flags[][3] = {
    {"family", "type"}, {"local", "local-attention"}, {"window", "attention-window"},
    {"input-feed", "input-feed", "no-input-feed"}, {"fast-forward", "fast-forward", "no-ff"}};

/* On the command line or in the --preset's flags. */
static bool flag_given(const train_args *a, const char *flag) {
  if (train_flag_in(a->argc - 1, (const char *const *)a->argv + 1, flag)) return true;
  const train_preset *p = a->preset ? train_preset_find(a->preset) : NULL;
  return p && train_preset_has_flag(p, flag);
}

bool train_key_given(const void *args, const char *key) {
  const train_args *a = args;
  for (size_t i = 0; i < sizeof key_flags / sizeof *key_flags; i++)
    if (!strcmp(key_flags[i][0], key))
      return flag_given(a, key_flags[i][1]) || (key_flags[i][2] && flag_given(a, key_flags[i][2]));
  return flag_given(a, key);
}
