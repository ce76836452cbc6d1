"""paddle.utils: dlpack interop and small helpers."""
from . import dlpack  # noqa: F401
from . import unique_name  # noqa: F401
from . import cpp_extension  # noqa: F401
from . import download  # noqa: F401


def try_import(module_name, err_msg=None):
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is not None:
            raise ImportError(err_msg) from None
        raise ImportError(f"Failed importing {module_name}. This likely means that some paddle "
                          f"modules require additional dependencies that have to be manually "
                          f"installed (usually with `pip install {module_name}`).") from None


def _version_tuple(v, what):
    import re
    if not isinstance(v, str):
        raise TypeError(f"The type of '{what}' in require_version must be str, but received {type(v)}.")
    if not re.fullmatch(r"\d+(\.\d+){0,3}", v):
        raise ValueError(f"The value of '{what}' in require_version must be in format '\\d+(\\.\\d+){{0,3}}', "
                         f"like '1.5.2.0', but received {v}")
    parts = [int(p) for p in v.split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


def require_version(min_version, max_version=None):
    """Raises unless the installed version lies in [min_version, max_version] (versions compared
    by up to four numeric fields, missing ones being 0)."""
    from .. import __version__ as installed
    lo = _version_tuple(min_version, "min_version")
    hi = None if max_version is None else _version_tuple(max_version, "max_version")
    cur = _version_tuple(installed, "installed version")
    if hi is None:
        if cur < lo:
            raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is required, but "
                            f"{installed} installed, please upgrade your PaddlePaddle to {min_version} or "
                            f"other higher version.")
    elif not lo <= cur <= hi:
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but "
                        f"{installed} installed.")


def deprecated(update_to="", since="", reason="", level=0):
    """Marks a function or class deprecated: its docstring gets a warning notice; calling it warns
    (DeprecationWarning) when level is 1, raises RuntimeError when level is 2, and stays silent
    when level is 0 (the default)."""
    import functools
    import warnings
    if not isinstance(update_to, str) or not isinstance(since, str) or not isinstance(reason, str):
        raise TypeError("deprecated: update_to, since and reason must be str")
    if not isinstance(level, int) or isinstance(level, bool) or level not in (0, 1, 2):
        raise ValueError(f"deprecated: level must be 0, 1 or 2, received {level!r}")
    update_to, since, reason = update_to.strip(), since.strip(), reason.strip()
    if update_to and not update_to.startswith("paddle."):
        raise ValueError(f'deprecated: update_to must start with "paddle.", received "{update_to}"')

    def decorator(func):
        msg = f'API "{func.__module__}.{func.__name__}" is deprecated'
        if since:
            msg += f" since {since}"
        msg += ", and will be removed in future versions."
        if update_to:
            msg += f' Please use "{update_to}" instead.'
        if reason:
            msg += f"\nreason: {reason}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning: " + msg + "\n" + func.__doc__
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{func.__module__}.{func.__name__}" has been deprecated.')
            from .. import __version__ as installed
            if not since or _version_tuple(installed, "installed version") >= _version_tuple(since, "since"):
                warnings.warn("\nWarning:\n" + msg, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapper
    return decorator


def run_check():
    """Checks that Paddle-C works here: trains a small linear model a few steps as a static program
    and eagerly, checks the losses fall and agree, and says so."""
    from .install_check import run_check as _run
    _run()


__all__ = ["try_import", "require_version", "deprecated", "run_check"]
