/* Paddle's LoDTensor stream: the binary layout that save/save_combine write (each tensor of a
 * .pdiparams file, paddle.save(..., use_binary_format=True)). Readers never trust the bytes:
 * every size is checked against what is left, so a corrupt file gives an error, not a crash.
 * Layout: u32 version(0), u64 lod_level_count, per level (u64 nbytes, nbytes of u64 offsets),
 *         (the LoD: per level, offsets into the next level / the tensor's rows),
 *         u32 tensor version(0), i32 desc size, TensorDesc protobuf {1: data_type, 2: dims},
 *         raw little-endian data (numel * element size). */
#ifndef PD_TENSOR_STREAM_H
#define PD_TENSOR_STREAM_H
#include <stddef.h>
#include <stdint.h>
#include "../core/pd_tensor.h"
#include "pd_scope.h"

/* At most this many LoD levels are accepted (real files have 0-2). */
#define PD_STREAM_MAX_LOD_LEVELS 64

/* Reads one tensor starting at buf[*pos]; advances *pos past it (not on error). The LoD is
 * checked against the tensor (offsets from 0, non-decreasing, each level ending at the next
 * level's entry count and the last at the tensor's rows) and returned in *lod when not NULL
 * (cleared first; the caller clears it). `what` names the source in error messages (a file
 * name). New contiguous tensor in *out. */
pd_status pd_tensor_stream_read_lod(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                    pd_tensor **out, pd_lod *lod);
/* The same, returning only the LoD's level count (when lod_levels is not NULL). */
pd_status pd_tensor_stream_read(const uint8_t *buf, size_t len, size_t *pos, const char *what,
                                pd_tensor **out, int *lod_levels);

/* Bytes pd_tensor_stream_write_lod needs for t with lod (NULL: no LoD). */
size_t pd_tensor_stream_size_lod(const pd_tensor *t, const pd_lod *lod);
/* Writes t (any strides) and its LoD at dst[0 .. cap); *written gets the byte count. The LoD
 * is checked against t first. */
pd_status pd_tensor_stream_write_lod(const pd_tensor *t, const pd_lod *lod, uint8_t *dst, size_t cap,
                                     size_t *written);
/* Without LoD. */
size_t pd_tensor_stream_size(const pd_tensor *t);
pd_status pd_tensor_stream_write(const pd_tensor *t, uint8_t *dst, size_t cap, size_t *written);

#endif
