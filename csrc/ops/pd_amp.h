/* Automatic mixed precision (paddle.amp.auto_cast) in the op runner: a thread-local state
 * (level, low dtype, one class byte per op set from Python) that pd_op_run consults with one
 * cheap check; when on, pd_amp_run casts float inputs through the cast op (so autograd records
 * the casts) before the op runs. Rules: docs/arch/autograd_training.md, "Mixed precision". */
#ifndef PD_AMP_H
#define PD_AMP_H
#include <stdint.h>
#include "pd_op.h"

/* per-op class byte: bits 0-1 the list, bit 2 "only the first tensor argument takes part and only
 * output 0 is rounded" (Paddle's rule for batch_norm / layer_norm: statistics stay float32) */
#define PD_AMP_GRAY 0
#define PD_AMP_WHITE 1
#define PD_AMP_BLACK 2
#define PD_AMP_X_ONLY 4

/* Threads whose AMP level is not 0: the runner reads this plain global first, so the float32
 * path without AMP pays one load and one branch per op call. */
extern int pd_amp_active;

/* Sets this thread's state: level 0 (off), 1 (O1) or 2 (O2); low PD_FLOAT16 or PD_BFLOAT16;
 * cls[op] for op < n (missing ops are gray). */
pd_status pd_amp_set(int level, pd_dtype low, const uint8_t *cls, int n);
/* This thread's level (0 when off or suspended). */
int pd_amp_level(void);
pd_dtype pd_amp_dtype(void);
/* Backward and other framework-internal work run without casting: suspend returns the level to
 * hand back to resume. */
int pd_amp_suspend(void);
void pd_amp_resume(int level);

/* pd_op_run under AMP (called by the entry, op_entry.c, when pd_amp_level() != 0); it runs the
 * casts and the op itself with the runner's pd_op_run_noamp (pd_runner.h). */
pd_status pd_amp_run(int op, const void *args, pd_tensor ***outs, int *n_out);

#endif
