"""Movielens: the MovieLens 1M ratings (ml-1m.zip: ml-1m/movies.dat, users.dat, ratings.dat)."""
import re
import zipfile

import numpy as np

from paddle.io import Dataset

from ._common import locate, malformed_is_value_error

age_table = [1, 18, 25, 35, 45, 50, 56]
URL = 'https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip'
MD5 = 'c4d9eecfca2ab87c1945afe126590906'


class MovieInfo:
    """A movie: id, categories and title words."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __str__(self):
        return "<MovieInfo id(%d), title(%s), categories(%s)>" % (self.index, self.title,
                                                                   self.categories)

    __repr__ = __str__


class UserInfo:
    """A user: id, gender, age bucket (index in age_table) and job id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == 'M'
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __str__(self):
        return "<UserInfo id(%d), gender(%s), age(%d), job(%d)>" % (
            self.index, "M" if self.is_male else "F", age_table[self.age], self.job_id)

    __repr__ = __str__


class Movielens(Dataset):
    r"""Items: (user id, gender, age bucket, job, movie id, category ids, title word ids,
    [rating * 2 - 5]). Each rating goes to 'test' when np.random.random() < test_ratio, drawn
    in file order after np.random.seed(rand_seed) (Paddle's split, numpy's global generator).
    Category and title-word ids follow Python set iteration order, as in Paddle.

    Args:
        data_file (str): path of ml-1m.zip.
        mode (str): 'train' or 'test'.
        test_ratio (float): default 0.1.
        rand_seed (int): default 0.
        download (bool): see UCIHousing.
    """

    @malformed_is_value_error('Movielens')
    def __init__(self, data_file=None, mode='train', test_ratio=0.1, rand_seed=0, download=True):
        assert mode.lower() in ['train', 'test'], f"mode should be 'train', 'test', but got {mode}"
        self.mode = mode.lower()
        self.data_file = locate(data_file, URL, MD5, 'sentiment', download, dataset='Movielens')
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        np.random.seed(rand_seed)
        self._load_meta_info()
        self._load_data()

    @staticmethod
    def _lines(package, name):
        try:
            f = package.open(name)
        except KeyError:
            raise ValueError(f"Movielens: the archive has no member '{name}'") from None
        except RuntimeError as e:  # zipfile: an encrypted member ("password required")
            raise ValueError(f"Movielens: cannot read '{name}' from the archive: {e}") from None
        with f:
            for line in f:
                yield line.decode(encoding='latin')

    def _load_meta_info(self):
        pattern = re.compile(r'^(.*)\((\d+)\)$')
        self.movie_info, self.movie_title_dict = {}, {}
        self.categories_dict, self.user_info = {}, {}
        with zipfile.ZipFile(self.data_file) as package:
            title_words, categories = set(), set()
            for line in self._lines(package, 'ml-1m/movies.dat'):
                movie_id, title, cats = line.strip().split('::')
                cats = cats.split('|')
                categories.update(cats)
                m = pattern.match(title)
                if m is None:
                    raise ValueError(f"Movielens: movie title without a (year): {title!r}")
                title = m.group(1)
                self.movie_info[int(movie_id)] = MovieInfo(movie_id, cats, title)
                for w in title.split():
                    title_words.add(w.lower())
            self.movie_title_dict = {w: i for i, w in enumerate(title_words)}
            self.categories_dict = {c: i for i, c in enumerate(categories)}
            for line in self._lines(package, 'ml-1m/users.dat'):
                uid, gender, age, job, _ = line.strip().split('::')
                self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_data(self):
        self.data = []
        is_test = self.mode == 'test'
        with zipfile.ZipFile(self.data_file) as package:
            for line in self._lines(package, 'ml-1m/ratings.dat'):
                if (np.random.random() < self.test_ratio) == is_test:
                    uid, mov_id, rating, _ = line.strip().split('::')
                    mov = self.movie_info[int(mov_id)]
                    usr = self.user_info[int(uid)]
                    self.data.append(usr.value() + mov.value(self.categories_dict,
                                                             self.movie_title_dict)
                                     + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
