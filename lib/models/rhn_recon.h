/* The RHN family (paper 003): recurrent highway layers in Luong's attention
 * frame, with Tu et al.'s reconstructor as a training-only loss.
 * docs/models.md. */
#ifndef NMT_MODELS_RHN_RECON_H
#define NMT_MODELS_RHN_RECON_H
#include "models/net.h"

extern const nmt_family nmt_family_rhn; /* --type rhn */

#endif
