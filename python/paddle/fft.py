"""paddle.fft: discrete Fourier transforms over the ops fft_c2c / fft_r2c / fft_c2r (ops/fft.yaml,
kernels on FFTW in csrc/kernels/cpu/fft.c). Sizes given by `n` / `s` crop or zero-pad the input
along the transformed axes before the op runs (slice / concat, so gradients follow); the
Hermitian families (irfft*, hfft*) crop or pad the half spectrum to n//2 + 1. Argument checks and
their messages follow Paddle 2.6 (checked against it), dtype handling too: integer inputs are
transformed as the default float dtype, float16 and bool have no kernel (RuntimeError), the
complex-to-real families need a complex input and the real-to-complex ones a real input."""
import numbers

import paddle
from paddle import _C_ops

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("forward", "backward", "ortho")
_REAL = ("float32", "float64")
_CPLX = ("complex64", "complex128")
_INTS = ("uint8", "int8", "int16", "int32", "int64")


def _dname(x):
    return x.dtype.name if hasattr(x.dtype, "name") else str(x.dtype).replace("paddle.", "")


def _no_kernel(op, dt, supported):
    raise RuntimeError(f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dt}) of kernel `{op}` is not "
                       f"registered. Selected wrong DataType `{dt}`. Paddle support following DataTypes: {supported}.")


def _check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_n(n):
    if n is None:
        return
    if not _is_int(n):
        raise ValueError(f"Invalid FFT argument n({n}), it shoule be an integer.")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")


def _check_axis(axis, ndim):
    if not _is_int(axis):
        raise ValueError(f"Invalid FFT axis ({axis}), it shoule be an integer.")
    if not -ndim <= axis < ndim:
        raise ValueError(f"Invalid FFT axis ({axis}), it should be in range [-{ndim}, {ndim})")
    return axis % ndim


def _promote(x, kind):
    """Integer inputs become the default float dtype; then the dtype must suit the op kind
    ('c2c' takes complex, real inputs go to r2c; 'r2c' takes real; 'c2r' takes complex)."""
    dt = _dname(x)
    if dt in _INTS:
        x = x.astype(paddle.get_default_dtype())
        dt = _dname(x)
    if kind == "c2c":
        if dt in _CPLX or dt in _REAL:
            return x
        if dt == "float16":
            _no_kernel("fft_r2c", dt, "float64, float32")
        _no_kernel("fft_c2c", dt, "complex128, complex64")
    if kind == "r2c":
        if dt not in _REAL:
            _no_kernel("fft_r2c", dt, "float64, float32")
        return x
    if dt not in _CPLX:
        _no_kernel("fft_c2r", dt, "complex128, complex64")
    return x


def _resize(x, axes, sizes):
    """Crops or zero-pads x (at the end) along each axis to the given size."""
    for ax, n in zip(axes, sizes):
        cur = x.shape[ax]
        if n == cur:
            continue
        if n < cur:
            x = _C_ops.slice(x, [ax], [0], [n])
        else:
            shp = list(x.shape)
            shp[ax] = n - cur
            x = paddle.concat([x, paddle.zeros(shp, dtype=x.dtype)], axis=ax)
    return x


def _c2c_or_r2c(x, axes, sizes, norm, forward):
    """fft / ifft families: complex input -> c2c, real input -> full-length r2c."""
    x = _resize(x, axes, sizes)
    if _dname(x) in _CPLX:
        return _C_ops.fft_c2c(x, axes, norm, forward)
    return _C_ops.fft_r2c(x, axes, norm, forward, False)


def _r2c(x, axes, sizes, norm, forward):
    x = _resize(x, axes, sizes)
    return _C_ops.fft_r2c(x, axes, norm, forward, True)


def _c2r(x, axes, sizes, norm, forward):
    """sizes[-1] is the real output length (None: 2 * (m - 1))."""
    last = sizes[-1] if sizes[-1] is not None else 2 * (x.shape[axes[-1]] - 1)
    half = [s if s is not None else x.shape[a] for a, s in zip(axes[:-1], sizes[:-1])]
    if last <= 0:
        raise ValueError(f"(InvalidArgument) Invalid fft n-point ({last}).")
    x = _resize(x, axes, half + [last // 2 + 1])
    return _C_ops.fft_c2r(x, axes, norm, forward, sizes[-1] if sizes[-1] is not None else 0)


# ---- one-dimensional ----
def _one(x, n, axis, norm, kind, forward):
    _check_n(n)
    _check_norm(norm)
    axis = _check_axis(axis, len(x.shape))
    x = _promote(x, kind)
    if kind == "c2r":
        return _c2r(x, [axis], [n], norm, forward)
    size = [n if n is not None else x.shape[axis]]
    if kind == "r2c":
        return _r2c(x, [axis], size, norm, forward)
    return _c2c_or_r2c(x, [axis], size, norm, forward)


def fft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "c2c", True)


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "c2c", False)


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "r2c", True)


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "c2r", False)


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "c2r", True)


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    return _one(x, n, axis, norm, "r2c", False)


# ---- n-dimensional ----
def _is_seq(v):
    return isinstance(v, (list, tuple))


def _check_sizes(s):
    for v in s:
        if not _is_int(v) or v <= 0:
            raise ValueError(f"FFT sizes {list(s)} contains invalid value ({v})")


def _check_axes(axes, ndim):
    out = []
    for a in axes:
        if not _is_int(a) or not -ndim <= a < ndim:
            raise ValueError(f"FFT axes {list(axes)} contains invalid value ({a}), it should be in range "
                             f"[-{ndim}, {ndim})")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"FFT axes {list(axes)} contains a repeated axis")
    return out


def _nd(x, s, axes, norm, kind, forward):
    ndim = len(x.shape)
    if s is not None and not _is_seq(s):
        raise ValueError("Invaid FFT argument s({}), it should be a sequence of integers.")
    if axes is not None and not _is_seq(axes):
        raise ValueError(f"Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError(f"Length of s ({len(s)}) and length of axes ({len(axes)}) does not match.")
    _check_norm(norm)
    if axes is None:
        axes = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    if s is not None:
        _check_sizes(s)
    if len(axes) == 0:
        raise IndexError("list index out of range")
    axes = _check_axes(axes, ndim)
    x = _promote(x, kind)
    if kind == "c2r":
        return _c2r(x, axes, list(s) if s is not None else [None] * len(axes), norm, forward)
    sizes = list(s) if s is not None else [x.shape[a] for a in axes]
    if kind == "r2c":
        return _r2c(x, axes, sizes, norm, forward)
    return _c2c_or_r2c(x, axes, sizes, norm, forward)


def _two(x, s, axes, norm, kind, forward):
    ndim = len(x.shape)
    if ndim < 2:
        raise ValueError(f"The rank of the input ({ndim}) should >= 2")
    if s is not None and (not _is_seq(s) or len(s) != 2):
        raise ValueError(f"Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    # axes=None (Paddle 2.6 lets it through to the n-D transform): the last len(s) axes, or all
    if axes is not None and (not _is_seq(axes) or len(axes) != 2):
        raise ValueError(f"Invalid FFT argument axes ({axes}), it should be a sequence of 2 integers.")
    return _nd(x, s, axes, norm, kind, forward)


def fftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "c2c", True)


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "c2c", False)


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "r2c", True)


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "c2r", False)


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "c2r", True)


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    return _nd(x, s, axes, norm, "r2c", False)


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "c2c", True)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "c2c", False)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "r2c", True)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "c2r", False)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "c2r", True)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    return _two(x, s, axes, norm, "r2c", False)


# ---- helpers ----
def _freq_check(n, d):
    if n * d == 0:
        raise ValueError("d or n should not be 0.")
    if not _is_int(n):
        raise ValueError(f"(InvalidArgument) roll(): argument (position 2) must be list or int, but got "
                         f"{type(n).__name__}")
    if n < 0:
        raise ValueError("(InvalidArgument) The step should be less than 0 while start > end.")


def fftfreq(n, d=1.0, dtype=None, name=None):
    """Sample frequencies [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n * d). As in Paddle 2.6,
    the result has the default float dtype whatever `dtype` says."""
    _freq_check(n, d)
    dt = paddle.get_default_dtype()
    idx = paddle.concat([paddle.arange(0, (n - 1) // 2 + 1, dtype="int64"), paddle.arange(-(n // 2), 0, dtype="int64")])
    return idx.astype(dt) * (1.0 / (n * d))


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """Sample frequencies [0, 1, ..., n//2] / (n * d), in the default float dtype (as Paddle 2.6)."""
    _freq_check(n, d)
    dt = paddle.get_default_dtype()
    return paddle.arange(0, n // 2 + 1, dtype="int64").astype(dt) * (1.0 / (n * d))


def _shift(x, axes, sign):
    ndim = len(x.shape)
    if axes is None:
        axes = list(range(ndim))
    elif _is_int(axes):
        axes = [axes]
    axes = list(axes)
    for a in axes:
        if not -ndim <= a < ndim:
            raise IndexError(f"(OutOfRange) The starting index {a} of slice is out of bounds in tensor 0-th axis, "
                             f"it shound be in the range of [-{ndim}, {ndim}).")
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return paddle.roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    return _shift(x, axes, -1)
