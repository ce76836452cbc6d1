"""Gathers the public names of a package's family modules (each module declares __all__), so
families can be added without editing the package's __init__ (see paddle.nn, nn.functional)."""
import importlib
import importlib.util


def gather(package, modules, namespace):
    names = []
    for m in modules:
        full = f"{package}.{m}"
        if importlib.util.find_spec(full) is None:
            continue  # family not built yet; the API coverage check reports its names
        mod = importlib.import_module(full)
        for n in getattr(mod, "__all__", []):
            namespace[n] = getattr(mod, n)
            names.append(n)
    return names
