/* The optimisers' names; see train/optimizer.h. */
#include "train/optimizer.h"
#include "base/err.h"
#include <string.h>

static const char *const optimizers[] = {[NMT_ADAM] = "adam", [NMT_SGD] = "sgd"};

const char *nmt_optimizer_name(nmt_optimizer o) { return optimizers[o]; }

int nmt_optimizer_parse(const char *flag, const char *name, nmt_optimizer *o) {
  for (int i = 0; i < (int)(sizeof optimizers / sizeof *optimizers); i++)
    if (!strcmp(name, optimizers[i])) return *o = (nmt_optimizer)i, NMT_OK;
  return nmt_fail(NMT_EUSAGE, "--%s must be adam or sgd (got '%s')", flag, name);
}
