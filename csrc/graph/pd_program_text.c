/* Program text (print(program), the shape of Paddle's Program.__str__) and Paddle-style unique
 * names (key_N, one counter per key). The name counters are thread-local and stacked so that
 * paddle.utils.unique_name.guard() gives a fresh namespace; Python's unique_name module and the
 * static recorder share them, so layers (linear_0) and op outputs (elementwise_add_0.tmp_0)
 * are numbered as Paddle numbers them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_program.h"
#include "pd_names.h"

/* ---------------------------------------------------------------- unique names */
typedef struct {
  char **keys;
  int64_t *counts;
  int n, cap;
} name_table;

static _Thread_local name_table tl_tables[64];
static _Thread_local int tl_depth = 0; /* index of the current table */

static name_table *cur_table(void) { return &tl_tables[tl_depth]; }

static void table_clear(name_table *t) {
  for (int i = 0; i < t->n; i++) free(t->keys[i]);
  free(t->keys);
  free(t->counts);
  memset(t, 0, sizeof *t);
}

static int64_t *table_slot(name_table *t, const char *key, int create) {
  for (int i = 0; i < t->n; i++)
    if (strcmp(t->keys[i], key) == 0) return &t->counts[i];
  if (!create) return NULL;
  if (t->n == t->cap) {
    int nc = t->cap ? t->cap * 2 : 32;
    char **nk = (char **)realloc(t->keys, sizeof(char *) * (size_t)nc);
    if (!nk) return NULL;
    t->keys = nk;
    int64_t *ncn = (int64_t *)realloc(t->counts, sizeof(int64_t) * (size_t)nc);
    if (!ncn) return NULL;
    t->counts = ncn;
    t->cap = nc;
  }
  size_t L = strlen(key) + 1;
  char *k = (char *)malloc(L);
  if (!k) return NULL;
  memcpy(k, key, L);
  t->keys[t->n] = k;
  t->counts[t->n] = 0;
  return &t->counts[t->n++];
}

pd_status pd_unique_name(const char *key, char *buf, size_t n) {
  int64_t *c = table_slot(cur_table(), key, 1);
  if (!c) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory generating a name");
  snprintf(buf, n, "%s_%" PRId64, key, (*c)++);
  return PD_OK;
}

pd_status pd_unique_name_push(void) {
  if (tl_depth + 1 >= (int)(sizeof tl_tables / sizeof tl_tables[0]))
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "unique_name.guard nested more than 63 deep");
  tl_depth++;
  table_clear(cur_table());
  return PD_OK;
}

void pd_unique_name_pop(void) {
  if (tl_depth == 0) return;
  table_clear(cur_table());
  tl_depth--;
}

int pd_unique_name_count(void) { return cur_table()->n; }

const char *pd_unique_name_entry(int i, int64_t *count) {
  name_table *t = cur_table();
  if (i < 0 || i >= t->n) return NULL;
  *count = t->counts[i];
  return t->keys[i];
}

void pd_unique_name_reset(void) { table_clear(cur_table()); }

pd_status pd_unique_name_set(const char *key, int64_t count) {
  int64_t *c = table_slot(cur_table(), key, 1);
  if (!c) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  *c = count;
  return PD_OK;
}

/* ---------------------------------------------------------------- text */
const char *pd_vartype_name(int vt) {
  switch (vt) {
    case PD_VT_BOOL: return "BOOL";
    case PD_VT_INT16: return "INT16";
    case PD_VT_INT32: return "INT32";
    case PD_VT_INT64: return "INT64";
    case PD_VT_FP16: return "FP16";
    case PD_VT_FP32: return "FP32";
    case PD_VT_FP64: return "FP64";
    case PD_VT_LOD_TENSOR: return "LOD_TENSOR";
    case PD_VT_SELECTED_ROWS: return "SELECTED_ROWS";
    case PD_VT_FEED_MINIBATCH: return "FEED_MINIBATCH";
    case PD_VT_FETCH_LIST: return "FETCH_LIST";
    case PD_VT_STEP_SCOPES: return "STEP_SCOPES";
    case PD_VT_LOD_RANK_TABLE: return "LOD_RANK_TABLE";
    case PD_VT_LOD_TENSOR_ARRAY: return "LOD_TENSOR_ARRAY";
    case PD_VT_PLACE_LIST: return "PLACE_LIST";
    case PD_VT_READER: return "READER";
    case PD_VT_RAW: return "RAW";
    case PD_VT_TUPLE: return "TUPLE";
    case PD_VT_SIZE_T: return "SIZE_T";
    case PD_VT_UINT8: return "UINT8";
    case PD_VT_INT8: return "INT8";
    case PD_VT_BF16: return "BF16";
    case PD_VT_COMPLEX64: return "COMPLEX64";
    case PD_VT_COMPLEX128: return "COMPLEX128";
    case PD_VT_STRING: return "STRING";
    case PD_VT_STRINGS: return "STRINGS";
    case PD_VT_VOCAB: return "VOCAB";
    case PD_VT_FEED_LIST: return "FEED_LIST";
    case PD_VT_PSTRING: return "PSTRING";
    case PD_VT_SPARSE_COO: return "SPARSE_COO";
    case PD_VT_SPARSE_CSR: return "SPARSE_CSR";
    default: return "UNKNOWN";
  }
}

typedef struct {
  char *p;
  size_t n, cap;
  int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)k < b->cap - b->n) {
      b->n += (size_t)k;
      return;
    }
    size_t nc = (b->cap + (size_t)k + 1) * 2;
    char *np = (char *)realloc(b->p, nc);
    if (!np) {
      b->failed = 1;
      return;
    }
    b->p = np;
    b->cap = nc;
  }
}

static void print_float(sbuf *b, double v) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.9g", v);
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  sb_printf(b, "%s", tmp);
}

static void print_attr(sbuf *b, const pd_attr *a) {
  sb_printf(b, "%s = ", a->name);
  switch (a->type) {
    case PD_AT_INT: case PD_AT_LONG: sb_printf(b, "%" PRId64, a->i); break;
    case PD_AT_BOOLEAN: sb_printf(b, "%s", a->i ? "True" : "False"); break;
    case PD_AT_FLOAT: case PD_AT_FLOAT64: print_float(b, a->f); break;
    case PD_AT_STRING: case PD_AT_VAR: sb_printf(b, "%s", a->s ? a->s : ""); break;
    case PD_AT_BLOCK: sb_printf(b, "block[%" PRId64 "]", a->i); break;
    case PD_AT_SCALAR:
      if (a->sc.kind == PD_SCALAR_FLOAT) print_float(b, a->sc.f);
      else if (a->sc.kind == PD_SCALAR_BOOL) sb_printf(b, "%s", a->sc.i ? "True" : "False");
      else sb_printf(b, "%" PRId64, a->sc.i);
      break;
    default: {
      sb_printf(b, "[");
      for (int64_t k = 0; k < a->n; k++) {
        if (k) sb_printf(b, ", ");
        if (a->type == PD_AT_INTS || a->type == PD_AT_LONGS) sb_printf(b, "%" PRId64, a->ints[k]);
        else if (a->type == PD_AT_BOOLEANS) sb_printf(b, "%s", a->ints[k] ? "True" : "False");
        else if (a->type == PD_AT_BLOCKS) sb_printf(b, "block[%" PRId64 "]", a->ints[k]);
        else if (a->type == PD_AT_FLOATS || a->type == PD_AT_FLOAT64S) print_float(b, a->floats[k]);
        else if (a->type == PD_AT_STRINGS || a->type == PD_AT_VARS) sb_printf(b, "'%s'", a->strings[k]);
        else if (a->type == PD_AT_SCALARS) print_float(b, a->scalars[k].f);
      }
      sb_printf(b, "]");
    }
  }
}

static int cmp_attr(const void *x, const void *y) {
  return strcmp((*(const pd_attr *const *)x)->name, (*(const pd_attr *const *)y)->name);
}

static void print_slots(sbuf *b, const pd_opslot *s, int n) {
  sb_printf(b, "{");
  for (int i = 0; i < n; i++) {
    sb_printf(b, "%s%s=[", i ? ", " : "", s[i].name);
    for (int k = 0; k < s[i].n; k++) sb_printf(b, "%s'%s'", k ? ", " : "", s[i].args[k]);
    sb_printf(b, "]");
  }
  sb_printf(b, "}");
}

static void print_var(sbuf *b, const pd_var *v) {
  if (v->persistable && v->is_parameter) sb_printf(b, "    persist trainable param %s : ", v->name);
  else if (v->persistable) sb_printf(b, "    persist var %s : ", v->name);
  else sb_printf(b, "    var %s : ", v->name);
  sb_printf(b, "%s", pd_vartype_name(v->type));
  if (v->type == PD_VT_LOD_TENSOR || v->type == PD_VT_SELECTED_ROWS || v->type == PD_VT_LOD_TENSOR_ARRAY) {
    sb_printf(b, ".shape(");
    for (int d = 0; d < v->ndim; d++) sb_printf(b, "%s%" PRId64, d ? ", " : "", v->dims[d]);
    sb_printf(b, ")");
    if (pd_dtype_is_valid(v->dtype)) sb_printf(b, ".dtype(%s)", pd_dtype_name((pd_dtype)v->dtype));
    sb_printf(b, ".stop_gradient(%s)", v->stop_gradient ? "True" : "False");
    if (v->lod_level) sb_printf(b, ".lod_level(%d)", v->lod_level);
  }
  sb_printf(b, "\n");
}

static void print_op(sbuf *b, const pd_opdesc *op) {
  sb_printf(b, "    ");
  print_slots(b, op->out, op->n_out);
  sb_printf(b, " = %s(inputs=", op->type);
  print_slots(b, op->in, op->n_in);
  const pd_attr **sorted = (const pd_attr **)malloc(sizeof(pd_attr *) * (size_t)(op->n_attrs + 1));
  if (!sorted) {
    b->failed = 1;
    return;
  }
  for (int i = 0; i < op->n_attrs; i++) sorted[i] = &op->attrs[i];
  qsort(sorted, (size_t)op->n_attrs, sizeof *sorted, cmp_attr);
  for (int i = 0; i < op->n_attrs; i++) {
    sb_printf(b, ", ");
    print_attr(b, sorted[i]);
  }
  free(sorted);
  sb_printf(b, ")\n");
}

char *pd_program_to_string(const pd_program *p) {
  sbuf b = {NULL, 0, 0, 0};
  b.p = (char *)malloc(256);
  if (!b.p) return NULL;
  b.cap = 256;
  b.p[0] = 0;
  for (int i = 0; i < p->n_blocks; i++) {
    const pd_block *blk = p->blocks[i];
    if (i) sb_printf(&b, "\n");
    sb_printf(&b, "{ // block %d\n", blk->idx);
    for (int k = 0; k < blk->n_vars; k++) print_var(&b, blk->vars[k]);
    if (blk->n_vars) sb_printf(&b, "\n");
    for (int k = 0; k < blk->n_ops; k++) print_op(&b, blk->ops[k]);
    sb_printf(&b, "}\n");
  }
  if (b.failed) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
