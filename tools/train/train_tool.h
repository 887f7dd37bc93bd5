/* nmt-train's pieces: command line (args.c) and the metrics CSV (metrics.c). */
#ifndef NMT_TRAIN_TOOL_H
#define NMT_TRAIN_TOOL_H
#include "cli.h"
#include "train_loop.h"
#include <stdio.h>

#define PROG "nmt-train"

typedef struct {
  nmt_strlist train, valid, vocabs;
  const char *model, *metrics, *attention, *enc_type, *bpe_codes;
  long dim_emb, dim_rnn, enc_depth, dec_depth, window;
  long mini_batch, mini_batch_words, maxi_batch, max_length;
  long after_epochs, after_batches, valid_freq, save_freq, log_freq, early_stopping;
  long seed, cpu_threads;
  double learn_rate, lr_decay, clip_norm, dropout, label_smoothing;
  bool local, no_input_feed, reverse_source, resume;
} train_args;

/* NMT_OK, NMT_EUSAGE (message set) or NMT_DONE after --help/--version. */
int train_parse_args(train_args *a, int argc, char **argv);

typedef struct {
  FILE *f;
  const char *path;
} metrics_csv;

/* Open FILE for the metrics (appending with resume); writes the header when new. */
int metrics_open(metrics_csv *m, const char *path, bool resume);
/* The hook: one CSV row per log interval. */
void metrics_row(void *ctx, const nmt_train_metrics *row);
void metrics_close(metrics_csv *m);

#endif
