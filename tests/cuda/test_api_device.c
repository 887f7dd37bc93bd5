/* The public API on the CUDA backend (nmt_translator_options.device): a translator on
 * the GPU gives the CPU's hypotheses (scores within 1e-4) with their alignments and
 * forced scores, two GPU translators share the device, and the last one freed closes it.
 * On the emulator (make test-emu) every kernel it runs is checked for device memory. */
#include <nmt.h>
#include "base/err.h"
#include "cuda/gpu_case.h"
#include "decode/decode_case.h"
#include "test.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static nmt_translator *translator(const char *path, const char *device) {
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.beam_size = 3, o.n_best = 1, o.alignment = "hard", o.device = device;
  nmt_translator *t = NULL;
  const char *m[] = {path};
  if (nmt_translator_new(&t, m, 1, &o)) T_FAIL("%s: %s", device, nmt_last_error());
  return t;
}

static const char *lines[] = {"a b c d", "e a", "", "b b c e d a"};
enum { N = 4 };

static void same_results(const nmt_result *cpu, const nmt_result *gpu) {
  for (int i = 0; i < N; i++) {
    CHECK_INT(nmt_result_hypotheses(gpu, i), nmt_result_hypotheses(cpu, i));
    for (int k = 0; k < nmt_result_hypotheses(cpu, i); k++) {
      CHECK_STR(nmt_result_text(gpu, i, k), nmt_result_text(cpu, i, k));
      CHECK(fabs(nmt_result_score(gpu, i, k) - nmt_result_score(cpu, i, k)) <= 1e-4);
      CHECK(strlen(nmt_result_alignment(gpu, i, k)) == strlen(nmt_result_alignment(cpu, i, k)));
    }
  }
}

TEST(gpu_api_translator) {
  NEED_GPU();
  nmt_model m;
  decode_variant(&m, 1, 41);
  char path[4096];
  snprintf(path, sizeof path, "%s", t_tmp("m.bin"));
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  nmt_model_free(&m);
  nmt_translator *cpu = translator(path, "cpu"), *gpu = translator(path, "cuda"), *again = translator(path, "cuda:0");
  nmt_result *rc = NULL, *rg = NULL;
  if (cpu && gpu && again) {
    CHECK_INT(nmt_translator_translate(cpu, lines, N, &rc), NMT_STATUS_OK);
    CHECK_INT(nmt_translator_translate(gpu, lines, N, &rg), NMT_STATUS_OK);
    if (rc && rg) same_results(rc, rg);
    nmt_result_free(rg), rg = NULL;
    nmt_translator_free(gpu), gpu = NULL; /* the device stays open for the other */
    CHECK_INT(nmt_translator_translate(again, lines, N, &rg), NMT_STATUS_OK);
    if (rc && rg) same_results(rc, rg);
    const char *tgt[] = {"a b", "c", "d d", "e"};
    double sc[N], sg[N];
    CHECK_INT(nmt_translator_score(cpu, lines, tgt, 2, sc), NMT_STATUS_OK);
    CHECK_INT(nmt_translator_score(again, lines, tgt, 2, sg), NMT_STATUS_OK);
    for (int i = 0; i < 2; i++) CHECK(fabs(sc[i] - sg[i]) <= 1e-4 * fmax(1, fabs(sc[i])));
  }
  nmt_result_free(rc), nmt_result_free(rg);
  nmt_translator_free(cpu), nmt_translator_free(gpu), nmt_translator_free(again);
  gpu_closed(); /* the last GPU translator closed the device */
}
