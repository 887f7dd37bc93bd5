/* Errors: library functions return a status and record a one-line message;
 * tools print it and exit with the status (docs/architecture.md). lib never exits. */
#ifndef NMT_BASE_ERR_H
#define NMT_BASE_ERR_H

enum nmt_status {
  NMT_OK = 0,
  NMT_EUSAGE = 1, /* bad command line */
  NMT_EINPUT = 2, /* bad input data */
  NMT_EIO = 3,    /* I/O or resource failure */
  NMT_DONE = 100  /* --help/--version printed: the tool exits 0 */
};

/* Record "fmt..." as the current error (thread-local) and return `code`. */
int nmt_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, appending ": strerror(errno)". */
int nmt_fail_errno(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *nmt_errmsg(void);
int nmt_errcode(void);

#endif
