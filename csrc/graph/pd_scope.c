/* Scopes and values (pd_scope.h): an open-addressing map from names to values per scope. */
#include "pd_scope.h"
#include <stdlib.h>
#include <string.h>

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory in a scope"); }

/* ---------------------------------------------------------------- LoD */
void pd_lod_clear(pd_lod *l) {
  for (int i = 0; i < l->n; i++) free(l->offs[i]);
  free(l->offs);
  free(l->len);
  memset(l, 0, sizeof *l);
}

pd_status pd_lod_copy(pd_lod *dst, const pd_lod *src) {
  memset(dst, 0, sizeof *dst);
  if (!src || src->n == 0) return PD_OK;
  dst->len = (int64_t *)calloc((size_t)src->n, sizeof(int64_t));
  dst->offs = (int64_t **)calloc((size_t)src->n, sizeof(int64_t *));
  if (!dst->len || !dst->offs) {
    free(dst->len);
    free(dst->offs);
    memset(dst, 0, sizeof *dst);
    return oom();
  }
  dst->n = src->n;
  for (int i = 0; i < src->n; i++) {
    dst->len[i] = src->len[i];
    dst->offs[i] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(src->len[i] > 0 ? src->len[i] : 1));
    if (!dst->offs[i]) {
      pd_lod_clear(dst);
      return oom();
    }
    memcpy(dst->offs[i], src->offs[i], sizeof(int64_t) * (size_t)src->len[i]);
  }
  return PD_OK;
}

pd_status pd_lod_check(const pd_lod *l, int64_t rows, const char *what) {
  for (int i = 0; i < l->n; i++) {
    const int64_t *o = l->offs[i];
    int64_t n = l->len[i];
    if (n < 1 || o[0] != 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: LoD level %d must start with offset 0", what, i);
    for (int64_t k = 1; k < n; k++)
      if (o[k] < o[k - 1])
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: LoD level %d offsets decrease at %lld (%lld < %lld)",
                            what, i, (long long)k, (long long)o[k], (long long)o[k - 1]);
    int64_t end = i + 1 < l->n ? l->len[i + 1] - 1 : rows;
    if (o[n - 1] != end)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: LoD level %d ends at %lld, expected %lld", what,
                          i, (long long)o[n - 1], (long long)end);
  }
  return PD_OK;
}

/* ---------------------------------------------------------------- values */
void pd_value_clear(pd_value *v) {
  pd_tensor_release(v->t);
  pd_lod_clear(&v->lod);
  for (int i = 0; i < v->n_arr; i++) {
    pd_tensor_release(v->arr[i]);
    if (v->arr_lod) pd_lod_clear(&v->arr_lod[i]);
  }
  free(v->arr);
  free(v->arr_lod);
  memset(v, 0, sizeof *v);
}

void pd_value_set(pd_value *v, pd_tensor *t) {
  if (v->kind == PD_VAL_TENSOR && v->lod.n == 0) {
    pd_tensor *old = v->t;
    v->t = t;
    pd_tensor_release(old);
    return;
  }
  pd_value_clear(v);
  v->kind = PD_VAL_TENSOR;
  v->t = t;
}

pd_status pd_value_copy(pd_value *dst, const pd_value *src) {
  pd_value_clear(dst);
  dst->kind = src->kind;
  if (src->t) pd_tensor_retain(src->t);
  dst->t = src->t;
  PD_TRY(pd_lod_copy(&dst->lod, &src->lod));
  for (int i = 0; i < src->n_arr; i++) {
    if (src->arr[i]) pd_tensor_retain(src->arr[i]);
    PD_TRY(pd_value_array_set(dst, i, src->arr[i]));
    if (src->arr_lod) PD_TRY(pd_lod_copy(&dst->arr_lod[i], &src->arr_lod[i]));
  }
  return PD_OK;
}

pd_status pd_value_array_set(pd_value *v, int64_t i, pd_tensor *t) {
  if (v->kind != PD_VAL_ARRAY) {
    pd_value_clear(v);
    v->kind = PD_VAL_ARRAY;
  }
  if (i < 0 || i > (1 << 26)) {
    pd_tensor_release(t);
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "tensor array index %lld out of range", (long long)i);
  }
  if (i >= v->cap_arr) {
    int nc = v->cap_arr ? v->cap_arr : 4;
    while (nc <= i) nc *= 2;
    pd_tensor **na = (pd_tensor **)realloc(v->arr, sizeof(pd_tensor *) * (size_t)nc);
    if (!na) {
      pd_tensor_release(t);
      return oom();
    }
    v->arr = na;
    pd_lod *nl = (pd_lod *)realloc(v->arr_lod, sizeof(pd_lod) * (size_t)nc);
    if (!nl) {
      pd_tensor_release(t);
      return oom();
    }
    v->arr_lod = nl;
    for (int k = v->cap_arr; k < nc; k++) {
      na[k] = NULL;
      memset(&nl[k], 0, sizeof(pd_lod));
    }
    v->cap_arr = nc;
  }
  pd_tensor_release(v->arr[i]);
  pd_lod_clear(&v->arr_lod[i]);
  v->arr[i] = t;
  if (i >= v->n_arr) v->n_arr = (int)i + 1;
  return PD_OK;
}

/* ---------------------------------------------------------------- scopes */
typedef struct {
  char *name;
  pd_value v;
} entry;

struct pd_scope {
  atomic_long refcount;
  pd_scope *parent;   /* owned reference unless borrowed_parent (kids made by new_kid) */
  int borrowed_parent;
  entry **e;          /* insertion order */
  int n, cap;
  int *hash;
  int hcap;
  pd_scope **kids;
  int n_kids;
};

pd_status pd_scope_new(pd_scope *parent, pd_scope **out) {
  pd_scope *s = (pd_scope *)calloc(1, sizeof *s);
  if (!s) return oom();
  atomic_init(&s->refcount, 1);
  if (parent) pd_scope_retain(parent);
  s->parent = parent;
  *out = s;
  return PD_OK;
}

void pd_scope_retain(pd_scope *s) {
  if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void pd_scope_release(pd_scope *s) {
  while (s && atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) == 1) {
    pd_scope *p = s->borrowed_parent ? NULL : s->parent;
    for (int i = 0; i < s->n; i++) {
      pd_value_clear(&s->e[i]->v);
      free(s->e[i]->name);
      free(s->e[i]);
    }
    free(s->e);
    free(s->hash);
    pd_scope_drop_kids(s);
    free(s->kids);
    free(s);
    s = p;
  }
}

pd_scope *pd_scope_parent(pd_scope *s) { return s->parent; }

static uint32_t hstr(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static pd_status rehash(pd_scope *s, int cap) {
  int *h = (int *)calloc((size_t)cap, sizeof(int));
  if (!h) return oom();
  for (int i = 0; i < s->n; i++) {
    uint32_t k = hstr(s->e[i]->name) & (uint32_t)(cap - 1);
    while (h[k]) k = (k + 1) & (uint32_t)(cap - 1);
    h[k] = i + 1;
  }
  free(s->hash);
  s->hash = h;
  s->hcap = cap;
  return PD_OK;
}

pd_value *pd_scope_find_local(pd_scope *s, const char *name) {
  if (!s->hcap) return NULL;
  uint32_t k = hstr(name) & (uint32_t)(s->hcap - 1);
  while (s->hash[k]) {
    entry *e = s->e[s->hash[k] - 1];
    if (strcmp(e->name, name) == 0) return &e->v;
    k = (k + 1) & (uint32_t)(s->hcap - 1);
  }
  return NULL;
}

pd_value *pd_scope_find(pd_scope *s, const char *name) {
  for (; s; s = s->parent) {
    pd_value *v = pd_scope_find_local(s, name);
    if (v) return v;
  }
  return NULL;
}

pd_status pd_scope_var(pd_scope *s, const char *name, pd_value **out) {
  pd_value *v = pd_scope_find_local(s, name);
  if (v) {
    *out = v;
    return PD_OK;
  }
  if (s->n == s->cap) {
    int nc = s->cap ? s->cap * 2 : 16;
    entry **ne = (entry **)realloc(s->e, sizeof(entry *) * (size_t)nc);
    if (!ne) return oom();
    s->e = ne;
    s->cap = nc;
  }
  entry *e = (entry *)calloc(1, sizeof *e);
  if (!e) return oom();
  size_t L = strlen(name) + 1;
  e->name = (char *)malloc(L);
  if (!e->name) {
    free(e);
    return oom();
  }
  memcpy(e->name, name, L);
  s->e[s->n++] = e;
  if (s->n * 2 > s->hcap) {
    PD_TRY(rehash(s, s->hcap ? s->hcap * 2 : 32));
  } else {
    uint32_t k = hstr(name) & (uint32_t)(s->hcap - 1);
    while (s->hash[k]) k = (k + 1) & (uint32_t)(s->hcap - 1);
    s->hash[k] = s->n;
  }
  *out = &e->v;
  return PD_OK;
}

pd_status pd_scope_erase(pd_scope *s, const char *name) {
  for (int i = 0; i < s->n; i++) {
    if (strcmp(s->e[i]->name, name) != 0) continue;
    pd_value_clear(&s->e[i]->v);
    free(s->e[i]->name);
    free(s->e[i]);
    memmove(&s->e[i], &s->e[i + 1], sizeof(entry *) * (size_t)(s->n - i - 1));
    s->n--;
    return rehash(s, s->hcap ? s->hcap : 32);
  }
  return PD_OK;
}

int pd_scope_size(pd_scope *s) { return s->n; }
const char *pd_scope_name_at(pd_scope *s, int i) { return i >= 0 && i < s->n ? s->e[i]->name : NULL; }

pd_status pd_scope_new_kid(pd_scope *s, pd_scope **out) {
  pd_scope **nk = (pd_scope **)realloc(s->kids, sizeof(pd_scope *) * (size_t)(s->n_kids + 1));
  if (!nk) return oom();
  s->kids = nk;
  pd_scope *k;
  PD_TRY(pd_scope_new(NULL, &k));
  k->parent = s;
  k->borrowed_parent = 1;
  s->kids[s->n_kids++] = k;
  *out = k;
  return PD_OK;
}

void pd_scope_drop_kids(pd_scope *s) {
  int n = s->n_kids;
  s->n_kids = 0;
  for (int i = 0; i < n; i++) pd_scope_release(s->kids[i]);
}
