/* Where a writer's bytes go (internal to io/write.c). A regular file or a new path,
 * reached through any symlinks, is replaced by temp + rename beside its resolved
 * target, so the links stay; anything else (a FIFO, a device, /dev/fd/N) is
 * written in place, because renaming over it would destroy it. */
#ifndef NMT_IO_TARGET_H
#define NMT_IO_TARGET_H
#include <stdbool.h>
#include <sys/types.h>

typedef struct {
  bool direct;   /* write path itself; no temp, no rename */
  char *target;  /* !direct: canonical path the temp is renamed to (malloc'd) */
  dev_t dev;     /* direct: identity of what path opens, to spot it named twice */
  ino_t ino;
} nmt_out_target;

/* NMT_OK, or NMT_EIO naming path (a missing folder, a loop of links...). */
int nmt_out_target_resolve(nmt_out_target *t, const char *path);

/* Create a new file beside t->target under an unpredictable name ".NAME.XXXXXX",
 * exclusively (a planted file or link there is never followed), with the mode a
 * new file gets. Returns the fd and sets *tmp (malloc'd), or -1 with errno set. */
int nmt_out_temp_create(const nmt_out_target *t, char **tmp);

#endif
