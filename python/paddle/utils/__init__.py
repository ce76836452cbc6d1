"""paddle.utils: dlpack interop and small helpers."""
from . import dlpack  # noqa: F401
from . import unique_name  # noqa: F401


def try_import(module_name):
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(f"Failed importing {module_name}. This likely means that some paddle "
                          f"modules require additional dependencies that have to be manually "
                          f"installed (usually with `pip install {module_name}`).") from None


def require_version(min_version, max_version=None):
    return None


__all__ = ["try_import", "require_version"]
