/* sacreBLEU's output formats: "NAME|SIGNATURE = SCORE VERBOSE" lines aligned on
 * '=', json.dumps(indent=1) objects, and Python's float repr for JSON numbers. */
#ifndef NMT_TOOLS_BLEU_REPORT_H
#define NMT_TOOLS_BLEU_REPORT_H
#include <stdbool.h>
#include <stdio.h>

typedef struct {
  const char *name, *signature, *verbose; /* verbose may be "" */
  double score;
  bool has_ci;
  double mean, ci;
} result;

/* Python repr() of x ("100.0", "33.45", "1e-05"). */
void py_repr(double x, char *buf, size_t n);
/* One result as sacreBLEU's Score.format(width, score_only, signature, is_json). */
void format_result(const result *r, int width, bool score_only, bool json, char **out);
/* Print single-system results like print_single_results(). Frees the strings. */
void print_results(FILE *f, char **lines, int n, bool json);
/* JSON string literal (ensure_ascii=False). */
void bleu_json_string(FILE *f, const char *s);

#endif
