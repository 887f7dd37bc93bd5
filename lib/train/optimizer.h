/* The optimisers by name: nmt-train's --optimizer and the checkpoint's key, so a
 * resumed run keeps its optimiser. What each does is train/update.c's. */
#ifndef NMT_TRAIN_OPTIMIZER_H
#define NMT_TRAIN_OPTIMIZER_H

typedef enum { NMT_ADAM, NMT_SGD } nmt_optimizer;

/* "adam", "sgd"; and back: NMT_OK, or NMT_EUSAGE naming flag and the choices. */
const char *nmt_optimizer_name(nmt_optimizer o);
int nmt_optimizer_parse(const char *flag, const char *name, nmt_optimizer *o);

#endif
