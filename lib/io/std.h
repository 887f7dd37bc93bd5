/* Which standard descriptors nmt_io_hold_std found closed (internal to lib/io_*.c). */
#ifndef NMT_IO_STD_H
#define NMT_IO_STD_H
#include <stdbool.h>

/* fd 0 or 1 is unusable: closed at start (held by /dev/null) or closed now. */
bool nmt_io_std_closed(int fd);

#endif
