/* Converting a program op into our ops (pd_convert.c). The caller supplies how variable names
 * become tensors (in) and what happens to the tensors bound to output names (out); the
 * converter runs our ops through pd_op_run, so the tracer active at the call decides whether
 * they execute, are captured as instructions, or are replayed into autograd nodes. */
#ifndef PD_CONVERT_H
#define PD_CONVERT_H
#include "pd_program.h"

typedef struct {
  /* the tensor standing for variable `name` (borrowed), or NULL if it has none */
  pd_tensor *(*in)(void *impl, const char *name);
  /* binds t (a new reference is taken by the callee if it keeps it) to variable `name` */
  pd_status (*out)(void *impl, const char *name, pd_tensor *t);
} pd_convert_io;

/* block: the block holding op (converters may look at the op before it: pd_cv_prev_op), or NULL */
pd_status pd_convert_op(const pd_block *block, const pd_opdesc *op, const pd_convert_io *io, void *impl);

/* Intermediates of a conversion (a Paddle op that converts into several of our ops: rnn, slice
 * with decrease_axis ...) have no program variable. When a gradient reads one, append_backward
 * names it: the op gets an output slot PD_CV_TEMPS_SLOT whose k-th name is the variable of the
 * k-th output (counting every output of every op the conversion runs; "" = unnamed). The
 * executor binds those outputs to the named variables, the replay reuses the names, and the
 * program writer leaves the slot out (Paddle's op has no such slot). */
#define PD_CV_TEMPS_SLOT "Paddle-C@temps"

/* 1 if ops of this type can be converted. */
int pd_convert_supported(const char *type);

#endif
