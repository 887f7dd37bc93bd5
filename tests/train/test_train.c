/* Training's files and data: the model file, checkpoints, corpus and batch plans, the loop, resume. */
#include "models/batch.h"
#include "base/err.h"
#include "io/io.h"
#include "models/model.h"
#include "test.h"
#include "train/checkpoint.h"
#include "train/loop.h"
#include "nn/optim.h"
#include "train/update.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* A small model over a 5-word vocabulary on each side. */
static void tiny_model(nmt_model *m, const char *attention, uint64_t seed) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nx\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o = {.dim_emb = 6, .dim_rnn = 8, .enc_depth = 2, .dec_depth = 2,
                      .attention = attention, .window = 3, .input_feed = true, .dropout = 0.1f,
                      .label_smoothing = 0.1f};
  CHECK_INT(nmt_model_create(m, &o, vs, vt, seed), NMT_OK);
}

/* Validation perplexity is the translation's: an RHN model with a reconstructor
 * scores the validation set as the same weights without it. */
TEST(train_valid_ppl_leaves_out_reconstructor) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nx\n", *src = t_tmp("valid.src"), *tgt = t_tmp("valid.tgt");
  FILE *f = fopen(src, "w");
  fputs("x x\nx\n", f), fclose(f);
  f = fopen(tgt, "w");
  fputs("x\nx x x\n", f), fclose(f);
  double ppl[2], bleu;
  for (int rec = 0; rec < 2; rec++) {
    nmt_vocab *vs, *vt;
    nmt_vocab_parse(&vs, text, strlen(text), "v");
    nmt_vocab_parse(&vt, text, strlen(text), "v");
    nmt_model_opts o = {.type = "rhn", .dim_emb = 6, .dim_rnn = 8, .enc_depth = 1, .dec_depth = 1,
                        .attention = "general", .input_feed = true, .recon_beta = rec ? 1.0f : 0};
    nmt_model m;
    nmt_valid_set v;
    CHECK_INT(nmt_model_create(&m, &o, vs, vt, 5), NMT_OK);
    nn_params_init(&m.params, NN_INIT_UNIFORM, 0.1f, 5); /* the reconstructor's own views come after */
    CHECK_INT(nmt_valid_load(&v, src, tgt, &m), NMT_OK);
    CHECK_INT(nmt_validate(&m, &v, &ppl[rec], &bleu), NMT_OK);
    nmt_valid_free(&v);
    nmt_model_free(&m);
  }
  CHECK_NEAR(ppl[1], ppl[0], 1e-6 * ppl[0]);
}

static bool same_floats(const float *a, const float *b, size_t n) { return !memcmp(a, b, n * sizeof *a); }

TEST(train_model_file_round_trip) {
  const char *path = t_tmp("m.bin");
  nmt_model m, r;
  tiny_model(&m, "mlp", 3);
  m.bpe_codes = strdup("#version: 0.2\na b\n");
  m.bpe_len = strlen(m.bpe_codes);
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_load(&r, path), NMT_OK);
  CHECK_INT(r.params.n, m.params.n);
  CHECK(same_floats(r.params.w, m.params.w, m.params.n));
  CHECK_INT(r.net.cfg.attn.score, NN_ATTN_MLP);
  CHECK_INT(r.net.cfg.dec_layers, 2);
  CHECK_NEAR(r.net.cfg.dropout, 0.1, 1e-7);
  CHECK_STR(r.bpe_codes, "#version: 0.2\na b\n");
  CHECK_STR(nmt_vocab_token(r.tgt, 4), "x");
  nmt_model_free(&r);
  nmt_model_free(&m);
}

TEST(train_checkpoint_round_trip) {
  const char *path = t_tmp("m.ckpt");
  nmt_model m, r;
  tiny_model(&m, "general", 4);
  for (int k = 0; k < m.params.nviews; k++) /* padding between views stays 0 */
    for (size_t i = m.params.views[k].off; i < m.params.views[k].off + (size_t)m.params.views[k].rows * m.params.views[k].cols; i++)
      m.params.m[i] = (float)i, m.params.v[i] = 0.5f * (float)i;
  m.params.step = 17;
  nmt_train_state s = {99, 17, 2, 5, 1e-3 / 3, 12.25, 1, 4321, 1.5, 8, 800, 1600, 2, 50, 0xfedcba9876543210u}, got;
  s.optimizer = NMT_SGD, s.metric = NMT_VM_BLEU, s.best_step = 12, s.sort = NMT_SORT_NONE;
  CHECK_INT(nmt_checkpoint_save(&m, &s, path), NMT_OK);
  CHECK_INT(nmt_checkpoint_load(&r, &got, path), NMT_OK);
  CHECK(got.sort == NMT_SORT_NONE);
  CHECK(got.seed == 99 && got.step == 17 && got.epoch == 2 && got.batch == 5 && got.stalls == 1);
  CHECK(got.lr == s.lr && got.best == 12.25 && got.tokens == 4321 && got.elapsed == 1.5);
  CHECK(got.mini_batch == 8 && got.window == 800 && got.mini_batch_words == 1600 && got.workers == 2);
  CHECK(got.corpus_pairs == 50 && got.corpus_hash == 0xfedcba9876543210u);
  CHECK(got.optimizer == NMT_SGD && got.metric == NMT_VM_BLEU && got.best_step == 12);
  CHECK_INT(r.params.step, 17);
  CHECK(same_floats(r.params.w, m.params.w, m.params.n));
  CHECK(same_floats(r.params.m, m.params.m, m.params.n));
  CHECK(same_floats(r.params.v, m.params.v, m.params.n));
  nmt_model_free(&r);
  /* a plain model is not a checkpoint, but a checkpoint is a model */
  const char *model = t_tmp("m.bin");
  nmt_model_save(&m, model);
  CHECK_INT(nmt_checkpoint_load(&r, &got, model), NMT_EINPUT);
  CHECK_INT(nmt_model_load(&r, path), NMT_OK);
  nmt_model_free(&r);
  nmt_model_free(&m);
}

/* The checkpoint at path as an older one wrote it: its state cut before `key`. */
static void state_before(const char *path, const char *key) {
  nmt_model_file f, g = {0};
  CHECK_INT(nmt_mf_read(&f, path), NMT_OK);
  for (int i = 0; i < f.n; i++) {
    const char *cut = strcmp(f.s[i].tag, "state") ? NULL : memmem(f.s[i].data, f.s[i].len, key, strlen(key));
    CHECK_INT(nmt_mf_add(&g, f.s[i].tag, f.s[i].data, cut ? (size_t)(cut - (const char *)f.s[i].data) : f.s[i].len),
              NMT_OK);
  }
  CHECK_INT(nmt_mf_write(&g, path), NMT_OK);
  free(g.s);
  nmt_mf_free(&f);
}

/* A checkpoint older than the optimizer and metric keys: Adam's, by perplexity, and its
 * best (validated) at a step not recorded; one older than --maxi-batch-sort: its windows
 * were sorted by source. */
TEST(train_checkpoint_older_state) {
  const char *path = t_tmp("old.ckpt");
  nmt_model m, r;
  tiny_model(&m, "general", 4);
  nmt_train_state s = {99, 17, 2, 5, 1e-3, 12.25, 1, 4321, 1.5, 8, 800, 1600, 2, 50, 7}, got;
  s.optimizer = NMT_SGD, s.metric = NMT_VM_BLEU, s.best_step = 12;
  CHECK_INT(nmt_checkpoint_save(&m, &s, path), NMT_OK);
  state_before(path, "maxi-batch-sort=");
  CHECK_INT(nmt_checkpoint_load(&r, &got, path), NMT_OK);
  CHECK(got.sort == NMT_SORT_SRC && got.optimizer == NMT_SGD && got.best_step == 12);
  nmt_model_free(&r);
  state_before(path, "optimizer=");
  CHECK_INT(nmt_checkpoint_load(&r, &got, path), NMT_OK);
  CHECK(got.optimizer == NMT_ADAM && got.metric == NMT_VM_PERPLEXITY && got.best_step == -1 && got.best == 12.25);
  CHECK(got.delay == 0 && got.corpus_hash == 7);
  nmt_model_free(&r);
  nmt_model_free(&m);
}

/* Rewrite the file at `path` through fn, then expect load to fail with msg. */
static void expect_load_error(const char *path, const char *want) {
  nmt_model r;
  CHECK_INT(nmt_model_load(&r, path), NMT_EINPUT);
  char full[1024];
  snprintf(full, sizeof full, "%s: %s", path, want);
  if (strncmp(nmt_errmsg(), full, strlen(full))) T_FAIL("error '%s', expected '%s'", nmt_errmsg(), full);
}

TEST(train_model_file_damage) {
  const char *path = t_tmp("m.bin");
  nmt_model m;
  tiny_model(&m, "dot", 5);
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  char *data;
  size_t len;
  CHECK_INT(nmt_read_file(path, &data, &len), NMT_OK);
  FILE *f = fopen(path, "wb");
  fwrite(data, 1, len - 100, f); /* truncated */
  fclose(f);
  expect_load_error(path, "truncated");
  data[len / 2] ^= 1; /* one flipped bit */
  f = fopen(path, "wb");
  fwrite(data, 1, len, f);
  fclose(f);
  expect_load_error(path, "checksum mismatch");
  data[len / 2] ^= 1;
  data[8] = 2; /* a newer format version */
  f = fopen(path, "wb");
  fwrite(data, 1, len, f);
  fclose(f);
  expect_load_error(path, "format version 2 is newer");
  write_text(path, "hello\n");
  expect_load_error(path, "not an nmt model file");
  free(data);
  nmt_model_free(&m);
}

/* A corpus of n pairs, pair i with i%7 source and i%5 target tokens. */
static void make_corpus(nmt_corpus *c, const char *dir, int n, long max_length) {
  char src[512], tgt[512];
  snprintf(src, sizeof src, "%s.src", dir);
  snprintf(tgt, sizeof tgt, "%s.tgt", dir);
  FILE *a = fopen(src, "w"), *b = fopen(tgt, "w");
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i % 7; k++) fputs(k ? " x" : "x", a);
    for (int k = 0; k < i % 5; k++) fputs(k ? " x" : "x", b);
    fputc('\n', a), fputc('\n', b);
  }
  fclose(a), fclose(b);
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nx\n";
  nmt_vocab *v;
  nmt_vocab_parse(&v, text, strlen(text), "v");
  CHECK_INT(nmt_corpus_read(c, src, tgt, v, v, NULL, max_length), NMT_OK);
  nmt_vocab_free(v);
}

TEST(train_batch_plan_properties) {
  nmt_corpus c;
  make_corpus(&c, t_tmp("c"), 500, 5);
  CHECK_INT(c.n + c.dropped, 500);
  CHECK_INT(c.dropped, 500 / 7 + (500 % 7 > 6)); /* source length 6 is over 5 */
  nmt_batch_opts o = {16, 40, 64, true};
  nmt_plan p, q;
  CHECK_INT(nmt_plan_epoch(&p, &c, &o, 7, 0), NMT_OK);
  /* every pair exactly once; limits kept; lengths sorted within batches' windows */
  char *seen = calloc((size_t)c.n, 1);
  nmt_batch b = {0};
  for (long i = 0; i < p.nbatches; i++) {
    int n = (int)(p.start[i + 1] - p.start[i]);
    CHECK(n >= 1 && n <= 16);
    for (int k = 0; k < n; k++) seen[p.pairs[p.start[i] + k]]++;
    CHECK_INT(nmt_batch_fill(&b, &c, p.pairs + p.start[i], n), NMT_OK);
    CHECK(b.B * b.T <= 40 || b.B == 1);
    for (int k = 0; k < n; k++) { /* </s> after each source, <s> first, padding after */
      long pr = p.pairs[p.start[i] + k];
      int m = (int)(c.src_off[pr + 1] - c.src_off[pr]), t = (int)(c.tgt_off[pr + 1] - c.tgt_off[pr]);
      CHECK_INT(b.src[m * n + k], NMT_EOS);
      CHECK_INT(b.src_len[k], m + 1);
      CHECK_INT(b.tgt_in[k], NMT_BOS);
      CHECK_INT(b.tgt_out[t * n + k], NMT_EOS);
      if (t + 1 < b.T) CHECK_INT(b.tgt_out[(t + 1) * n + k], NMT_PAD);
    }
  }
  for (long i = 0; i < c.n; i++) CHECK_INT(seen[i], 1);
  /* same seed and epoch: same plan; another epoch: another order */
  CHECK_INT(nmt_plan_epoch(&q, &c, &o, 7, 0), NMT_OK);
  CHECK(q.nbatches == p.nbatches && !memcmp(p.pairs, q.pairs, sizeof(long) * (size_t)c.n));
  nmt_plan_free(&q);
  CHECK_INT(nmt_plan_epoch(&q, &c, &o, 7, 1), NMT_OK);
  CHECK(memcmp(p.pairs, q.pairs, sizeof(long) * (size_t)c.n));
  free(seen);
  nmt_batch_free(&b);
  nmt_plan_free(&p), nmt_plan_free(&q);
  nmt_corpus_free(&c);
}

/* A window sorted by source length then target (the default), by target then source, or
 * left in its (shuffled) order. */
TEST(train_batch_plan_sort) {
  nmt_corpus c;
  make_corpus(&c, t_tmp("c"), 70, 0);
  const long *first[] = {[NMT_SORT_TRG] = c.tgt_off, [NMT_SORT_SRC] = c.src_off};
  const long *second[] = {[NMT_SORT_TRG] = c.src_off, [NMT_SORT_SRC] = c.tgt_off};
  for (int k = 0; k <= NMT_SORT_NONE; k++) {
    nmt_batch_opts o = {10, 0, 70, false, (nmt_batch_sort)k};
    nmt_plan p;
    CHECK_INT(nmt_plan_epoch(&p, &c, &o, 7, 0), NMT_OK);
    for (long i = 1; i < c.n; i++) {
      long a = p.pairs[i - 1], b = p.pairs[i];
      if (k == NMT_SORT_NONE) {
        CHECK_INT(b, i);
        continue;
      }
      long d1 = (first[k][b + 1] - first[k][b]) - (first[k][a + 1] - first[k][a]);
      long d2 = (second[k][b + 1] - second[k][b]) - (second[k][a + 1] - second[k][a]);
      CHECK(d1 > 0 || (d1 == 0 && (d2 > 0 || (d2 == 0 && b > a))));
    }
    nmt_plan_free(&p);
  }
  nmt_batch_sort s;
  CHECK_INT(nmt_batch_sort_parse("maxi-batch-sort", "tgt", &s), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--maxi-batch-sort must be src, trg or none (got 'tgt')");
  nmt_corpus_free(&c);
}

TEST(train_corpus_errors) {
  const char *a = t_tmp("a"), *b = t_tmp("b");
  write_text(a, "x\nx\nx\n");
  write_text(b, "x\nx\n");
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nx\n";
  nmt_vocab *v;
  nmt_vocab_parse(&v, text, strlen(text), "v");
  nmt_corpus c;
  CHECK_INT(nmt_corpus_read(&c, a, b, v, v, NULL, 0), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "has 3 lines but") && strstr(nmt_errmsg(), "has 2"));
  CHECK_INT(nmt_corpus_read(&c, b, a, v, v, NULL, 0), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "has 2 lines but") && strstr(nmt_errmsg(), "has 3"));
  write_text(a, "");
  write_text(b, "");
  CHECK_INT(nmt_corpus_read(&c, a, b, v, v, NULL, 0), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "no sentence pairs") != NULL);
  nmt_vocab_free(v);
}

/* What the training loop's hooks saw. */
typedef struct {
  long steps, nbatches, bad;
  double lr[8], rss;
  int rows;
} hook_log;

static void on_progress(void *ctx, const nmt_train_progress *p) {
  hook_log *h = ctx;
  h->nbatches = p->nbatches;
  if (p->step != ++h->steps || p->batch != (p->step - 1) % p->nbatches + 1 || p->tokens <= 0) h->bad++;
}

static int on_metrics(void *ctx, const nmt_train_metrics *m) {
  hook_log *h = ctx;
  if (h->rows < 8) h->lr[h->rows++] = m->lr;
  h->rss = m->peak_rss_mib;
  return NMT_OK;
}

TEST(train_loop_epoch_lr_decay_and_hooks) {
  nmt_model m;
  nmt_corpus c;
  tiny_model(&m, "general", 1);
  make_corpus(&c, t_tmp("lr"), 20, 0);
  hook_log h = {0};
  /* 20 pairs, 5 a batch: 4 steps an epoch, a metrics row at each epoch's end */
  nmt_trainer t = {.model = &m, .train = &c,
                   .o = {.batch = {5, 0, 20, true}, .seed = 1, .lr = 0.01, .lr_decay = 0.5,
                         .lr_decay_start_epoch = 2, .after_epochs = 4, .log_freq = 4,
                         .model_path = t_tmp("lr.bin"), .ckpt_path = t_tmp("lr.ckpt")},
                   .hooks = {&h, NULL, on_metrics, on_progress}};
  t.s = nmt_train_state_new(&t.o);
  CHECK_INT(nmt_train(&t, NULL), NMT_OK);
  CHECK_INT(h.nbatches, 4);
  CHECK_INT(h.steps, 16);
  CHECK_INT(h.bad, 0);
  /* Luong's schedule from epoch 2: epochs 1 and 2 at 0.01, then halved after each epoch */
  CHECK_INT(h.rows, 4);
  CHECK_NEAR(h.lr[0], 0.01, 1e-12);
  CHECK_NEAR(h.lr[1], 0.01, 1e-12);
  CHECK_NEAR(h.lr[2], 0.005, 1e-12);
  CHECK_NEAR(h.lr[3], 0.0025, 1e-12);
  CHECK_NEAR(t.s.lr, 0.00125, 1e-12);
  CHECK(h.rss > 0);
  nmt_corpus_free(&c);
  nmt_model_free(&m);
}

/* The model file is replaced only once the new one is on disk: a failed write
 * (here over a file size limit) keeps the old file and leaves no temp file. PATH.new,
 * the fixed temp name of old, is not used: a folder there is left alone. */
TEST(train_model_file_write_keeps_old_until_new_is_durable) {
  const char *path = t_tmp("m.bin"), *fresh = t_tmp("m.bin.new");
  nmt_model a, b, r;
  tiny_model(&a, "dot", 1);
  tiny_model(&b, "dot", 2);
  CHECK_INT(nmt_model_save(&a, path), NMT_OK);
  CHECK(access(fresh, F_OK) != 0);
  CHECK_INT(mkdir(fresh, 0700), 0);
  struct rlimit old, small = {256, 256};
  getrlimit(RLIMIT_FSIZE, &old);
  small.rlim_max = old.rlim_max;
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &small);
  int st = nmt_model_save(&b, path);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, was);
  CHECK_INT(st, NMT_EIO);
  CHECK_INT(nmt_model_load(&r, path), NMT_OK);
  CHECK(same_floats(r.params.w, a.params.w, a.params.n));
  nmt_model_free(&r);
  CHECK_INT(t_sh("ls -A '%s' | grep -q '^[.]'", t_tmp("")), 1);
  CHECK_INT(nmt_model_save(&b, path), NMT_OK);
  CHECK_INT(nmt_model_load(&r, path), NMT_OK);
  CHECK(same_floats(r.params.w, b.params.w, b.params.n));
  CHECK_INT(rmdir(fresh), 0);
  nmt_model_free(&r), nmt_model_free(&a), nmt_model_free(&b);
}

/* A trainer over a tiny model and n pairs, 5 a batch, checkpointing to ckpt. */
static void tiny_trainer(nmt_trainer *t, nmt_model *m, nmt_corpus *c, int n, const char *ckpt) {
  tiny_model(m, "general", 1);
  make_corpus(c, t_tmp("resume"), n, 0);
  *t = (nmt_trainer){.model = m, .train = c,
                     .o = {.batch = {5, 0, 20, true}, .seed = 1, .lr = 0.01, .lr_decay = 0.5, .workers = 1,
                           .after_batches = 3, .model_path = t_tmp("resume.bin"), .ckpt_path = ckpt}};
  t->s = nmt_train_state_new(&t->o);
}

/* Resume the checkpoint with t's options and corpus; the checkpoint's bytes stay as they were. */
static int resume_with(nmt_trainer *t, const char *ckpt) {
  char *before, *after;
  size_t n0, n1;
  CHECK_INT(nmt_read_file(ckpt, &before, &n0), NMT_OK);
  nmt_model_free(t->model);
  CHECK_INT(nmt_checkpoint_load(t->model, &t->s, ckpt), NMT_OK);
  t->o.after_batches = 6;
  int st = nmt_train(t, NULL);
  if (st) {
    CHECK_INT(nmt_read_file(ckpt, &after, &n1), NMT_OK);
    CHECK(n0 == n1 && !memcmp(before, after, n0));
    free(after);
  }
  free(before);
  return st;
}

TEST(train_resume_checks_batches_corpus_and_workers) {
  const char *ckpt = t_tmp("resume.ckpt");
  nmt_trainer t;
  nmt_model m;
  nmt_corpus c, other;
  tiny_trainer(&t, &m, &c, 20, ckpt);
  CHECK_INT(nmt_train(&t, NULL), NMT_OK); /* 3 steps of the 4 in epoch 1 */
  t.o.batch.max_sents = 10, t.o.batch.window = 30, t.o.batch.sort = NMT_SORT_TRG;
  CHECK_INT(resume_with(&t, ckpt), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "--mini-batch 10 (checkpoint: 5), --maxi-batch 3 (checkpoint: 4), "
                             "--maxi-batch-sort trg (checkpoint: src)") != NULL);
  t.o.batch = (nmt_batch_opts){5, 0, 20, true};
  make_corpus(&other, t_tmp("other"), 21, 0);
  t.train = &other;
  CHECK_INT(resume_with(&t, ckpt), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "the training data differ from the checkpoint's (21 sentence pairs, the checkpoint's 20") != NULL);
  t.train = &c;
  t.o.workers = 2; /* allowed: the run goes on */
  CHECK_INT(resume_with(&t, ckpt), NMT_OK);
  CHECK_INT(t.s.step, 6);
  CHECK_INT(t.s.workers, 2);
  nmt_corpus_free(&other), nmt_corpus_free(&c);
  nmt_model_free(&m);
}

/* Another --optimizer or first --valid-metrics on resume: one line naming both, the checkpoint untouched. */
TEST(train_resume_refuses_other_optimizer_or_metric) {
  const char *ckpt = t_tmp("resume.ckpt");
  nmt_trainer t;
  nmt_model m;
  nmt_corpus c;
  tiny_trainer(&t, &m, &c, 20, ckpt);
  CHECK_INT(nmt_train(&t, NULL), NMT_OK);
  t.o.optimizer = NMT_SGD;
  CHECK_INT(resume_with(&t, ckpt), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "resume.ckpt: cannot resume with --optimizer sgd: the checkpoint was trained with adam") != NULL);
  t.o.optimizer = NMT_ADAM;
  t.o.valid = (nmt_valid_opts){{NMT_VM_CHRF, NMT_VM_PERPLEXITY}, 2, 1, 0};
  CHECK_INT(resume_with(&t, ckpt), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "cannot resume with --valid-metrics chrf first: the checkpoint's best model and stalls are by perplexity") != NULL);
  t.o.valid = (nmt_valid_opts){{NMT_VM_PERPLEXITY, NMT_VM_CHRF}, 2, 1, 0}; /* the others may change */
  CHECK_INT(resume_with(&t, ckpt), NMT_OK);
  nmt_corpus_free(&c);
  nmt_model_free(&m);
}

/* SGD's first update is w - lr·g of the first batch's clipped gradient, bit for bit. */
TEST(train_sgd_first_update) {
  nmt_trainer t;
  nmt_model m, ref;
  nmt_corpus c;
  tiny_trainer(&t, &m, &c, 20, t_tmp("sgd.ckpt"));
  t.o.optimizer = NMT_SGD, t.o.lr = 0.5, t.o.clip_norm = 0.05, t.o.after_batches = 1;
  t.s = nmt_train_state_new(&t.o);
  tiny_model(&ref, "general", 1); /* m's twin */
  nmt_plan plan;
  nmt_updater k;
  double loss;
  long ntok;
  CHECK_INT(nmt_plan_epoch(&plan, &c, &t.o.batch, t.o.seed, 0), NMT_OK);
  CHECK_INT(nmt_updater_init(&k, 1, ref.params.n), NMT_OK);
  CHECK_INT(nmt_update_gradient(&k, &c, plan.pairs, (int)plan.start[1], &ref.net, &ref.params, t.o.seed, 0, &loss, &ntok),
            NMT_OK);
  CHECK(nn_params_clip(&ref.params, 0.05) > 0.05); /* the clipping shows */
  CHECK_INT(nmt_train(&t, NULL), NMT_OK);
  size_t bad = 0;
  for (size_t i = 0; i < m.params.n; i++) {
    float want = ref.params.w[i] - 0.5f * ref.params.g[i];
    bad += memcmp(&m.params.w[i], &want, sizeof want) != 0;
  }
  CHECK_INT(bad, 0);
  CHECK_INT(m.params.step, 1);
  nmt_updater_free(&k);
  nmt_plan_free(&plan);
  nmt_corpus_free(&c);
  nmt_model_free(&ref), nmt_model_free(&m);
}

/* A position beyond the epoch's plan (a checkpoint from before the batch keys) is an error, not an overrun. */
TEST(train_position_past_the_plan) {
  nmt_trainer t;
  nmt_model m;
  nmt_corpus c;
  tiny_trainer(&t, &m, &c, 20, t_tmp("past.ckpt"));
  t.s.batch = 9;
  CHECK_INT(nmt_train(&t, NULL), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "epoch 1 has 4 batches, but the state is at batch 9");
  nmt_corpus_free(&c);
  nmt_model_free(&m);
}

/* NaN weights (a NaN rate) and a finite blow-up (a huge rate) are never saved. */
TEST(train_divergence_saves_nothing) {
  const double rates[] = {NAN, 1e6};
  for (int i = 0; i < 2; i++) {
    nmt_trainer t;
    nmt_model m;
    nmt_corpus c;
    tiny_trainer(&t, &m, &c, 20, t_tmp(i ? "huge.ckpt" : "nan.ckpt"));
    t.o.lr = t.s.lr = rates[i];
    t.o.after_batches = 20, t.o.save_freq = 1;
    CHECK_INT(nmt_train(&t, NULL), NMT_EINPUT);
    CHECK(strstr(nmt_errmsg(), "training diverged: ") && strstr(nmt_errmsg(), "nothing was saved"));
    CHECK(access(t.o.ckpt_path, F_OK) != 0 && access(t.o.model_path, F_OK) != 0);
    nmt_corpus_free(&c);
    nmt_model_free(&m);
  }
}

static int failing_metrics(void *ctx, const nmt_train_metrics *m) {
  return nmt_fail(NMT_EIO, "metrics.csv: write error: No space left on device");
}

/* A failed metrics write ends the run, its state saved first. */
TEST(train_metrics_failure_saves_checkpoint) {
  nmt_trainer t;
  nmt_model m, r;
  nmt_corpus c;
  tiny_trainer(&t, &m, &c, 20, t_tmp("metrics.ckpt"));
  t.o.after_batches = 10, t.o.log_freq = 2;
  t.hooks.metrics = failing_metrics;
  CHECK_INT(nmt_train(&t, NULL), NMT_EIO);
  const char *want = "metrics.csv: write error: No space left on device (checkpoint ";
  CHECK(!strncmp(nmt_errmsg(), want, strlen(want)) && strstr(nmt_errmsg(), "metrics.ckpt saved at step 2)"));
  nmt_train_state s;
  CHECK_INT(nmt_checkpoint_load(&r, &s, t.o.ckpt_path), NMT_OK);
  CHECK_INT(s.step, 2);
  nmt_model_free(&r);
  nmt_corpus_free(&c);
  nmt_model_free(&m);
}
