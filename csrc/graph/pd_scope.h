/* Scopes: where a program's variables live between runs (Paddle's Scope). A scope maps names to
 * values; lookups fall back to the parent. A value is a tensor with its LoD (level offsets, for
 * sequence ops), or a tensor array (LoDTensorArray). Scopes are refcounted; values belong to
 * their scope. */
#ifndef PD_SCOPE_H
#define PD_SCOPE_H
#include <stdatomic.h>
#include "../core/pd_tensor.h"

typedef struct {
  int n;            /* levels */
  int64_t *len;     /* entries per level */
  int64_t **offs;   /* offsets per level (first 0, last = rows of the next level / tensor) */
} pd_lod;

typedef enum { PD_VAL_EMPTY = 0, PD_VAL_TENSOR, PD_VAL_ARRAY } pd_value_kind;

typedef struct pd_value {
  pd_value_kind kind;
  pd_tensor *t;      /* PD_VAL_TENSOR (owned) */
  pd_lod lod;
  int n_arr, cap_arr; /* PD_VAL_ARRAY: tensors (owned; NULL entries allowed) */
  pd_tensor **arr;
  pd_lod *arr_lod;
} pd_value;

void pd_lod_clear(pd_lod *l);
pd_status pd_lod_copy(pd_lod *dst, const pd_lod *src);
/* Checks a LoD against a tensor of `rows` rows: offsets start at 0, do not decrease, each
 * level ends at the next level's entry count and the last at rows. */
pd_status pd_lod_check(const pd_lod *l, int64_t rows, const char *what);

void pd_value_clear(pd_value *v);
/* Sets the tensor (takes the reference) and drops any LoD. */
void pd_value_set(pd_value *v, pd_tensor *t);
pd_status pd_value_copy(pd_value *dst, const pd_value *src); /* shares tensors */
pd_status pd_value_array_set(pd_value *v, int64_t i, pd_tensor *t); /* grows; takes the ref */

typedef struct pd_scope pd_scope;
pd_status pd_scope_new(pd_scope *parent, pd_scope **out);
void pd_scope_retain(pd_scope *s);
void pd_scope_release(pd_scope *s);
pd_scope *pd_scope_parent(pd_scope *s);
/* In s or an ancestor, or NULL. */
pd_value *pd_scope_find(pd_scope *s, const char *name);
pd_value *pd_scope_find_local(pd_scope *s, const char *name);
/* The local value named name, created empty if missing. */
pd_status pd_scope_var(pd_scope *s, const char *name, pd_value **out);
pd_status pd_scope_erase(pd_scope *s, const char *name);
int pd_scope_size(pd_scope *s);
const char *pd_scope_name_at(pd_scope *s, int i);
/* Child scopes made with pd_scope_new_kid are dropped by pd_scope_drop_kids (Paddle's API). */
pd_status pd_scope_new_kid(pd_scope *s, pd_scope **out); /* borrowed */
void pd_scope_drop_kids(pd_scope *s);

#endif
