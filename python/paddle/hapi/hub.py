"""paddle.hub (Paddle 2.6): list / help / load entry points of a repository's hubconf.py.

source='local' imports <repo_dir>/hubconf.py. source='github' / 'gitee' use a cached copy under
HUB_DIR (<owner>_<name>_<branch>) when present; otherwise Paddle downloads the branch archive,
which Paddle-C cannot (no network): paddle.utils.download raises a RuntimeError naming the URL."""
import os
import shutil
import sys
import zipfile

from paddle.utils.download import get_path_from_url

__all__ = []

DEFAULT_CACHE_DIR = '~/.cache'
VAR_DEPENDENCY = 'dependencies'
MODULE_HUBCONF = 'hubconf.py'
HUB_DIR = os.path.expanduser(os.path.join('~', '.cache', 'paddle', 'hub'))
_SOURCES = ('github', 'gitee', 'local')


def _remove_if_exists(path):
    if os.path.isfile(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)


def _import_module(name, repo_dir):
    sys.path.insert(0, repo_dir)
    try:
        sys.modules.pop(name, None)
        hub_module = __import__(name)
        sys.modules.pop(name, None)
    except ImportError as e:
        raise RuntimeError('Please make sure config exists or repo error messages above fixed when importing') from e
    finally:
        sys.path.remove(repo_dir)
    return hub_module


def _git_archive_link(repo_owner, repo_name, branch, source):
    if source == 'github':
        return f'https://github.com/{repo_owner}/{repo_name}/archive/{branch}.zip'
    return f'https://gitee.com/{repo_owner}/{repo_name}/repository/archive/{branch}.zip'


def _parse_repo_info(repo, source):
    branch = 'main' if source == 'github' else 'master'
    if ':' in repo:
        repo_info, branch = repo.split(':')
    else:
        repo_info = repo
    repo_owner, repo_name = repo_info.split('/')
    return repo_owner, repo_name, branch


def _get_cache_or_reload(repo, force_reload, verbose=True, source='github'):
    hub_dir = HUB_DIR
    repo_owner, repo_name, branch = _parse_repo_info(repo, source)
    normalized_br = branch.replace('/', '_')
    repo_dir = os.path.join(hub_dir, '_'.join([repo_owner, repo_name, normalized_br]))
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f'Using cache found in {repo_dir}\n')
        return repo_dir
    os.makedirs(hub_dir, exist_ok=True)
    url = _git_archive_link(repo_owner, repo_name, branch, source)
    fpath = get_path_from_url(url, hub_dir, check_exist=not force_reload, decompress=False)
    cached_file = os.path.join(hub_dir, normalized_br + '.zip')
    if os.path.abspath(fpath) != os.path.abspath(cached_file):
        _remove_if_exists(cached_file)
        shutil.move(fpath, cached_file)
    with zipfile.ZipFile(cached_file) as zf:
        extracted = os.path.join(hub_dir, zf.infolist()[0].filename)
        _remove_if_exists(extracted)
        zf.extractall(hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted, repo_dir)
    return repo_dir


def _load_entry_from_hubconf(m, name):
    if not isinstance(name, str):
        raise ValueError('Invalid input: model should be a str of function name')
    func = getattr(m, name, None)
    if func is None or not callable(func):
        raise RuntimeError(f'Cannot find callable {name} in hubconf')
    return func


def _check_module_exists(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def _check_dependencies(m):
    deps = getattr(m, VAR_DEPENDENCY, None)
    if deps is not None:
        missing = [pkg for pkg in deps if not _check_module_exists(pkg)]
        if missing:
            raise RuntimeError('Missing dependencies: {}'.format(', '.join(missing)))


def _hub_module(repo_dir, source, force_reload):
    if source not in _SOURCES:
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "gitee" | "local".')
    if source in ('github', 'gitee'):
        repo_dir = _get_cache_or_reload(repo_dir, force_reload, True, source=source)
    return _import_module(MODULE_HUBCONF.split('.')[0], repo_dir)


def list(repo_dir, source='github', force_reload=False):
    """Names of the public callables (entry points) in the repository's hubconf.py."""
    m = _hub_module(repo_dir, source, force_reload)
    return [f for f in dir(m) if callable(getattr(m, f)) and not f.startswith('_')]


def help(repo_dir, model, source='github', force_reload=False):
    """The docstring of entry point model."""
    m = _hub_module(repo_dir, source, force_reload)
    return _load_entry_from_hubconf(m, model).__doc__


def load(repo_dir, model, source='github', force_reload=False, **kwargs):
    """Call entry point model(**kwargs) after checking hubconf's `dependencies`."""
    m = _hub_module(repo_dir, source, force_reload)
    _check_dependencies(m)
    return _load_entry_from_hubconf(m, model)(**kwargs)
