/* nmt-serve's access log (--access-log FILE|-): one line per HTTP request, appended,
 *   TIME CLIENT METHOD PATH STATUS SENTENCES MS
 * TIME in UTC with milliseconds (2026-11-25T10:00:00.123Z), when the answer was queued;
 * CLIENT the peer's IPv4 address; PATH without its arguments, each byte outside '!'..'~'
 * written %XX (so a line has seven fields); SENTENCES those of a POST /translate (0 for
 * other requests); MS from the request's headers to its answer. Each line is one write(2)
 * on a descriptor opened O_APPEND. serve_access_log_reopen (SIGHUP) opens the path again,
 * so that a log rotated away (mv) is followed by a new file. Any thread may call any
 * function. */
#ifndef NMT_TOOLS_SERVE_ACCESS_LOG_H
#define NMT_TOOLS_SERVE_ACCESS_LOG_H

typedef struct serve_access_log serve_access_log;

/* One request's line. */
typedef struct {
  const char *client, *method, *path;
  unsigned status;
  int sentences;
  double ms;
} serve_access;

/* path "-": standard output. NMT_OK, or NMT_EIO (message set). */
int serve_access_log_open(serve_access_log **l, const char *path);
/* Open the path again and write there from now on; NMT_EIO (message set) when it cannot
 * be opened, and the log goes on in the file it had. Standard output stays. */
int serve_access_log_reopen(serve_access_log *l);
/* Write a's line; a failed write is said once on stderr (until the next reopen). */
void serve_access_log_write(serve_access_log *l, const serve_access *a);
void serve_access_log_close(serve_access_log *l);

#endif
