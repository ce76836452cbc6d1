/* Gradients of a program (pd_backward.c): paddle.static.append_backward / gradients. */
#ifndef PD_BACKWARD_H
#define PD_BACKWARD_H
#include "pd_program.h"

/* Appends to block block_idx the ops computing d(sum of targets)/d(inputs) (target_grads: the
 * names of variables holding each target's incoming gradient, or NULL entries for ones).
 * no_grad names variables whose gradient is cut. grad_names[i] receives the malloc'd name of
 * the variable holding input i's gradient ("<input>@GRAD"), or NULL when no gradient reaches
 * it. On error the block is left as it was. */
pd_status pd_program_gradients(pd_program *prog, int block_idx, int n_targets,
                               const char *const *targets, const char *const *target_grads,
                               int n_inputs, const char *const *inputs, int n_no_grad,
                               const char *const *no_grad, char **grad_names);

#endif
