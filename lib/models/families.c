/* The family table; see models/families.h. */
#include "models/families.h"
#include "models/deepatt.h"
#include "models/luong.h"
#include "models/rhn_recon.h"
#include "models/rnnsearch.h"
#include "models/srnmt.h"
#include <string.h>

/* Every family, in the order --help lists them. */
static const nmt_family *const families[] = {
#define NMT_FAMILY(name, family) &family,
#include "models/families.def"
#undef NMT_FAMILY
};
enum { NFAMILIES = sizeof families / sizeof families[0] };

const nmt_family *nmt_family_find(const char *name) {
  if (!name) return families[0]; /* luong: --type not given */
  for (int i = 0; i < NFAMILIES; i++)
    if (!strcmp(families[i]->name, name)) return families[i];
  return NULL;
}

const char *nmt_family_names(void) {
  static char names[256];
  if (!names[0])
    for (int i = 0; i < NFAMILIES; i++) strcat(strcat(names, i ? ", " : ""), families[i]->name);
  return names;
}
