/* Internal to conv_dnnl.c and conv_wcache.c: the reordered-filter half of the weight cache
 * (conv_dnnl.h has the public half). */
#ifndef PD_CONV_WCACHE_H
#define PD_CONV_WCACHE_H
#include <stddef.h>
#include <oneapi/dnnl/dnnl.h>

static inline void md_drop(dnnl_memory_desc_t *md) {
  if (*md) dnnl_memory_desc_destroy(*md);
  *md = NULL;
}
/* the running instruction's cached reorder of filter w from user to prim (its own, or the model's
 * stored one), or NULL: reorder as usual */
void *pd_conv_wcache_get(const_dnnl_memory_desc_t user, const_dnnl_memory_desc_t prim, const void *w);
/* after a reorder of w into buf (size bytes, malloc'd by the caller, complete): keep it (and publish
 * it to the store); 1 when kept */
int pd_conv_wcache_put(const_dnnl_memory_desc_t user, const_dnnl_memory_desc_t prim, const void *w, void *buf,
                       size_t size);
#endif
