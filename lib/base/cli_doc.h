/* An option table (base/cli.h) rendered as what --help says in other forms: a man page
 * (roff) and a bash completion function. Every tool prints them from its own table for
 * `--help=man` and `--help=bash` (nmt_cli_parse takes them; not in --help's list), and the
 * build writes them into build/man and build/completions (mk/doc.mk), so no page repeats
 * by hand what a table says. A tool with subcommands (tools/common/subcommand.c) puts its
 * page and its completion together from the parts below, each subcommand's table giving
 * its own part ("--help=man-section", "--help=bash-case"). */
#ifndef NMT_BASE_CLI_DOC_H
#define NMT_BASE_CLI_DOC_H
#include "base/cli.h"
#include <stdio.h>

/* `--help=FORMAT`: cli's table as FORMAT on stdout, then NMT_DONE (the tool exits 0);
 * NMT_EUSAGE for a format it does not know. */
int nmt_cli_doc_arg(const nmt_cli *cli, const char *format);

/* A man page's parts (cli_man.c). The head: the comment saying where the page comes from,
 * .TH, NAME (prog \- the summary's first sentence) and SYNOPSIS (prog usage). */
void nmt_man_head(FILE *f, const char *prog, const char *summary, const char *usage);
/* A table's options, as .TP paragraphs, then (builtin) -h/--help and -V/--version. */
void nmt_man_options(FILE *f, const nmt_cli *cli, bool builtin);
/* A subcommand's part of its tool's page: .SS prog, its synopsis, summary, options, example. */
void nmt_man_section(FILE *f, const nmt_cli *cli);
/* EXAMPLE (when there is one), EXIT STATUS and SEE ALSO. */
void nmt_man_tail(FILE *f, const char *prog, const char *example, const char *exits);

/* Text escaped for roff (cli_roff.c): backslashes, hyphens (\-), quotes, a leading dot,
 * non-ASCII as \[uXXXX]. nmt_roff_put: filled text, a line break and the indentation after
 * it folding into one space (--help's wrapped help); line_start: s starts an output line
 * (its leading spaces dropped, a leading dot guarded). nmt_roff_lines: a no-fill block
 * (.nf), line for line, up to `drop` spaces dropped from each line's start (the indentation
 * --help puts before an example's lines). */
void nmt_roff_put(FILE *f, const char *s, bool line_start);
void nmt_roff_lines(FILE *f, const char *s, int drop);

/* A bash completion's parts (cli_bash.c). The head opens the function _prog (words
 * cur, prev, and last: the nearest option before cur); with subcommands (words "a b c",
 * NULL for none) it offers them as the first word. nmt_bash_case: what a table completes
 * (its options after "-", a value option's files, directories or choices); with
 * subcommands, inside `case` branches the tool writes around it. The tail offers files,
 * ends the function and registers it with `complete -F`. */
void nmt_bash_head(FILE *f, const char *prog, const char *subcommands);
void nmt_bash_case(FILE *f, const nmt_cli *cli);
void nmt_bash_tail(FILE *f, const char *prog);

#endif
