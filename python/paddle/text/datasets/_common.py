"""Locating dataset files without a network: data_file, or Paddle's download cache
(~/.cache/paddle/dataset/<module>/<file name of the URL>, md5-checked)."""
import hashlib
import os

DATA_HOME = os.path.expanduser(os.path.join('~', '.cache', 'paddle', 'dataset'))


def _md5(path):
    h = hashlib.md5()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def locate(data_file, url, md5, module, download, what='data_file', dataset=''):
    """The file to read: data_file when given (it must exist), else the cached download.
    There is no network download: a missing file raises with its name and source URL."""
    if data_file is not None:
        if not os.path.isfile(data_file):
            raise FileNotFoundError(f"{dataset}: {what} '{data_file}' does not exist")
        return data_file
    assert download, f"{what} is not set and downloading automatically is disabled"
    fname = url.split('/')[-1].split('%2F')[-1]
    cached = os.path.join(DATA_HOME, module, fname)
    if os.path.isfile(cached) and (md5 is None or _md5(cached) == md5):
        return cached
    raise RuntimeError(
        f"{dataset}: {what} is not set and this build cannot download: get '{fname}' from {url} "
        f"(md5 {md5}) and pass {what}='/path/to/{fname}', or place it at {cached}")


def malformed_is_value_error(dataset):
    """Decorates a dataset's __init__: what the archive and text modules raise on a malformed file
    (tarfile/zipfile/gzip/zlib errors, truncation, undecodable text, short fields ...) becomes one
    ValueError naming the dataset and the original error, as for every other reader (issue 24).
    Missing files keep their FileNotFoundError / RuntimeError; errors of the caller's arguments
    (TypeError, AssertionError) and our own bugs are not converted."""
    import functools
    import struct
    import tarfile
    import zipfile
    import zlib

    kinds = (tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, OSError, UnicodeError,
             struct.error, IndexError, KeyError, OverflowError, MemoryError,
             NotImplementedError)  # zipfile: "zip file version 10.1", unknown compression methods

    def wrap(init):
        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            try:
                init(self, *args, **kwargs)
            except FileNotFoundError:
                raise
            except kinds as e:
                where = getattr(self, 'data_file', None)
                raise ValueError(f"{dataset}: {where!r} is not a valid {dataset} archive "
                                 f"({type(e).__name__}: {e})") from e
        return __init__
    return wrap
