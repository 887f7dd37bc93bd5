/* Deep-Att and Deep-ED (Zhou et al. 2016, "Deep recurrent models with
 * fast-forward connections"; docs/models.md). Every LSTM layer k
 * splits into a feed-forward block f^k (the gates' input projection, 4H) and
 * the recurrent cell reading it: f^1 = W^1 x, f^k = W^k [Half(f^{k-1}),
 * Dr(h^{k-1})] with the fast-forward (F-F) links, W^k Dr(h^{k-1}) without
 * (--no-ff). The encoder is two independent columns of enc_layers each whose
 * directions alternate by layer, the columns' first layers in opposite
 * directions (interleaved bi-directional). Interface: Deep-Att attends (MLP
 * or general scores, queried by the first decoder layer's previous h) over
 * W_p [h_a1, h_a2, f_a1, f_a2] (1/4 of 10H), Deep-ED feeds the fixed context
 * [h_a1 final, max_t h_a2, max_t f_a1, max_t f_a2] to every step. The
 * decoder's first f reads [context, y_{t-1}]; its layers run forward, F-F
 * linked; the top h feeds the softmax. LSTMs with peepholes under
 * --peephole; the recurrent matrices and peepholes are marked for
 * --learn-rate-recurrent. */
#ifndef NMT_MODELS_DEEPATT_H
#define NMT_MODELS_DEEPATT_H
#include "models/net.h"

extern const nmt_family nmt_family_deep_att; /* --type deep-att */
extern const nmt_family nmt_family_deep_ed;  /* --type deep-ed */

#endif
