/* Language identification through libexttextcat (n-gram fingerprints of 160+
 * languages in /usr/share/libexttextcat). textcat answers with a few close
 * candidates, or SHORT (under its minimum size) or UNKNOWN (too many close
 * candidates); callers decide what an unsure answer means.
 *
 * On short sentences all 160 fingerprints make textcat unreliable (Multi30k
 * English is "Scots" one time in five), so the classifier is usually limited to
 * a set of languages: NMT_LANGID_COMMON is a list of widely used ones. */
#ifndef NMT_TEXT_LANGID_H
#define NMT_TEXT_LANGID_H
#include <stddef.h>

typedef struct nmt_langid nmt_langid;

enum nmt_langid_answer {
  NMT_LANGID_NO = 0,     /* textcat named candidates and `lang` is not one */
  NMT_LANGID_YES = 1,    /* `lang` is among textcat's candidates */
  NMT_LANGID_UNSURE = 2  /* SHORT or UNKNOWN */
};

#define NMT_LANGID_COMMON "ar,bg,ca,cs,da,de,el,en,es,et,fi,fr,he,hi,hr,hu,id,it,ja,ko,lt,lv,nl,nb,pl,pt,ro,ru,sk,sl,sr,sv,th,tr,uk,vi,zh"

/* dir: the fingerprint folder holding fpdb.conf, NULL for Debian's.
 * langs: comma-separated codes to tell apart, NULL or "all" for every one.
 * A code textcat does not know is a usage error. */
int nmt_langid_open(nmt_langid **l, const char *dir, const char *langs);
/* lang: a code as textcat's fpdb.conf names it before "-": "fr", "en", "zh-CN". */
int nmt_langid_check(nmt_langid *l, const char *text, size_t n, const char *lang);
void nmt_langid_close(nmt_langid *l);

#endif
