/* The learning curve's reader (train/curve.c): series by header name, validation rows
 * apart from training rows, the epochs' ends, and a resumed run's rows over the old. */
#include "base/err.h"
#include "test.h"
#include "train/curve_svg.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_csv(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

TEST(train_curve_series) {
  const char *path = t_tmp("m.csv");
  /* steps 2..6, a validation at 4 (ppl e: loss 1), a resume from 4 that redoes 6 */
  write_csv(path, "step,epoch,loss,valid_ppl,valid_bleu,valid_chrf\n"
                  "2,1,3.0,,,\n4,1,2.5,,,\n4,1,,2.718281828459045,10,\n6,2,2.0,,,\n"
                  "6,2,1.5,,,\n8,3,1.0,,,\n");
  nmt_curve c;
  CHECK_INT(nmt_curve_read(&c, path), NMT_OK);
  const nmt_series *loss = &c.s[NMT_CURVE_LOSS], *vloss = &c.s[NMT_CURVE_VALID_LOSS];
  CHECK_INT(loss->n, 4);
  CHECK_NEAR(loss->x[2], 6, 0);
  CHECK_NEAR(loss->y[2], 1.5, 0); /* the resumed run's row */
  CHECK_INT(vloss->n, 1);
  CHECK_NEAR(vloss->y[0], 1, 1e-12);
  CHECK_INT(c.s[NMT_CURVE_BLEU].n, 1);
  CHECK_INT(c.s[NMT_CURVE_CHRF].n, 0);
  /* epoch 1 ends after step 4, epoch 2 after step 6 */
  CHECK_INT(c.epochs.n, 2);
  CHECK_NEAR(c.epochs.x[0], 4, 0);
  CHECK_NEAR(c.epochs.y[1], 2, 0);
  nmt_strbuf svg = {0};
  CHECK_INT(nmt_curve_svg(&c, "a <title> & more", &svg), NMT_OK);
  CHECK(strstr(svg.s, "a &lt;title&gt; &amp; more") != NULL);
  free(svg.s);
  nmt_curve_free(&c);
  write_csv(path, "step,loss\n\n1,2\n2,nan?\n");
  CHECK_INT(nmt_curve_read(&c, path), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "m.csv:4: loss is not a number ('nan?')") != NULL);
}

/* A validation row of --valid-metrics chrf alone is a validation's (it once read as a
 * training row without a loss, which dropped the training point at its step). */
TEST(train_curve_chrf_alone) {
  const char *path = t_tmp("c.csv");
  write_csv(path, "step,epoch,loss,valid_ppl,valid_bleu,valid_chrf,best_valid_chrf\n"
                  "4,1,2.5,,,,\n4,1,,,,30.5,30.5\n");
  nmt_curve c;
  CHECK_INT(nmt_curve_read(&c, path), NMT_OK);
  CHECK_INT(c.s[NMT_CURVE_LOSS].n, 1);
  CHECK_INT(c.s[NMT_CURVE_CHRF].n, 1);
  CHECK_NEAR(c.s[NMT_CURVE_CHRF].y[0], 30.5, 0);
  nmt_curve_free(&c);
}
