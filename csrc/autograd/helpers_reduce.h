/* Formula helpers for the reduction/matmul/softmax backward rules (tools/opgen/gen_autograd.py
 * HELPERS). Like helpers.c they run forward ops, so rules using them stay differentiable. */
#ifndef PD_HELPERS_REDUCE_H
#define PD_HELPERS_REDUCE_H
#include "pd_autograd.h"

/* t reshaped to like's shape (like may be meta-only); a new reference to t when equal. */
pd_status pd_bw_reshape_to(pd_tensor *t, const pd_tensor *like, pd_tensor **out);

#endif
