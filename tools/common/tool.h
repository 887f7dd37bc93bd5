/* What every tool shares: starting up, dying with a message, warning. The library
 * only returns statuses; these choose what the user sees and the exit code. */
#ifndef NMT_TOOLS_COMMON_TOOL_H
#define NMT_TOOLS_COMMON_TOOL_H
#include <stdarg.h>
#include <stdio.h>

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

/* Print "prog: LINE" to stderr, and to the log file once tool_log_open named one. */
void tool_sayf(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a prefix ("warning: ") before the formatted text. */
void tool_vsay(const char *prog, const char *prefix, const char *fmt, va_list ap);
/* Copy every line tool_sayf, nmt_die and nmt_warn print to path (appended, each with
 * its time). NMT_OK or NMT_EIO. */
int tool_log_open(const char *path);
/* The log file's copy alone (a line the terminal does not want: nmt-train -q). */
void tool_log_line(const char *prog, const char *line);

/* A subcommand of a tool that has several (nmt-bpe learn, nmt-model info): its
 * name, another name it answers to (NULL: none) and its main, given argv from
 * the subcommand's name on. */
typedef struct {
  const char *name, *alias;
  int (*run)(int argc, char **argv);
} tool_cmd;
/* main's dispatch: argv[1]'s subcommand among cmds[0..n); --help/-h prints
 * usage to stdout, --version/-V the version (0); --help=man and --help=bash the man
 * page and the bash completion, from usage's text and every subcommand's table
 * (subcommand_doc.h); an option first runs dflt with all of argv when there is one;
 * nothing, or an unknown name, is one line (1). */
int tool_subcommand(const char *prog, const tool_cmd *cmds, int n, int (*dflt)(int, char **),
                    void (*usage)(FILE *), int argc, char **argv);

#endif
