/* Automatic mixed precision in the op runner (paddle.amp.auto_cast): per op call, decides the
 * dtype the float inputs run in from the op's class (white / black / gray, set from Python) and
 * the level, casts them through the cast op (recorded by autograd, so gradients reach float32
 * parameters as float32), and emulates low-precision kernels the op table lacks (round the
 * inputs, compute in float32, round the outputs). See docs/arch/autograd_training.md, "Mixed precision". */
#include <stdlib.h>
#include <string.h>
#include "pd_amp.h"
#include "pd_runner.h"
#include "generated/pd_ops_gen.h"

int pd_amp_active = 0;

typedef struct {
  int level;   /* 0 off, 1 O1, 2 O2 */
  int counted; /* this thread is counted in pd_amp_active */
  pd_dtype low;
  uint8_t cls[PD_NUM_OPS];
} amp_state;

static _Thread_local amp_state tl;

pd_status pd_amp_set(int level, pd_dtype low, const uint8_t *cls, int n) {
  if (level < 0 || level > 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[auto_cast] level must be 0, 1 or 2, received %d",
                        level);
  if (level && low != PD_FLOAT16 && low != PD_BFLOAT16)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[auto_cast] dtype must be float16 or bfloat16, received %s",
                        pd_dtype_name(low));
  memset(tl.cls, 0, sizeof tl.cls);
  if (cls) memcpy(tl.cls, cls, (size_t)(n < PD_NUM_OPS ? n : PD_NUM_OPS));
  tl.low = low;
  tl.level = level;
  if (level && !tl.counted) {
    __atomic_add_fetch(&pd_amp_active, 1, __ATOMIC_RELAXED);
    tl.counted = 1;
  } else if (!level && tl.counted) {
    __atomic_sub_fetch(&pd_amp_active, 1, __ATOMIC_RELAXED);
    tl.counted = 0;
  }
  return PD_OK;
}

int pd_amp_level(void) { return tl.level; }
pd_dtype pd_amp_dtype(void) { return tl.low; }

int pd_amp_suspend(void) {
  int l = tl.level;
  tl.level = 0;
  return l;
}

void pd_amp_resume(int level) { tl.level = tl.counted ? level : 0; }

static int castable(const pd_tensor *t) {
  return t && (t->dtype == PD_FLOAT32 || t->dtype == PD_FLOAT16 || t->dtype == PD_BFLOAT16);
}

static pd_status cast_to(pd_tensor *x, pd_dtype dt, pd_tensor **out) {
  pd_cast_args a = {x, (int)dt};
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  PD_TRY(pd_op_run_noamp(PD_OP_CAST, &a, &o, &n));
  for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  *out = o[0];
  if (o != buf) free(o);
  return PD_OK;
}

/* The tensor slots of an op call: pointers into the args struct (list elements included); the
 * first n_part take part in the decision (all of them, or the first tensor argument's for the
 * X-only ops); the others only follow the dtype the kernel runs in. */
typedef struct {
  pd_tensor **inl[32];
  pd_tensor ***slot;
  int n, n_part;
} slots;

static void slots_free(slots *s) {
  if (s->slot != s->inl) free(s->slot);
}

static pd_status collect(const pd_op_def *d, char *args, int x_only, slots *s) {
  int total = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) total += 1;
    else if (a->kind == PD_ARG_TENSOR_LIST) total += (int)((pd_tensor_list *)(args + a->offset))->n;
  }
  s->n = 0;
  s->n_part = -1;
  s->slot = total <= 32 ? s->inl : (pd_tensor ***)malloc(sizeof(pd_tensor **) * (size_t)total);
  if (!s->slot) {
    s->slot = s->inl;
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      s->slot[s->n++] = (pd_tensor **)p;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      pd_tensor_list *l = (pd_tensor_list *)p;
      for (int64_t j = 0; j < l->n; j++) s->slot[s->n++] = (pd_tensor **)&l->data[j];
    } else {
      continue;
    }
    if (x_only && s->n_part < 0) s->n_part = s->n;
  }
  if (s->n_part < 0) s->n_part = s->n;
  return PD_OK;
}

/* The dtype slot i is given when the kernel runs in kdt: kdt, except for an X-only op given to its
 * own low-precision kernel (batch_norm's bfloat16 one), whose scale, bias and running statistics
 * are float32 (the running ones, updated in place, are float32 already under auto_cast). */
static pd_dtype slot_dtype(int op, const slots *s, int i, pd_dtype kdt) {
  return (tl.cls[op] & PD_AMP_X_ONLY) && kdt == tl.low && i >= s->n_part ? PD_FLOAT32 : kdt;
}

/* The dtype the kernel runs in, from the op's class, the level and the participating inputs;
 * *emulate: the op has no low-precision kernel, so it behaves like one that computes in
 * float32 (inputs rounded to the low dtype, float32 kernel, float outputs rounded).
 * -1: nothing to change. */
static int plan(const pd_op_def *d, int op, const slots *s, int *emulate) {
  const int cls = tl.cls[op] & 3;
  const pd_dtype low = tl.low;
  int n_cast = 0, all_low = 1;
  for (int i = 0; i < s->n_part; i++) {
    const pd_tensor *t = *s->slot[i];
    if (!castable(t)) continue;
    n_cast++;
    if (t->dtype != low) all_low = 0;
  }
  *emulate = 0;
  if (n_cast == 0) return -1;
  pd_dtype target;
  if (cls == PD_AMP_BLACK) target = PD_FLOAT32;
  else if (cls == PD_AMP_WHITE || tl.level == 2) target = low;
  else target = all_low ? low : PD_FLOAT32; /* gray: promote to the widest */
  if (target == low && !d->kernels[low]) {
    if (!d->kernels[PD_FLOAT32]) return -1; /* let the op report its dtypes */
    *emulate = 1;
    return (int)target;
  }
  for (int i = 0; i < s->n; i++)
    if (castable(*s->slot[i]) && (*s->slot[i])->dtype != slot_dtype(op, s, i, target)) return (int)target;
  return -1;
}

pd_status pd_amp_run(int op, const void *args, pd_tensor ***outs, int *n_out) {
  const pd_op_def *d = &pd_op_defs[op];
  const int x_only = (tl.cls[op] & PD_AMP_X_ONLY) != 0;
  const pd_dtype low = tl.low;
  slots s;
  PD_TRY(collect(d, (char *)args, x_only, &s));
  int emulate;
  int target = plan(d, op, &s, &emulate);
  slots_free(&s);
  if (target < 0) return pd_op_run_noamp(op, args, outs, n_out);
  const pd_dtype kdt = emulate ? PD_FLOAT32 : (pd_dtype)target; /* what the kernel gets */
  /* a copy of the args with the casts in place (lists get their own arrays) */
  pd_status st = PD_OK;
  char sbuf[512];
  char *copy = d->args_size <= sizeof sbuf ? sbuf : (char *)malloc(d->args_size);
  if (!copy) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(copy, args, d->args_size);
  int n_lists = 0;
  for (int i = 0; i < d->n_args; i++) {
    if (d->args[i].kind != PD_ARG_TENSOR_LIST) continue;
    pd_tensor_list *l = (pd_tensor_list *)(copy + d->args[i].offset);
    pd_tensor **arr = l->n ? (pd_tensor **)malloc(sizeof(pd_tensor *) * (size_t)l->n) : NULL;
    if (l->n && !arr) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    else if (arr) memcpy(arr, l->data, sizeof(pd_tensor *) * (size_t)l->n);
    l->data = arr; /* NULL when empty or out of memory: freed below either way */
    n_lists++;
  }
  s.n = 0;
  s.slot = s.inl;
  if (st == PD_OK) st = collect(d, copy, x_only, &s);
  pd_tensor *tbuf[64], **temps = tbuf;
  int n_temps = 0;
  if (st == PD_OK && 2 * s.n > 64) {
    temps = (pd_tensor **)malloc(sizeof(pd_tensor *) * (size_t)(2 * s.n));
    if (!temps) {
      temps = tbuf;
      st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    }
  }
  for (int i = 0; i < s.n && st == PD_OK; i++) {
    pd_tensor *t = *s.slot[i];
    if (!castable(t)) continue;
    if (emulate && i < s.n_part && t->dtype != low) { /* round to the low dtype first */
      if ((st = cast_to(t, low, &temps[n_temps])) != PD_OK) break;
      t = temps[n_temps++];
    }
    const pd_dtype want = slot_dtype(op, &s, i, kdt);
    if (t->dtype != want) {
      if ((st = cast_to(t, want, &temps[n_temps])) != PD_OK) break;
      t = temps[n_temps++];
    }
    *s.slot[i] = t;
  }
  /* the op itself, then (emulation) its float32 outputs rounded to the low dtype */
  pd_tensor **given = *outs;
  if (st == PD_OK) st = pd_op_run_noamp(op, copy, outs, n_out);
  if (st == PD_OK && emulate) {
    pd_tensor **o = *outs;
    int n = *n_out;
    for (int i = 0; i < n && st == PD_OK; i++) {
      if (x_only && i > 0) break; /* statistics outputs stay float32 */
      if (o[i]->dtype != PD_FLOAT32) continue;
      pd_tensor *r;
      if ((st = cast_to(o[i], low, &r)) == PD_OK) {
        pd_tensor_release(o[i]);
        o[i] = r;
      }
    }
    if (st != PD_OK) {
      for (int i = 0; i < n; i++) pd_tensor_release(o[i]);
      if (o != given) free(o);
    }
  }
  for (int i = 0; i < n_temps; i++) pd_tensor_release(temps[i]);
  if (temps != tbuf) free(temps);
  slots_free(&s);
  for (int i = 0, k = 0; i < d->n_args && k < n_lists; i++)
    if (d->args[i].kind == PD_ARG_TENSOR_LIST) {
      free((void *)((pd_tensor_list *)(copy + d->args[i].offset))->data);
      k++;
    }
  if (copy != sbuf) free(copy);
  return st;
}
