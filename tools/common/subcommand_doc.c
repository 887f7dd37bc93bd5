/* --help=man and --help=bash of a tool with subcommands (tool.h): its page and its
 * completion put together from its usage text (synopsis, summary, description, example)
 * and each subcommand's own table. A subcommand's table lives in its run function and a
 * subcommand exits after printing, so each one prints its part in a child process. */
#include "base/cli_doc.h"
#include "base/err.h"
#include "subcommand_doc.h"
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* usage's text in parts: "Usage: PROG SYNOPSIS", the summary line, then the description
 * up to "Example:", then the example; pointers into text. */
typedef struct {
  char *text;
  const char *synopsis, *summary, *description, *example;
} usage_parts;

/* Cut s at its first newline; the text after it. */
static char *cut_line(char *s) {
  char *nl = strchr(s, '\n');
  if (!nl) return s + strlen(s);
  *nl = 0;
  return nl + 1;
}

static void trim_end(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = 0;
}

static int split_usage(const char *prog, void (*usage)(FILE *), usage_parts *u) {
  size_t size;
  FILE *f = open_memstream(&u->text, &size);
  if (!f) return nmt_fail(NMT_EIO, "out of memory");
  usage(f);
  fclose(f);
  char *s = u->text, *rest = cut_line(s);
  size_t head = strlen("Usage: ") + strlen(prog);
  u->synopsis = !strncmp(s, "Usage: ", 7) && !strncmp(s + 7, prog, strlen(prog)) ? s + head + (s[head] == ' ') : s;
  u->summary = rest;
  rest = cut_line(rest);
  rest += strspn(rest, "\n");
  char *ex = !strncmp(rest, "Example:\n", 9) ? rest : strstr(rest, "\nExample:\n");
  if (ex) {
    u->example = ex + (*ex == '\n') + 9;
    *ex = 0; /* the description's end (empty when the example comes first) */
    trim_end((char *)u->example);
  }
  u->description = rest;
  trim_end(rest);
  return NMT_OK;
}

/* Subcommand c's part, printed by c itself from its table (`c --help=FORMAT`). */
static int child_part(const tool_cmd *c, const char *format) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return nmt_fail_errno(NMT_EIO, "fork");
  if (!pid) {
    char *argv[] = {(char *)c->name, (char *)format, NULL};
    exit(c->run(2, argv));
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
    return nmt_fail(NMT_EIO, "%s %s failed", c->name, format);
  return NMT_OK;
}

static int man_page(const char *prog, const tool_cmd *cmds, int n, const usage_parts *u) {
  nmt_man_head(stdout, prog, u->summary, u->synopsis);
  fputs(".SH DESCRIPTION\n", stdout);
  nmt_roff_put(stdout, u->summary, true);
  if (*u->description) {
    fputs("\n.PP\n", stdout);
    nmt_roff_lines(stdout, u->description, 0);
  } else fputc('\n', stdout);
  fputs(".SH SUBCOMMANDS\n", stdout);
  for (int i = 0; i < n; i++) {
    int st = child_part(&cmds[i], "--help=man-section");
    if (st) return st;
    if (!cmds[i].alias) continue;
    fputs(".PP\nAlso as \\fB", stdout);
    nmt_roff_put(stdout, prog, false);
    fputc(' ', stdout);
    nmt_roff_put(stdout, cmds[i].alias, false);
    fputs("\\fR.\n", stdout);
  }
  fputs(".SH OPTIONS\n", stdout); /* the tool's own: a subcommand's --help tells its options */
  nmt_man_options(stdout, &(nmt_cli){.prog = prog}, true);
  nmt_man_tail(stdout, prog, u->example, NULL);
  return NMT_OK;
}

/* dflt: the subcommand that runs when an option comes first (its options then). */
static int bash_completion(const char *prog, const tool_cmd *cmds, int n, int (*dflt)(int, char **)) {
  char names[512] = "";
  for (int i = 0; i < n; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? " " : "", cmds[i].name);
  nmt_bash_head(stdout, prog, names);
  fputs("  case ${COMP_WORDS[1]} in\n", stdout);
  for (int i = 0; i < n; i++) {
    printf("  %s%s%s%s)\n", cmds[i].name, cmds[i].alias ? "|" : "", cmds[i].alias ? cmds[i].alias : "",
           cmds[i].run == dflt ? "|-*" : "");
    int st = child_part(&cmds[i], "--help=bash-case");
    if (st) return st;
    fputs("    ;;\n", stdout);
  }
  if (!dflt) fputs("  -*)\n    mapfile -t COMPREPLY < <(compgen -W '-h --help -V --version' -- \"$cur\")\n    return ;;\n", stdout);
  fputs("  esac\n", stdout);
  nmt_bash_tail(stdout, prog);
  return NMT_OK;
}

int tool_subcommand_doc(const char *prog, const tool_cmd *cmds, int n, int (*dflt)(int, char **),
                        void (*usage)(FILE *), const char *format) {
  usage_parts u = {0};
  int st = split_usage(prog, usage, &u);
  if (!st && !strcmp(format, "man")) st = man_page(prog, cmds, n, &u);
  else if (!st && !strcmp(format, "bash")) st = bash_completion(prog, cmds, n, dflt);
  else if (!st) st = nmt_fail(NMT_EUSAGE, "--help=%s: the formats are man and bash", format);
  free(u.text);
  if (!st && (fflush(stdout) || ferror(stdout))) st = nmt_fail(NMT_EIO, "cannot write the output");
  return st;
}
