"""Tensor printing in Paddle 2.x's format (seed e16): a header line with shape, dtype, place and
stop_gradient, then the data indented by len('Tensor') + 1, floats with `precision` decimals
(integral floats as '1.'), a leading space for non-negative entries when any entry is negative,
and summarisation with '...' past `threshold` elements. paddle.set_printoptions sets it."""
import numpy as np


class _PrintOptions:
    precision = 8
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = False


_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """Sets how Tensors print (Paddle's paddle.set_printoptions)."""
    for name, v, kind in (("precision", precision, int), ("threshold", threshold, int),
                          ("edgeitems", edgeitems, int), ("linewidth", linewidth, int),
                          ("sci_mode", sci_mode, bool)):
        if v is None:
            continue
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise TypeError(f"set_printoptions: {name} must be {kind.__name__}, received {type(v).__name__}")
        setattr(_OPTS, name, v)


def _fmt_item(v, width=0, signed=False):
    if isinstance(v, (np.floating, float)):
        fv = float(v)
        if _OPTS.sci_mode:
            s = f"{fv:.{_OPTS.precision}e}"
        elif np.isfinite(fv) and np.ceil(fv) == fv:
            s = f"{fv:.0f}."
        elif np.isfinite(fv):
            s = f"{fv:.{_OPTS.precision}f}"
        else:
            s = str(fv)
    elif isinstance(v, (np.bool_, bool)):
        s = str(bool(v))
    elif isinstance(v, (np.complexfloating, complex)):
        c = complex(v)
        p = _OPTS.precision
        s = f"({c.real:.{p}f}{'+' if c.imag >= 0 else '-'}{abs(c.imag):.{p}f}j)"
    else:
        s = str(v)
    if width > len(s):
        if signed:
            neg = isinstance(v, (np.floating, np.integer, float, int)) and v < 0
            return s.ljust(width) if neg else " " + s.ljust(width - 1)
        return s.ljust(width)
    return s


def _summary(a, summarise):
    """The entries that will be shown (for width computation)."""
    e = _OPTS.edgeitems
    if not summarise or a.ndim == 0:
        return a
    if a.shape[0] > 2 * e:
        a = np.concatenate([a[:e], a[-e:]])
    if a.ndim == 1:
        return a
    return np.stack([_summary(x, summarise) for x in a])


def _fmt(a, summarise, indent, width, signed):
    e = _OPTS.edgeitems
    if a.ndim == 0:
        return _fmt_item(a[()], width, signed)
    if a.ndim == 1:
        per_line = max(1, (_OPTS.linewidth - indent) // (width + 2))
        if summarise and a.shape[0] > 2 * e:
            items = [_fmt_item(x, width, signed) for x in a[:e]] + ["..."] + \
                    [_fmt_item(x, width, signed) for x in a[-e:]]
        else:
            items = [_fmt_item(x, width, signed) for x in a]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarise and a.shape[0] > 2 * e:
        parts = [_fmt(x, summarise, indent + 1, width, signed) for x in a[:e]] + ["..."] + \
                [_fmt(x, summarise, indent + 1, width, signed) for x in a[-e:]]
    else:
        parts = [_fmt(x, summarise, indent + 1, width, signed) for x in a]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_to_str(a, indent):
    """Formats a numpy array as Paddle prints a tensor's data block."""
    summarise = a.size > _OPTS.threshold
    shown = _summary(a, summarise).reshape(-1)
    width, signed = 0, False
    for v in shown:
        if not signed and not isinstance(v, (np.bool_, np.complexfloating)) and v < 0:
            signed = True
        width = max(width, len(_fmt_item(v)))
    return _fmt(a, summarise, indent, width, signed)


def tensor_to_string(t, prefix="Tensor"):
    indent = len(prefix) + 1
    a = t.numpy()
    data = array_to_str(a, indent)
    return (f"{prefix}(shape={t.shape}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},\n{' ' * indent}{data})")
