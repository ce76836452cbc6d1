/* Reader and writer of Paddle's LoDTensor stream (see pd_tensor_stream.h for the layout).
 * The TensorDesc protobuf is decoded by hand (two fields; dims packed or not) so that this
 * file needs no generated code; every length is bounds-checked before it is used. */
#include "pd_tensor_stream.h"
#include "../core/pd_device.h"
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the tensor stream reader assumes a little-endian host (Paddle's files are little-endian)"
#endif

#define PD_STREAM_MAX_DESC (1 << 20)

static pd_status need(size_t len, size_t pos, size_t n, const char *what, const char *field) {
  if (pos > len || len - pos < n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: truncated or corrupt file: %s needs %zu bytes at offset "
                        "%zu but only %zu remain",
                        what, field, n, pos, pos > len ? (size_t)0 : len - pos);
  return PD_OK;
}

/* protobuf varint at p[*i .. end) */
static int varint(const uint8_t *p, size_t end, size_t *i, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*i >= end) return 0;
    uint8_t b = p[(*i)++];
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 1;
    }
  }
  return 0;
}

static pd_status bad_desc(const char *what, const char *why) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt TensorDesc: %s", what, why);
}

static pd_status parse_desc(const uint8_t *p, size_t n, const char *what, int *vartype, int *ndim,
                            int64_t *dims) {
  size_t i = 0;
  int have_type = 0;
  *ndim = 0;
  while (i < n) {
    uint64_t key, v;
    if (!varint(p, n, &i, &key)) return bad_desc(what, "bad field key");
    uint64_t field = key >> 3, wire = key & 7;
    if (field == 1 && wire == 0) {
      if (!varint(p, n, &i, &v)) return bad_desc(what, "bad data_type");
      if (v > 1000) return bad_desc(what, "data_type out of range"); /* VarType.Type codes are < 100 */
      *vartype = (int)v;
      have_type = 1;
    } else if (field == 2 && (wire == 0 || wire == 2)) {
      size_t end = n;
      if (wire == 2) {
        uint64_t sz;
        if (!varint(p, n, &i, &sz) || sz > n - i) return bad_desc(what, "bad packed dims");
        end = i + sz;
      }
      do {
        if (!varint(p, end, &i, &v)) return bad_desc(what, "bad dim");
        if (*ndim >= PD_MAX_DIMS) return bad_desc(what, "more than 9 dims");
        dims[(*ndim)++] = (int64_t)v;
      } while (wire == 2 && i < end);
    } else {
      /* unknown field: skip by wire type */
      if (wire == 0) {
        if (!varint(p, n, &i, &v)) return bad_desc(what, "bad field");
      } else if (wire == 1) {
        if (n - i < 8) return bad_desc(what, "bad field");
        i += 8;
      } else if (wire == 2) {
        if (!varint(p, n, &i, &v) || v > n - i) return bad_desc(what, "bad field");
        i += (size_t)v;
      } else if (wire == 5) {
        if (n - i < 4) return bad_desc(what, "bad field");
        i += 4;
      } else {
        return bad_desc(what, "unsupported wire type");
      }
    }
  }
  if (!have_type) return bad_desc(what, "no data_type");
  return PD_OK;
}

/* LoD level offsets at buf[i .. i + nbytes) into lod->offs[l] (u64 little-endian) */
static pd_status read_level(const uint8_t *buf, size_t i, uint64_t nbytes, pd_lod *lod, int l,
                            const char *what) {
  size_t n = (size_t)(nbytes / 8);
  int64_t *o = (int64_t *)malloc(sizeof(int64_t) * (n ? n : 1));
  if (!o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[tensor_stream] %s: out of memory reading a LoD", what);
  for (size_t k = 0; k < n; k++) {
    uint64_t v;
    memcpy(&v, buf + i + 8 * k, 8);
    if (v > (uint64_t)INT64_MAX) {
      free(o);
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt LoD offset %llu", what,
                          (unsigned long long)v);
    }
    o[k] = (int64_t)v;
  }
  lod->offs[l] = o;
  lod->len[l] = (int64_t)n;
  return PD_OK;
}

pd_status pd_tensor_stream_read_lod(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                    pd_tensor **out, pd_lod *lod_out) {
  size_t i = *pos;
  uint32_t u32;
  uint64_t u64;
  int32_t i32;
  pd_lod lod;
  memset(&lod, 0, sizeof lod);
  *out = NULL;
  if (lod_out) memset(lod_out, 0, sizeof *lod_out);
  PD_TRY(need(len, i, 4, what, "the LoDTensor version"));
  memcpy(&u32, buf + i, 4);
  i += 4;
  if (u32 != 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: unsupported LoDTensor version %u at offset %zu (expected 0)",
                        what, u32, i - 4);
  PD_TRY(need(len, i, 8, what, "the LoD level count"));
  memcpy(&u64, buf + i, 8);
  i += 8;
  if (u64 > PD_STREAM_MAX_LOD_LEVELS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[tensor_stream] %s: corrupt LoD level count %llu at offset %zu", what,
                        (unsigned long long)u64, i - 8);
  int levels = (int)u64;
  pd_status s = PD_OK;
  if (levels) {
    lod.len = (int64_t *)calloc((size_t)levels, sizeof(int64_t));
    lod.offs = (int64_t **)calloc((size_t)levels, sizeof(int64_t *));
    if (!lod.len || !lod.offs) {
      free(lod.len);
      free(lod.offs);
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[tensor_stream] %s: out of memory reading a LoD", what);
    }
    lod.n = levels;
  }
  for (int l = 0; s == PD_OK && l < levels; l++) {
    s = need(len, i, 8, what, "a LoD level size");
    if (s != PD_OK) break;
    memcpy(&u64, buf + i, 8);
    i += 8;
    if (u64 % 8) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: LoD level size %llu is not a multiple of 8",
                       what, (unsigned long long)u64);
      break;
    }
    s = need(len, i, (size_t)u64, what, "a LoD level");
    if (s == PD_OK) s = read_level(buf, i, u64, &lod, l, what);
    i += (size_t)u64;
  }
  if (s == PD_OK) s = need(len, i, 4, what, "the tensor version");
  if (s != PD_OK) goto fail;
  memcpy(&u32, buf + i, 4);
  i += 4;
  if (u32 != 0) {
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: unsupported tensor version %u (expected 0)",
                     what, u32);
    goto fail;
  }
  s = need(len, i, 4, what, "the TensorDesc size");
  if (s != PD_OK) goto fail;
  memcpy(&i32, buf + i, 4);
  i += 4;
  if (i32 < 0 || i32 > PD_STREAM_MAX_DESC) {
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt TensorDesc size %d", what, i32);
    goto fail;
  }
  s = need(len, i, (size_t)i32, what, "the TensorDesc");
  if (s != PD_OK) goto fail;
  int vartype = -1, ndim = 0;
  int64_t dims[PD_MAX_DIMS];
  s = parse_desc(buf + i, (size_t)i32, what, &vartype, &ndim, dims);
  if (s != PD_OK) goto fail;
  i += (size_t)i32;
  int dt = pd_dtype_from_vartype(vartype);
  if (dt < 0) {
    s = pd_set_error(PD_ERR_UNIMPLEMENTED,
                     "[tensor_stream] %s: data type code %d (framework.proto VarType.Type) is not "
                     "supported", what, vartype);
    goto fail;
  }
  if (ndim == 0) dims[ndim++] = 1; /* Paddle 2.3 has no 0-D tensors */
  size_t esz = pd_dtype_size((pd_dtype)dt);
  uint64_t numel = 1, span = 1; /* span: the product with zero dims counted as 1 (the strides) */
  for (int d = 0; d < ndim; d++) {
    uint64_t e = dims[d] > 0 ? (uint64_t)dims[d] : 1;
    if (dims[d] < 0 || span > ((uint64_t)INT64_MAX / 2) / e) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: corrupt dim %lld", what,
                       (long long)dims[d]);
      goto fail;
    }
    span *= e;
    numel *= (uint64_t)dims[d];
  }
  if (numel > (UINT64_MAX / 2) / esz) {
    s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] %s: tensor too large", what);
    goto fail;
  }
  size_t nbytes = (size_t)(numel * esz);
  s = need(len, i, nbytes, what, "the tensor data");
  if (s == PD_OK && levels) s = pd_lod_check(&lod, dims[0], what);
  if (s != PD_OK) goto fail;
  pd_tensor *t;
  s = pd_tensor_empty((pd_dtype)dt, ndim, dims, &t);
  if (s != PD_OK) goto fail;
  if (nbytes) memcpy(pd_tensor_data(t), buf + i, nbytes);
  i += nbytes;
  *pos = i;
  *out = t;
  if (lod_out) *lod_out = lod;
  else pd_lod_clear(&lod);
  return PD_OK;
fail:
  pd_lod_clear(&lod);
  return s;
}

pd_status pd_tensor_stream_read(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                pd_tensor **out, int *lod_levels) {
  pd_lod lod;
  PD_TRY(pd_tensor_stream_read_lod(buf, len, pos, what, out, &lod));
  if (lod_levels) *lod_levels = lod.n;
  pd_lod_clear(&lod);
  return PD_OK;
}

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}
static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* TensorDesc as the real framework writes it: data_type, then each dim as its own field 2. */
static size_t desc_size(const pd_tensor *t) {
  size_t n = 1 + varint_len((uint64_t)pd_dtype_to_vartype(t->dtype));
  for (int d = 0; d < t->ndim; d++) n += 1 + varint_len((uint64_t)t->shape[d]);
  return n;
}

static size_t lod_size(const pd_lod *lod) {
  size_t n = 0;
  for (int l = 0; lod && l < lod->n; l++) n += 8 + 8 * (size_t)lod->len[l];
  return n;
}

size_t pd_tensor_stream_size_lod(const pd_tensor *t, const pd_lod *lod) {
  return 4 + 8 + lod_size(lod) + 4 + 4 + desc_size(t) + (size_t)t->numel * pd_dtype_size(t->dtype);
}

size_t pd_tensor_stream_size(const pd_tensor *t) { return pd_tensor_stream_size_lod(t, NULL); }

pd_status pd_tensor_stream_write_lod(const pd_tensor *t, const pd_lod *lod, uint8_t *dst, size_t cap,
                                     size_t *written) {
  if (lod && lod->n) {
    if (lod->n > PD_STREAM_MAX_LOD_LEVELS)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] a LoD of %d levels (at most %d)", lod->n,
                          PD_STREAM_MAX_LOD_LEVELS);
    PD_TRY(pd_lod_check(lod, t->ndim ? t->shape[0] : 1, "[tensor_stream] writing a tensor"));
  }
  size_t n = pd_tensor_stream_size_lod(t, lod);
  if (cap < n)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_stream] buffer of %zu bytes, need %zu", cap, n);
  pd_tensor *c; /* contiguous host bytes (a GPU tensor is copied back) */
  PD_TRY(pd_tensor_on_gpu(t) ? pd_tensor_to_device((pd_tensor *)t, PD_CPU, 0, &c) : pd_tensor_contiguous((pd_tensor *)t, &c));
  uint8_t *p = dst;
  uint32_t zero32 = 0;
  uint64_t levels = lod ? (uint64_t)lod->n : 0;
  memcpy(p, &zero32, 4);
  p += 4;
  memcpy(p, &levels, 8);
  p += 8;
  for (uint64_t l = 0; l < levels; l++) {
    uint64_t nb = 8 * (uint64_t)lod->len[l];
    memcpy(p, &nb, 8);
    p += 8;
    for (int64_t k = 0; k < lod->len[l]; k++) {
      uint64_t v = (uint64_t)lod->offs[l][k];
      memcpy(p, &v, 8);
      p += 8;
    }
  }
  memcpy(p, &zero32, 4);
  p += 4;
  int32_t ds = (int32_t)desc_size(t);
  memcpy(p, &ds, 4);
  p += 4;
  *p++ = 0x08;
  p = put_varint(p, (uint64_t)pd_dtype_to_vartype(t->dtype));
  for (int d = 0; d < t->ndim; d++) {
    *p++ = 0x10;
    p = put_varint(p, (uint64_t)t->shape[d]);
  }
  size_t nb = (size_t)t->numel * pd_dtype_size(t->dtype);
  if (nb) memcpy(p, pd_tensor_data(c), nb);
  p += nb;
  pd_tensor_release(c);
  *written = (size_t)(p - dst);
  return PD_OK;
}

pd_status pd_tensor_stream_write(const pd_tensor *t, uint8_t *dst, size_t cap, size_t *written) {
  return pd_tensor_stream_write_lod(t, NULL, dst, cap, written);
}
