/* Ops whose int-list arguments arrive as tensors at run time (dyn_ops.c, dyn_random.c): they
 * resolve the values, then run the static-argument op. */
#ifndef PD_DYN_OPS_H
#define PD_DYN_OPS_H
#include "pd_op.h"
#include "generated/pd_ops_gen.h"

/* runs op on resolved args and moves its outputs into out[] (the runner's allocations, if any,
 * are released: the resolved op allocates its own) */
pd_status pd_dyn_forward(int op, const void *args, pd_tensor **out, int n_out);

/* attr_dyn (its args: the target op's name, tensors, attribute tensors at slots, other
 * attributes): the target's op id and its args struct in buf (PD_ATTR_DYN_ARGS_MAX bytes,
 * max_align_t-aligned); *known = 0 while an attribute tensor holds no data (0 stands for it). */
#define PD_ATTR_DYN_ARGS_MAX 512
pd_status pd_attr_dyn_target(const pd_attr_dyn_args *a, int *op, void *buf, int *known);
/* 1 when attr_dyn's target is differentiable (not flagged nondiff in the op table) */
int pd_attr_dyn_differentiable(const pd_attr_dyn_args *a);

#endif
