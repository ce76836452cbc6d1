/* The generic op runner: infer_meta, output allocation, kernel selection by dtype through
 * pd_op_defs (op x dtype -> kernel), then the autograd hook. Nothing here switches on an op.
 * The bottom of the op layer: the entry pd_op_run (op_entry.c: promotion, the tracer,
 * auto_cast) and AMP (amp.c) call pd_op_run_noamp here; this file calls neither. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "pd_runner.h"
#include "../core/pd_pool.h"
#include "../core/pd_prof.h"
#include "../core/pd_device.h"
#include "gpu_dispatch.h"

pd_autograd_record_fn pd_autograd_record = NULL;
int pd_set_to_1d = 1; /* the API level (FLAGS_set_to_1d): see pd_op.h */
_Thread_local int pd_scalar_keep_0d = 0;
static pd_status pd_op_run_impl(int op, const void *args, pd_tensor ***outs, int *n_out, int record,
                                pd_tensor *const *pre, int n_pre);

pd_meta *pd_meta_list_resize(pd_meta_list *l, int n) {
  if (n <= 4) {
    l->m = l->inline_m;
  } else {
    pd_meta *m = (pd_meta *)malloc(sizeof(pd_meta) * (size_t)n);
    if (!m) return NULL;
    l->m = m;
  }
  l->n = n;
  return l->m;
}

void pd_meta_list_free(pd_meta_list *l) {
  if (l->m && l->m != l->inline_m) free(l->m);
  l->m = l->inline_m;
  l->n = 0;
}

pd_status pd_check_same_dtype(const char *op, const char *na, const pd_tensor *a, const char *nb,
                              const pd_tensor *b) {
  if (a->dtype == b->dtype) return PD_OK;
  return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                      "[%s] expected %s and %s to have the same dtype, but received %s: %s and "
                      "%s: %s",
                      op, na, nb, na, pd_dtype_name(a->dtype), nb, pd_dtype_name(b->dtype));
}

pd_status pd_check_not_null(const char *op, const char *name, const pd_tensor *t) {
  if (t) return PD_OK;
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %s is required, received None", op,
                      name);
}

static const pd_tensor *arg_tensor(const pd_op_def *d, const void *args, int i) {
  const pd_arg_def *a = &d->args[i];
  const char *p = (const char *)args + a->offset;
  if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) return *(pd_tensor *const *)p;
  if (a->kind == PD_ARG_TENSOR_LIST) {
    const pd_tensor_list *l = (const pd_tensor_list *)p;
    return l->n > 0 ? l->data[0] : NULL;
  }
  return NULL;
}

static pd_status unsupported_dtype(const pd_op_def *d, pd_dtype dt) {
  char buf[256];
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < PD_NUM_DTYPES && k < sizeof buf; i++)
    if (d->kernels[i])
      k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", k ? ", " : "",
                            pd_dtype_name((pd_dtype)i));
  /* Paddle's class for a dtype without a kernel is NotFound ("The kernel with key (CPU, ...,
   * int32) of kernel `sin` is not registered"); the Python exception is a RuntimeError (Paddle's)
   * that is also a TypeError (csrc/python/convert.c) */
  return pd_set_error(PD_ERR_TYPE, "(NotFound) [%s] the data type %s is not supported (the kernel with key "
                      "(CPU, Undefined(AnyLayout), %s) of kernel `%s` is not registered); expected one of: %s",
                      d->name, pd_dtype_name(dt), pd_dtype_name(dt), d->name, buf);
}

/* Paddle selects an op's kernel before it checks the arguments (its generated API: kernel key,
 * then InferMeta), so a dtype with no kernel is NotFound (RuntimeError) even where the arguments
 * are wrong too (x and y of two dtypes, bad shapes). Its key is the dtype of the op's last
 * tensor input unless the op names one: for the elementwise ops (x, y of one dtype: the binary
 * and compare rules) y's dtype, or complex where an operand is complex (complex128 with a
 * complex128 or float64 operand), elsewhere the argument our kernel table is indexed by. 0 when
 * the key is known only after infer_meta (the output's dtype) or the dtype is served through
 * promotion. */
static int paddle_kernel_key(const pd_op_def *d, const void *args, pd_dtype *key) {
  const pd_tensor *t = NULL;
  if (d->infer_meta == pd_infer_binary || d->infer_meta == pd_infer_compare) {
    const pd_tensor *x = arg_tensor(d, args, 0);
    t = arg_tensor(d, args, 1);
    if (!x || !t) return 0;
    if (pd_dtype_is_complex(x->dtype) || pd_dtype_is_complex(t->dtype)) { /* a complex operand wins */
      int wide = x->dtype == PD_COMPLEX128 || t->dtype == PD_COMPLEX128 || x->dtype == PD_FLOAT64 ||
                 t->dtype == PD_FLOAT64;
      *key = wide ? PD_COMPLEX128 : PD_COMPLEX64;
      return 1;
    }
  } else if (d->dtype_arg >= 0) {
    t = arg_tensor(d, args, d->dtype_arg);
  }
  if (!t) return 0;
  /* true division takes integers and bool through promotion (to float32), with no kernel */
  if ((d->flags & PD_OP_TRUEDIV) && (t->dtype == PD_BOOL || pd_dtype_is_int(t->dtype))) return 0;
  *key = t->dtype;
  return 1;
}

/* Makes the last error start with "[op]": rules shared by many ops (infer_meta, iterators)
 * name a family ("[elementwise]"); the user should see the op they called. */
pd_status pd_op_name_error(const pd_op_def *d, pd_status s) {
  const char *m = pd_last_error();
  size_t n = strlen(d->name);
  if (m[0] == '[' && strncmp(m + 1, d->name, n) == 0 && m[n + 1] == ']') return s;
  if (m[0] == '(') return s; /* "(NotFound) [op] ...": tagged where it was raised, op named */
  char buf[2048];
  const char *rest = m;
  if (m[0] == '[') {
    const char *e = strchr(m, ']');
    if (e) rest = e + 1 + (e[1] == ' ');
  }
  snprintf(buf, sizeof buf, "%s", rest);
  return pd_set_error(s, "[%s] %s", d->name, buf);
}

pd_status pd_op_run_noamp(int op, const void *args, pd_tensor ***outs, int *n_out) {
  pd_status st = pd_op_run_impl(op, args, outs, n_out, 1, NULL, 0);
  if (st != PD_OK && op >= 0 && op < pd_num_ops) return pd_op_name_error(&pd_op_defs[op], st);
  return st;
}

pd_status pd_op_exec(int op, const void *args, pd_tensor ***outs, int *n_out) {
  return pd_op_exec_into(op, args, NULL, 0, outs, n_out);
}

pd_status pd_op_exec_into(int op, const void *args, pd_tensor *const *pre, int n_pre, pd_tensor ***outs,
                          int *n_out) {
  pd_status st = pd_op_run_impl(op, args, outs, n_out, 0, pre, n_pre);
  if (st != PD_OK && op >= 0 && op < pd_num_ops) return pd_op_name_error(&pd_op_defs[op], st);
  return st;
}

static int fits(const pd_tensor *t, const pd_meta *m) {
  if (!t || t->dtype != m->dtype || t->ndim != m->ndim || t->offset != 0 || !t->storage) return 0;
  for (int j = 0; j < m->ndim; j++)
    if (t->shape[j] != m->shape[j]) return 0;
  return (size_t)t->numel * pd_dtype_size(t->dtype) <= t->storage->nbytes && pd_tensor_is_contiguous(t);
}

/* ---- profiler (pd_prof.h): the op body is compiled twice, without marks (profiler off: the
 * only cost is the pd_prof_on branch in pd_op_run_impl) and with them ---- */
enum { MK_INFER0, MK_INFER1, MK_KERNEL0, MK_KERNEL1, MK_RECORD1, MK_N };
#define MARK(i) do { if (marks) marks[i] = pd_prof_now_ns(); } while (0)

/* a bounded string builder (snprintf costs ~100 ns a call: too much per profiled op) */
typedef struct {
  char *p;
  size_t k, cap; /* cap: room for text, the caller keeps a few bytes after it */
  int ok;
} prof_sb;

static void sb_str(prof_sb *b, const char *s) {
  size_t n = strlen(s);
  if (!b->ok || b->k + n > b->cap) {
    b->ok = 0;
    return;
  }
  memcpy(b->p + b->k, s, n);
  b->k += n;
}

static void sb_int(prof_sb *b, long long v) {
  char t[24];
  int i = 24;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  t[--i] = 0;
  do {
    t[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) t[--i] = '-';
  sb_str(b, t + i);
}

/* a double as JSON without snprintf: integer part and 9 rounded decimals; 0 when it cannot be
 * written that way (not finite, or |v| >= 1e15), and the caller leaves the attribute out */
static int sb_double(prof_sb *b, double v) {
  if (!(v == v) || v >= 1e15 || v <= -1e15) return 0;
  if (v < 0) {
    sb_str(b, "-");
    v = -v;
  }
  long long ip = (long long)v;
  long long fr = (long long)((v - (double)ip) * 1e9 + 0.5);
  if (fr >= 1000000000ll) ip += 1, fr -= 1000000000ll;
  sb_int(b, ip);
  char t[11];
  t[0] = '.';
  for (int i = 9; i >= 1; i--, fr /= 10) t[i] = (char)('0' + fr % 10);
  t[10] = 0;
  sb_str(b, t);
  return 1;
}

/* an attribute value as JSON; 0 when it has no plain JSON form (left out) */
static int prof_attr_json(prof_sb *b, const pd_arg_def *a, const char *p) {
  switch (a->kind) {
    case PD_ARG_INT:
      sb_int(b, (long long)*(const int64_t *)p);
      return 1;
    case PD_ARG_BOOL:
      sb_str(b, *(const int *)p ? "true" : "false");
      return 1;
    case PD_ARG_FLOAT:
      return sb_double(b, *(const double *)p);
    case PD_ARG_STR: {
      const char *v = *(const char *const *)p;
      if (!v) {
        sb_str(b, "null");
        return 1;
      }
      for (const char *c = v; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) return 0;
      sb_str(b, "\"");
      sb_str(b, v);
      sb_str(b, "\"");
      return 1;
    }
    case PD_ARG_INT_ARRAY: {
      const pd_int_array *v = (const pd_int_array *)p;
      sb_str(b, "[");
      for (int64_t j = 0; j < v->n && b->ok; j++) {
        if (j) sb_str(b, ", ");
        sb_int(b, (long long)v->data[j]);
      }
      sb_str(b, "]");
      return 1;
    }
    case PD_ARG_FLOAT_ARRAY: {
      const pd_float_array *v = (const pd_float_array *)p;
      sb_str(b, "[");
      for (int64_t j = 0; j < v->n && b->ok; j++) {
        if (j) sb_str(b, ", ");
        if (!sb_double(b, v->data[j])) return 0;
      }
      sb_str(b, "]");
      return 1;
    }
    default: /* Scalar, DataType: not needed by the summaries */
      return 0;
  }
}

/* {"input_shapes": {"x": [[2, 3]], ...}, "input_dtypes": {"x": ["float32"], ...},
 * "attributes": {"transpose_x": false, ...}}: tensor-list arguments list every tensor; the
 * attributes are the op's int / bool / float / str / int[] / float[] arguments (what
 * with_flops needs: Paddle's FLOPs formulas read the shapes and the attributes); an argument
 * that does not fit in buf is left out (JSON kept valid) */
static void prof_args_json(const pd_op_def *d, const void *args, char *buf, size_t cap) {
  prof_sb b = {buf, 0, cap - 8, 1};
  static const char *const head[] = {"{\"input_shapes\": {", ", \"input_dtypes\": {", ", \"attributes\": {"};
  for (int pass = 0; pass < 3; pass++) {
    sb_str(&b, head[pass]);
    if (!b.ok) break;
    int first = 1;
    for (int i = 0; i < d->n_args; i++) {
      const pd_arg_def *a = &d->args[i];
      const char *p = (const char *)args + a->offset;
      pd_tensor *const *ts;
      int64_t nt;
      pd_tensor *one;
      int is_tensor = a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT || a->kind == PD_ARG_TENSOR_LIST;
      if (pass == 2) {
        if (is_tensor) continue;
        size_t mark = b.k;
        if (!first) sb_str(&b, ", ");
        sb_str(&b, "\"");
        sb_str(&b, a->name);
        sb_str(&b, "\": ");
        if (prof_attr_json(&b, a, p) && b.ok) {
          first = 0;
        } else {
          b.k = mark;
          b.ok = 1;
        }
        continue;
      }
      if (a->kind == PD_ARG_TENSOR || a->kind == PD_ARG_TENSOR_OPT) {
        one = *(pd_tensor *const *)p;
        if (!one) continue;
        ts = &one;
        nt = 1;
      } else if (a->kind == PD_ARG_TENSOR_LIST) {
        ts = ((const pd_tensor_list *)p)->data;
        nt = ((const pd_tensor_list *)p)->n;
      } else {
        continue;
      }
      size_t mark = b.k;
      if (!first) sb_str(&b, ", ");
      sb_str(&b, "\"");
      sb_str(&b, a->name);
      sb_str(&b, "\": [");
      for (int64_t j = 0; b.ok && j < nt; j++) {
        const pd_tensor *t = ts[j];
        if (j) sb_str(&b, ", ");
        if (pass) {
          sb_str(&b, "\"");
          sb_str(&b, t ? pd_dtype_name(t->dtype) : "None");
          sb_str(&b, "\"");
          continue;
        }
        sb_str(&b, "[");
        for (int e = 0; t && e < t->ndim; e++) {
          if (e) sb_str(&b, ", ");
          sb_int(&b, (long long)t->shape[e]);
        }
        sb_str(&b, "]");
      }
      sb_str(&b, "]");
      if (b.ok) {
        first = 0;
      } else { /* leave this argument out */
        b.k = mark;
        b.ok = 1;
      }
    }
    b.p[b.k++] = '}'; /* within the 8 bytes kept after cap */
  }
  if (!b.ok) b.k = 0, b.p[b.k++] = '{';
  b.p[b.k++] = '}';
  b.p[b.k] = 0;
}

/* dst = a + sep + b, truncated to n bytes */
static void prof_name(char *dst, size_t n, const char *a, const char *sep, const char *b) {
  prof_sb s = {dst, 0, n - 1, 1};
  sb_str(&s, a);
  sb_str(&s, sep);
  sb_str(&s, b);
  if (!s.ok) {
    size_t la = strlen(a);
    s.k = la < n - 1 ? la : n - 1;
    memcpy(dst, a, s.k);
  }
  dst[s.k] = 0;
}

static inline __attribute__((always_inline)) pd_status op_run_body(int op, const void *args, pd_tensor ***outs, int *n_out,
                                                                   int record, pd_tensor *const *pre, int n_pre,
                                                                   int64_t *marks);

static __attribute__((noinline)) pd_status op_run_profiled(int op, const void *args, pd_tensor ***outs, int *n_out,
                                                           int record, pd_tensor *const *pre, int n_pre) {
  int64_t marks[MK_N] = {0, 0, 0, 0, 0};
  const pd_op_def *d = &pd_op_defs[op];
  char argbuf[1536];
  prof_args_json(d, args, argbuf, sizeof argbuf); /* before: in-place ops change their input */
  int h = pd_prof_begin(PD_PROF_OPERATOR, pd_prof_now_ns());
  pd_status s = op_run_body(op, args, outs, n_out, record, pre, n_pre, marks);
  char name[160];
  prof_name(name, sizeof name, d->name, record ? " " : "", record ? "dygraph" : "");
  pd_prof_end(h, name, argbuf);
  if (!pd_prof_on) return s;
  static const char *const phase[] = {"infer_meta", "compute", "node_creation"};
  for (int i = 0; i < 3; i++) {
    int64_t a = marks[i == 0 ? MK_INFER0 : i == 1 ? MK_KERNEL0 : MK_KERNEL1];
    int64_t b = marks[i == 0 ? MK_INFER1 : i == 1 ? MK_KERNEL1 : MK_RECORD1];
    if (!a || !b) continue;
    prof_name(name, sizeof name, d->name, " ", phase[i]);
    pd_prof_record(PD_PROF_OPERATOR_INNER, name, a, b, NULL);
  }
  return s;
}

static pd_status pd_op_run_impl(int op, const void *args, pd_tensor ***outs, int *n_out, int record,
                                pd_tensor *const *pre, int n_pre) {
  if (op < 0 || op >= pd_num_ops) return pd_set_error(PD_ERR_NOT_FOUND, "unknown op id %d", op);
  if (__builtin_expect(pd_prof_on != 0, 0)) return op_run_profiled(op, args, outs, n_out, record, pre, n_pre);
  return op_run_body(op, args, outs, n_out, record, pre, n_pre, NULL);
}

static inline __attribute__((always_inline)) pd_status op_run_body(int op, const void *args, pd_tensor ***outs, int *n_out,
                                                                   int record, pd_tensor *const *pre, int n_pre,
                                                                   int64_t *marks) {
  const pd_op_def *d = &pd_op_defs[op];
  int64_t work = 0; /* the largest input or output: below PD_POOL_SMALL a kernel never splits */
  for (int i = 0; i < d->n_args; i++) {
    const pd_arg_def *a = &d->args[i];
    const char *p = (const char *)args + a->offset;
    if (a->kind == PD_ARG_TENSOR) {
      const pd_tensor *t = *(pd_tensor *const *)p;
      if (!t) return pd_check_not_null(d->name, a->name, t);
      if (t->numel > work) work = t->numel;
      if (!t->storage)
        return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] input %s holds no data", d->name,
                            a->name);
    } else if (a->kind == PD_ARG_TENSOR_LIST) {
      const pd_tensor_list *l = (const pd_tensor_list *)p;
      for (int64_t j = 0; j < l->n; j++)
        if (!l->data[j])
          return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s[%lld] is None", d->name, a->name,
                              (long long)j);
    }
  }
  /* GPU routing: only once the CUDA backend is loaded (until then every tensor is on the CPU) */
  pd_gpu_route route;
  route.dev = PD_CPU;
  route.args = NULL;
  int dev_prev = PD_DEVICE_NONE, on_dev = 0, cpu_then_move = 0;
  if (__builtin_expect(pd_cuda != NULL, 0)) {
    pd_status rs = pd_gpu_route_args(d, args, &route);
    if (rs != PD_OK) return rs;
    if (route.args) args = route.args;
    on_dev = 1;
    if (route.dev >= 0) {
      n_pre = 0; /* the executor's buffers are host memory */
      rs = pd_device_activate(route.dev);
      if (rs != PD_OK) {
        pd_gpu_route_free(&route);
        return rs;
      }
    }
  }
  if (!on_dev) {
    pd_dtype pk;
    if (paddle_kernel_key(d, args, &pk) && !d->kernels[pk]) return unsupported_dtype(d, pk);
  }
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  MARK(MK_INFER0);
  pd_status s = d->infer_meta(args, &ml);
  MARK(MK_INFER1);
  if (s != PD_OK) {
    pd_meta_list_free(&ml);
    if (on_dev) pd_gpu_route_free(&route);
    return s;
  }
  pd_dtype kd;
  if (d->dtype_arg >= 0) {
    const pd_tensor *t = arg_tensor(d, args, d->dtype_arg);
    kd = t ? t->dtype : (ml.n > 0 ? ml.m[0].dtype : PD_FLOAT32);
  } else {
    kd = ml.n > 0 ? ml.m[0].dtype : PD_FLOAT32;
  }
  pd_kernel_fn k = d->kernels[kd];
  if (__builtin_expect(route.dev >= 0, 0)) {
    pd_kernel_fn g = pd_gpu_kernel(op, kd);
    if (g) {
      k = g;
    } else if (k && !route.any_tensor) {
      cpu_then_move = 1; /* a creation op without a GPU kernel: made on the CPU, then moved */
    } else if (k && !(d->flags & PD_OP_VIEW) && pd_gpu_fallback_enabled) {
      /* no GPU kernel: the CPU kernel on host copies (Paddle's kernel fallback) */
      pd_meta_list_free(&ml);
      pd_tensor **fo = NULL;
      int fn = 0;
      s = pd_gpu_fallback(op, args, route.dev, &fo, &fn);
      if (s == PD_OK && (d->flags & PD_OP_INPLACE) && fn > 0) pd_tensor_bump_version(fo[0]);
      if (s == PD_OK && record && pd_autograd_record && !(d->flags & PD_OP_NONDIFF))
        s = pd_autograd_record(op, args, fo, fn);
      pd_gpu_route_free(&route);
      if (s != PD_OK) {
        for (int i = 0; fo && i < fn; i++) pd_tensor_release(fo[i]);
        free(fo);
        return s;
      }
      if (*n_out == -4 && fn <= 4) {
        for (int i = 0; i < fn; i++) (*outs)[i] = fo[i];
        free(fo);
      } else {
        *outs = fo;
      }
      *n_out = fn;
      return PD_OK;
    } else if (!k || !(d->flags & PD_OP_VIEW)) {
      pd_meta_list_free(&ml);
      pd_gpu_route_free(&route);
      return k ? pd_cu_unsupported(d->name, kd) : unsupported_dtype(d, kd);
    } /* view ops: the CPU kernel only makes a view of the same storage */
  }
  if (!k) {
    pd_meta_list_free(&ml);
    if (on_dev) pd_gpu_route_free(&route);
    return unsupported_dtype(d, kd);
  }
  if (on_dev) dev_prev = pd_device_swap_current(cpu_then_move ? PD_CPU : route.dev);
  int n = ml.n;
  pd_tensor **o;
  if (*n_out == -4 && n <= 4) {
    o = *outs;
  } else {
    o = (pd_tensor **)malloc(sizeof(pd_tensor *) * (size_t)(n > 0 ? n : 1));
    if (!o) {
      pd_meta_list_free(&ml);
      if (on_dev) {
        pd_device_swap_current(dev_prev);
        pd_gpu_route_free(&route);
      }
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    }
  }
  for (int i = 0; i < n; i++) o[i] = NULL;
  if (d->flags & PD_OP_INPLACE) {
    pd_tensor *t = (pd_tensor *)arg_tensor(d, args, 0);
    pd_tensor_retain(t);
    o[0] = t;
  } else if (!(d->flags & PD_OP_VIEW)) {
    for (int i = 0; i < n && s == PD_OK; i++) {
      const pd_meta *m = &ml.m[i];
      int known = m->ndim >= 0;
      for (int j = 0; known && j < m->ndim; j++)
        if (m->shape[j] < 0) known = 0;
      if (known && i < n_pre && fits(pre[i], m)) { /* the caller's buffer (the executor's plan) */
        pd_tensor_retain(pre[i]);
        o[i] = pre[i];
      } else if (known) {
        s = pd_tensor_empty(m->dtype, m->ndim, m->shape, &o[i]);
      }
    }
  }
  pd_meta_list_free(&ml);
  if (s == PD_OK) {
    for (int i = 0; i < n; i++)
      if (!o[i] || o[i]->numel > work) work = o[i] ? o[i]->numel : INT64_MAX;
    if (d->n_args > 0 && d->args[0].kind == PD_ARG_TENSOR_LIST) work = INT64_MAX;
    MARK(MK_KERNEL0);
    if (work < PD_POOL_SMALL) {
      s = k(args, o, n); /* too small to split: no pool bookkeeping */
    } else {
      pd_pool_ticket pt = pd_pool_enter(); /* how many pool threads this call may use */
      s = k(args, o, n);
      pd_pool_leave(pt);
    }
    MARK(MK_KERNEL1);
  }
  if (__builtin_expect(on_dev, 0)) {
    pd_device_swap_current(dev_prev);
    if (s == PD_OK && cpu_then_move) {
      for (int i = 0; i < n && s == PD_OK; i++) {
        pd_tensor *g = NULL;
        if (!o[i]) continue;
        s = pd_tensor_to_device(o[i], route.dev, 1, &g);
        if (s == PD_OK) {
          pd_tensor_release(o[i]);
          o[i] = g;
        }
      }
    } else if (s == PD_OK && route.dev >= 0 && pd_cuda_sync_each) {
      s = pd_device_check(d->name, 1);
    }
  }
  if (s == PD_OK) {
    for (int i = 0; i < n; i++)
      if (!o[i]) {
        s = pd_set_error(PD_ERR_FATAL, "[%s] kernel left output %d unset", d->name, i);
        break;
      }
  }
  if (s == PD_OK && (d->flags & PD_OP_INPLACE)) pd_tensor_bump_version(o[0]);
  if (s == PD_OK && (d->flags & PD_OP_VIEW))
    for (int i = 0; i < n; i++) o[i]->is_view = 1;
  if (s == PD_OK && record && pd_autograd_record && !(d->flags & PD_OP_NONDIFF)) {
    s = pd_autograd_record(op, args, o, n);
    MARK(MK_RECORD1);
  }
  if (on_dev) pd_gpu_route_free(&route);
  if (s != PD_OK) {
    for (int i = 0; i < n; i++) pd_tensor_release(o[i]);
    if (o != *outs || *n_out != -4) free(o);
    return s;
  }
  *outs = o;
  *n_out = n;
  return PD_OK;
}
