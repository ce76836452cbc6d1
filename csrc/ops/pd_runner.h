/* The op runner's entry points for the layers above it inside csrc/ops (op_entry.c, amp.c):
 * runner.c is the bottom of the op layer and calls neither of them. */
#ifndef PD_RUNNER_H
#define PD_RUNNER_H
#include "pd_op.h"

/* The runner without the promotion, tracer and AMP steps of pd_op_run (used by pd_op_run and by
 * AMP for its casts and the op itself); errors name the op. */
pd_status pd_op_run_noamp(int op, const void *args, pd_tensor ***outs, int *n_out);
/* Makes the last error start with "[op]" (returns s). */
pd_status pd_op_name_error(const pd_op_def *d, pd_status s);

#endif
