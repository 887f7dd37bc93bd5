/* The model file reader on damaged and hostile input: what the fuzz harnesses
 * (tests/fuzz/) found, each fed back as a case. */
#include "err.h"
#include "io.h"
#include "model.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

/* A saved tiny model's file at `out` (t_tmp path, copied). */
static void tiny_model_file(char out[512]) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 4, .enc_depth = 1, .dec_depth = 1, .input_feed = true};
  nmt_model m;
  CHECK_INT(nmt_model_create(&m, &o, vs, vt, 1), NMT_OK);
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
