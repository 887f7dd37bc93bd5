/* Terminology constraints (decode/constrained.h, decode/terms.h): every hypothesis holds
 * every phrase, on every model variant, beam and greedy; the other sentences of a batch are
 * searched as without constraints; a search that cannot meet them gives the unconstrained
 * hypotheses, marked; phrases are read as the model's target text. */
#include "decode/constrained.h"
#include "decode/decode_case.h"
#include "decode/terms.h"
#include "base/err.h"
#include "models/model.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

enum { B = 3 };

/* Whether ids[0..n) holds each phrase of cons[0..cn) (each followed by -1), its tokens in a row,
 * not right after a token that joins the next (joins: NULL, none does). */
static bool holds(const int *ids, int n, const int *cons, int cn, const bool *joins) {
  for (int at = 0; at < cn;) {
    int len = 0;
    while (cons[at + len] >= 0) len++;
    bool found = false;
    for (int i = 0; i + len <= n && !found; i++)
      found = !memcmp(ids + i, cons + at, sizeof(int) * (size_t)len) && !(joins && i && joins[ids[i - 1]]);
    if (!found) return false;
    at += len + 1;
  }
  return true;
}

static const int s0[] = {4, 5, 6}, s1[] = {8}, s2[] = {7, 7, 4, 5};
static const int c0[] = {7, -1}, c1[] = {4, 5, -1, 6, -1};

/* (joins: token 4, 'a', joins the next in every other run) */
TEST(decode_constrained_every_hypothesis) {
  nmt_sent in[B] = {{s0, 3, .cons = c0, .cons_n = 2}, {s1, 1, .cons = c1, .cons_n = 5}, {s2, 4}};
  static const bool glue[9] = {[4] = true};
  for (int i = 0; i < DECODE_NVARIANTS; i++)
    for (int K = 1; K <= 4; K += 3) {
      const bool *joins = i % 2 ? glue : NULL;
      nmt_model m;
      decode_variant(&m, i, 5 + (uint64_t)i);
      nmt_dec d = {0};
      nmt_nbest out[B], plain;
      nmt_search_opts o = {K, 0.6f, 2.0f, .joins = joins};
      CHECK_INT(nmt_search_sents(&d, NMT_ONE_MODEL(&m.net, &m.params), in, B, &o, out), NMT_OK);
      for (int b = 0; b < 2; b++) {
        CHECK(out[b].n >= 1 && !out[b].unmet);
        for (int j = 0; j < out[b].n; j++)
          if (!holds(out[b].hyps[j].ids, out[b].hyps[j].n, in[b].cons, in[b].cons_n, joins))
            T_FAIL("variant %d beam %d sentence %d hyp %d lacks a constraint", i, K, b, j);
      }
      CHECK_INT(nmt_search_sents(&d, NMT_ONE_MODEL(&m.net, &m.params), &in[2], 1, &o, &plain), NMT_OK);
      CHECK_INT(plain.n, out[2].n); /* the unconstrained sentence: as alone */
      for (int j = 0; j < plain.n && j < out[2].n; j++) {
        CHECK_INT(plain.hyps[j].n, out[2].hyps[j].n);
        CHECK(!memcmp(plain.hyps[j].ids, out[2].hyps[j].ids, sizeof(int) * (size_t)plain.hyps[j].n));
      }
      for (int b = 0; b < B; b++) nmt_nbest_free(&out[b]);
      nmt_nbest_free(&plain);
      nmt_dec_free(&d);
      nmt_model_free(&m);
    }
}

/* Three constraint tokens and a length limit of 2: no hypothesis can meet them, and the
 * sentence gets the unconstrained search's, marked unmet; nothing hangs. */
TEST(decode_constrained_unmet) {
  nmt_model m;
  decode_variant(&m, 0, 9);
  nmt_dec d = {0};
  nmt_sent in = {s1, 1, .cons = c1, .cons_n = 5}, bare = {s1, 1};
  nmt_nbest out, plain;
  nmt_search_opts o = {3, 0, 1.0f};
  CHECK_INT(nmt_search_sents(&d, NMT_ONE_MODEL(&m.net, &m.params), &in, 1, &o, &out), NMT_OK);
  CHECK_INT(nmt_search_sents(&d, NMT_ONE_MODEL(&m.net, &m.params), &bare, 1, &o, &plain), NMT_OK);
  CHECK(out.unmet && !plain.unmet);
  CHECK_INT(out.n, plain.n);
  for (int j = 0; j < out.n && j < plain.n; j++) {
    CHECK_INT(out.hyps[j].n, plain.hyps[j].n);
    CHECK(!memcmp(out.hyps[j].ids, plain.hyps[j].ids, sizeof(int) * (size_t)out.hyps[j].n));
  }
  nmt_nbest_free(&out), nmt_nbest_free(&plain);
  nmt_dec_free(&d);
  nmt_model_free(&m);
}

static const char *tokens = "<pad>\n<unk>\n<s>\n</s>\nIt\n's\na\nwol@@\nf\n@-@\ndog\n.\n";
static const char *codes = "#version: 0.2\nI t</w>\n' s</w>\nw o\nwo l\nd o\ndo g</w>\n@ -\n@- @</w>\n";

TEST(decode_constrained_terms) {
  nmt_vocab *v, *w;
  CHECK_INT(nmt_vocab_parse(&v, tokens, strlen(tokens), "v"), NMT_OK);
  CHECK_INT(nmt_vocab_parse(&w, tokens, strlen(tokens), "w"), NMT_OK);
  nmt_model m;
  nmt_model_opts mo = {.dim_emb = 4, .dim_rnn = 6, .enc_depth = 1, .dec_depth = 1, .attention = "general"};
  CHECK_INT(nmt_model_create(&m, &mo, v, w, 7), NMT_OK);
  CHECK_INT(nmt_tok_settings_set(&m.tok, "fr", "en", true, false, true), NMT_OK);
  m.bpe_codes = strdup(codes), m.bpe_len = strlen(codes);
  nmt_text *t;
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, true), NMT_OK);
  int *ids = NULL, n = 0, cap = 0;
  char why[200];
  const char *two = "wolf-dog\ta";
  CHECK_INT(nmt_terms_ids(t, m.tgt, two, strlen(two), &ids, &n, &cap, why, sizeof why), NMT_OK);
  const int want[] = {7, 8, 9, 10, -1, 6, -1};
  CHECK_INT(n, 7);
  for (int i = 0; i < n && i < 7; i++) CHECK_INT(ids[i], want[i]);
  CHECK_INT(nmt_terms_ids(t, m.tgt, "", 0, &ids, &n, &cap, why, sizeof why), NMT_OK);
  CHECK_INT(n, 0);
  CHECK_INT(nmt_terms_ids(t, m.tgt, "a\t \tdog", 7, &ids, &n, &cap, why, sizeof why), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "constraint 2 is empty (phrases are separated by one tab)");
  CHECK_INT(nmt_terms_ids(t, m.tgt, "a\t", 2, &ids, &n, &cap, why, sizeof why), NMT_EINPUT);
  CHECK_INT(nmt_terms_ids(t, m.tgt, "a\tcat", 5, &ids, &n, &cap, why, sizeof why), NMT_OK);
  CHECK_INT(n, 0);
  CHECK_STR(why, "the target vocabulary cannot spell 'c@@' (a token of a constraint)");
  free(ids);
  nmt_text_free(t);
  nmt_model_free(&m);
}
