/* What every tool shares: starting up, dying with a message, warning. The library
 * only returns statuses; these choose what the user sees and the exit code. */
#ifndef NMT_TOOL_H
#define NMT_TOOL_H

/* First call in main: hold closed standard descriptors (lib/io/io.h) and make
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the open writers' temp files before
 * the signal takes its default effect. A tool with its own handler for some of
 * these (nmt-train saves a checkpoint) installs it afterwards. */
void tool_init(const char *prog);

/* Remove the open writers' temp files, print "prog: message" (nmt_errmsg) to
 * stderr and exit with the status; exits 0 for NMT_DONE. */
_Noreturn void nmt_die(const char *prog, int status);
/* Print "prog: warning: ..." to stderr. */
void nmt_warn(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
