/* nmt-train's pieces: command line (args.c), presets (presets.c), the metrics
 * CSV (metrics.c) and the log and progress line on stderr (progress.c). */
#ifndef NMT_TOOLS_TRAIN_TRAIN_TOOL_H
#define NMT_TOOLS_TRAIN_TRAIN_TOOL_H
#include "base/cli.h"
#include "train/loop.h"
#include <stdio.h>

#define PROG "nmt-train"

/* The parsed value of each model option (models/options.def), row by row, as the
 * option parser writes it: a layer's BOOL flags land in on/off and are folded
 * into `model` after each layer (a preset's, then the command line's). */
typedef struct {
  long i[NMT_NOPTIONS];
  double f[NMT_NOPTIONS];
  const char *s[NMT_NOPTIONS];
  bool on[NMT_NOPTIONS], off[NMT_NOPTIONS];
  bool turned_on[NMT_NOPTIONS]; /* a BOOL set by its flag, not by its default */
} train_model_flags;

/* -c FILE.yml: its entries, each a key (a long option), its values and line. */
typedef struct {
  char *key;
  char **vals;
  int nvals, line;
  bool seq, null; /* a YAML list; no value (`key:`) */
} train_config_entry;

typedef struct {
  const char *path;
  train_config_entry *e;
  int n;
} train_config;

/* A schedule: every n units (Marian's: 'u' updates, 'e' epochs, 't' target tokens). */
typedef struct {
  long n;
  char unit;
} train_freq;

/* "N", or N with a unit (u, e, t), K/M/G before it; flag names the option in the message.
 * NMT_OK or NMT_EUSAGE. */
int train_freq_parse(const char *flag, const char *s, train_freq *f);

typedef struct {
  /* the options as given, or their defaults (options.def) */
#define INPUT NMT_CLI_FIELD
#define TRAINING NMT_CLI_FIELD
#include "options.def"
#undef INPUT
#undef TRAINING
  /* what parsing makes of them */
  nmt_valid_opts valid_opts; /* --valid-metrics with --valid-beam-size and --valid-max-length-factor */
  nmt_optimizer optimizer;   /* --optimizer */
  nmt_batch_sort sort;       /* --maxi-batch-sort */
  long after_tokens;         /* --after Nt (--after Ne, Nu set after_epochs, after_batches) */
  train_freq valid_every, save_every, log_every; /* --valid-freq, --save-freq, --log-freq */
  train_config config;       /* -c's entries (none without -c) */
  nmt_strbuf effective;      /* every option's value as YAML (--dump-config, stored in the model) */
  nmt_model_opts arch;       /* the model options: defaults, the preset's, the command line's */
  train_model_flags flags;   /* their parsed values, row by row */
  int argc;
  char **argv; /* the command line (a --preset's flags are parsed apart, before it) */
  nmt_tok_settings tok;
} train_args;

/* NMT_OK, NMT_EUSAGE (message set) or NMT_DONE after --help/--version.
 * A --preset's flags come first, so the flags given override them. */
int train_parse_args(train_args *a, int argc, char **argv);

/* Free what parsing allocated. */
void train_args_free(train_args *a);

/* Read FILE.yml's entries: NMT_OK, NMT_EIO (cannot open) or NMT_EUSAGE "FILE:LINE: problem",
 * refused at the first key that is not one of cli's long options or is given again. */
int train_config_read(train_config *c, const char *path, const nmt_cli *cli);
/* Set the entries through cli's rows as one layer of flags; `key: false` sets the row
 * negation(key) names (NULL: the default is off). NMT_OK or NMT_EUSAGE "FILE:LINE: problem". */
int train_config_apply(const train_config *c, const nmt_cli *cli, const char *(*negation)(const char *flag));
bool train_config_sets(const train_config *c, const char *key);
void train_config_free(train_config *c);
/* Append every row's value to b as YAML that -c reads back; flag_value(ctx, o) gives a
 * FLAG row's (1 true, 0 false, -1 left out). */
int train_config_dump(nmt_strbuf *b, const nmt_cli *cli, int (*flag_value)(void *ctx, const nmt_opt *o),
                      void *ctx);

/* The model file's "origin": nmt's version, the build's git commit, the command line. */
int train_origin(const train_args *a, nmt_strbuf *out);

/* Whether --flag (a long name without "--") is on the command line, in -c's file or in the --preset. */
bool train_flag_given(const train_args *a, const char *flag);
/* Whether model option r's flag (or its negation) is (args: a train_args). */
bool train_option_given(const void *args, const nmt_option *r);
/* Whether BOOL option `key` was turned on by its flag (not by its default). */
bool train_turned_on(const train_args *a, const char *key);

/* A --vocabs file: a vocabulary (*spm NULL), or a SentencePiece model: its
 * pieces' vocabulary, and its bytes in *spm (malloc'd, *spm_len long). */
int train_vocab_load(nmt_vocab **v, char **spm, size_t *spm_len, const char *path);

/* Paper 004's configurations and the PyTorch peer's: each a list of options
 * (names of nmt-train's rows, the model table's or the training ones) and values. */
typedef struct train_preset train_preset;
const train_preset *train_preset_find(const char *name);
/* Set the preset's options through cli's rows, its base's first; after each
 * preset of the chain (a layer over the one below) layer_done(ctx) runs.
 * NMT_OK or NMT_EUSAGE. */
int train_preset_apply(const train_preset *p, const nmt_cli *cli, int (*layer_done)(void *ctx), void *ctx);
/* Whether the preset (or its base) sets row `flag`. */
bool train_preset_sets(const train_preset *p, const char *flag);
/* "luong-base, luong-reverse, ..." */
const char *train_preset_names(void);
/* The presets and their flags, for --help. */
const char *train_presets_help(void);

typedef struct {
  FILE *f;
  const char *path;
} metrics_csv;

/* Open FILE for the metrics (appending with resume); writes the header when new,
 * its last column best_valid_LABEL named by the first validation metric. */
int metrics_open(metrics_csv *m, const char *path, bool resume, nmt_vmetric first);
/* The hook: one CSV row per log interval; NMT_EIO when it cannot be written. */
int metrics_row(void *ctx, const nmt_train_metrics *row);
/* One row for a validation; NMT_EIO when it cannot be written. */
int metrics_valid_row(metrics_csv *m, const nmt_valid_metrics *v);
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
  const char *plot;                 /* --plot FILE.svg, redrawn from the CSV at each validation */
  char title[256];                  /* the picture's */
} train_console;

void console_init(train_console *c, const train_args *a, metrics_csv *csv);
void console_log(void *ctx, const char *line);
void console_say(train_console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void console_progress(void *ctx, const nmt_train_progress *p);
int console_metrics(void *ctx, const nmt_train_metrics *row);
/* A validation: its CSV row, then the --plot picture. */
int console_validated(void *ctx, const nmt_valid_metrics *v);
/* Clear the progress line (before the final summary). */
void console_done(train_console *c);

#endif
