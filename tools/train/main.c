/* nmt-train: train a translation model on BPE'd parallel text, or on raw text
 * with SentencePiece vocabularies. */
#include "base/cli.h"
#include "base/err.h"
#include "comm/comm.h"
#include "models/families.h"
#include "nn/device.h"
#include "nn/gemm_path.h"
#include "io/io.h"
#include "nn/parallel.h"
#include "train/checkpoint.h"
#include "train/loop.h"
#include "train_tool.h"
#include "tool.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;
static nmt_comm *comm; /* the ranks under mpirun, else this process alone */

/* The end of a run that failed. An error the ranks decided together (the same
 * on all) is printed once, by rank 0, whose status is the job's: the other
 * ranks end with 0, since mpirun ends the job at the first non-zero exit and
 * could stop rank 0 before it printed. One rank's own error ends the whole job,
 * since the others may be waiting for it. */
static _Noreturn void die(int st) {
  if (comm->size == 1) nmt_die(PROG, st);
  int rank = comm->rank;
  if (!comm->failed_together) {
    tool_sayf(PROG, "rank %d: %s", rank, nmt_errmsg());
    comm->ops->abort(comm, st);
  }
  nmt_comm_close(comm);
  if (rank == 0) nmt_die(PROG, st);
  exit(0);
}

/* The watchdog's verdict, from its thread: this rank waited too long for the
 * others. Leaving without MPI_Finalize makes mpirun end the whole job. */
static void stuck(const nmt_comm *c, const char *op, double seconds) {
  tool_sayf(PROG, "rank %d: step %ld: %s made no progress for %.0f s (--comm-timeout): a rank is hung or gone",
            c->rank, c->step, op, seconds);
  _exit(NMT_EIO);
}

static void on_signal(int sig) { stop_signal = sig; }

/* Under mpirun, SIGINT and SIGTERM are how it ends a job (a failed or hung
 * rank): they keep tool_init's effect, and SIGUSR1, which it forwards, stops. */
static void catch_signals(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  if (comm->size == 1) {
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
  }
  sigaction(SIGHUP, &sa, NULL); /* a closed terminal or ssh session: keep the run */
  sigaction(SIGUSR1, &sa, NULL);
}

static int check_options(const train_args *a) {
  if (a->train.n != 2) return nmt_fail(NMT_EUSAGE, "--train-sets takes two files: SRC TGT");
  if (a->valid.n != 0 && a->valid.n != 2) return nmt_fail(NMT_EUSAGE, "--valid-sets takes two files: SRC TGT");
  if (a->vocabs.n != 0 && a->vocabs.n != 2) return nmt_fail(NMT_EUSAGE, "--vocabs takes two files: SRC TGT");
  if (!a->model) return nmt_fail(NMT_EUSAGE, "-m/--model FILE is required");
  if (a->plot && !a->metrics)
    return nmt_fail(NMT_EUSAGE, "--plot draws the --metrics file: give --metrics FILE.csv too");
  if (a->plot && !a->valid.n) return nmt_fail(NMT_EUSAGE, "--plot draws at each validation: it needs --valid-sets");
  if (a->keep_best && !a->valid.n)
    return nmt_fail(NMT_EUSAGE, "--keep-best keeps validated models: it needs --valid-sets");
  bool none = a->arch.attention && !strcmp(a->arch.attention, "none"), feed = train_turned_on(a, "input-feed");
  const char *with = a->preset ? " with --preset " : "", *preset = a->preset ? a->preset : "";
  if (none && feed)
    return nmt_fail(NMT_EUSAGE, "--input-feed needs attention, but --attention is none%s%s", with, preset);
  const nmt_family *fam = nmt_family_find(a->arch.type);
  if (fam && !fam->feeds_input && feed)
    return nmt_fail(NMT_EUSAGE, "--input-feed: --type %s has no attentional vector h~ to feed%s%s", fam->name,
                    with, preset);
  if (none && a->arch.local)
    return nmt_fail(NMT_EUSAGE, "--local-attention needs attention, but --attention is none%s%s", with,
                    preset);
  return NMT_OK;
}

/* A fresh model: vocabularies built from the training data (or given), codes
 * or SentencePiece models embedded. */
static int new_model(nmt_model *m, const train_args *a) {
  nmt_vocab *v[2] = {NULL, NULL};
  char *spm[2] = {NULL, NULL};
  size_t spm_len[2] = {0, 0};
  int st = NMT_OK;
  for (int i = 0; i < 2 && !st; i++)
    st = a->vocabs.n ? train_vocab_load(&v[i], &spm[i], &spm_len[i], a->vocabs.v[i])
                     : nmt_vocab_build(&v[i], a->train.v[i], 1, 0);
  if (!st && !spm[0] != !spm[1])
    st = nmt_fail(NMT_EUSAGE, "--vocabs %s %s: SentencePiece models for both sides or for neither", a->vocabs.v[0],
                  a->vocabs.v[1]);
  if (!st && spm[0] && (a->bpe_codes || a->tok.src_lang[0]))
    st = nmt_fail(NMT_EUSAGE, "--vocabs with SentencePiece models trains on raw text: --bpe-codes and "
                  "--src-lang/--tgt-lang are for tokenized, BPE'd text");
  if (st) {
    for (int i = 0; i < 2; i++) nmt_vocab_free(v[i]), free(spm[i]);
    return st;
  }
  st = nmt_model_create(m, &a->arch, v[0], v[1], (uint64_t)a->seed);
  for (int i = 0; i < 2; i++) m->spm[i] = spm[i], m->spm_len[i] = spm_len[i];
  if (!st && a->bpe_codes) st = nmt_read_file(a->bpe_codes, &m->bpe_codes, &m->bpe_len);
  if (!st) m->tok = a->tok;
  return st;
}

static nmt_train_opts loop_options(const train_args *a, const char *ckpt) {
  /* periodic checkpoints with or without validation sets */
  const train_freq none = {0}, *valid = a->valid.n ? &a->valid_every : &none,
                   *save = a->save_every.n ? &a->save_every : &a->valid_every;
  return (nmt_train_opts){
      .batch = {(int)a->mini_batch, a->mini_batch_words, (int)(a->maxi_batch * a->mini_batch), true, a->sort},
      .optimizer = a->optimizer, .valid = a->valid_opts,
      .seed = (uint64_t)a->seed, .lr = a->learn_rate, .lr_decay = a->lr_decay, .lr_recurrent = a->lr_recurrent,
      .lr_decay_start_epoch = a->lr_decay_start_epoch, .lr_warmup = a->lr_warmup,
      .lr_decay_inv_sqrt = a->lr_decay_inv_sqrt,
      .clip_norm = a->clip_norm, .ema = a->exp_smoothing,
      .delay = (int)a->optimizer_delay, .comm = comm, .after_epochs = a->after_epochs, .after_batches = a->after_batches,
      .after_tokens = a->after_tokens, .valid_freq = valid->n, .valid_unit = valid->unit, .save_freq = save->n,
      .save_unit = save->unit, .log_freq = a->log_every.n, .log_unit = a->log_every.unit, .early_stopping = (int)a->early_stopping,
      .early_stopping_epsilon = a->early_stopping_epsilon, .keep_best = (int)a->keep_best,
      .model_path = a->model,
      .ckpt_path = ckpt};
}

/* A resumed run keeps the checkpoint's architecture: flags that say otherwise are an error. */
static int check_architecture(const nmt_model_opts *have, const train_args *a, const char *ckpt) {
  nmt_strbuf b = {0};
  int st = nmt_model_opts_conflicts(have, &a->arch, train_option_given, a, &b);
  if (!st && b.len)
    st = nmt_fail(NMT_EUSAGE, "%s: the options contradict the checkpoint: %.*s; drop them to resume, "
                  "or start afresh with --overwrite", ckpt, (int)b.len, b.s);
  free(b.s);
  return st;
}

/* Model and state: from the checkpoint with --resume when there is one. */
static int start(nmt_trainer *t, nmt_model *m, const train_args *a, train_console *con) {
  if (a->resume && !access(t->o.ckpt_path, F_OK)) {
    int st = nmt_checkpoint_load(m, &t->s, t->o.ckpt_path);
    if (st) return st;
    st = check_architecture(&m->opts, a, t->o.ckpt_path);
    if (st) {
      nmt_model_free(m);
      return st;
    }
    console_say(con, "resuming %s at step %ld (epoch %ld)", t->o.ckpt_path, t->s.step, t->s.epoch + 1);
    /* The rate is part of the run's state (decay, halving): a new one would break exact resume. */
    if (train_flag_given(a, "learn-rate") && (float)a->learn_rate != (float)t->s.lr)
      nmt_warn(PROG, "--learn-rate %g ignored: resuming at the checkpoint's rate %g", a->learn_rate, t->s.lr);
    return NMT_OK;
  }
  if (a->resume) console_say(con, "no checkpoint %s yet: starting afresh", t->o.ckpt_path);
  t->s = nmt_train_state_new(&t->o);
  return new_model(m, a);
}

/* The model files of this run say how it was made (a resumed run: its own command). */
static int record_origin(nmt_model *m, train_args *a) {
  nmt_strbuf origin = {0};
  int st = train_origin(a, &origin);
  if (st) return st;
  free(m->origin), free(m->train_config);
  m->origin = origin.s;
  m->train_config = a->effective.s;
  a->effective = (nmt_strbuf){0}; /* the model owns it now */
  return NMT_OK;
}

/* The weights in the model (the buffer also holds alignment padding). */
static size_t weight_count(const nn_params *p) {
  size_t n = 0;
  for (int i = 0; i < p->nviews; i++) n += (size_t)p->views[i].rows * (size_t)p->views[i].cols;
  return n;
}

/* Fail now, not after hours of training, when the model cannot be written. */
static int check_writable(const char *path) {
  struct stat sb;
  if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
    return nmt_fail(NMT_EUSAGE, "%s is a directory: -m takes the model's file name (and writes MODEL.ckpt "
                    "beside it), e.g. -m DIR/model.bin", path);
  /* A FIFO or device is written in place when the model is saved: opening it now would
   * block on a FIFO until its reader comes, and hand that reader an empty file. */
  if (!stat(path, &sb) && !S_ISREG(sb.st_mode))
    return access(path, W_OK) ? nmt_fail_errno(NMT_EIO, "%s: cannot write", path) : NMT_OK;
  nmt_writer *w;
  int st = nmt_writer_open(&w, path, 0);
  if (!st) nmt_writer_abort(w);
  return st;
}

/* mpirun binds each rank to cores (to one core each with -np 2): more worker
 * threads than those cores take turns on them. */
static void check_affinity(int threads) {
  cpu_set_t set;
  if (comm->size > 1 && !sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) < threads)
    nmt_warn(PROG, "rank %d: %d worker threads on %d core%s (mpirun's binding): add --bind-to none, or give "
             "fewer --cpu-threads", comm->rank, threads, CPU_COUNT(&set), CPU_COUNT(&set) == 1 ? "" : "s");
}

/* A finished or running training is replaced only on request. */
static int check_fresh(const train_args *a, const char *ckpt) {
  if (a->overwrite || (a->resume && !access(ckpt, F_OK))) return NMT_OK;
  const char *old = !access(a->model, F_OK) ? a->model : !access(ckpt, F_OK) ? ckpt : NULL;
  if (!old) return NMT_OK;
  if (a->resume)
    return nmt_fail(NMT_EUSAGE, "%s exists but %s does not, so there is nothing to resume; start afresh "
                    "with --overwrite", old, ckpt);
  return nmt_fail(NMT_EUSAGE, "%s exists: continue its training with --resume, or start afresh with --overwrite",
                  old);
}

int main(int argc, char **argv) {
  tool_init(PROG);
  train_args a;
  int st = train_parse_args(&a, argc, argv);
  if (!st && a.dump_config) {
    fputs(a.effective.s, stdout);
    st = fflush(stdout) || ferror(stdout) ? nmt_fail(NMT_EIO, "cannot write the output") : NMT_DONE;
  }
  if (st) nmt_die(PROG, st);
  if ((st = nmt_comm_open(&comm, a.comm_timeout, stuck))) nmt_die(PROG, st);
  bool rank0 = comm->rank == 0; /* the one that writes files */
  if (!st && a.log && rank0) st = tool_log_open(a.log);
  if (!st) st = check_options(&a);
  char ckpt[4096];
  if (!st) snprintf(ckpt, sizeof ckpt, "%s.ckpt", a.model);
  if (!st && rank0) st = check_writable(a.model);
  if (!st && rank0) st = check_writable(ckpt);
  if (!st) st = check_fresh(&a, ckpt);
  char notice[256];
  const nn_backend *be = NULL;
  if (!st) st = nmt_device_use(a.device, &be, notice, sizeof notice);
  if (st) die(st);
  if (notice[0]) nmt_warn(PROG, "%s", notice);
  /* Data-parallel: --cpu-threads workers, each with one BLAS thread (train/update.h). */
  int threads = a.cpu_threads > 0 ? (int)a.cpu_threads : openblas_get_num_threads();
  openblas_set_num_threads(1);
  nn_set_threads(threads);
  int workers = be->host ? nn_threads() : 1; /* a GPU runs one worker (train/update.h) */
  check_affinity(workers);
  nmt_model model;
  nmt_corpus corpus;
  nmt_valid_set valid;
  metrics_csv csv;
  train_console con;
  console_init(&con, &a, a.metrics && rank0 ? &csv : NULL);
  if (!rank0) con.quiet = true, con.tty = false; /* rank 0 speaks for all */
  nmt_trainer t = {.model = &model, .train = &corpus, .o = loop_options(&a, ckpt),
                   .hooks = {&con, console_log, console_metrics, console_progress, console_validated}};
  t.o.be = be;
  t.o.workers = workers; /* per rank: the slots a checkpoint records, what the ranks compare */
  if ((st = start(&t, &model, &a, &con)) || (st = record_origin(&model, &a)) ||
      (st = nmt_model_open_spm(&model, a.model)))
    die(st);
  if ((st = nmt_corpus_read(&corpus, a.train.v[0], a.train.v[1], model.src, model.tgt, model.seg, a.max_length)))
    die(st);
  console_say(&con, "%ld sentence pairs, %ld dropped over --max-length %ld; vocabularies %d / %d; %zu parameters",
          corpus.n, corpus.dropped, a.max_length, nmt_vocab_size(model.src), nmt_vocab_size(model.tgt),
          weight_count(&model.params));
  if (be == &nn_cpu_backend) console_say(&con, "%s", nn_gemm_path_line());
  if (comm->size > 1)
    console_say(&con, "%d ranks (%s) x %d worker threads: %d slots per update", comm->size, comm->ops->name,
                workers, comm->size * workers);
  if (a.valid.n && (st = nmt_valid_load(&valid, a.valid.v[0], a.valid.v[1], &model))) die(st);
  t.valid = a.valid.n ? &valid : NULL;
  if (a.metrics && rank0 && (st = metrics_open(&csv, a.metrics, a.resume, t.s.metric))) die(st);
  catch_signals();
  st = nmt_train(&t, &stop_signal);
  console_done(&con);
  if (a.metrics && rank0) metrics_close(&csv);
  if (st) die(st);
  nmt_comm_close(comm);
  if (t.interrupted && rank0)
    tool_sayf(PROG, "interrupted at step %ld; checkpoint %s saved (continue with --resume)", t.s.step, ckpt);
  else
    console_say(&con, "done after %ld steps = %ld full epochs + %ld batches, %.0f s (%.0f target "
                "tokens/s, validation included); peak RSS %.0f MiB; model %s, checkpoint %s",
                t.s.step, t.s.epoch, t.s.batch, t.s.elapsed,
                t.s.elapsed > 0 ? (double)t.s.tokens / t.s.elapsed : 0.0, nmt_peak_rss_mib(), a.model, ckpt);
  if (t.valid) nmt_valid_free(&valid);
  nmt_corpus_free(&corpus);
  nmt_model_free(&model);
  train_args_free(&a);
  /* as die(): rank 0's status is the job's, so mpirun cannot end the job at another
   * rank's 128 + signal before rank 0 has said where the checkpoint is */
  return t.interrupted && rank0 ? 128 + stop_signal : 0;
}
