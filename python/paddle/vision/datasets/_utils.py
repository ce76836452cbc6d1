"""Shared helpers of paddle.vision.datasets: where data files are looked for (there is no
network: an explicit path, then Paddle's cache ~/.cache/paddle/dataset/<name>/, then folders
that Debian data packages install), backend and mode checks."""
import os

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def locate(path, name, filename, extra_dirs=(), what="data file", download=True):
    """Returns an existing file for a dataset argument, or raises FileNotFoundError saying
    where to put it."""
    if path is not None:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what} {path!r} does not exist")
        return path
    candidates = [os.path.join(DATA_HOME, name, filename)]
    candidates += [os.path.join(d, filename) for d in extra_dirs]
    for c in candidates:
        if os.path.isfile(c):
            return c
    raise FileNotFoundError(
        f"{what} {filename!r} of dataset {name!r} not found (Paddle-C has no network access, so "
        f"it never downloads{'' if download else '; download=False'}). Put the file at "
        f"{candidates[0]!r} or pass its path explicitly. Looked in: " + ", ".join(candidates))


def check_backend(backend):
    if backend is None:
        from ..image import get_image_backend
        backend = get_image_backend()
    if backend not in ('pil', 'cv2'):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend!r}")
    return backend


def check_mode(mode, allowed):
    if not isinstance(mode, str) or mode.lower() not in allowed:
        raise ValueError(f"mode should be one of {list(allowed)}, but got {mode!r}")
    return mode.lower()


def default_dtype():
    from ...framework.dtype import get_default_dtype
    d = get_default_dtype()
    return d if isinstance(d, str) else getattr(d, 'name', str(d))
