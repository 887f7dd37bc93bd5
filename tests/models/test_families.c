/* The family table (models/families.def): each row's name is its family's, and the
 * --type row of the option table reads the same names in the same order. */
#include "models/families.h"
#include "models/options.h"
#include "test.h"
#include <string.h>

TEST(families_table_names) {
  static const char *const names[] = {
#define NMT_FAMILY(name, family) name,
#include "models/families.def"
#undef NMT_FAMILY
  };
  enum { N = sizeof names / sizeof names[0] };
  const nmt_option *type = nmt_option_by_key("family");
  CHECK(type != NULL && type->kind == NMT_KIND_FAMILY);
  CHECK_INT(type->nnames, N);
  char list[256] = "";
  for (int i = 0; i < N; i++) {
    const nmt_family *f = nmt_family_find(names[i]);
    CHECK(f != NULL);
    if (f) CHECK_STR(f->name, names[i]);
    if (type && i < type->nnames) CHECK_STR(type->names[i], names[i]);
    strcat(strcat(list, i ? ", " : ""), names[i]);
  }
  CHECK(nmt_family_find(NULL) == nmt_family_find(names[0]));
  CHECK(nmt_family_find("lstm") == NULL);
  CHECK_STR(nmt_family_names(), list);
}
