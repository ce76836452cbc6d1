/* Custom operators (custom_op.h): the registry, library loading, and the generic op custom_op
 * (ops/custom.yaml) whose infer_meta and kernel call the user's functions. */
#include "custom_op.h"
#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_op.h"
#include "generated/pd_ops_gen.h"
#include "../core/pd_pool.h"

#define MAX_OPS 4096
#define MAX_SLOTS 64

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pd_custom_entry *g_ops[MAX_OPS];
/* fork() must not copy the registry's lock held (priority 103: see conv_dnnl.c) */
static void custom_prefork(void) { pthread_mutex_lock(&g_mu); }
static void custom_postfork(void) { pthread_mutex_unlock(&g_mu); }
__attribute__((constructor(103))) static void custom_atfork_init(void) {
  pthread_atfork(custom_prefork, custom_postfork, custom_postfork);
}
static int g_n;
static int g_global_scanned; /* PD_CustomOpLibrary of the global scope looked up once */

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

static const pd_custom_entry *find_locked(const char *type) {
  for (int i = 0; i < g_n; i++)
    if (strcmp(g_ops[i]->name, type) == 0) return g_ops[i];
  return NULL;
}

static void entry_free(pd_custom_entry *e) {
  if (!e) return;
  for (int i = 0; e->inputs && i < e->n_inputs; i++) free(e->inputs[i]);
  for (int i = 0; e->outputs && i < e->n_outputs; i++) free(e->outputs[i]);
  for (int i = 0; e->attr_names && i < e->n_attrs; i++) free(e->attr_names[i]);
  free(e->inputs);
  free(e->outputs);
  free(e->attr_names);
  free(e->attr_kinds);
  free(e->name);
  free(e->library);
  free(e);
}

static int ident_ok(const char *s) {
  if (!s || !*s || strlen(s) > 200) return 0;
  for (const char *p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '@' || *p == '.')) return 0;
  return 1;
}

static char **copy_names(const char *op, const char *what, const char *const *src, int n, pd_status *st) {
  char **d = (char **)calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (!d) {
    *st = oom();
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    if (!src || !ident_ok(src[i])) {
      *st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: %s name %d is missing or not a plain name",
                         op, what, i);
      return d;
    }
    if (!(d[i] = strdup(src[i]))) {
      *st = oom();
      return d;
    }
  }
  return d;
}

/* "name: type" -> name, kind */
static pd_status parse_attr(const char *op, const char *spec, char **name, pd_custom_attr_kind *kind) {
  const char *colon = spec ? strchr(spec, ':') : NULL;
  if (!colon)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: attribute %s: expected \"name: type\"", op,
                        spec ? spec : "(null)");
  size_t nl = (size_t)(colon - spec);
  while (nl && isspace((unsigned char)spec[nl - 1])) nl--;
  const char *t = colon + 1;
  while (isspace((unsigned char)*t)) t++;
  char ty[32];
  size_t tl = strlen(t);
  while (tl && isspace((unsigned char)t[tl - 1])) tl--;
  if (tl >= sizeof ty) tl = sizeof ty - 1;
  memcpy(ty, t, tl);
  ty[tl] = 0;
  if (strcmp(ty, "int") == 0) *kind = PD_CATTR_INT;
  else if (strcmp(ty, "int64_t") == 0 || strcmp(ty, "int64") == 0) *kind = PD_CATTR_INT64;
  else if (strcmp(ty, "float") == 0 || strcmp(ty, "double") == 0) *kind = PD_CATTR_FLOAT;
  else if (strcmp(ty, "bool") == 0) *kind = PD_CATTR_BOOL;
  else
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[custom_op] %s: attribute %s has type %s; supported: int, int64, "
                        "float, bool", op, spec, ty);
  *name = (char *)malloc(nl + 1);
  if (!*name) return oom();
  memcpy(*name, spec, nl);
  (*name)[nl] = 0;
  if (!ident_ok(*name))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: attribute name in \"%s\" is not a plain name", op,
                        spec);
  return PD_OK;
}

static pd_status entry_new(const PD_CustomOp *d, const char *library, pd_custom_entry **out) {
  *out = NULL;
  if (!ident_ok(d->name))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] an operator of %s has no valid name", library);
  if (d->n_inputs < 1 || d->n_inputs > MAX_SLOTS || d->n_outputs < 1 || d->n_outputs > MAX_SLOTS ||
      d->n_attrs < 0 || d->n_attrs > MAX_SLOTS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: expected 1..%d inputs and outputs and at most %d "
                        "attributes, received %d inputs, %d outputs, %d attributes", d->name, MAX_SLOTS, MAX_SLOTS,
                        d->n_inputs, d->n_outputs, d->n_attrs);
  if (!d->forward)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s has no forward function", d->name);
  pd_custom_entry *e = (pd_custom_entry *)calloc(1, sizeof *e);
  if (!e) return oom();
  pd_status st = PD_OK;
  e->name = strdup(d->name);
  e->library = strdup(library ? library : "(registered)");
  if (!e->name || !e->library) st = oom();
  e->n_inputs = d->n_inputs;
  e->n_outputs = d->n_outputs;
  e->n_attrs = d->n_attrs;
  if (st == PD_OK) e->inputs = copy_names(d->name, "input", d->inputs, d->n_inputs, &st);
  if (st == PD_OK) e->outputs = copy_names(d->name, "output", d->outputs, d->n_outputs, &st);
  if (st == PD_OK) {
    e->attr_names = (char **)calloc((size_t)(d->n_attrs + 1), sizeof(char *));
    e->attr_kinds = (pd_custom_attr_kind *)calloc((size_t)(d->n_attrs + 1), sizeof(pd_custom_attr_kind));
    if (!e->attr_names || !e->attr_kinds) st = oom();
  }
  for (int i = 0; st == PD_OK && i < d->n_attrs; i++)
    st = parse_attr(d->name, d->attrs ? d->attrs[i] : NULL, &e->attr_names[i], &e->attr_kinds[i]);
  e->infer = d->infer;
  e->forward = d->forward;
  e->backward = d->backward;
  if (st != PD_OK) {
    entry_free(e);
    return st;
  }
  *out = e;
  return PD_OK;
}

pd_status pd_custom_register_table(const PD_CustomOpTable *t, const char *library, int *n_new) {
  if (n_new) *n_new = 0;
  if (!t) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: no operator table", library);
  if (t->abi_version != PD_EXT_ABI_VERSION)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s was built for custom-operator ABI %d, this Paddle-C "
                        "has ABI %d: rebuild it against this pd_extension.h", library, t->abi_version,
                        PD_EXT_ABI_VERSION);
  if (t->n_ops < 1 || t->n_ops > MAX_OPS || !t->ops)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] %s: expected 1..%d operators in its table, received %d",
                        library, MAX_OPS, t->n_ops);
  pd_custom_entry **made = (pd_custom_entry **)calloc((size_t)t->n_ops, sizeof *made);
  if (!made) return oom();
  pd_status st = PD_OK;
  for (int i = 0; st == PD_OK && i < t->n_ops; i++) st = entry_new(&t->ops[i], library, &made[i]);
  pthread_mutex_lock(&g_mu);
  for (int i = 0; st == PD_OK && i < t->n_ops; i++) {
    const pd_custom_entry *old = find_locked(made[i]->name);
    for (int j = 0; st == PD_OK && j < i; j++)
      if (made[j] && strcmp(made[j]->name, made[i]->name) == 0)
        st = pd_set_error(PD_ERR_ALREADY_EXISTS, "[custom_op] %s defines %s twice", library, made[i]->name);
    if (st == PD_OK && old && old->forward != made[i]->forward)
      st = pd_set_error(PD_ERR_ALREADY_EXISTS, "[custom_op] an operator named %s is already registered (from %s)",
                        made[i]->name, old->library);
    if (st == PD_OK && !old && pd_op_lookup(made[i]->name) >= 0)
      st = pd_set_error(PD_ERR_ALREADY_EXISTS, "[custom_op] %s: %s is the name of a built-in operator", library,
                        made[i]->name);
  }
  if (st == PD_OK) {
    int add = 0;
    for (int i = 0; i < t->n_ops; i++)
      if (!find_locked(made[i]->name)) add++;
    if (g_n + add > MAX_OPS) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[custom_op] more than %d operators", MAX_OPS);
  }
  if (st == PD_OK)
    for (int i = 0; i < t->n_ops; i++)
      if (!find_locked(made[i]->name)) {
        g_ops[g_n++] = made[i];
        made[i] = NULL;
        if (n_new) (*n_new)++;
      }
  pthread_mutex_unlock(&g_mu);
  for (int i = 0; i < t->n_ops; i++) entry_free(made[i]);
  free(made);
  return st;
}

typedef const PD_CustomOpTable *(*table_fn)(void);

pd_status pd_custom_load_library(const char *path, const PD_CustomOpTable **table) {
  if (table) *table = NULL;
  if (!path || !*path) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] no library path given");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *m = dlerror();
    return pd_set_error(PD_ERR_NOT_FOUND, "[custom_op] cannot load the operator library %s: %s", path,
                        m ? m : "dlopen failed");
  }
  table_fn f;
  void *sym = dlsym(h, "PD_CustomOpLibrary");
  memcpy(&f, &sym, sizeof f);
  if (!f)
    return pd_set_error(PD_ERR_NOT_FOUND, "[custom_op] %s has no operator table: define one with "
                        "PD_CUSTOM_OP_LIBRARY(table) (pd_extension.h)", path);
  const PD_CustomOpTable *t = f();
  PD_TRY(pd_custom_register_table(t, path, NULL));
  if (table) *table = t;
  return PD_OK; /* the handle stays open: the registered functions live in it */
}

static void scan_global(void) {
  int scanned;
  pthread_mutex_lock(&g_mu);
  scanned = g_global_scanned;
  g_global_scanned = 1;
  pthread_mutex_unlock(&g_mu);
  if (scanned) return;
  table_fn f;
  void *sym = dlsym(RTLD_DEFAULT, "PD_CustomOpLibrary");
  memcpy(&f, &sym, sizeof f);
  if (!f) return;
  if (pd_custom_register_table(f(), "(linked into the program)", NULL) != PD_OK) pd_clear_error();
}

const pd_custom_entry *pd_custom_find(const char *type) {
  if (!type) return NULL;
  pthread_mutex_lock(&g_mu);
  const pd_custom_entry *e = find_locked(type);
  pthread_mutex_unlock(&g_mu);
  if (e) return e;
  scan_global();
  pthread_mutex_lock(&g_mu);
  e = find_locked(type);
  pthread_mutex_unlock(&g_mu);
  return e;
}

const pd_custom_entry *pd_custom_find_grad(const char *type) {
  size_t n = type ? strlen(type) : 0;
  if (n <= 5 || n > 250 || strcmp(type + n - 5, "_grad") != 0) return NULL;
  char base[256];
  memcpy(base, type, n - 5);
  base[n - 5] = 0;
  return pd_custom_find(base);
}

/* ---------------------------------------------------------------- the op custom_op */
static pd_status need_entry(const pd_custom_op_args *a, const pd_custom_entry **e) {
  *e = pd_custom_find(a->op_type);
  if (!*e)
    return pd_set_error(PD_ERR_NOT_FOUND, "[custom_op] no custom operator named %s is loaded: load its library "
                        "first (paddle.utils.cpp_extension.load, or PD_LoadCustomOpLibrary in C)",
                        a->op_type ? a->op_type : "(null)");
  int want = a->grad ? (*e)->n_inputs + 2 * (*e)->n_outputs : (*e)->n_inputs;
  if (a->x.n != want)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s%s] expected %d input tensors, received %lld", (*e)->name,
                        a->grad ? "_grad" : "", want, (long long)a->x.n);
  if (a->attrs.n != (*e)->n_attrs)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %d attributes, received %lld", (*e)->name,
                        (*e)->n_attrs, (long long)a->attrs.n);
  for (int i = 0; i < (*e)->n_attrs; i++) {
    double v = a->attrs.data[i];
    pd_custom_attr_kind k = (*e)->attr_kinds[i];
    if (k != PD_CATTR_FLOAT && (v != floor(v) || !isfinite(v)))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected an integer, received %g",
                          (*e)->name, (*e)->attr_names[i], v);
    if (k == PD_CATTR_INT && (v < -2147483648.0 || v > 2147483647.0))
      return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] attribute %s: %g does not fit an int", (*e)->name,
                          (*e)->attr_names[i], v);
  }
  for (int64_t i = 0; i < a->x.n; i++)
    if (!a->x.data[i])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %lld is None", (*e)->name, (long long)i);
  return PD_OK;
}

static void ext_from(const pd_tensor *t, PD_ExtTensor *x) {
  memset(x, 0, sizeof *x);
  x->dtype = (int)t->dtype;
  x->ndim = t->ndim;
  x->numel = 1;
  for (int d = 0; d < t->ndim; d++) {
    x->shape[d] = t->shape[d];
    if (t->shape[d] < 0) x->numel = -1;
    else if (x->numel >= 0) x->numel *= t->shape[d];
  }
  x->data = t->storage ? pd_tensor_data(t) : NULL;
}

static void ctx_init(PD_ExtContext *c, const pd_custom_op_args *a, PD_ExtTensor *ins, PD_ExtTensor *outs, int no,
                     char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->ins = ins;
  c->n_ins = (int)a->x.n;
  c->outs = outs;
  c->n_outs = no;
  c->attrs = a->attrs.data;
  c->n_attrs = (int)a->attrs.n;
  c->error = err;
  c->error_cap = cap;
  c->num_threads = pd_pool_threads();
  err[0] = 0;
}

static pd_status user_failed(const pd_custom_entry *e, const char *what, int rc, const char *err) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] its %s function failed (returned %d): %s", e->name, what, rc,
                      err[0] ? err : "no message");
}

pd_status pd_infer_custom_op(const void *args, pd_meta_list *out) {
  const pd_custom_op_args *a = (const pd_custom_op_args *)args;
  const pd_custom_entry *e;
  PD_TRY(need_entry(a, &e));
  int no = a->grad ? e->n_inputs : e->n_outputs;
  if (!pd_meta_list_resize(out, no)) return oom();
  if (a->grad) { /* the inputs' gradients: like the inputs */
    for (int i = 0; i < no; i++) pd_meta_like(&out->m[i], a->x.data[i]);
    return PD_OK;
  }
  PD_ExtTensor ins[MAX_SLOTS], outs[MAX_SLOTS];
  for (int i = 0; i < e->n_inputs; i++) ext_from(a->x.data[i], &ins[i]);
  for (int i = 0; i < no; i++) {
    outs[i] = ins[0];
    outs[i].data = NULL;
  }
  if (e->infer) {
    char err[512];
    PD_ExtContext c;
    ctx_init(&c, a, ins, outs, no, err, sizeof err);
    for (int i = 0; i < e->n_inputs; i++) ins[i].data = NULL;
    int rc = e->infer(&c);
    if (rc != 0) return user_failed(e, "infer", rc, err);
  }
  for (int i = 0; i < no; i++) {
    const PD_ExtTensor *o = &outs[i];
    if (o->ndim < 0 || o->ndim > PD_EXT_MAX_DIMS || !pd_dtype_is_valid(o->dtype))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] its infer function gave output %s ndim %d dtype %d: "
                          "expected 0..%d dims and a PD_ExtDataType", e->name, e->outputs[i], o->ndim, o->dtype,
                          PD_EXT_MAX_DIMS);
    for (int d = 0; d < o->ndim; d++)
      if (o->shape[d] < -1)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] its infer function gave output %s a dim %lld",
                            e->name, e->outputs[i], (long long)o->shape[d]);
    pd_meta_set(&out->m[i], (pd_dtype)o->dtype, o->ndim, o->shape);
  }
  return PD_OK;
}

static pd_status kernel(const void *args, pd_tensor **out, int n_out) {
  const pd_custom_op_args *a = (const pd_custom_op_args *)args;
  const pd_custom_entry *e;
  PD_TRY(need_entry(a, &e));
  int ni = (int)a->x.n;
  if (a->grad && !e->backward)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s_grad] the operator has no backward function", e->name);
  pd_tensor *cin[3 * MAX_SLOTS];
  PD_ExtTensor ins[3 * MAX_SLOTS], outs[MAX_SLOTS];
  pd_status st = PD_OK;
  int made = 0;
  for (; made < ni && st == PD_OK; made++) {
    st = pd_tensor_contiguous(a->x.data[made], &cin[made]);
    if (st != PD_OK) break;
    if (!cin[made]->storage) {
      pd_tensor_release(cin[made]);
      st = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] input %d has no data", e->name, made);
      break;
    }
    ext_from(cin[made], &ins[made]);
  }
  for (int i = 0; st == PD_OK && i < n_out; i++) {
    if (!out[i])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] output %d has an unknown shape after infer: the infer function "
                        "must give every dim", e->name, i);
    else ext_from(out[i], &outs[i]);
  }
  if (st == PD_OK) {
    char err[1024];
    PD_ExtContext c;
    ctx_init(&c, a, ins, outs, n_out, err, sizeof err);
    int rc = a->grad ? e->backward(&c) : e->forward(&c);
    if (rc != 0) st = user_failed(e, a->grad ? "backward" : "forward", rc, err);
  }
  for (int i = 0; i < made; i++) pd_tensor_release(cin[i]);
  return st;
}

#define K(sfx) \
  pd_status pd_kernel_custom_op_##sfx(const void *args, pd_tensor **out, int n_out) { return kernel(args, out, n_out); }
K(bool) K(u8) K(i8) K(i16) K(i32) K(i64) K(f16) K(bf16) K(f32) K(f64) K(c64) K(c128)
#undef K
