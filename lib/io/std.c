/* Closed standard descriptors: held so they are not reused, remembered so that
 * reading stdin or writing stdout fails instead of quietly doing nothing. */
#include "io/io.h"
#include "io/std.h"
#include "base/err.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static bool held[3];

int nmt_io_hold_std(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    /* the lower descriptors are open by now, so open() returns this one; opened the
     * wrong way round, so that whatever reads stdin or writes stdout still fails */
    int k = open("/dev/null", fd ? O_RDONLY : O_WRONLY);
    if (k != fd) {
      if (k >= 0) close(k);
      return nmt_fail(NMT_EIO, "cannot hold closed descriptor %d with /dev/null", fd);
    }
    held[fd] = true;
  }
  return NMT_OK;
}

bool nmt_io_std_closed(int fd) { return held[fd] || (fcntl(fd, F_GETFD) < 0 && errno == EBADF); }
