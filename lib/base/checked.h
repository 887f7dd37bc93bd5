/* Growth that cannot wrap, for arrays counted by an int whose length comes from
 * files, peers or input of any size. */
#ifndef NMT_BASE_CHECKED_H
#define NMT_BASE_CHECKED_H
#include <limits.h>

/* The next capacity of an int-counted array holding cap: first when empty, else twice
 * cap; -1 past INT_MAX (the caller's "out of memory"). */
static inline int nmt_grow_int(int cap, int first) { return !cap ? first : cap > INT_MAX / 2 ? -1 : 2 * cap; }

#endif
