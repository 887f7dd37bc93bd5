/* `--help=FORMAT`: an option table as a man page or a bash completion (base/cli_doc.h). */
#include "base/cli_doc.h"
#include "base/err.h"
#include <string.h>

/* A tool's whole page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXAMPLE, EXIT STATUS, SEE ALSO. */
static void man_page(FILE *f, const nmt_cli *cli) {
  nmt_man_head(f, cli->prog, cli->summary, cli->usage);
  if (cli->summary) {
    fputs(".SH DESCRIPTION\n", f);
    nmt_roff_put(f, cli->summary, true);
    fputc('\n', f);
  }
  fputs(".SH OPTIONS\n", f);
  nmt_man_options(f, cli, true);
  nmt_man_tail(f, cli->prog, cli->example, cli->exits);
}

int nmt_cli_doc_arg(const nmt_cli *cli, const char *format) {
  FILE *f = stdout;
  if (!strcmp(format, "man")) man_page(f, cli);
  else if (!strcmp(format, "man-section")) nmt_man_section(f, cli);
  else if (!strcmp(format, "bash-case")) nmt_bash_case(f, cli);
  else if (!strcmp(format, "bash")) {
    nmt_bash_head(f, cli->prog, NULL);
    nmt_bash_case(f, cli);
    nmt_bash_tail(f, cli->prog);
  } else return nmt_fail(NMT_EUSAGE, "--help=%s: the formats are man and bash", format);
  if (fflush(f) || ferror(f)) return nmt_fail(NMT_EIO, "cannot write the output");
  return NMT_DONE;
}
