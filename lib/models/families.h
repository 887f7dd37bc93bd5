/* The family table: every model family (models/families.def), found by its --type
 * name. */
#ifndef NMT_MODELS_FAMILIES_H
#define NMT_MODELS_FAMILIES_H
#include "models/net.h"

/* The family called `name` (NULL: the default, luong), or NULL when there is none. */
const nmt_family *nmt_family_find(const char *name);
/* "luong, rnnsearch, ..." for messages. */
const char *nmt_family_names(void);

#endif
