/* The version, errors, strings and options of the public API (include/nmt.h). */
#include "api/api.h"
#include "base/cli.h"
#include "base/err.h"
#include <stdlib.h>

const char *nmt_version(void) { return NMT_VERSION; }

const char *nmt_last_error(void) { return nmt_errmsg(); }

void nmt_string_free(char *s) { free(s); }

nmt_status api_status(int st) {
  return st == NMT_OK ? NMT_STATUS_OK : st == NMT_EUSAGE ? NMT_STATUS_USAGE : st == NMT_EINPUT ? NMT_STATUS_INPUT
         : st == API_EDEVICE ? NMT_STATUS_DEVICE : NMT_STATUS_IO;
}

void nmt_translator_options_init(nmt_translator_options *o) {
  if (!o) return;
  *o = (nmt_translator_options){.size = sizeof *o, .threads = 1, .beam_size = 5, .normalize = 0.6, .max_length_factor = 3,
                     .max_length = 1000, .mini_batch = 64, .postprocess = 1};
}
