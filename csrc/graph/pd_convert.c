/* Reading program ops as our ops: the converter context (pd_compat.h) and the generic loader
 * that inverts a compat entry's renames (or reads an op written under our own names). A
 * converter calls pd_op_run on the tensors the context hands it, so the same converter serves
 * the executor's compiler (a capture tracer), append_backward's replay and program rewrites. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_compat.h"
#include "pd_convert.h"
#include "pd_trace.h"
#include "../ops/custom_op.h"
#include "../ops/generated/pd_ops_gen.h"

#define CV_DYN_MAX 8
struct pd_convert_ctx {
  const pd_block *block;
  const pd_opdesc *op;
  const pd_convert_io *io;
  void *impl;
  void **scratch;
  int n_scratch, cap_scratch;
  /* attributes given as variables (a VAR attribute, gather's Axis input): our argument index
   * and the tensor; pd_cv_finish then runs attr_dyn, which reads them when the program runs */
  int n_dyn;
  int dyn_arg[CV_DYN_MAX];
  pd_tensor *dyn_t[CV_DYN_MAX];
};

/* Paddle's forms of single attributes given as one-element variables (Paddle 2.6.2's programs,
 * checked with tools/oracle/attr_dyn_forms.py): a VAR attribute naming the variable, or (slot
 * set) an input slot next to the attribute, which keeps a stand-in value. The recorder writes
 * these forms only; the reader takes a VAR attribute for any int / float / bool attribute. */
static const struct {
  const char *type, *attr, *slot;
} k_dyn_forms[] = {
    {"arg_max", "axis", NULL},       {"arg_min", "axis", NULL},          {"cumsum", "axis", NULL},
    {"bincount", "minlength", NULL}, {"eye", "num_rows", NULL},          {"eye", "num_columns", NULL},
    {"gather", "axis", "Axis"},
};

int pd_compat_dyn_form(const char *type, const char *attr, const char **slot) {
  for (size_t i = 0; i < sizeof k_dyn_forms / sizeof k_dyn_forms[0]; i++)
    if (!strcmp(k_dyn_forms[i].type, type) && !strcmp(k_dyn_forms[i].attr, attr)) {
      *slot = k_dyn_forms[i].slot;
      return 1;
    }
  return 0;
}

static void *ctx_alloc(pd_convert_ctx *c, size_t n) {
  if (c->n_scratch == c->cap_scratch) {
    int nc = c->cap_scratch ? c->cap_scratch * 2 : 8;
    void **ns = (void **)realloc(c->scratch, sizeof(void *) * (size_t)nc);
    if (!ns) return NULL;
    c->scratch = ns;
    c->cap_scratch = nc;
  }
  void *p = calloc(1, n ? n : 1);
  if (p) c->scratch[c->n_scratch++] = p;
  return p;
}

const pd_opdesc *pd_cv_op(pd_convert_ctx *c) { return c->op; }

pd_tensor *pd_cv_var(pd_convert_ctx *c, const char *name) { return c->io->in(c->impl, name); }

const pd_opdesc *pd_cv_prev_op(pd_convert_ctx *c) {
  if (!c->block) return NULL;
  for (int i = 1; i < c->block->n_ops; i++)
    if (c->block->ops[i] == c->op) return c->block->ops[i - 1];
  return NULL;
}

pd_tensor *pd_cv_in(pd_convert_ctx *c, const char *slot, int k) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 0, slot);
  if (!s || k < 0 || k >= s->n) return NULL;
  return c->io->in(c->impl, s->args[k]);
}

int pd_cv_in_count(pd_convert_ctx *c, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 0, slot);
  return s ? s->n : 0;
}

int pd_cv_out_count(pd_convert_ctx *c, const char *slot) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 1, slot);
  return s ? s->n : 0;
}

pd_status pd_cv_out(pd_convert_ctx *c, const char *slot, int k, pd_tensor *t) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 1, slot);
  if (!s || k < 0 || k >= s->n || !s->args[k][0]) return PD_OK;
  return c->io->out(c->impl, s->args[k], t);
}

static const pd_attr *attr_of(pd_convert_ctx *c, const char *name) { return pd_opdesc_attr(c->op, name); }

int64_t pd_cv_int(pd_convert_ctx *c, const char *name, int64_t dflt, pd_status *st) {
  const pd_attr *a = attr_of(c, name);
  if (!a) return dflt;
  int64_t v = dflt;
  pd_status s = pd_attr_as_int(c->op, a, &v);
  if (s != PD_OK && st) *st = s;
  return v;
}

double pd_cv_float(pd_convert_ctx *c, const char *name, double dflt, pd_status *st) {
  const pd_attr *a = attr_of(c, name);
  if (!a) return dflt;
  double v = dflt;
  pd_status s = pd_attr_as_double(c->op, a, &v);
  if (s != PD_OK && st) *st = s;
  return v;
}

const char *pd_cv_str(pd_convert_ctx *c, const char *name, const char *dflt, pd_status *st) {
  const pd_attr *a = attr_of(c, name);
  if (!a) return dflt;
  if (a->type != PD_AT_STRING && a->type != PD_AT_VAR) {
    pd_status s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected a string, received %s",
                               c->op->type, name, pd_attr_type_name(a->type));
    if (st) *st = s;
    return dflt;
  }
  return a->s ? a->s : "";
}

const int64_t *pd_cv_ints(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st) {
  const pd_attr *a = attr_of(c, name);
  *n = -1;
  if (!a) return NULL;
  if (a->type == PD_AT_INTS || a->type == PD_AT_LONGS || a->type == PD_AT_BOOLEANS) {
    *n = a->n;
    return a->ints;
  }
  if (a->type == PD_AT_FLOATS || a->type == PD_AT_FLOAT64S) {
    int64_t *v = (int64_t *)ctx_alloc(c, sizeof(int64_t) * (size_t)(a->n > 0 ? a->n : 1));
    if (!v) {
      if (st) *st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    for (int64_t k = 0; k < a->n; k++) v[k] = (int64_t)a->floats[k];
    *n = a->n;
    return v;
  }
  if (a->type == PD_AT_INT || a->type == PD_AT_LONG) {
    *n = 1;
    return &a->i;
  }
  if (st) *st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected a list of integers, "
                             "received %s", c->op->type, name, pd_attr_type_name(a->type));
  return NULL;
}

const double *pd_cv_floats(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st) {
  const pd_attr *a = attr_of(c, name);
  *n = -1;
  if (!a) return NULL;
  if (a->type == PD_AT_FLOATS || a->type == PD_AT_FLOAT64S) {
    *n = a->n;
    return a->floats;
  }
  if (a->type == PD_AT_INTS || a->type == PD_AT_LONGS || a->type == PD_AT_BOOLEANS) {
    double *v = (double *)ctx_alloc(c, sizeof(double) * (size_t)(a->n > 0 ? a->n : 1));
    if (!v) {
      if (st) *st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      return NULL;
    }
    for (int64_t k = 0; k < a->n; k++) v[k] = (double)a->ints[k];
    *n = a->n;
    return v;
  }
  if (a->type == PD_AT_FLOAT || a->type == PD_AT_FLOAT64) {
    *n = 1;
    return &a->f;
  }
  if (st) *st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected a list of numbers, "
                             "received %s", c->op->type, name, pd_attr_type_name(a->type));
  return NULL;
}

pd_status pd_cv_run(pd_convert_ctx *c, int op, const void *args, pd_tensor **outs, int cap, int *n) {
  (void)c;
  pd_tensor *buf[4], **o = buf;
  int k = -4;
  PD_TRY(pd_op_run(op, args, &o, &k));
  for (int i = 0; i < k; i++) {
    if (i < cap) outs[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  if (o != buf) free(o);
  *n = k < cap ? k : cap;
  return PD_OK;
}

static const char *lookup(const pd_compat_map *m, int n, const char *ours) {
  for (int i = 0; i < n; i++)
    if (strcmp(m[i].ours, ours) == 0) return m[i].theirs;
  return NULL;
}

/* reads attribute a into our argument field at p */
static pd_status read_attr(pd_convert_ctx *c, const pd_arg_def *ad, const pd_attr *a, char *p) {
  const pd_opdesc *op = c->op;
  switch (ad->kind) {
    case PD_ARG_INT: return pd_attr_as_int(op, a, (int64_t *)p);
    case PD_ARG_FLOAT: return pd_attr_as_double(op, a, (double *)p);
    case PD_ARG_BOOL: {
      int64_t v;
      PD_TRY(pd_attr_as_int(op, a, &v));
      *(int *)p = v != 0;
      return PD_OK;
    }
    case PD_ARG_STR:
      if (a->type != PD_AT_STRING)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected STRING, received %s",
                            op->type, a->name, pd_attr_type_name(a->type));
      *(const char **)p = a->s ? a->s : "";
      return PD_OK;
    case PD_ARG_DTYPE: {
      int64_t v;
      PD_TRY(pd_attr_as_int(op, a, &v));
      if (v < 0) {
        *(int *)p = -1;
        return PD_OK;
      }
      int dt = pd_dtype_from_vt((int)v);
      if (dt < 0)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: %lld is not a data type code",
                            op->type, a->name, (long long)v);
      *(int *)p = dt;
      return PD_OK;
    }
    case PD_ARG_INT_ARRAY: {
      pd_status st = PD_OK;
      int64_t n;
      const int64_t *v = pd_cv_ints(c, a->name, &n, &st);
      PD_TRY(st);
      ((pd_int_array *)p)->data = v;
      ((pd_int_array *)p)->n = n < 0 ? 0 : n;
      return PD_OK;
    }
    case PD_ARG_FLOAT_ARRAY: {
      pd_status st = PD_OK;
      int64_t n;
      const double *v = pd_cv_floats(c, a->name, &n, &st);
      PD_TRY(st);
      ((pd_float_array *)p)->data = v;
      ((pd_float_array *)p)->n = n < 0 ? 0 : n;
      return PD_OK;
    }
    case PD_ARG_SCALAR: {
      pd_scalar *s = (pd_scalar *)p;
      if (a->type == PD_AT_SCALAR) {
        *s = a->sc;
      } else if (a->type == PD_AT_FLOAT || a->type == PD_AT_FLOAT64) {
        *s = pd_scalar_float(a->f);
      } else if (a->type == PD_AT_BOOLEAN) {
        s->kind = PD_SCALAR_BOOL;
        s->i = a->i != 0;
        s->f = (double)s->i;
        s->imag = 0;
      } else {
        int64_t v;
        PD_TRY(pd_attr_as_int(op, a, &v));
        *s = pd_scalar_int(v);
      }
      return PD_OK;
    }
    default: return PD_OK;
  }
}

void *pd_cv_field(int our_op, void *args, const char *name) {
  const pd_op_def *d = &pd_op_defs[our_op];
  for (int i = 0; i < d->n_args; i++)
    if (strcmp(d->args[i].name, name) == 0) return (char *)args + d->args[i].offset;
  return NULL;
}

pd_status pd_cv_fill(pd_convert_ctx *c, const pd_compat_def *def, int our_op, void **out) {
  const pd_op_def *d = &pd_op_defs[our_op];
  char *args = (char *)ctx_alloc(c, d->args_size);
  if (!args) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  d->defaults(args);
  *out = args;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT || a->kind == PD_ARG_TENSOR_LIST) {
      const char *slot = def ? lookup(def->in, def->n_in, a->name) : a->name;
      if (!slot) slot = a->name;
      int cnt = pd_cv_in_count(c, slot);
      if (a->kind == PD_ARG_TENSOR_LIST) {
        pd_tensor **arr = (pd_tensor **)ctx_alloc(c, sizeof(pd_tensor *) * (size_t)(cnt ? cnt : 1));
        if (!arr) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        for (int k = 0; k < cnt; k++) {
          arr[k] = pd_cv_in(c, slot, k);
          if (!arr[k])
            return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %s[%d] names no variable",
                                c->op->type, slot, k);
        }
        ((pd_tensor_list *)p)->data = arr;
        ((pd_tensor_list *)p)->n = cnt;
      } else {
        pd_tensor *t = cnt ? pd_cv_in(c, slot, 0) : NULL;
        if (!t && a->kind == PD_ARG_TENSOR)
          return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the required input %s is missing",
                              c->op->type, slot);
        *(pd_tensor **)p = t;
      }
      continue;
    }
    const char *an = def ? lookup(def->attr, def->n_attr, a->name) : a->name;
    if (!an) an = a->name;
    if (!*an) continue; /* Paddle's op lacks it: the default */
    const pd_attr *at = attr_of(c, an);
    const char *dyn_slot = NULL;
    pd_tensor *dyn = NULL;
    if (at && at->type == PD_AT_VAR) {
      dyn = at->s ? pd_cv_var(c, at->s) : NULL;
      if (!dyn)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s names the variable %s, which is not "
                            "in the program", c->op->type, an, at->s ? at->s : "");
    } else if (pd_compat_dyn_form(c->op->type, an, &dyn_slot) && dyn_slot && pd_cv_in_count(c, dyn_slot) > 0) {
      dyn = pd_cv_in(c, dyn_slot, 0);
    }
    if (dyn) {
      if (a->kind != PD_ARG_INT && a->kind != PD_ARG_FLOAT && a->kind != PD_ARG_BOOL && a->kind != PD_ARG_DTYPE)
        return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] attribute %s given as a variable: only int, float and bool "
                            "attributes can be", c->op->type, an);
      if (c->n_dyn == CV_DYN_MAX)
        return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] more than %d attributes given as variables", c->op->type,
                            CV_DYN_MAX);
      c->dyn_arg[c->n_dyn] = i;
      c->dyn_t[c->n_dyn++] = dyn;
      if (at && at->type == PD_AT_VAR) continue; /* the field keeps its default until attr_dyn runs */
    }
    if (!at) {
      if (!a->deflt)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the required attribute %s is missing",
                            c->op->type, an);
      continue;
    }
    PD_TRY(read_attr(c, a, at, p));
  }
  return PD_OK;
}

/* our_op's filled args with the attributes at c->dyn_arg given by tensors -> attr_dyn's args */
static pd_status dyn_args(pd_convert_ctx *c, int our_op, const void *args, pd_attr_dyn_args *da) {
  const pd_op_def *d = &pd_op_defs[our_op];
  size_t na = (size_t)d->n_args + 1;
  pd_tensor **x = (pd_tensor **)ctx_alloc(c, sizeof(pd_tensor *) * na);
  int64_t *slots = (int64_t *)ctx_alloc(c, sizeof(int64_t) * na), *absent = (int64_t *)ctx_alloc(c, sizeof(int64_t) * na);
  double *attrs = (double *)ctx_alloc(c, sizeof(double) * na);
  if (!x || !slots || !absent || !attrs) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memset(da, 0, sizeof *da);
  da->op = d->name;
  da->x.data = x;
  da->values.data = c->dyn_t;
  da->slots.data = slots;
  da->attrs.data = attrs;
  da->absent.data = absent;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    int j = 0;
    while (j < c->n_dyn && c->dyn_arg[j] != i) j++;
    if (j < c->n_dyn) {
      slots[da->slots.n++] = i;
      continue;
    }
    switch (a->kind) {
      case PD_ARG_TENSOR: case PD_ARG_TENSOR_OPT: {
        pd_tensor *t = *(pd_tensor *const *)p;
        if (t) x[da->x.n++] = t;
        else absent[da->absent.n++] = i;
        break;
      }
      case PD_ARG_INT: attrs[da->attrs.n++] = (double)*(const int64_t *)p; break;
      case PD_ARG_FLOAT: attrs[da->attrs.n++] = *(const double *)p; break;
      case PD_ARG_BOOL: case PD_ARG_DTYPE: attrs[da->attrs.n++] = (double)*(const int *)p; break;
      default:
        return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] an attribute given as a variable: the op's argument %s "
                            "(not a tensor, int, float or bool) cannot go with it", c->op->type, a->name);
    }
  }
  return PD_OK;
}

pd_status pd_cv_finish(pd_convert_ctx *c, const pd_compat_def *def, int our_op, const void *args) {
  const pd_op_def *d = &pd_op_defs[our_op];
  pd_tensor *outs[64];
  int n = 0;
  if (c->n_dyn) { /* attributes read when the program runs: attr_dyn runs our_op then */
    pd_attr_dyn_args da;
    PD_TRY(dyn_args(c, our_op, args, &da));
    da.values.n = da.slots.n;
    PD_TRY(pd_cv_run(c, PD_OP_ATTR_DYN, &da, outs, 64, &n));
  } else {
    PD_TRY(pd_cv_run(c, our_op, args, outs, 64, &n));
  }
  pd_status s = PD_OK;
  for (int k = 0; k < n; k++) {
    const char *oname = d->n_outputs < 0 ? d->output_names[0] : d->output_names[k];
    const char *slot = def ? lookup(def->out, def->n_out, oname) : oname;
    if (!slot) slot = oname;
    if (s == PD_OK) s = pd_cv_out(c, slot, d->n_outputs < 0 ? k : 0, outs[k]);
    pd_tensor_release(outs[k]);
  }
  /* inputs updated in place (batch_norm's Mean -> MeanOut): when the output slot names another
   * variable, it shares the updated tensor */
  for (int i = 0; s == PD_OK && def && i < def->n_writes; i++) {
    const char *in_slot = lookup(def->in, def->n_in, def->writes[i].ours);
    const pd_opslot *is = in_slot ? pd_opdesc_slot(c->op, 0, in_slot) : NULL;
    const pd_opslot *os = pd_opdesc_slot(c->op, 1, def->writes[i].theirs);
    if (!is || !os || is->n < 1 || os->n < 1 || !os->args[0][0] || strcmp(is->args[0], os->args[0]) == 0)
      continue;
    pd_tensor *t = pd_cv_in(c, in_slot, 0);
    if (t) s = pd_cv_out(c, def->writes[i].theirs, 0, t);
  }
  return s;
}

pd_status pd_cv_generic(pd_convert_ctx *c, const pd_compat_def *def, int our_op) {
  void *args;
  PD_TRY(pd_cv_fill(c, def, our_op, &args));
  return pd_cv_finish(c, def, our_op, args);
}

void *pd_cv_alloc(pd_convert_ctx *c, size_t n) { return ctx_alloc(c, n); }

pd_status pd_cv_run1(pd_convert_ctx *c, int op, const void *args, pd_tensor **out) {
  int n = 0;
  *out = NULL;
  PD_TRY(pd_cv_run(c, op, args, out, 1, &n));
  if (n < 1) return pd_cv_error(c, PD_ERR_FATAL, "%s returned no output", pd_op_defs[op].name);
  return PD_OK;
}

pd_status pd_cv_bind(pd_convert_ctx *c, const char *slot, pd_tensor *t) {
  if (!t) return PD_OK;
  pd_status s = pd_cv_out(c, slot, 0, t);
  pd_tensor_release(t);
  return s;
}

int pd_cv_has(pd_convert_ctx *c, const char *name) { return attr_of(c, name) != NULL; }

pd_status pd_cv_error(pd_convert_ctx *c, pd_status code, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return pd_set_error(code, "[%s] %s", c->op->type, buf);
}

/* ---- values known while compiling: a ring of (block, revision, variable) -> up to 9 ints */
#define KNOWN_CAP 512
typedef struct {
  const void *block;
  uint64_t rev;
  char name[128];
  int n;
  int64_t v[PD_MAX_DIMS];
} known_entry;
static _Thread_local known_entry tl_known[KNOWN_CAP];
static _Thread_local int tl_known_next;

static known_entry *known_find(const pd_opdesc *op, const char *name) {
  const pd_block *b = op->block;
  uint64_t rev = b && b->prog ? b->prog->rev : 0;
  for (int i = 0; i < KNOWN_CAP; i++) {
    known_entry *e = &tl_known[i];
    if (e->block == b && e->rev == rev && e->n > 0 && strcmp(e->name, name) == 0) return e;
  }
  return NULL;
}

void pd_cv_set_known(pd_convert_ctx *c, const char *slot, int k, const int64_t *v, int n) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 1, slot);
  if (!s || k >= s->n || n < 1 || n > PD_MAX_DIMS || strlen(s->args[k]) >= sizeof tl_known[0].name) return;
  known_entry *e = known_find(c->op, s->args[k]);
  if (!e) {
    e = &tl_known[tl_known_next];
    tl_known_next = (tl_known_next + 1) % KNOWN_CAP;
  }
  e->block = c->op->block;
  e->rev = c->op->block && c->op->block->prog ? c->op->block->prog->rev : 0;
  strcpy(e->name, s->args[k]);
  e->n = n;
  memcpy(e->v, v, sizeof(int64_t) * (size_t)n);
}

int pd_cv_known(pd_convert_ctx *c, const char *slot, int k, int64_t *v, int cap) {
  const pd_opslot *s = pd_opdesc_slot(c->op, 0, slot);
  if (!s || k >= s->n) return -1;
  const known_entry *e = known_find(c->op, s->args[k]);
  if (!e || e->n > cap) return -1;
  memcpy(v, e->v, sizeof(int64_t) * (size_t)e->n);
  return e->n;
}

pd_status pd_cv_need(pd_convert_ctx *c, const char *slot, pd_tensor **out) {
  *out = pd_cv_in(c, slot, 0);
  if (!*out) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "the required input %s is missing", slot);
  return PD_OK;
}

const pd_compat_def *pd_cv_def(pd_convert_ctx *c, int *our_op) {
  const pd_compat_def *def = pd_compat_for_type(c->op->type);
  if (our_op)
    *our_op = def ? pd_op_lookup(def->ours ? def->ours : c->op->type) : pd_compat_own_op(c->op->type);
  return def;
}

const char *pd_compat_own_type(int op, char *buf, size_t cap) {
  const char *name = pd_op_defs[op].name;
  if (!pd_compat_for_type(name)) return name;
  snprintf(buf, cap, "%s%s", PD_OWN_PREFIX, name);
  return buf;
}

int pd_compat_own_op(const char *type) {
  const size_t np = sizeof PD_OWN_PREFIX - 1;
  if (strncmp(type, PD_OWN_PREFIX, np) == 0) {
    int op = pd_op_lookup(type + np);
    return op >= 0 && pd_compat_for_type(type + np) ? op : -1;
  }
  return pd_compat_for_type(type) ? -1 : pd_op_lookup(type);
}

/* ---------------------------------------------------------------- entry points */
static pd_status resolve(const char *type, const pd_compat_def **def, int *our_op) {
  *def = pd_compat_for_type(type);
  *our_op = -1;
  if (*def) {
    if ((*def)->ours) *our_op = pd_op_lookup((*def)->ours);
    if (!(*def)->load && *our_op < 0)
      return pd_set_error(PD_ERR_FATAL, "compat entry %s names an unknown op %s", type,
                          (*def)->ours ? (*def)->ours : "(none)");
    return PD_OK;
  }
  *our_op = pd_compat_own_op(type);
  if (*our_op < 0 && (pd_custom_find(type) || pd_custom_find_grad(type))) {
    /* a user's custom operator (csrc/ops/custom_op.c): read by custom_op's loader */
    *def = pd_compat_for_op(PD_OP_CUSTOM_OP);
    *our_op = PD_OP_CUSTOM_OP;
    return PD_OK;
  }
  if (*our_op < 0)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "the op %s is not supported by Paddle-C (a custom operator's library "
                        "that is not loaded?)", type);
  return PD_OK;
}

int pd_convert_supported(const char *type) {
  const pd_compat_def *def;
  int op;
  pd_status s = resolve(type, &def, &op);
  if (s != PD_OK) pd_clear_error();
  return s == PD_OK;
}

pd_status pd_convert_op(const pd_block *block, const pd_opdesc *op, const pd_convert_io *io, void *impl) {
  const pd_compat_def *def;
  int our_op;
  PD_TRY(resolve(op->type, &def, &our_op));
  /* this op's outputs get new values: what was known of those variables is gone */
  for (int i = 0; i < op->n_out; i++)
    for (int k = 0; k < op->out[i].n; k++) {
      known_entry *e = known_find(op, op->out[i].args[k]);
      if (e) e->n = 0;
    }
  pd_convert_ctx c;
  memset(&c, 0, sizeof c);
  c.block = block;
  c.op = op;
  c.io = io;
  c.impl = impl;
  pd_status s = def && def->load ? def->load(&c) : pd_cv_generic(&c, def, our_op);
  for (int i = 0; i < c.n_scratch; i++) free(c.scratch[i]);
  free(c.scratch);
  return s;
}
