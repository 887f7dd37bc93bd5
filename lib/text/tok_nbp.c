/* Per-language non-breaking prefixes. Format of a list: words separated by
 * spaces; a word ending in '#' only holds its period before a number
 * ("No. 5", "pp. 12"). Initials (single capitals) are in every list. */
#include "text/tok_nbp.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define CAPITALS "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z "
#define SMALLS "a b c d e f g h i j k l m n o p q r s t u v w x y z "
#define ROMAN "I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX "

static const struct { const char *lang, *words; } lists[] = {
  {"en", CAPITALS
   "Adj Adm Adv Asst Bart Bldg Brig Bros Capt Cmdr Col Comdr Con Corp Cpl DR Dr Drs Ens "
   "Gen Gov Hon Hr Hosp Insp Lt MM MR MRS MS Maj Messrs Mlle Mme Mr Mrs Ms Msgr Op Ord "
   "Pfc Ph Prof Pvt Rep Reps Res Rev Rt Sen Sens Sfc Sgt Sr St Supt Surg "
   "v vs i.e rev e.g Nos Nr No# Art# pp# "
   "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec"},
  {"fr", CAPITALS
   "a.m p.m art ann apr av auj boul bd ca cf ch chap contr dir éd env etc ex fasc fém fig "
   "fr hab ibid id inf masc MM Mme Mmes Mlle Mlles Mgr Me Mes Dr Pr St Ste ms pl sec sect "
   "sing sq sqq suiv sup suppl tél vb vol vs "
   "janv févr avr juil sept oct nov déc "
   "No# no# Nos# nos# p# pp# n#"},
  {"de", CAPITALS SMALLS ROMAN
   "Abs Adr Akad Allg Alt Anh Anm Anl Ank Art# Aufl Ausg Bd Bde Bev Bf Bhf Bsp Bspw Bzw Ca "
   "Chr Co Dez Di Dipl Dir Do Dr Drs Ehem Einf Entspr Erg Erw Evtl Exkl Fa Feb Fr Frl Ggf "
   "Hbf Hg Hr Hrsg Inkl Inh Ing Jan Jh Jhd Jr Jul Jun Kap Kfm Kl Kr Lt Max Mi Min Mio Mo "
   "Mrd Nachf Nov Nr# Okt Pkt Prof Prov Rd Rel Sa Sep Sept So Sog Spez St Std Str Tab Tel "
   "Tsd Urt Verf Vgl Vol Wg Wz Zt Ziff Zzgl "
   "abs adr allg anh anm art# aufl ausg bd bzgl bzw bspw ca chr co dez di dipl dt ehem "
   "entspr erg evtl exkl ff gem ggf hl hrsg inkl insb jh jhd kath kl lt max mind min mio "
   "mrd nr# od orig pkt rd rel röm sog spez std str tägl tel tsd usw verf vgl vs zb zt "
   "ziff zzgl"},
  {"cs", /* no initials: Czech "J. P. Morgan" splits */
   "Bc BcA Ing Ing.arch MUDr MVDr MgA Mgr JUDr PhDr RNDr PharmDr ThLic ThDr Ph.D Th.D "
   "prof doc CSc DrSc dr mr Dr Mr Mrs Ms Prof Doc "
   "atd apod např popř tzv tj resp cca mj mjr str č# čís# čl# odst# písm# např "
   "led úno bře dub kvě čvn čvc srp zář říj lis pro "
   "sv ul nám tř kpt plk pplk por npor gen "
   "min max hod tis mil mld"},
  {"es", CAPITALS
   "Sr Sra Srta Srs Sres D Dña Dr Dra Lic Ing Arq Prof Profa Excmo Excma Ilmo Ilma Mons "
   "Sto Sta Gral Cnel Tte Cap Av Avda Pza Dto Pág Págs Vol Ud Uds Vd Vds "
   "a.C d.C aprox apdo cap cía dcha depto ed etc izq pág págs pral prov sig tel vol "
   "ene feb mar abr may jun jul ago sep sept oct nov dic "
   "No# no# Núm# núm# pp#"},
  {"it", CAPITALS
   "Sig Sigg Sigra Dott Dr Prof Ing Avv Geom Rag Arch Mons Egr Gent On Sen Spett Gen Col "
   "Cap Ten Magg Sac Pres "
   "art ca cap cfr ecc es ess fig pag pagg par pp# sec tab tel vol "
   "gen feb mar apr mag giu lug ago set ott nov dic "
   "No# n# nr# Nr#"},
  {"ro", CAPITALS
   "Dl Dna Dra Dr Prof Conf Lect Asist Ing Av Pr Cpt Lt Gen Col Mr Mrs "
   "dl dna dra dr prof conf ing av pr "
   "art alin cap cca etc ex fig ian feb mar apr mai iun iul aug sep sept oct noi dec "
   "nr# Nr# pag# p#"},
  {"pt", CAPITALS
   "Sr Sra Srta Srs Dr Dra Drs Dras Prof Profa Eng Enga Exmo Exma Ilmo Ilma Av Gal Cel "
   "Cap Ten Sto Sta "
   "a.C d.C aprox art cap cf cia etc ex fig jan fev mar abr mai jun jul ago set out nov dez "
   "pág págs tel vol "
   "No# no# Nº# nº# p# pp#"},
  {"nl", CAPITALS
   "Dhr Mevr Mw Mej Drs Dr Ir Ing Mr Prof Ds St Jhr Jkvr "
   "bijv bv bijz blz ca dgl dhr dr drs enz etc evt excl fa ggv incl jl jr lett mevr mr "
   "mw nl nr# no# pag# p# pp# resp sr st vnl vs zgn "
   "jan feb mrt apr jun jul aug sep sept okt nov dec"},
};

enum { NBP_SLOTS = 1024 }; /* power of two, > 2 × longest list */

struct tok_nbp {
  struct { const char *w; uint16_t len; uint8_t kind; } slot[NBP_SLOTS];
};

static uint32_t hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

tok_nbp *tok_nbp_new(const char *lang) {
  const char *words = NULL;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (!strcmp(lists[i].lang, lang)) words = lists[i].words;
  if (!words) return NULL;
  tok_nbp *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  for (const char *p = words; *p;) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    if (!len) break;
    int kind = TOK_NBP_ALWAYS;
    size_t wl = len;
    if (p[len - 1] == '#') kind = TOK_NBP_NUMERIC, wl--;
    uint32_t h = hash(p, wl) & (NBP_SLOTS - 1);
    while (n->slot[h].w && !(n->slot[h].len == wl && !memcmp(n->slot[h].w, p, wl)))
      h = (h + 1) & (NBP_SLOTS - 1);
    n->slot[h].w = p, n->slot[h].len = (uint16_t)wl, n->slot[h].kind = (uint8_t)kind;
    p += len;
  }
  return n;
}

void tok_nbp_free(tok_nbp *n) { free(n); }

int tok_nbp_get(const tok_nbp *n, const char *word, size_t len) {
  for (uint32_t h = hash(word, len) & (NBP_SLOTS - 1); n->slot[h].w; h = (h + 1) & (NBP_SLOTS - 1))
    if (n->slot[h].len == len && !memcmp(n->slot[h].w, word, len)) return n->slot[h].kind;
  return TOK_NBP_NO;
}
