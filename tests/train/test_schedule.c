/* The rate schedule's factors (train/schedule.c): Marian's linear warm-up and
 * inverse square-root decay, alone and together. */
#include "test.h"
#include "train/loop.h"

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
