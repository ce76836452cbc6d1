/* Ops whose int-list arguments arrive as tensors at run time (dyn_ops.c, dyn_random.c): they
 * resolve the values, then run the static-argument op. */
#ifndef PD_DYN_OPS_H
#define PD_DYN_OPS_H
#include "pd_op.h"

/* runs op on resolved args and moves its outputs into out[] (the runner's allocations, if any,
 * are released: the resolved op allocates its own) */
pd_status pd_dyn_forward(int op, const void *args, pd_tensor **out, int n_out);

#endif
