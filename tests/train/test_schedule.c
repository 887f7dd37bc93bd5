/* The rate schedule's factors (train/schedule.c): Marian's linear warm-up and
 * inverse square-root decay, alone and together. */
#include "test.h"
#include "train/schedule.h"

TEST(train_lr_schedule_values) {
  CHECK_NEAR(nmt_lr_factor(1, 0, 0), 1, 0);
  CHECK_NEAR(nmt_lr_factor(1000, 0, 0), 1, 0);
  /* warm-up over 4 updates: 1/4, 2/4, 3/4, then 1 */
  CHECK_NEAR(nmt_lr_factor(1, 4, 0), 0.25, 0);
  CHECK_NEAR(nmt_lr_factor(3, 4, 0), 0.75, 0);
  CHECK_NEAR(nmt_lr_factor(4, 4, 0), 1, 0);
  CHECK_NEAR(nmt_lr_factor(9, 4, 0), 1, 0);
  /* decay after 100 updates: 1 up to 100, then sqrt(100/t) */
  CHECK_NEAR(nmt_lr_factor(100, 0, 100), 1, 0);
  CHECK_NEAR(nmt_lr_factor(400, 0, 100), 0.5, 1e-15);
  CHECK_NEAR(nmt_lr_factor(10000, 0, 100), 0.1, 1e-15);
  /* Marian's transformer recipe, --lr-warmup N --lr-decay-inv-sqrt N: up to 1 at N, then down */
  CHECK_NEAR(nmt_lr_factor(8, 16, 16), 0.5, 0);
  CHECK_NEAR(nmt_lr_factor(16, 16, 16), 1, 0);
  CHECK_NEAR(nmt_lr_factor(64, 16, 16), 0.5, 1e-15);
  /* a decay that starts inside the warm-up multiplies it */
  CHECK_NEAR(nmt_lr_factor(8, 16, 2), 0.5 * 0.5, 1e-15);
}

/* Marian's units for the periodic actions: every n updates, epochs or target tokens. */
TEST(train_every_units) {
  nmt_when w = {.step = 10, .epochs_done = 0, .tokens_before = 90, .tokens = 120};
  CHECK(nmt_every(5, 'u', &w) && nmt_every(5, 0, &w) && !nmt_every(3, 'u', &w));
  CHECK(!nmt_every(0, 'u', &w) && !nmt_every(-1, 't', &w));
  /* an update that does not end an epoch is no epoch's end */
  CHECK(!nmt_every(1, 'e', &w));
  w.epochs_done = 4;
  CHECK(nmt_every(2, 'e', &w) && nmt_every(4, 'e', &w) && !nmt_every(3, 'e', &w));
  /* 90 -> 120 tokens crosses 100, not 200; 30 and 120 are crossed too */
  CHECK(nmt_every(100, 't', &w) && !nmt_every(200, 't', &w) && nmt_every(30, 't', &w) && nmt_every(120, 't', &w));
  CHECK(!nmt_every(121, 't', &w));
}
