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
