/* --tied-embeddings and --tied-embeddings-all in every family: the output matrix
 * is the target embedding (one view, the parameter count down by out.W's size),
 * all three one view with -all, the whole model's gradient still right. */
#include "base/err.h"
#include "models/model.h"
#include "models/model_case.h"
#include "nn/grad_check.h"
#include "test.h"

enum { E = 6, V = 7 }; /* the copy batch's vocabulary (models/model_case.h) */

static const char *const families[] = {"luong", "srnmt", "rnnsearch", "rhn", "deep-att"};
enum { NFAM = sizeof families / sizeof *families };

/* A model of `family` (dim-emb = dim-rnn = E) over one 7-token vocabulary on both
 * sides; tie: 0 none, 1 --tied-embeddings, 2 --tied-embeddings-all. */
static void tiny(nmt_model *m, const char *family, int tie) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  o.type = family, o.dim_emb = o.dim_rnn = E;
  o.tied_embeddings = tie == 1, o.tied_embeddings_all = tie == 2;
  CHECK_INT(nmt_model_create(m, &o, vs, vt, 3), NMT_OK);
}

static long count(const nn_params *p) {
  long n = 0;
  for (int i = 0; i < p->nviews; i++) n += (long)p->views[i].rows * p->views[i].cols;
  return n;
}

TEST(nn_tied_embeddings_one_tensor) {
  for (int f = 0; f < NFAM; f++) {
    nmt_model m[3];
    for (int tie = 0; tie < 3; tie++) tiny(&m[tie], families[f], tie);
    const nn_params *p0 = &m[0].params, *p1 = &m[1].params, *p2 = &m[2].params;
    int out = nn_params_find(p0, "out.W");
    CHECK(out >= 0);
    long out_size = (long)p0->views[out].rows * p0->views[out].cols;
    CHECK_INT(out_size, E * V);
    CHECK_INT(count(p1), count(p0) - out_size);                /* out.W is gone */
    CHECK_INT(count(p2), count(p0) - out_size - (long)V * E);  /* and enc.emb */
    CHECK(nn_params_find(p1, "out.W") < 0 && nn_params_find(p2, "out.W") < 0);
    CHECK(nn_params_find(p2, "enc.emb") < 0 && nn_params_find(p2, "dec.emb") < 0);
    bool t;
    CHECK_INT(nmt_net_output_view(&m[1].net.cfg, p1, &t), nn_params_find(p1, "dec.emb"));
    CHECK(t);
    CHECK_INT(nmt_net_output_view(&m[2].net.cfg, p2, &t), nn_params_find(p2, "emb"));
    CHECK_INT(nmt_net_output_view(&m[0].net.cfg, p0, &t), out);
    CHECK(!t);
    for (int tie = 0; tie < 3; tie++) nmt_model_free(&m[tie]);
  }
}

/* The shared tensor's gradient sums its uses (lookups and the output product). */
TEST(nn_tied_embeddings_grad) {
  for (int f = 0; f < 3; f++) /* luong, srnmt, rnnsearch: the others share their output code */
    for (int tie = 1; tie <= 2; tie++) {
      nmt_model m;
      tiny(&m, families[f], tie);
      model_case mc;
      nn_params p;
      if (model_setup(&mc, &p, &m.net.cfg, (nmt_batch){3, 4, 5, copy_src, copy_src_len, copy_tgt_in, copy_tgt_out},
                      40 + tie))
        T_NN_GRADCHECK(&p, build_model, &mc);
      nn_params_free(&p);
      nmt_model_free(&m);
    }
}

TEST(nn_tied_embeddings_refused) {
  nmt_model m;
  const char *a = "<pad>\n<unk>\n<s>\n</s>\na\n", *b = "<pad>\n<unk>\n<s>\n</s>\nb\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, a, strlen(a), "a");
  nmt_vocab_parse(&vt, b, strlen(b), "b");
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  o.dim_emb = o.dim_rnn = E, o.tied_embeddings_all = true;
  CHECK_INT(nmt_model_create(&m, &o, vs, vt, 1), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--tied-embeddings-all needs a joint vocabulary, but the source and target "
                          "vocabularies differ: give --vocabs the same file twice");
  nmt_model_free(&m);
  tiny(&m, "luong", 0);
  o = m.opts;
  o.dim_rnn = 8, o.tied_embeddings = true, o.tied_embeddings_all = false;
  nmt_model t;
  nmt_vocab *v2;
  nmt_vocab_parse(&vs, a, strlen(a), "a");
  nmt_vocab_parse(&v2, a, strlen(a), "a");
  CHECK_INT(nmt_model_create(&t, &o, vs, v2, 1), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--tied-embeddings: the output layer takes 8 features (--dim-rnn), the embeddings "
                          "have 6 (--dim-emb): make them equal");
  nmt_model_free(&t);
  nmt_model_free(&m);
}
