/* The predictor's weight caches (conv_dnnl.h pd_conv_wcache, pd_conv_wstore): an instruction's copy of
 * its filter reordered for a oneDNN primitive and its Winograd / 1x1 transform (pd_conv_wcache_aux),
 * and the loaded model's store of those copies shared by every plan, clone and split part. Split from
 * conv_dnnl.c, which runs the primitives and asks here for the reordered filter. */
#include <pthread.h>
#include <stdlib.h>
#include "conv_dnnl.h"
#include "conv_wcache.h"

struct pd_conv_wcache {
  const void *src;           /* the plain filter it was made from */
  dnnl_memory_desc_t user, prim; /* owned copies (the cache entry they came from may be evicted) */
  void *buf;
  size_t size;
  const void *aux_src; /* pd_conv_wcache_aux: another transform of the filter (Winograd's) */
  int64_t aux_key;
  void *aux;
  size_t aux_size;
  int buf_pub, aux_pub; /* buf / aux belong to the model's store (pd_conv_wstore), not to this cache */
};
_Thread_local pd_conv_wcache **pd_conv_wcache_cur;

void pd_conv_wcache_free(pd_conv_wcache *c) {
  if (!c) return;
  md_drop(&c->user);
  md_drop(&c->prim);
  if (!c->buf_pub) free(c->buf);
  if (!c->aux_pub) free(c->aux);
  free(c);
}

typedef struct wsent {
  struct wsent *next;
  const void *w;  /* the plain filter */
  int64_t key;    /* pd_conv_wcache_aux's key (>= 0), or -1: a oneDNN reorder from user to prim */
  size_t size;
  dnnl_memory_desc_t user, prim;
  void *buf;
} wsent;
struct pd_conv_wstore {
  pthread_mutex_t mu;
  wsent *head;
  int64_t bytes;
  int64_t taken; /* copies an instruction's cache took from the store instead of making its own */
};
_Thread_local pd_conv_wstore *pd_conv_wstore_cur;
_Thread_local int pd_conv_wstore_on;

pd_conv_wstore *pd_conv_wstore_new(void) {
  pd_conv_wstore *s = (pd_conv_wstore *)calloc(1, sizeof *s);
  if (s) pthread_mutex_init(&s->mu, NULL);
  return s;
}
void pd_conv_wstore_free(pd_conv_wstore *s) {
  if (!s) return;
  for (wsent *e = s->head, *n; e; e = n) {
    n = e->next;
    md_drop(&e->user);
    md_drop(&e->prim);
    free(e->buf);
    free(e);
  }
  pthread_mutex_destroy(&s->mu);
  free(s);
}
int64_t pd_conv_wstore_bytes(pd_conv_wstore *s, int64_t *taken) {
  if (!s) return 0;
  pthread_mutex_lock(&s->mu);
  const int64_t b = s->bytes;
  if (taken) *taken = s->taken;
  pthread_mutex_unlock(&s->mu);
  return b;
}
static pd_conv_wstore *wstore(void) { return pd_conv_wstore_on ? pd_conv_wstore_cur : NULL; }
/* the stored copy of (w, key, size[, user, prim]), or NULL; under s->mu */
static wsent *ws_find(pd_conv_wstore *s, const void *w, int64_t key, size_t size, const_dnnl_memory_desc_t user,
                      const_dnnl_memory_desc_t prim) {
  for (wsent *e = s->head; e; e = e->next)
    if (e->w == w && e->key == key && e->size == size &&
        (key >= 0 || (dnnl_memory_desc_equal(e->user, user) && dnnl_memory_desc_equal(e->prim, prim))))
      return e;
  return NULL;
}
/* ws_find under the lock, counting a copy taken */
static const wsent *ws_take(pd_conv_wstore *s, const void *w, int64_t key, size_t size, const_dnnl_memory_desc_t user,
                            const_dnnl_memory_desc_t prim) {
  pthread_mutex_lock(&s->mu);
  const wsent *e = ws_find(s, w, key, size, user, prim);
  if (e) s->taken++;
  pthread_mutex_unlock(&s->mu);
  return e;
}
/* publishes *buf (complete) as (w, key, size[, user, prim]), or, where another copy was published
 * first and *buf is not in use (swap), frees *buf and points it at that one; 1 when *buf now belongs
 * to the store */
static int ws_publish(pd_conv_wstore *s, const void *w, int64_t key, size_t size, const_dnnl_memory_desc_t user,
                      const_dnnl_memory_desc_t prim, void **buf, int swap) {
  int owned = 0;
  pthread_mutex_lock(&s->mu);
  wsent *e = ws_find(s, w, key, size, user, prim);
  if (e) {
    if (swap) {
      free(*buf);
      *buf = e->buf;
      owned = 1;
    }
  } else if ((e = (wsent *)calloc(1, sizeof *e))) {
    if (key < 0 && (dnnl_memory_desc_clone(&e->user, user) != dnnl_success ||
                    dnnl_memory_desc_clone(&e->prim, prim) != dnnl_success)) {
      md_drop(&e->user);
      free(e);
    } else {
      e->w = w, e->key = key, e->size = size, e->buf = *buf;
      e->next = s->head;
      s->head = e;
      s->bytes += (int64_t)size;
      owned = 1;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return owned;
}
int64_t pd_conv_wcache_bytes(const pd_conv_wcache *c) { return c ? (int64_t)(c->size + c->aux_size) : 0; }

float *pd_conv_wcache_aux(const void *w, int64_t key, size_t size, int *fresh) {
  *fresh = 0;
  if (!pd_conv_wcache_cur) return NULL;
  pd_conv_wcache *c = *pd_conv_wcache_cur;
  if (!c) {
    if (!(c = (pd_conv_wcache *)calloc(1, sizeof *c))) return NULL;
    *pd_conv_wcache_cur = c;
  }
  pd_conv_wstore *s = wstore();
  if (c->aux && c->aux_src == w && c->aux_key == key && c->aux_size == size) {
    /* made by this instruction's previous call and filled by its caller since: publish it */
    if (s && !c->aux_pub) c->aux_pub = ws_publish(s, w, key, size, NULL, NULL, &c->aux, 1);
    return (float *)c->aux;
  }
  if (!c->aux_pub) free(c->aux);
  c->aux = NULL;
  c->aux_pub = 0;
  c->aux_src = NULL;
  c->aux_size = 0;
  if (s) {
    const wsent *e = ws_take(s, w, key, size, NULL, NULL);
    if (e) {
      c->aux = e->buf;
      c->aux_pub = 1;
      c->aux_src = w;
      c->aux_key = key;
      c->aux_size = size;
      return (float *)c->aux;
    }
  }
  if (!(c->aux = aligned_alloc(64, (size + 63) / 64 * 64))) return NULL;
  c->aux_src = w;
  c->aux_key = key;
  c->aux_size = size;
  *fresh = 1;
  return (float *)c->aux;
}

void *pd_conv_wcache_get(const_dnnl_memory_desc_t user, const_dnnl_memory_desc_t prim, const void *w) {
  pd_conv_wcache *c = pd_conv_wcache_cur ? *pd_conv_wcache_cur : NULL;
  pd_conv_wstore *st = wstore();
  if (c && c->src == w && dnnl_memory_desc_equal(c->user, user) && dnnl_memory_desc_equal(c->prim, prim)) {
    /* a copy of its own (another thread published the same first, or the store had no room then):
     * the stored one from now on, this call not having used its own yet */
    if (st && !c->buf_pub) c->buf_pub = ws_publish(st, w, -1, c->size, c->user, c->prim, &c->buf, 1);
    return c->buf;
  }
  if (!st || !pd_conv_wcache_cur) return NULL;
  /* another plan's, clone's or thread's copy of this reorder */
  const size_t size = dnnl_memory_desc_get_size(prim);
  const wsent *e = ws_take(st, w, -1, size, user, prim);
  if (!e) return NULL;
  dnnl_memory_desc_t u = NULL, q = NULL;
  if (dnnl_memory_desc_clone(&u, user) != dnnl_success || dnnl_memory_desc_clone(&q, prim) != dnnl_success ||
      (!c && !(c = (pd_conv_wcache *)calloc(1, sizeof *c)))) {
    md_drop(&u);
    md_drop(&q);
    return NULL;
  }
  md_drop(&c->user);
  md_drop(&c->prim);
  if (!c->buf_pub) free(c->buf);
  c->src = w, c->user = u, c->prim = q, c->buf = e->buf, c->size = size, c->buf_pub = 1;
  *pd_conv_wcache_cur = c;
  return c->buf;
}
int pd_conv_wcache_put(const_dnnl_memory_desc_t user, const_dnnl_memory_desc_t prim, const void *w, void *buf,
                       size_t size) {
  if (!pd_conv_wcache_cur) return 0;
  pd_conv_wcache *c = *pd_conv_wcache_cur;
  dnnl_memory_desc_t u = NULL, q = NULL;
  if (dnnl_memory_desc_clone(&u, user) != dnnl_success) return 0;
  if (dnnl_memory_desc_clone(&q, prim) != dnnl_success || (!c && !(c = (pd_conv_wcache *)calloc(1, sizeof *c)))) {
    dnnl_memory_desc_destroy(u);
    if (q) dnnl_memory_desc_destroy(q);
    return 0;
  }
  md_drop(&c->user);
  md_drop(&c->prim);
  if (!c->buf_pub) free(c->buf);
  c->src = w;
  c->user = u;
  c->prim = q;
  c->buf = buf;
  c->size = size;
  c->buf_pub = 0;
  *pd_conv_wcache_cur = c;
  /* complete (the reorder has run): the store's from now on, or the copy published first */
  pd_conv_wstore *st = wstore();
  if (st) c->buf_pub = ws_publish(st, w, -1, size, u, q, &c->buf, 0); /* buf is in use: never swapped here */
  return 1;
}
