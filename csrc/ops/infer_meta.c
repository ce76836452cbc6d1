/* Shape/dtype rules shared by eager and static execution (one per family of ops). Each takes
 * the op's generated args struct; ops using a rule must lay out their leading args as the
 * rule's struct says. */
#include "generated/pd_ops_gen.h"

typedef struct { pd_tensor *x, *y; } xy_args;
typedef struct { pd_tensor *x; } x_args;

/* (Tensor x, Tensor y): same dtype, numpy broadcast, output dtype = x's. */
pd_status pd_infer_binary(const void *args, pd_meta_list *out) {
  const xy_args *a = (const xy_args *)args;
  PD_TRY(pd_check_same_dtype("elementwise", "x", a->x, "y", a->y));
  pd_meta *m = pd_meta_list_resize(out, 1);
  PD_TRY(pd_broadcast_shapes("elementwise", a->x->ndim, a->x->shape, a->y->ndim, a->y->shape,
                             &m->ndim, m->shape));
  m->dtype = a->x->dtype;
  return PD_OK;
}

/* (Tensor x, Tensor y) -> bool, broadcast (comparisons). */
pd_status pd_infer_compare(const void *args, pd_meta_list *out) {
  PD_TRY(pd_infer_binary(args, out));
  out->m[0].dtype = PD_BOOL;
  return PD_OK;
}

/* (Tensor x, ...) -> same shape and dtype as x. */
pd_status pd_infer_unchanged(const void *args, pd_meta_list *out) {
  const x_args *a = (const x_args *)args;
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* (Tensor x, ...) -> x's shape, bool (isnan, isinf ...). */
pd_status pd_infer_unchanged_bool(const void *args, pd_meta_list *out) {
  PD_TRY(pd_infer_unchanged(args, out));
  out->m[0].dtype = PD_BOOL;
  return PD_OK;
}
