/* Static tracing: shape inference with unknown dims, args deep copies, and the program
 * recorder (the tracer paddle.enable_static() installs). Recording an op: each tensor input
 * is a meta tensor bound to a variable (an eager tensor with data becomes an assign_value
 * constant), infer_meta gives the outputs' dtype and dims (-1 where they depend on an unknown
 * dim), the outputs become new variables of the current block and the op is appended under
 * Paddle's names (pd_compat.h). */
#include "pd_trace.h"
#include "pd_replay.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_compat.h"
#include "pd_names.h"
#include "../autograd/pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../ops/dyn_ops.h"

/* ---------------------------------------------------------------- dtype codes */
int pd_vt_from_dtype(int dtype) { return pd_dtype_is_valid(dtype) ? pd_dtype_to_vartype((pd_dtype)dtype) : -1; }
int pd_dtype_from_vt(int vt) { return vt < 0 ? -1 : pd_dtype_from_vartype(vt); }

/* ---------------------------------------------------------------- shape inference */
static int tensor_unknowns(const pd_tensor *t) {
  if (!t || t->storage) return 0;
  int k = 0;
  for (int d = 0; d < t->ndim; d++) k += t->shape[d] < 0;
  return k;
}

typedef struct {
  void *copy;
  pd_tensor *shadows;   /* one per tensor with unknowns */
  unsigned *unknown;    /* per shadow: bit d set when dim d is unknown */
  pd_tensor **lists;    /* replacement arrays for tensor lists */
  int n_shadows;
} shadow_args;

static void shadow_fill(shadow_args *sa, int64_t P) {
  for (int i = 0; i < sa->n_shadows; i++) {
    pd_tensor *s = &sa->shadows[i];
    int64_t n = 1;
    for (int d = 0; d < s->ndim; d++)
      if (sa->unknown[i] >> d & 1u) s->shape[d] = P;
    /* contiguous strides, as a meta tensor of that shape has (infer_meta may check them) */
    for (int d = s->ndim - 1; d >= 0; d--) {
      s->strides[d] = n;
      n *= s->shape[d];
    }
    s->numel = n;
  }
}

static pd_status shadow_make(const pd_op_def *d, const void *args, shadow_args *sa, int *max_unk) {
  memset(sa, 0, sizeof *sa);
  int n_sh = 0, n_list = 0, mx = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      int u = tensor_unknowns(*(pd_tensor *const *)p);
      if (u) n_sh++;
      if (u > mx) mx = u;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)p;
      int any = 0;
      for (int64_t j = 0; j < l->n; j++) {
        int u = tensor_unknowns(l->data[j]);
        if (u) n_sh++, any = 1;
        if (u > mx) mx = u;
      }
      if (any) n_list += (int)l->n;
    }
  }
  *max_unk = mx;
  if (!n_sh) return PD_OK;
  sa->copy = malloc(d->args_size ? d->args_size : 1);
  sa->shadows = (pd_tensor *)calloc((size_t)n_sh, sizeof(pd_tensor));
  sa->unknown = (unsigned *)calloc((size_t)n_sh, sizeof(unsigned));
  sa->lists = (pd_tensor **)calloc((size_t)(n_list ? n_list : 1), sizeof(pd_tensor *));
  if (!sa->copy || !sa->shadows || !sa->unknown || !sa->lists) {
    free(sa->copy);
    free(sa->shadows);
    free(sa->unknown);
    free(sa->lists);
    memset(sa, 0, sizeof *sa);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  memcpy(sa->copy, args, d->args_size);
  int li = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = (char *)sa->copy + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT || a->kind == PD_ARG_TENSOR_LIST) {
      int is_list = a->kind == PD_ARG_TENSOR_LIST;
      pd_tensor_list *l = (pd_tensor_list *)p;
      int64_t cnt = is_list ? l->n : 1;
      int any = 0;
      for (int64_t j = 0; j < cnt; j++) any |= tensor_unknowns(is_list ? l->data[j] : *(pd_tensor **)p) > 0;
      if (!any) continue;
      pd_tensor **dst = is_list ? &sa->lists[li] : NULL;
      for (int64_t j = 0; j < cnt; j++) {
        pd_tensor *t = is_list ? l->data[j] : *(pd_tensor **)p;
        pd_tensor *r = t;
        if (tensor_unknowns(t)) {
          unsigned *u = &sa->unknown[sa->n_shadows];
          pd_tensor *s = &sa->shadows[sa->n_shadows++];
          *s = *t;
          s->var = NULL;
          s->autograd = NULL;
          s->pyobj = NULL;
          for (int dd = 0; dd < s->ndim; dd++)
            if (t->shape[dd] < 0) *u |= 1u << dd;
          r = s;
        }
        if (is_list) dst[j] = r;
        else *(pd_tensor **)p = r;
      }
      if (is_list) {
        l->data = dst;
        li += (int)cnt;
      }
    }
  }
  return PD_OK;
}

static _Thread_local int tl_placeholders;
int pd_trace_placeholders_active(void) { return tl_placeholders; }

static pd_status infer_placeholders(const pd_op_def *d, const void *args, pd_meta_list *out) {
  tl_placeholders++;
  pd_status s = d->infer_meta(args, out);
  tl_placeholders--;
  return s;
}

pd_status pd_trace_infer(int op, const void *args, pd_meta_list *out) {
  const pd_op_def *d = &pd_op_defs[op];
  shadow_args sa;
  int mx;
  PD_TRY(shadow_make(d, args, &sa, &mx));
  if (!sa.copy) return d->infer_meta(args, out);
  /* placeholders: large enough to survive several stride-2 downsamplings, small enough that a
   * product over every unknown dim of one tensor stays far from overflow */
  int64_t P1 = mx <= 3 ? 40009 : mx <= 5 ? 4001 : 401;
  int64_t P2 = mx <= 3 ? 50021 : mx <= 5 ? 5003 : 503;
  pd_meta_list m2;
  m2.n = 0;
  m2.m = m2.inline_m;
  shadow_fill(&sa, P1);
  pd_status s = infer_placeholders(d, sa.copy, out);
  if (s == PD_OK) {
    shadow_fill(&sa, P2);
    s = infer_placeholders(d, sa.copy, &m2);
  }
  /* a third, small placeholder: a dim clamped by a known extent (min(P, k) in slice, diag,
   * diagonal ...) agrees between two large placeholders but not with a small one. An op that
   * rejects the small size (a kernel larger than the input ...) keeps the two-run answer. */
  pd_meta_list m3;
  m3.n = 0;
  m3.m = m3.inline_m;
  int have3 = 0;
  if (s == PD_OK) {
    shadow_fill(&sa, 2);
    have3 = infer_placeholders(d, sa.copy, &m3) == PD_OK;
    if (!have3) pd_clear_error();
  }
  if (s == PD_OK) {
    for (int k = 0; have3 && k < out->n && k < m3.n; k++) {
      pd_meta *a = &out->m[k];
      const pd_meta *c = &m3.m[k];
      if (a->ndim != c->ndim) continue;
      for (int dd = 0; dd < a->ndim; dd++)
        if (a->shape[dd] != c->shape[dd]) a->shape[dd] = -1;
    }
    for (int k = 0; k < out->n && k < m2.n; k++) {
      pd_meta *a = &out->m[k];
      const pd_meta *b = &m2.m[k];
      if (a->ndim != b->ndim) {
        a->ndim = -1;
        continue;
      }
      for (int dd = 0; dd < a->ndim; dd++)
        if (a->shape[dd] != b->shape[dd] || a->shape[dd] < 0) a->shape[dd] = -1;
    }
  }
  pd_meta_list_free(&m2);
  pd_meta_list_free(&m3);
  if (s != PD_OK) pd_meta_list_free(out);
  free(sa.copy);
  free(sa.shadows);
  free(sa.unknown);
  free(sa.lists);
  return s;
}

/* ---------------------------------------------------------------- args copies */
static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

pd_status pd_args_clone(int op, const void *args, void **out) {
  const pd_op_def *d = &pd_op_defs[op];
  size_t extra = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    switch (a->kind) {
      case PD_ARG_STR: {
        const char *s = *(const char *const *)p;
        if (s) extra += align8(strlen(s) + 1);
        break;
      }
      case PD_ARG_INT_ARRAY: extra += align8(sizeof(int64_t) * (size_t)((const pd_int_array *)p)->n); break;
      case PD_ARG_FLOAT_ARRAY: extra += align8(sizeof(double) * (size_t)((const pd_float_array *)p)->n); break;
      case PD_ARG_TENSOR_LIST: extra += align8(sizeof(pd_tensor *) * (size_t)((const pd_tensor_list *)p)->n); break;
      default: break;
    }
  }
  size_t base = align8(d->args_size ? d->args_size : 1);
  char *m = (char *)malloc(base + extra);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(m, args, d->args_size);
  char *q = m + base;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = m + a->offset;
    switch (a->kind) {
      case PD_ARG_STR: {
        const char *s = *(const char **)p;
        if (s) {
          size_t L = strlen(s) + 1;
          memcpy(q, s, L);
          *(const char **)p = q;
          q += align8(L);
        }
        break;
      }
      case PD_ARG_INT_ARRAY: {
        pd_int_array *v = (pd_int_array *)p;
        size_t L = sizeof(int64_t) * (size_t)v->n;
        if (L) memcpy(q, v->data, L);
        v->data = (const int64_t *)q;
        q += align8(L);
        break;
      }
      case PD_ARG_FLOAT_ARRAY: {
        pd_float_array *v = (pd_float_array *)p;
        size_t L = sizeof(double) * (size_t)v->n;
        if (L) memcpy(q, v->data, L);
        v->data = (const double *)q;
        q += align8(L);
        break;
      }
      case PD_ARG_TENSOR_LIST: {
        pd_tensor_list *v = (pd_tensor_list *)p;
        size_t L = sizeof(pd_tensor *) * (size_t)v->n;
        if (L) memcpy(q, v->data, L);
        v->data = (pd_tensor *const *)q;
        q += align8(L);
        break;
      }
      default: break;
    }
  }
  *out = m;
  return PD_OK;
}

/* ---------------------------------------------------------------- the recorder */
typedef struct {
  pd_program *prog;
  int block;
} recorder;

static _Thread_local recorder tl_rec;
static pd_status record_trace(void *ctx, int op, const void *args, pd_tensor ***outs, int *n_out);

pd_program *pd_recorder_program(int *block) {
  if (block) *block = tl_rec.block;
  return tl_rec.prog;
}

pd_status pd_recorder_set(pd_program *prog, int block, pd_program **prev_prog, int *prev_block) {
  if (prog && (block < 0 || block >= prog->n_blocks))
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "block %d out of range [0, %d)", block, prog->n_blocks);
  if (prev_prog) *prev_prog = tl_rec.prog;
  else pd_program_release(tl_rec.prog);
  if (prev_block) *prev_block = tl_rec.block;
  pd_program_retain(prog);
  tl_rec.prog = prog;
  tl_rec.block = prog ? block : 0;
  pd_tracer t = {prog ? record_trace : NULL, prog ? &tl_rec : NULL};
  pd_tracer old = pd_trace_current();
  /* only replace our own tracer or none: an executor compile or replay in progress keeps its own */
  if (old.fn == NULL || old.fn == record_trace) pd_trace_swap(t);
  return PD_OK;
}

static pd_status record_trace(void *ctx, int op, const void *args, pd_tensor ***outs, int *n_out) {
  recorder *r = (recorder *)ctx;
  if (!r->prog || r->block >= r->prog->n_blocks)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "static mode: no current program block");
  return pd_record_op(r->prog->blocks[r->block], op, args, outs, n_out);
}

/* an eager tensor used in a program becomes an assign_value constant */
#define PD_MAX_CONSTANT_ELEMS (1 << 20)

static pd_status constant_var(pd_block *b, pd_tensor *t, pd_tensor **out) {
  if (pd_dtype_is_complex(t->dtype))
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "static mode: a complex tensor constant cannot be put "
                        "into a program; create it with paddle ops inside the program instead");
  if (t->numel > PD_MAX_CONSTANT_ELEMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "static mode: a tensor constant of %lld elements is "
                        "too large to embed in the program (at most %d); make it a parameter or a "
                        "paddle.static.data input", (long long)t->numel, PD_MAX_CONSTANT_ELEMS);
  double *vals = (double *)malloc(sizeof(double) * (size_t)(t->numel > 0 ? t->numel : 1));
  if (!vals) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  /* element order: row-major over the (possibly strided) view */
  int64_t idx[PD_MAX_DIMS] = {0};
  size_t isz = pd_dtype_size(t->dtype);
  for (int64_t k = 0; k < t->numel; k++) {
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    vals[k] = pd_load_as_double((const char *)t->storage->data + off * (int64_t)isz, t->dtype);
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  pd_assign_value_args a = {{t->shape, t->ndim}, (int)t->dtype, {vals, t->numel}};
  pd_tensor **o = NULL;
  int n = 0;
  pd_status s = pd_record_op(b, PD_OP_ASSIGN_VALUE, &a, &o, &n);
  free(vals);
  if (s != PD_OK) return s;
  *out = o[0];
  for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  free(o);
  return PD_OK;
}

/* Resolves every tensor of args to a var-bound tensor (constants made as needed). *copy is NULL
 * when nothing had to change. consts collects the constant tensors to release. */
static pd_status resolve_inputs(pd_block *b, const pd_op_def *d, const void *args, void **copy,
                                pd_tensor ***consts, int *n_consts, pd_tensor ***lists) {
  *copy = NULL;
  *consts = NULL;
  *n_consts = 0;
  *lists = NULL;
  int need = 0, n_list = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      const pd_tensor *t = *(pd_tensor *const *)p;
      if (t && !t->var) need++;
      if (t && t->var && !t->var->block && !strcmp(t->var->name, "@replay")) PD_TRY(pd_replay_name_temp(t->var));
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)p;
      int any = 0;
      for (int64_t j = 0; j < l->n; j++) {
        pd_tensor *t = l->data[j];
        if (t && t->var && !t->var->block && !strcmp(t->var->name, "@replay")) PD_TRY(pd_replay_name_temp(t->var));
      }
      for (int64_t j = 0; j < l->n; j++)
        if (l->data[j] && !l->data[j]->var) need++, any = 1;
      if (any) n_list += (int)l->n;
    }
  }
  if (!need) return PD_OK;
  void *c = malloc(d->args_size ? d->args_size : 1);
  pd_tensor **cs = (pd_tensor **)calloc((size_t)need, sizeof(pd_tensor *));
  pd_tensor **ls = (pd_tensor **)calloc((size_t)(n_list ? n_list : 1), sizeof(pd_tensor *));
  if (!c || !cs || !ls) {
    free(c);
    free(cs);
    free(ls);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  memcpy(c, args, d->args_size);
  *copy = c;
  *consts = cs;
  *lists = ls;
  int li = 0;
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    char *p = (char *)c + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      pd_tensor *t = *(pd_tensor **)p;
      if (!t || t->var) continue;
      if (!t->storage)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %s is a tensor without data that "
                            "belongs to no program variable", d->name, a->name);
      PD_TRY(constant_var(b, t, &cs[*n_consts]));
      *(pd_tensor **)p = cs[(*n_consts)++];
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      pd_tensor_list *l = (pd_tensor_list *)p;
      int any = 0;
      for (int64_t j = 0; j < l->n; j++) any |= l->data[j] && !l->data[j]->var;
      if (!any) continue;
      pd_tensor **dst = &ls[li];
      for (int64_t j = 0; j < l->n; j++) {
        pd_tensor *t = l->data[j];
        if (t && !t->var) {
          if (!t->storage)
            return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s[%lld] is a tensor without data "
                                "that belongs to no program variable", d->name, a->name, (long long)j);
          PD_TRY(constant_var(b, t, &cs[*n_consts]));
          t = cs[(*n_consts)++];
        }
        dst[j] = t;
      }
      l->data = dst;
      li += (int)l->n;
    }
  }
  return PD_OK;
}

static int fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* writes our argument a (value at p) as attribute `name` of op */
static pd_status write_attr(pd_opdesc *op, const pd_arg_def *a, const char *p, const char *name,
                            int type, int mapped) {
  switch (a->kind) {
    case PD_ARG_INT: {
      int64_t v = *(const int64_t *)p;
      int t = type >= 0 ? type : (fits_i32(v) ? PD_AT_INT : PD_AT_LONG);
      if (t == PD_AT_FLOAT || t == PD_AT_FLOAT64) return pd_opdesc_set_attr_float(op, name, (pd_attr_type)t, (double)v);
      if (t == PD_AT_INT && !fits_i32(v)) t = PD_AT_LONG;
      return pd_opdesc_set_attr_int(op, name, (pd_attr_type)t, v);
    }
    case PD_ARG_FLOAT: {
      double v = *(const double *)p;
      int t = type >= 0 ? type : (mapped ? PD_AT_FLOAT : PD_AT_FLOAT64);
      if (t == PD_AT_INT || t == PD_AT_LONG) return pd_opdesc_set_attr_int(op, name, (pd_attr_type)t, (int64_t)v);
      return pd_opdesc_set_attr_float(op, name, (pd_attr_type)t, v);
    }
    case PD_ARG_BOOL: return pd_opdesc_set_attr_int(op, name, PD_AT_BOOLEAN, *(const int *)p ? 1 : 0);
    case PD_ARG_STR: return pd_opdesc_set_attr_str(op, name, *(const char *const *)p);
    case PD_ARG_DTYPE: return pd_opdesc_set_attr_int(op, name, PD_AT_INT, pd_vt_from_dtype(*(const int *)p));
    case PD_ARG_INT_ARRAY: {
      const pd_int_array *v = (const pd_int_array *)p;
      int t = type;
      if (t < 0) {
        t = PD_AT_INTS;
        for (int64_t k = 0; k < v->n; k++)
          if (!fits_i32(v->data[k])) t = PD_AT_LONGS;
      }
      return pd_opdesc_set_attr_ints(op, name, (pd_attr_type)t, v->n, v->data);
    }
    case PD_ARG_FLOAT_ARRAY: {
      const pd_float_array *v = (const pd_float_array *)p;
      int t = type >= 0 ? type : (mapped ? PD_AT_FLOATS : PD_AT_FLOAT64S);
      return pd_opdesc_set_attr_floats(op, name, (pd_attr_type)t, v->n, v->data);
    }
    case PD_ARG_SCALAR: {
      const pd_scalar *v = (const pd_scalar *)p;
      int t = type >= 0 ? type : (mapped ? PD_AT_FLOAT : PD_AT_SCALAR);
      if (t == PD_AT_SCALAR) {
        pd_attr at;
        memset(&at, 0, sizeof at);
        at.name = (char *)name;
        at.type = PD_AT_SCALAR;
        at.sc = *v;
        return pd_opdesc_set_attr(op, &at);
      }
      if (t == PD_AT_INT || t == PD_AT_LONG || t == PD_AT_BOOLEAN) return pd_opdesc_set_attr_int(op, name, (pd_attr_type)t, v->i);
      return pd_opdesc_set_attr_float(op, name, (pd_attr_type)t, v->f);
    }
    default: return PD_OK;
  }
}

/* an extra attribute's value from its text */
static pd_status write_extra(pd_opdesc *op, const pd_compat_extra *e) {
  const char *v = e->value ? e->value : "";
  switch (e->type) {
    case PD_AT_INT: case PD_AT_LONG: return pd_opdesc_set_attr_int(op, e->name, e->type, strtoll(v, NULL, 10));
    case PD_AT_BOOLEAN: return pd_opdesc_set_attr_int(op, e->name, e->type, strcmp(v, "true") == 0 || strcmp(v, "1") == 0);
    case PD_AT_FLOAT: case PD_AT_FLOAT64: return pd_opdesc_set_attr_float(op, e->name, e->type, strtod(v, NULL));
    case PD_AT_STRING: return pd_opdesc_set_attr_str(op, e->name, v);
    case PD_AT_INTS: case PD_AT_LONGS: case PD_AT_BOOLEANS: case PD_AT_FLOATS: case PD_AT_FLOAT64S: {
      /* "[a, b, c]" */
      int64_t iv[64];
      double fv[64];
      int64_t n = 0;
      const char *q = v;
      while (*q && n < 64) {
        while (*q && (*q == '[' || *q == ' ' || *q == ',')) q++;
        if (!*q || *q == ']') break;
        char *end;
        fv[n] = strtod(q, &end);
        iv[n] = (int64_t)fv[n];
        if (end == q) break;
        n++;
        q = end;
      }
      if (e->type == PD_AT_FLOATS || e->type == PD_AT_FLOAT64S) return pd_opdesc_set_attr_floats(op, e->name, e->type, n, fv);
      return pd_opdesc_set_attr_ints(op, e->name, e->type, n, iv);
    }
    case PD_AT_STRINGS: return pd_opdesc_set_attr_strs(op, e->name, e->type, 0, NULL);
    default: return pd_set_error(PD_ERR_FATAL, "compat extra %s: unsupported type", e->name);
  }
}

static const char *map_name(const pd_compat_map *m, int n, const char *ours, int *type) {
  for (int i = 0; i < n; i++)
    if (strcmp(m[i].ours, ours) == 0) {
      if (type) *type = m[i].type;
      return m[i].theirs;
    }
  return NULL;
}

/* names of a tensor arg's vars (a list for Tensor[]) */
static int arg_var_names(const pd_arg_def *a, const char *p, const char **names, int cap) {
  if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
    const pd_tensor *t = *(pd_tensor *const *)p;
    if (!t) return 0;
    if (cap > 0) names[0] = t->var->name;
    return 1;
  }
  const pd_tensor_list *l = (const pd_tensor_list *)p;
  int k = 0;
  for (int64_t j = 0; j < l->n; j++)
    if (l->data[j]) {
      if (k < cap) names[k] = l->data[j]->var->name;
      k++;
    }
  return k;
}

/* the output slots Paddle's op requires and ours does not fill get fresh variables; XShape
 * (Paddle's reshape2/transpose2 ...) is [0] + the input's dims in the input's dtype */
static pd_status add_dummies(pd_block *b, pd_opdesc *od, const pd_compat_def *c, const char *base,
                             const pd_tensor *first) {
  for (int i = 0; i < c->n_dummy; i++) {
    if (pd_opdesc_slot(od, 1, c->dummy[i])) continue;
    char name[300];
    snprintf(name, sizeof name, "%s.tmp_%s", base, c->dummy[i]);
    pd_var *v;
    PD_TRY(pd_block_var(b, name, &v));
    v->stop_gradient = 1;
    if (first) {
      v->dtype = (int)first->dtype;
      if (strcmp(c->dummy[i], "XShape") == 0 && first->ndim + 1 <= PD_MAX_DIMS) {
        v->ndim = first->ndim + 1;
        v->dims[0] = 0;
        for (int d = 0; d < first->ndim; d++) v->dims[d + 1] = first->shape[d] < 0 ? -1 : first->shape[d];
      }
    }
    const char *nm = v->name;
    PD_TRY(pd_opdesc_set_slot(od, 1, c->dummy[i], 1, &nm));
  }
  return PD_OK;
}

/* writes op under Paddle's names (c: its compat entry) or, c NULL, in our own form */
static pd_status fill_opdesc(pd_opdesc *od, int op, const void *args, pd_var **ovars, int n_out,
                             const pd_compat_def *c) {
  const pd_op_def *d = &pd_op_defs[op];
  int mapped = c != NULL;
  char own[300];
  PD_TRY(pd_opdesc_set_type(od, c ? c->type : pd_compat_own_type(op, own, sizeof own)));
  const char *nbuf[64];
  const char **names = nbuf;
  int cap = 64;
  pd_status s = PD_OK;
  for (int i = 0; s == PD_OK && i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT || a->kind == PD_ARG_TENSOR_LIST) {
      const char *slot = c ? map_name(c->in, c->n_in, a->name, NULL) : a->name;
      if (!slot) slot = a->name;  /* not renamed */
      if (!*slot) continue;       /* mapped to "": an input Paddle's op does not take */
      int k = arg_var_names(a, p, names, cap);
      if (k > cap) {
        names = (const char **)malloc(sizeof(char *) * (size_t)k);
        if (!names) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
        cap = k;
        arg_var_names(a, p, names, cap);
      }
      if (k || a->kind == PD_ARG_TENSOR_LIST || !c) s = pd_opdesc_set_slot(od, 0, slot, k, names);
      else s = pd_opdesc_set_slot(od, 0, slot, 0, names);
      if (s == PD_OK && c) {
        int ty;
        const char *w = map_name(c->writes, c->n_writes, a->name, &ty);
        if (w) s = pd_opdesc_set_slot(od, 1, w, k, names);
      }
    } else {
      int ty = -1;
      const char *an = c ? map_name(c->attr, c->n_attr, a->name, &ty) : a->name;
      if (!an) an = a->name;  /* not renamed */
      if (!*an) continue;     /* mapped to "": an argument Paddle's op does not have */
      s = write_attr(od, a, p, an, ty, mapped);
    }
  }
  if (names != nbuf) free(names);
  /* outputs: Tensor[] outputs (n_outputs < 0) put all of them in one slot */
  if (s == PD_OK) {
    if (d->n_outputs < 0) {
      const char *oname = d->output_names[0];
      const char *slot = c ? map_name(c->out, c->n_out, oname, NULL) : oname;
      const char **on = (const char **)malloc(sizeof(char *) * (size_t)(n_out > 0 ? n_out : 1));
      if (!on) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
      for (int k = 0; k < n_out; k++) on[k] = ovars[k]->name;
      s = pd_opdesc_set_slot(od, 1, slot ? slot : oname, n_out, on);
      free(on);
    } else {
      for (int k = 0; s == PD_OK && k < n_out; k++) {
        const char *oname = d->output_names[k];
        const char *slot = c ? map_name(c->out, c->n_out, oname, NULL) : oname;
        if (!slot) slot = oname; /* an output Paddle's op lacks: keep it under our name */
        const char *nm = ovars[k]->name;
        s = pd_opdesc_set_slot(od, 1, slot, 1, &nm);
      }
    }
  }
  for (int i = 0; s == PD_OK && c && i < c->n_extra; i++)
    if (!pd_opdesc_attr(od, c->extra[i].name)) s = write_extra(od, &c->extra[i]);
  if (s == PD_OK && c && c->save) {
    const char *inn[64], *outn[64];
    int ki = 0;
    for (int i = 0; i < d->n_args && ki < 64; i++) {
      const pd_arg_def *a = &d->args[i];
      if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
        const pd_tensor *t = *(pd_tensor *const *)((const char *)args + a->offset);
        inn[ki++] = t ? t->var->name : NULL;
      }
    }
    for (int k = 0; k < n_out && k < 64; k++) outn[k] = ovars[k]->name;
    s = c->save(op, args, od, inn, outn);
  }
  return s;
}

/* attr_dyn in Paddle's form (pd_compat_dyn_form): the target op under its Paddle names, each
 * attribute given as a variable written as a VAR attribute naming it (arg_max's axis, eye's
 * num_rows ...) or into Paddle's input slot for it (gather's Axis). A target or attribute Paddle
 * has no such form for: PD_ERR_UNIMPLEMENTED (the recorder then writes our own attr_dyn). */
static pd_status attr_dyn_compat(const void *args, int *top, void *buf, const pd_compat_def **tc) {
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)args;
  int known;
  *tc = NULL;
  PD_TRY(pd_attr_dyn_target(a, top, buf, &known));
  const pd_compat_def *c = pd_compat_for_op(*top);
  if (!c || c->save) return PD_OK; /* only plain renames (the writer below fills the attributes) */
  for (int64_t j = 0; j < a->slots.n; j++) {
    const pd_arg_def *ad = &pd_op_defs[*top].args[a->slots.data[j]];
    const char *an = map_name(c->attr, c->n_attr, ad->name, NULL), *slot;
    if (!pd_compat_dyn_form(c->type, an ? an : ad->name, &slot) || !a->values.data[j]->var) return PD_OK;
  }
  *tc = c;
  return PD_OK;
}

static pd_status fill_attr_dyn(pd_opdesc *od, const void *args, int top, const void *buf, pd_var **ovars, int n_out,
                               const pd_compat_def *c) {
  const pd_attr_dyn_args *a = (const pd_attr_dyn_args *)args;
  PD_TRY(fill_opdesc(od, top, buf, ovars, n_out, c));
  for (int64_t j = 0; j < a->slots.n; j++) {
    const pd_arg_def *ad = &pd_op_defs[top].args[a->slots.data[j]];
    const char *an = map_name(c->attr, c->n_attr, ad->name, NULL), *slot = NULL;
    if (!an) an = ad->name;
    const char *vname = a->values.data[j]->var->name;
    pd_compat_dyn_form(c->type, an, &slot);
    if (slot) {
      PD_TRY(pd_opdesc_set_slot(od, 0, slot, 1, &vname));
    } else {
      pd_attr at;
      memset(&at, 0, sizeof at);
      at.name = (char *)an;
      at.type = PD_AT_VAR;
      at.s = (char *)vname;
      PD_TRY(pd_opdesc_set_attr(od, &at));
    }
  }
  return PD_OK;
}

static _Thread_local int tl_backward;
void pd_recorder_backward(int on) { tl_backward += on ? 1 : -1; }

static int is_diff(int dt) { return pd_dtype_is_valid(dt) && (pd_dtype_is_float((pd_dtype)dt) || pd_dtype_is_complex((pd_dtype)dt)); }

pd_status pd_record_op(pd_block *b, int op, const void *args, pd_tensor ***outs, int *n_out) {
  const pd_op_def *d = &pd_op_defs[op];
  void *copy;
  pd_tensor **consts, **lists;
  int n_consts;
  pd_status s = resolve_inputs(b, d, args, &copy, &consts, &n_consts, &lists);
  const void *use = copy ? copy : args;
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  pd_var **ovars = NULL;
  pd_tensor **o = NULL;
  int n = 0;
  if (s == PD_OK) s = pd_trace_infer(op, use, &ml);
  /* does any input need a gradient? (the outputs' stop_gradient, as in eager) */
  int need_grad = 0;
  pd_tensor *first = NULL;
  for (int i = 0; s == PD_OK && i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)use + a->offset;
    if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
      pd_tensor *t = *(pd_tensor *const *)p;
      if (t && !first) first = t;
      if (t && !t->stop_gradient) need_grad = 1;
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)p;
      for (int64_t j = 0; j < l->n; j++) {
        if (l->data[j] && !first) first = l->data[j];
        if (l->data[j] && !l->data[j]->stop_gradient) need_grad = 1;
      }
    }
  }
  if (d->flags & PD_OP_NONDIFF) need_grad = 0;
  if (op == PD_OP_ATTR_DYN && !pd_attr_dyn_differentiable((const pd_attr_dyn_args *)use)) need_grad = 0;
  if (!tl_backward && !pd_grad_enabled()) need_grad = 0; /* paddle.no_grad() while recording */
  if (s == PD_OK) {
    n = ml.n;
    ovars = (pd_var **)calloc((size_t)(n > 0 ? n : 1), sizeof(pd_var *));
    o = (pd_tensor **)calloc((size_t)(n > 0 ? n : 1), sizeof(pd_tensor *));
    if (!ovars || !o) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  /* attr_dyn is written as its target in Paddle's form where Paddle has one */
  int dyn_top = -1;
  const pd_compat_def *dyn_c = NULL;
  _Alignas(max_align_t) unsigned char dyn_buf[PD_ATTR_DYN_ARGS_MAX];
  if (s == PD_OK && op == PD_OP_ATTR_DYN) s = attr_dyn_compat(use, &dyn_top, dyn_buf, &dyn_c);
  if (s == PD_OK) {
    const pd_compat_def *c = dyn_c ? dyn_c : pd_compat_for_op(op);
    char base[256];
    /* a custom operator's variables are named after it, as Paddle names them */
    const char *bt = op == PD_OP_CUSTOM_OP ? ((const pd_custom_op_args *)use)->op_type : NULL;
    s = pd_unique_name(bt ? bt : c ? c->type : d->name, base, sizeof base);
    /* a name counted afresh (unique_name.guard) may be taken in this program already: a new op's
     * outputs never alias an existing variable, so take the next free count */
    for (int tries = 0; s == PD_OK && n > 0 && tries < 1000; tries++) {
      char probe[300];
      snprintf(probe, sizeof probe, "%s.tmp_0", base);
      if (!pd_block_find_var_recursive(b, probe)) break;
      s = pd_unique_name(bt ? bt : c ? c->type : d->name, base, sizeof base);
    }
    for (int k = 0; s == PD_OK && k < n; k++) {
      if (k == 0 && (d->flags & PD_OP_INPLACE) && first && first->var) {
        ovars[0] = first->var;
        continue;
      }
      char name[300];
      snprintf(name, sizeof name, "%s.tmp_%d", base, k);
      pd_var *v;
      s = pd_block_var(b, name, &v);
      if (s != PD_OK) break;
      const pd_meta *m = &ml.m[k];
      v->dtype = m->dtype;
      v->ndim = m->ndim < 0 ? 0 : m->ndim;
      for (int dd = 0; dd < v->ndim; dd++) v->dims[dd] = m->shape[dd] < 0 ? -1 : m->shape[dd];
      v->stop_gradient = !(need_grad && is_diff(m->dtype));
      ovars[k] = v;
    }
  }
  if (s == PD_OK) {
    pd_opdesc *od;
    s = pd_block_append_op(b, &od);
    if (s == PD_OK) {
      const pd_compat_def *c = dyn_c ? dyn_c : pd_compat_for_op(op);
      s = dyn_c ? fill_attr_dyn(od, use, dyn_top, dyn_buf, ovars, n, c) : fill_opdesc(od, op, use, ovars, n, c);
      if (s == PD_ERR_UNIMPLEMENTED && c) {
        /* this call of the op has no Paddle form (the custom writer says why): the op is
         * recorded in our own form, as ops without a compat entry are */
        pd_clear_error();
        pd_block_remove_ops(b, b->n_ops - 1, b->n_ops);
        c = NULL;
        s = pd_block_append_op(b, &od);
        if (s == PD_OK) s = fill_opdesc(od, op, use, ovars, n, NULL);
        else od = NULL;
      }
      if (s == PD_OK && c && c->n_dummy) {
        char base[256];
        snprintf(base, sizeof base, "%s", n > 0 ? ovars[0]->name : c->type);
        char *dot = strstr(base, ".tmp_");
        if (dot) *dot = 0;
        s = add_dummies(b, od, c, base, first);
      }
      if (s != PD_OK && od) pd_block_remove_ops(b, b->n_ops - 1, b->n_ops);
    }
  }
  for (int k = 0; s == PD_OK && k < n; k++) {
    s = pd_var_tensor(ovars[k], &o[k]);
    if (s == PD_OK && !(k == 0 && (d->flags & PD_OP_INPLACE))) o[k]->stop_gradient = ovars[k]->stop_gradient;
  }
  pd_meta_list_free(&ml);
  for (int i = 0; i < n_consts; i++) pd_tensor_release(consts[i]);
  free(consts);
  free(lists);
  free(copy);
  free(ovars);
  if (s != PD_OK) {
    for (int k = 0; k < n; k++) pd_tensor_release(o ? o[k] : NULL);
    free(o);
    return s;
  }
  if (outs) {
    if (*n_out == -4 && n <= 4) {
      for (int k = 0; k < n; k++) (*outs)[k] = o[k];
      free(o);
    } else {
      *outs = o;
    }
    *n_out = n;
  } else {
    for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
    free(o);
  }
  return PD_OK;
}
