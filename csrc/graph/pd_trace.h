/* Static tracing support (pd_trace.c): shape inference over meta tensors whose dims may be
 * unknown (-1), deep copies of args structs, and the program recorder: the tracer that turns
 * every pd_op_run into an op desc appended to the current block (paddle.enable_static()). */
#ifndef PD_TRACE_H
#define PD_TRACE_H
#include "pd_program.h"

/* Output metas of op for args whose tensors may have unknown dims: infer_meta runs with the
 * unknown extents replaced by two different placeholders and a dim that differs between the
 * runs is unknown (-1) in the result. Data tensors (with storage) are used as they are. */
pd_status pd_trace_infer(int op, const void *args, pd_meta_list *out);

/* Deep copy of an args struct: arrays and strings copied into one block owned by the copy;
 * tensor pointers (and tensor-list arrays) copied, tensors NOT retained. Free with free(). */
pd_status pd_args_clone(int op, const void *args, void **out);

/* ---- the recorder ---- */
/* Sets this thread's recording target (prog retained) and installs the recorder as tracer;
 * prog NULL removes it. The previous target is returned through prev_prog/prev_block (a
 * reference the caller passes back to restore, or releases). */
pd_status pd_recorder_set(pd_program *prog, int block, pd_program **prev_prog, int *prev_block);
/* The current target (borrowed), or NULL. */
pd_program *pd_recorder_program(int *block);
/* Records op with args into block (used by the recorder and by program rewrites): inputs must
 * be tensors bound to variables visible from block (data tensors become assign_value
 * constants); outputs are new variables unless out_names gives their names. outs (optional)
 * receives meta tensors bound to the outputs (new references). */
pd_status pd_record_op(pd_block *block, int op, const void *args, pd_tensor ***outs, int *n_out);
/* Outputs recorded while grad mode is off (paddle.no_grad) get stop_gradient=True, as in eager,
 * except while append_backward / gradients record the backward (the engine turns grad mode off
 * there, and the gradient variables keep their inputs' flags so a second gradients() call can
 * differentiate them): pd_recorder_backward(1) ... (0) brackets that. */
void pd_recorder_backward(int on);
/* Converts our dtype to Paddle's VarType code and back (-1 unknown). */
int pd_vt_from_dtype(int dtype);
int pd_dtype_from_vt(int vt);

#endif
