"""paddle.utils.download: get_path_from_url / get_weights_path_from_url with Paddle 2.6's
signatures, cache layout (root_dir/<last URL component>), md5 check and tar/zip decompression.

Paddle-C never opens a network connection: an http(s) URL is answered from the cache (the file
already at root_dir/<name>, as Paddle answers a cached download), otherwise a RuntimeError says
that there is no network and where to put the file. file:// URLs and local paths (a Paddle-C
extension: Paddle accepts http(s) only) are "downloaded" by copying into root_dir, then checked
and decompressed exactly like a download."""
import hashlib
import logging
import os
import os.path as osp
import shutil
import tarfile
import urllib.parse
import urllib.request
import zipfile

logger = logging.getLogger(__name__)

__all__ = ["get_weights_path_from_url"]

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")
DOWNLOAD_RETRY_LIMIT = 3


def is_url(path):
    """Whether path is an http(s) URL (Paddle's test)."""
    return path.startswith("http://") or path.startswith("https://")


def _local_source(url):
    """The local file a file:// URL or a plain path names, else None."""
    if url.startswith("file://"):
        return urllib.request.url2pathname(urllib.parse.urlparse(url).path)
    if "://" not in url:
        return url
    return None


def get_weights_path_from_url(url, md5sum=None):
    """The weights file for url under WEIGHTS_HOME (~/.cache/paddle/hapi/weights)."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


def _map_path(url, root_dir):
    return osp.join(root_dir, osp.split(url)[-1])


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True, method="get"):
    """The local path of url's file under root_dir: the cached copy when it exists (and its md5
    matches md5sum), else a fresh copy of a file:// URL or local path; a tar or zip archive is
    extracted next to it when decompress is True and the extracted path returned.

    Args:
        url (str): http(s):// or file:// URL, or a local path.
        root_dir (str): the cache directory (WEIGHTS_HOME or a dataset home).
        md5sum (str, optional): expected md5 hex digest of the file.
        check_exist (bool): use an existing cached file (default True).
        decompress (bool): extract tar/zip archives (default True).
        method (str): 'get' (Paddle's only download method).

    Raises:
        RuntimeError: an http(s) URL that is not cached (this build has no network), or a file
            whose md5 does not match.
        FileNotFoundError: a file:// URL or local path that does not exist."""
    if not isinstance(url, str):
        raise TypeError(f"get_path_from_url: url should be str, but received {type(url).__name__}")
    if method != "get":
        raise AssertionError(f"make sure `{method}` implemented")
    src = _local_source(url)
    if src is None and not is_url(url):
        raise AssertionError(f"downloading from {url} not a url")
    fullpath = _map_path(url, root_dir)
    if osp.exists(fullpath) and check_exist and _md5check(fullpath, md5sum):
        logger.info(f"Found {fullpath}")
    elif src is None:
        raise RuntimeError(
            f"Downloading from {url} failed: Paddle-C has no network access and never downloads. "
            f"Fetch the file yourself and place it at {fullpath}"
            + (f" (md5 {md5sum})" if md5sum else "") + ", or pass a file:// URL or a local path.")
    else:
        fullpath = _copy(src, root_dir, fullpath, md5sum, url)
    if decompress and (tarfile.is_tarfile(fullpath) or zipfile.is_zipfile(fullpath)):
        fullpath = _decompress(fullpath)
    return fullpath


def _copy(src, root_dir, fullpath, md5sum, url):
    if not osp.isfile(src):
        raise FileNotFoundError(f"get_path_from_url: {url} names no file ({src} does not exist)")
    os.makedirs(root_dir, exist_ok=True)
    if osp.abspath(src) != osp.abspath(fullpath):
        tmp = fullpath + "_tmp"
        shutil.copyfile(src, tmp)
        os.replace(tmp, fullpath)
    if not _md5check(fullpath, md5sum):
        raise RuntimeError(f"Download from {url} failed: md5 of {fullpath} is not {md5sum}")
    return fullpath


def _md5check(fullname, md5sum=None):
    if md5sum is None:
        return True
    md5 = hashlib.md5()
    with open(fullname, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            md5.update(chunk)
    ok = md5.hexdigest() == md5sum
    if not ok:
        logger.info(f"File {fullname} md5 check failed, {md5.hexdigest()}(calc) != {md5sum}(base)")
    return ok


def _is_a_single_file(names):
    return len(names) == 1 and names[0].find(os.sep) < 0


def _is_a_single_dir(names):
    first = names[0].replace("\\", "/").split("/")[0]
    return all(n.replace("\\", "/").split("/")[0] == first for n in names[1:])


def _safe_names(names, fname):
    out = []
    for n in names:
        if n.startswith("/") or osp.isabs(n):
            raise ValueError(f"uncompress file path {n} should not start with /")
        if ".." in n.replace("\\", "/").split("/"):
            raise ValueError(f"{fname}: archive member {n} leaves the extraction directory")
        out.append(n)
    return out


def _decompress(fname):
    """Extracts a tar or zip archive next to it (Paddle's layout: a single file or a single
    top-level directory extracts in place; anything else into a directory named after the
    archive) and returns the extracted path."""
    if tarfile.is_tarfile(fname):
        with tarfile.open(fname, "r:*") as f:
            names = _safe_names(f.getnames(), fname)
            return _extract(fname, names, lambda d: _tar_extract(f, d))
    if zipfile.is_zipfile(fname):
        with zipfile.ZipFile(fname, "r") as f:
            names = _safe_names(f.namelist(), fname)
            return _extract(fname, names, f.extractall)
    raise TypeError(f"Unsupport compress file type {fname}")


def _tar_extract(f, d):
    try:
        f.extractall(d, filter="data")
    except TypeError:  # Python without extraction filters (names were checked above)
        f.extractall(d)


def _extract(fname, names, extract):
    file_dir = osp.dirname(fname)
    if not names:
        raise ValueError(f"{fname}: empty archive")
    if _is_a_single_file(names):
        extract(file_dir)
        return osp.join(file_dir, names[0])
    if _is_a_single_dir(names):
        root = osp.splitext(names[0].strip(os.sep))[0].split(os.sep)[-1]
        extract(file_dir)
        return osp.join(file_dir, root)
    root = osp.splitext(fname)[0].split(os.sep)[-1]
    out = osp.join(file_dir, root)
    os.makedirs(out, exist_ok=True)
    extract(out)
    return out
