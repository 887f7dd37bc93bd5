/* --keep-best's list (train/keep.c): the N lowest perplexities (the highest BLEU),
 * best first, the one pushed out named; its checkpoint text reads back; a bad line
 * or order is refused. */
#include "base/err.h"
#include "test.h"
#include "train/keep.h"
#include <stdlib.h>

TEST(train_keep_best_list) {
  nmt_train_state s = {0};
  long dropped;
  CHECK(nmt_kept_insert(&s, 2, 10, 5.0, &dropped) && dropped == -1);
  CHECK(nmt_kept_insert(&s, 2, 20, 4.0, &dropped) && dropped == -1);
  CHECK(!nmt_kept_insert(&s, 2, 30, 5.0, &dropped)); /* a tie with the worst: the earlier stays */
  CHECK(nmt_kept_insert(&s, 2, 40, 4.5, &dropped) && dropped == 10);
  CHECK_INT(s.nkept, 2);
  CHECK(s.kept[0].step == 20 && s.kept[1].step == 40);
  CHECK(!nmt_kept_insert(&s, 0, 50, 1.0, &dropped));
  nmt_strbuf b = {0};
  CHECK_INT(nmt_kept_text(&s, &b), NMT_OK);
  nmt_train_state r = {0};
  CHECK_INT(nmt_kept_parse(&r, b.s, b.len, "c"), NMT_OK);
  CHECK(r.nkept == 2 && !memcmp(r.kept, s.kept, sizeof s.kept[0] * 2));
  free(b.s);
  const char *bad = "20 0x1p+2\n40 nan\n";
  CHECK_INT(nmt_kept_parse(&r, bad, strlen(bad), "c"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "c: kept models, line 2: bad entry '40 nan'");
  char path[64];
  nmt_kept_path(path, sizeof path, "m.bin", 300);
  CHECK_STR(path, "m.bin.best-300");
}

/* By a higher-is-better first metric, the highest first; the text's order is checked by it. */
TEST(train_keep_best_by_bleu) {
  nmt_train_state s = {.metric = NMT_VM_BLEU};
  long dropped;
  CHECK(nmt_kept_insert(&s, 2, 10, 5.0, &dropped) && dropped == -1);
  CHECK(nmt_kept_insert(&s, 2, 20, 4.0, &dropped) && dropped == -1);
  CHECK(nmt_kept_insert(&s, 2, 30, 6.0, &dropped) && dropped == 20);
  CHECK(s.kept[0].step == 30 && s.kept[1].step == 10);
  nmt_strbuf b = {0};
  CHECK_INT(nmt_kept_text(&s, &b), NMT_OK);
  nmt_train_state r = {.metric = NMT_VM_BLEU}, ppl = {0};
  CHECK_INT(nmt_kept_parse(&r, b.s, b.len, "c"), NMT_OK);
  CHECK(r.nkept == 2 && !memcmp(r.kept, s.kept, sizeof s.kept[0] * 2));
  CHECK_INT(nmt_kept_parse(&ppl, b.s, b.len, "c"), NMT_EINPUT); /* out of perplexity's order */
  free(b.s);
}
