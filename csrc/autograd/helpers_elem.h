/* Differentiable helpers for the elementwise backward rules (ops/unary.yaml, ops/binary.yaml).
 * Included by the generated rules file. */
#ifndef PD_AUTOGRAD_HELPERS_ELEM_H
#define PD_AUTOGRAD_HELPERS_ELEM_H
#include "pd_autograd.h"

/* sgn(x): sign(x) for real dtypes; x / |x| (0 at 0) for complex dtypes. Runs forward ops. */
pd_status pd_bw_sgn(pd_tensor *x, pd_tensor **out);

#endif
