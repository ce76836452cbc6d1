"""Vision functionals built from reshape/transpose: pixel_shuffle, pixel_unshuffle and
channel_shuffle (NCHW or NHWC)."""
from ...framework.param import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]


def _check(x, fn, data_format):
    if not isinstance(x, Tensor):
        raise TypeError(f"[{fn}] expected x to be a paddle.Tensor, received {type(x).__name__}")
    if len(x.shape) != 4:
        raise ValueError(f"[{fn}] expected a 4-D input, received {len(x.shape)}-D")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"[{fn}] data_format must be 'NCHW' or 'NHWC', received {data_format!r}")
    return x.shape if data_format == "NCHW" else [x.shape[0], x.shape[3], x.shape[1], x.shape[2]]


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""
    import paddle
    n, c, h, w = _check(x, "pixel_shuffle", data_format)
    r = int(upscale_factor)
    if r <= 0 or c % (r * r):
        raise ValueError(f"[pixel_shuffle] channels ({c}) must be divisible by upscale_factor**2 ({r}**2)")
    if data_format == "NCHW":
        t = paddle.reshape(x, [n, c // (r * r), r, r, h, w])
        return paddle.reshape(paddle.transpose(t, [0, 1, 4, 2, 5, 3]), [n, c // (r * r), h * r, w * r])
    t = paddle.reshape(x, [n, h, w, c // (r * r), r, r])
    return paddle.reshape(paddle.transpose(t, [0, 1, 4, 2, 5, 3]), [n, h * r, w * r, c // (r * r)])


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (the inverse of pixel_shuffle)."""
    import paddle
    n, c, h, w = _check(x, "pixel_unshuffle", data_format)
    r = int(downscale_factor)
    if r <= 0 or h % r or w % r:
        raise ValueError(f"[pixel_unshuffle] height and width ({h}, {w}) must be divisible by "
                         f"downscale_factor ({r})")
    if data_format == "NCHW":
        t = paddle.reshape(x, [n, c, h // r, r, w // r, r])
        return paddle.reshape(paddle.transpose(t, [0, 1, 3, 5, 2, 4]), [n, c * r * r, h // r, w // r])
    t = paddle.reshape(x, [n, h // r, r, w // r, r, c])
    return paddle.reshape(paddle.transpose(t, [0, 1, 3, 5, 2, 4]), [n, h // r, w // r, c * r * r])


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Splits the channels into groups and interleaves them."""
    import paddle
    n, c, h, w = _check(x, "channel_shuffle", data_format)
    g = int(groups)
    if g <= 0 or c % g:
        raise ValueError(f"[channel_shuffle] channels ({c}) must be divisible by groups ({g})")
    if data_format == "NCHW":
        t = paddle.reshape(x, [n, g, c // g, h, w])
        return paddle.reshape(paddle.transpose(t, [0, 2, 1, 3, 4]), [n, c, h, w])
    t = paddle.reshape(x, [n, h, w, g, c // g])
    return paddle.reshape(paddle.transpose(t, [0, 1, 2, 4, 3]), [n, h, w, c])
