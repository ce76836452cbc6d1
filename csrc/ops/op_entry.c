/* The entry of every op call, above the runner (runner.c) and AMP (amp.c): pd_op_run applies
 * Paddle's type promotion (the casts go through pd_op_run, so autograd, recording and replay see
 * them), hands the op to the thread's tracer while one is installed (static programs), sends it
 * to pd_amp_run under paddle.amp.auto_cast, and otherwise runs it with pd_op_run_noamp. The
 * layering: this file -> amp.c -> runner.c; runner.c calls neither. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "pd_amp.h"
#include "pd_runner.h"

static _Thread_local pd_tracer tl_tracer = {NULL, NULL};

pd_tracer pd_trace_swap(pd_tracer t) {
  pd_tracer old = tl_tracer;
  tl_tracer = t;
  return old;
}

pd_tracer pd_trace_current(void) { return tl_tracer; }

/* ---- type promotion: the one place the rule is applied (eager, recording, replay, AMP) ---- */
static int promote_rank(pd_dtype t) { /* float widths; bfloat16 and float16 share a rank */
  switch (t) {
    case PD_BFLOAT16: case PD_FLOAT16: return 1;
    case PD_FLOAT32: return 2;
    case PD_FLOAT64: return 3;
    default: return 0;
  }
}

int pd_promote_types(pd_dtype a, pd_dtype b, int truediv, pd_dtype *out) {
  int ia = a == PD_BOOL || pd_dtype_is_int(a), ib = b == PD_BOOL || pd_dtype_is_int(b);
  if (truediv && ia && ib) {
    *out = PD_FLOAT32;
    return 1;
  }
  if (a == b) return 0;
  if (pd_dtype_is_complex(a) || pd_dtype_is_complex(b)) {
    int wide = a == PD_COMPLEX128 || b == PD_COMPLEX128 || a == PD_FLOAT64 || b == PD_FLOAT64;
    *out = wide ? PD_COMPLEX128 : PD_COMPLEX64;
    return 1;
  }
  if (!pd_dtype_is_float(a) || !pd_dtype_is_float(b)) return 0; /* "-" in Paddle's table */
  int ra = promote_rank(a), rb = promote_rank(b);
  *out = ra == rb ? PD_FLOAT32 : (ra > rb ? a : b); /* only bfloat16 vs float16 tie */
  return 1;
}

static pd_status cast_input(pd_tensor *x, pd_dtype t, pd_tensor **o) {
  if (x->dtype == t) {
    pd_tensor_retain(x);
    *o = x;
    return PD_OK;
  }
  pd_cast_args a = {x, (int)t};
  pd_tensor **r = NULL;
  int n = 0;
  pd_status s = pd_op_run(PD_OP_CAST, &a, &r, &n);
  if (s != PD_OK) return s;
  *o = r[0];
  for (int i = 1; i < n; i++) pd_tensor_release(r[i]);
  free(r);
  return PD_OK;
}

/* Ops flagged promote/truediv take (Tensor x, Tensor y) first (ops/binary.yaml's layout rule).
 * Returns 1 when it ran the op on promoted inputs (status in *st), 0 to run it as given. */
static int run_promoted(int op, const void *args, pd_tensor ***outs, int *n_out, pd_status *st) {
  const pd_op_def *d = &pd_op_defs[op];
  pd_tensor *const *xy = (pd_tensor *const *)args;
  if (!xy[0] || !xy[1]) return 0;
  pd_dtype t;
  if (!pd_promote_types(xy[0]->dtype, xy[1]->dtype, (d->flags & PD_OP_TRUEDIV) != 0, &t)) return 0;
  if (!(d->flags & PD_OP_PROMOTE) && xy[0]->dtype != xy[1]->dtype) return 0;
  _Alignas(max_align_t) unsigned char local[256];
  unsigned char *copy = d->args_size <= sizeof local ? local : (unsigned char *)malloc(d->args_size);
  if (!copy) {
    *st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    return 1;
  }
  memcpy(copy, args, d->args_size);
  pd_tensor **cxy = (pd_tensor **)copy;
  pd_tensor *cx = NULL, *cy = NULL;
  pd_status s = cast_input(xy[0], t, &cx);
  if (s == PD_OK) s = cast_input(xy[1], t, &cy);
  if (s == PD_OK) {
    cxy[0] = cx;
    cxy[1] = cy;
    s = pd_op_run(op, copy, outs, n_out);
  }
  if (cx) pd_tensor_release(cx);
  if (cy) pd_tensor_release(cy);
  if (copy != local) free(copy);
  *st = s;
  return 1;
}

pd_status pd_op_run(int op, const void *args, pd_tensor ***outs, int *n_out) {
  if (__builtin_expect(op >= 0 && op < pd_num_ops &&
                           (pd_op_defs[op].flags & (PD_OP_PROMOTE | PD_OP_TRUEDIV)) != 0, 0)) {
    pd_status st;
    if (run_promoted(op, args, outs, n_out, &st)) return st;
  }
  if (__builtin_expect(tl_tracer.fn != NULL, 0)) {
    if (op < 0 || op >= pd_num_ops) return pd_set_error(PD_ERR_NOT_FOUND, "unknown op id %d", op);
    pd_status st = tl_tracer.fn(tl_tracer.ctx, op, args, outs, n_out);
    if (st != PD_OK) return pd_op_name_error(&pd_op_defs[op], st);
    return st;
  }
  /* the one check AMP costs when it is off: a plain global, zero unless a thread enabled it */
  if (__builtin_expect(pd_amp_active != 0, 0) && pd_amp_level() && op >= 0 && op < pd_num_ops &&
      !(pd_op_defs[op].flags & (PD_OP_INPLACE | PD_OP_VIEW | PD_OP_NOAMP))) {
    pd_status st = pd_amp_run(op, args, outs, n_out);
    if (st != PD_OK) return pd_op_name_error(&pd_op_defs[op], st);
    return st;
  }
  return pd_op_run_noamp(op, args, outs, n_out);
}
