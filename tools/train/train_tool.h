/* nmt-train's pieces: command line (args.c), presets (presets.c), the metrics
 * CSV (metrics.c) and the log and progress line on stderr (progress.c). */
#ifndef NMT_TRAIN_TOOL_H
#define NMT_TRAIN_TOOL_H
#include "base/cli.h"
#include "train/loop.h"
#include <stdio.h>

#define PROG "nmt-train"

typedef struct {
  nmt_strlist train, valid, vocabs;
  const char *model, *metrics, *attention, *enc_type, *bpe_codes, *preset;
  const char *type, *enc_cell, *dec_cell;
  long enc_cell_depth, dec_cell_depth;
  bool skip, layer_norm, context_aware, cond_gru, fast_forward, no_ff, peephole, rhn_coupled;
  double recon_beta, lr_recurrent;
  long dim_emb, dim_rnn, enc_depth, dec_depth, window;
  long mini_batch, mini_batch_words, maxi_batch, max_length;
  long after_epochs, after_batches, valid_freq, save_freq, log_freq, early_stopping;
  long lr_decay_start_epoch;
  long seed, cpu_threads;
  const char *device;
  double learn_rate, lr_decay, clip_norm, dropout, label_smoothing;
  bool local, input_feed, no_input_feed, reverse_source, resume, overwrite, quiet;
  int argc;
  char **argv; /* the command line (a --preset's flags are parsed apart, before it) */
  nmt_tok_settings tok;
} train_args;

/* NMT_OK, NMT_EUSAGE (message set) or NMT_DONE after --help/--version.
 * A --preset's flags come first, so the flags given override them. */
int train_parse_args(train_args *a, int argc, char **argv);

/* Whether the flag of model config key `key` (models/model.c) is on the command
 * line or in the --preset (args: a train_args). */
bool train_key_given(const void *args, const char *key);

/* Paper 004's configurations and the PyTorch peer's, as nmt-train flags. */
typedef struct train_preset train_preset;
const train_preset *train_preset_find(const char *name);
/* Parse the preset's flags into cli's table: its base's first, each preset one
 * nmt_cli_parse call (a layer overriding the one below). NMT_OK, NMT_EUSAGE, NMT_EIO. */
int train_preset_parse(const train_preset *p, const nmt_cli *cli);
/* Whether "--flag" or "--flag=..." is among args[0..n), or among p's flags or its base's. */
bool train_flag_in(int n, const char *const *args, const char *flag);
bool train_preset_has_flag(const train_preset *p, const char *flag);
/* "luong-base, luong-reverse, ..." */
const char *train_preset_names(void);
/* The presets and their flags, for --help. */
const char *train_presets_help(void);

typedef struct {
  FILE *f;
  const char *path;
} metrics_csv;

/* Open FILE for the metrics (appending with resume); writes the header when new. */
int metrics_open(metrics_csv *m, const char *path, bool resume);
/* The hook: one CSV row per log interval; NMT_EIO when it cannot be written. */
int metrics_row(void *ctx, const nmt_train_metrics *row);
void metrics_close(metrics_csv *m);

/* stderr: log lines (warnings only when quiet) and, on a TTY, a progress line
 * with ETA redrawn a few times a second. */
typedef struct {
  bool quiet, tty;
  long after_epochs, after_batches; /* the limits the ETA aims at */
  double t0, last_draw;             /* clock at the first step seen, at the last redraw */
  long step0, tokens0;
  bool drawn;                       /* a progress line is on the screen */
  metrics_csv *csv;                 /* NULL: no metrics file */
} train_console;

void console_init(train_console *c, const train_args *a, metrics_csv *csv);
void console_log(void *ctx, const char *line);
void console_say(train_console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void console_progress(void *ctx, const nmt_train_progress *p);
int console_metrics(void *ctx, const nmt_train_metrics *row);
/* Clear the progress line (before the final summary). */
void console_done(train_console *c);

#endif
