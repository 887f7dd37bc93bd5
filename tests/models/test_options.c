/* The model option table (models/options.def): defaults, the model file's text
 * of every row, and which families accept what. */
#include "base/err.h"
#include "models/options.h"
#include "test.h"
#include <string.h>

/* Every row's default, written as the model file writes it, reads back the same. */
TEST(options_defaults_round_trip) {
  nmt_model_opts o, back;
  nmt_model_opts_defaults(&o);
  memset(&back, 0, sizeof back);
  for (int i = 0; i < nmt_noptions; i++) {
    char text[64], again[64];
    nmt_option_text(&nmt_options[i], &o, text, sizeof text);
    CHECK_INT(nmt_option_read(&nmt_options[i], &back, text), 0);
    nmt_option_text(&nmt_options[i], &back, again, sizeof again);
    CHECK_STR(again, text);
    CHECK(nmt_option_by_key(nmt_options[i].key) == &nmt_options[i]);
    CHECK(!nmt_option_is_set(&nmt_options[i], &o) || !nmt_options[i].families);
  }
  CHECK_INT(nmt_option_read(nmt_option_by_key("attention"), &back, "sideways"), -1);
  CHECK_INT(nmt_option_read(nmt_option_by_key("dim-emb"), &back, "1.5"), -1);
  CHECK_INT(nmt_option_read(nmt_option_by_key("dropout"), &back, "nan"), -1);
}

/* A family accepts the options its row lists; the message names the first other. */
TEST(options_family_check) {
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  CHECK_INT(nmt_model_opts_check_family(&o, "srnmt"), NMT_OK);
  o.skip = true;
  CHECK_INT(nmt_model_opts_check_family(&o, "rnnsearch"), NMT_OK);
  CHECK_INT(nmt_model_opts_check_family(&o, "deep-ed"), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--type deep-ed does not use --skip");
  nmt_model_opts_defaults(&o);
  o.enc_cell_depth = 1; /* the default: not set */
  o.recon_beta = 0.5f;
  CHECK_INT(nmt_model_opts_check_family(&o, "rhn"), NMT_OK);
  CHECK_INT(nmt_model_opts_check_family(&o, "luong"), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--type luong does not use --reconstructor-beta");
  nmt_model_opts_defaults(&o);
  o.input_feed = false; /* every family may turn it off */
  o.dim_emb = 12;
  CHECK_INT(nmt_model_opts_check_family(&o, "deep-att"), NMT_OK);
}
