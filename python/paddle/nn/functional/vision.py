"""Vision functionals: pixel_shuffle, pixel_unshuffle and channel_shuffle (reshape/transpose,
NCHW or NHWC); affine_grid (a constant base grid times theta: autograd for free) and
grid_sample (the C op grid_sample, fused backward for x and grid; 4-D and 5-D inputs)."""
import numpy as np

from ... import _C
from ...framework.param import Tensor
from ...framework.misc import check_tensor

_ops = _C._C_ops

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "affine_grid", "grid_sample"]


def _check(x, fn, data_format):
    check_tensor(x, fn)
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


def _base_grid(sizes, align_corners):
    """[prod(sizes), ns + 1] rows (x, y[, z], 1) with x along the last spatial dim."""
    def lin(n):
        v = np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        return v if align_corners else v * (n - 1) / n
    mesh = np.meshgrid(*[lin(n) for n in sizes], indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)]
    return np.stack(cols + [np.ones(cols[0].shape)], axis=1)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """Sampling grid [N, H, W, 2] (theta [N, 2, 3], out_shape [N, C, H, W]) or [N, D, H, W, 3]
    (theta [N, 3, 4], out_shape [N, C, D, H, W]): each output location's normalised (x, y[, z], 1)
    times theta^T. align_corners=False shrinks the base coordinates by (n - 1) / n."""
    import paddle
    if not isinstance(theta, Tensor):
        raise ValueError("[affine_grid] The theta should be a Tensor.")
    if isinstance(out_shape, Tensor):
        out_shape = [int(v) for v in out_shape.numpy().reshape(-1).tolist()]
    if not isinstance(out_shape, (list, tuple)):
        raise ValueError("[affine_grid] The out_shape should be a list, tuple or Tensor.")
    out_shape = [int(v) for v in out_shape]
    if theta.dtype.name not in ("float32", "float64"):
        raise TypeError(f"[affine_grid] expected theta of dtype float32 or float64, received {theta.dtype.name}")
    if len(out_shape) not in (4, 5):
        raise ValueError(f"[affine_grid] expected out_shape of length 4 [N, C, H, W] or 5 [N, C, D, H, W], "
                         f"received {out_shape}")
    ns = len(out_shape) - 2
    if len(theta.shape) != 3 or list(theta.shape[1:]) != [ns, ns + 1]:
        raise ValueError(f"[affine_grid] expected theta of shape [N, {ns}, {ns + 1}] for out_shape {out_shape}, "
                         f"received {theta.shape}")
    if theta.shape[0] != out_shape[0] and theta.shape[0] >= 0:
        raise ValueError(f"[affine_grid] out_shape's batch size {out_shape[0]} does not match theta's "
                         f"{theta.shape[0]}")
    sizes = out_shape[2:]
    if any(s <= 0 for s in sizes):
        raise ValueError(f"[affine_grid] expected positive output sizes, received {out_shape}")
    base = paddle.to_tensor(_base_grid(sizes, bool(align_corners)).astype(theta.dtype.name))
    grid = paddle.matmul(base, theta, transpose_y=True)  # [N, P, ns]
    return paddle.reshape(grid, [out_shape[0]] + sizes + [ns])


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Samples x [N, C, H, W] at grid [N, H_out, W_out, 2] ((x, y) normalised to [-1, 1], x along W)
    by bilinear or nearest interpolation; out-of-range points follow padding_mode ('zeros',
    'border', 'reflection'). 5-D x [N, C, D, H, W] takes grid [N, D_out, H_out, W_out, 3]."""
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"[grid_sample] The mode of grid sample function should be in ['bilinear', 'nearest'], "
                         f"but got: {mode}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError(f"[grid_sample] The padding mode of grid sample function should be in ['zeros', "
                         f"'reflection', 'border'], but got: {padding_mode}")
    if not isinstance(align_corners, bool):
        raise ValueError(f"[grid_sample] The align corners should be bool, but got: {align_corners}")
    for n, t in (("x", x), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"[grid_sample] expected {n} to be a paddle.Tensor, received {type(t).__name__}")
    return _ops.grid_sample(x, grid, mode, padding_mode, align_corners)
