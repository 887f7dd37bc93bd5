/* The model file reader on damaged and hostile input: what the fuzz harnesses
 * (tests/fuzz/) found, each fed back as a case. */
#include "base/err.h"
#include "io/io.h"
#include "models/model.h"
#include "train/checkpoint.h"
#include "train/loop.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

static void tiny_model(nmt_model *m) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 4, .enc_depth = 1, .dec_depth = 1, .input_feed = true};
  CHECK_INT(nmt_model_create(m, &o, vs, vt, 1), NMT_OK);
}

/* A saved tiny model's file at `out` (t_tmp path, copied). */
static void tiny_model_file(char out[512]) {
  nmt_model m;
  tiny_model(&m);
  snprintf(out, 512, "%s", t_tmp("tiny.bin"));
  CHECK_INT(nmt_model_save(&m, out), NMT_OK);
  nmt_model_free(&m);
}

/* The in-memory reader agrees with the file reader, and tells truncation. */
TEST(model_file_read_mem) {
  char p[512];
  tiny_model_file(p);
  nmt_model_file f, g;
  char *bytes;
  size_t len;
  CHECK_INT(nmt_mf_read(&f, p), NMT_OK);
  CHECK_INT(nmt_read_file(p, &bytes, &len), NMT_OK);
  CHECK_INT(nmt_mf_read_mem(&g, bytes, len, "mem"), NMT_OK);
  CHECK_INT(g.n, f.n);
  for (int i = 0; i < f.n && i < g.n; i++) {
    CHECK_STR(g.s[i].tag, f.s[i].tag);
    CHECK(g.s[i].len == f.s[i].len && !memcmp(g.s[i].data, f.s[i].data, f.s[i].len));
  }
  nmt_mf_free(&g);
  CHECK_INT(nmt_mf_read_mem(&g, bytes, len - 1, "mem"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "mem: truncated");
  CHECK_INT(nmt_mf_read_mem(&g, "", 0, "mem"), NMT_EINPUT);
  nmt_mf_free(&f);
  free(bytes);
}

/* Load the tiny model with `from` in its section `tag` replaced by `to`;
 * returns the status, the message in nmt_errmsg(). */
static int load_patched_in(const char *tag, const char *from, const char *to) {
  char p[512], q[512];
  tiny_model_file(p);
  snprintf(q, sizeof q, "%s", t_tmp("patched.bin"));
  nmt_model_file f, g = {0};
  CHECK_INT(nmt_mf_read(&f, p), NMT_OK);
  const nmt_section *c = nmt_mf_get(&f, tag);
  const char *at = c ? memmem(c->data, c->len, from, strlen(from)) : NULL;
  if (!at) { T_FAIL("no '%s' in %s", from, tag); nmt_mf_free(&f); return -1; }
  char cfg[4096];
  size_t head = (size_t)(at - (const char *)c->data), tail = c->len - head - strlen(from);
  snprintf(cfg, sizeof cfg, "%.*s%s%.*s", (int)head, (const char *)c->data, to, (int)tail, at + strlen(from));
  for (int i = 0; i < f.n; i++)
    CHECK_INT(nmt_mf_add(&g, f.s[i].tag, f.s + i == c ? cfg : f.s[i].data, f.s + i == c ? strlen(cfg) : f.s[i].len),
              NMT_OK);
  CHECK_INT(nmt_mf_write(&g, q), NMT_OK);
  free(g.s);
  nmt_mf_free(&f);
  nmt_model m;
  int st = nmt_model_load(&m, q);
  if (!st) nmt_model_free(&m);
  return st;
}

static int load_patched(const char *from, const char *to) { return load_patched_in("config", from, to); }

/* A size past any real model overflowed the layout's int shapes (UBSan:
 * signed overflow in models/luong.c) or asked for terabytes. */
TEST(model_file_huge_size) {
  CHECK_INT(load_patched("dim-rnn=4", "dim-rnn=2000000000"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "config: sizes must be at most 65536") != NULL);
}

/* A size the layout accepts but the file's weights cannot hold is refused
 * before the parameters are allocated (dim-emb=99999999 took 17 GB). */
TEST(model_file_weights_too_short) {
  CHECK_INT(load_patched("dim-emb=4", "dim-emb=60000"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), ": the weights hold 512 floats, the configuration needs ") != NULL);
}

/* Numbers out of an int's range (UBSan: float-cast-overflow) or not finite. */
TEST(model_file_bad_numbers) {
  CHECK_INT(load_patched("window=0", "window=1e20"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), ": config: cannot use 'window=1e20'") != NULL);
  CHECK_INT(load_patched("window=0", "window=2.5"), NMT_EINPUT);
  CHECK_INT(load_patched("dropout=0", "dropout=nan"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), ": config: cannot use 'dropout=nan'") != NULL);
  CHECK_INT(load_patched("label-smoothing=0", "label-smoothing=inf"), NMT_EINPUT);
}

/* A configuration the layout refuses: the message wrapped itself (nmt_fail
 * given nmt_errmsg(), its own buffer, as an argument) and came out garbled. */
TEST(model_file_layout_message) {
  CHECK_INT(load_patched("enc-depth=1", "enc-depth=100"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "patched.bin: config: luong: bad configuration (layers 1..8,") != NULL);
}

/* A checkpoint whose training state has a negative count or a rate that is
 * not a positive number: resuming from batch=-5 hung nmt-train, lr=nan or
 * adam-step=-1 made every step NaN. Refused when loaded. */
TEST(model_file_checkpoint_bad_state) {
  nmt_train_opts o = {.lr = 0.001, .seed = 1};
  const nmt_train_state good = nmt_train_state_new(&o);
  nmt_train_state bad[4] = {good, good, good, good}, s;
  bad[0].batch = -5, bad[1].lr = NAN, bad[2].epoch = -3, bad[3].best = INFINITY;
  char p[512];
  snprintf(p, sizeof p, "%s", t_tmp("tiny.ckpt"));
  nmt_model m, r;
  tiny_model(&m);
  CHECK_INT(nmt_checkpoint_save(&m, &good, p), NMT_OK);
  CHECK_INT(nmt_checkpoint_load(&r, &s, p), NMT_OK);
  nmt_model_free(&r);
  for (int i = 0; i < 4; i++) {
    CHECK_INT(nmt_checkpoint_save(&m, &bad[i], p), NMT_OK);
    CHECK_INT(nmt_checkpoint_load(&r, &s, p), NMT_EINPUT);
    CHECK(strstr(nmt_errmsg(), "tiny.ckpt: bad training state") != NULL);
  }
  m.params.step = -1;
  CHECK_INT(nmt_checkpoint_save(&m, &good, p), NMT_OK);
  CHECK_INT(nmt_checkpoint_load(&r, &s, p), NMT_EINPUT);
  nmt_model_free(&m);
}

/* Local-p attention with a window below 1 loaded, then every decode failed
 * with "attn_local: sig (5,1) for weights (5,4), D 0" and exit status 1. */
TEST(model_file_local_window) {
  CHECK_INT(load_patched("local=0\nwindow=0", "local=1\nwindow=0"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "config: --attention-window must be >= 1 with --local-attention") != NULL);
}

/* A tensor table naming one tensor twice and another not at all loaded,
 * leaving the missing tensor zero: the count of lines matched the model's. */
TEST(model_file_tensor_twice) {
  char p[512];
  tiny_model_file(p);
  nmt_model_file f;
  CHECK_INT(nmt_mf_read(&f, p), NMT_OK);
  const nmt_section *t = nmt_mf_get(&f, "tensors");
  const char *nl = memchr(t->data, '\n', t->len);
  char first[256], second[256];
  snprintf(first, sizeof first, "%.*s", (int)(nl + 1 - (const char *)t->data), (const char *)t->data);
  const char *nl2 = memchr(nl + 1, '\n', t->len - (size_t)(nl + 1 - (const char *)t->data));
  snprintf(second, sizeof second, "%.*s", (int)(nl2 - nl), nl + 1);
  nmt_mf_free(&f);
  CHECK_INT(load_patched_in("tensors", first, second), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "is in the table twice") != NULL);
}
