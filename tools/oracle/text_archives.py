"""Small archives in the real formats of paddle.text's datasets (housing.data, aclImdb_v1.tar.gz,
simple-examples.tgz, ml-1m.zip, wmt14.tgz, wmt16.tar.gz, conll05st-tests.tar.gz + dictionaries).
Used by tests/python/test_text.py and by make_text_expected.py (which runs real Paddle on them).
Contents depend only on numpy's RandomState(0)."""
import gzip
import io
import os
import sys
import tarfile
import zipfile

import numpy as np


def build(root):
    os.makedirs(root, exist_ok=True)
    _build(root)


def _build(root):
    def add(tf, name, data):
        ti = tarfile.TarInfo(name); ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
    rng = np.random.RandomState(0)
    # uci housing
    np.savetxt(os.path.join(root, 'housing.data'), rng.rand(10, 14) * 10, fmt='%.4f')
    # imdb
    words = ['good', 'bad', 'movie', 'film', 'great', 'awful', 'plot', 'the', 'a', 'Fun!']
    with tarfile.open(os.path.join(root, 'aclImdb_v1.tar.gz'), 'w:gz') as tf:
        for split in ('train', 'test'):
            for kind in ('pos', 'neg'):
                for i in range(3):
                    txt = ' '.join(rng.choice(words, 8)) + '.\n'
                    add(tf, f'aclImdb/{split}/{kind}/{i}_7.txt', txt.encode())
        add(tf, 'aclImdb/README', b'readme the the the')
    # imikolov
    with tarfile.open(os.path.join(root, 'simple-examples.tgz'), 'w:gz') as tf:
        for part in ('train', 'valid', 'test'):
            lines = [' '.join(rng.choice(['a', 'b', 'c', 'd', '<unk>', 'e'], rng.randint(1, 7))) for _ in range(6)]
            add(tf, f'./simple-examples/data/ptb.{part}.txt', ('\n'.join(' ' + l + ' ' for l in lines) + '\n').encode())
    # movielens
    movies = "1::Toy Story (1995)::Animation|Children's|Comedy\n2::Jumanji (1995)::Adventure|Children's\n3::Grumpier Old Men (1995)::Comedy|Romance\n"
    users = "1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n"
    ratings = ''.join(f"{u}::{m}::{(u + m) % 5 + 1}::97830{u}{m}\n" for u in (1, 2, 3) for m in (1, 2, 3) for _ in range(3))
    with zipfile.ZipFile(os.path.join(root, 'ml-1m.zip'), 'w') as z:
        z.writestr('ml-1m/movies.dat', movies); z.writestr('ml-1m/users.dat', users); z.writestr('ml-1m/ratings.dat', ratings)
    # wmt14
    src_dict = '<s>\n<e>\n<unk>\nle\nchat\nnoir\nest\n'
    trg_dict = '<s>\n<e>\n<unk>\nthe\ncat\nblack\nis\n'
    with tarfile.open(os.path.join(root, 'wmt14.tgz'), 'w:gz') as tf:
        add(tf, 'wmt14/src.dict', src_dict.encode()); add(tf, 'wmt14/trg.dict', trg_dict.encode())
        add(tf, 'wmt14/train/train', b'le chat est noir\tthe cat is black\nle chien\tthe dog\nbad line\n')
        add(tf, 'wmt14/test/test', b'le chat\tthe cat\n')
        add(tf, 'wmt14/gen/gen', b'noir\tblack\n')
    # wmt16
    with tarfile.open(os.path.join(root, 'wmt16.tar.gz'), 'w:gz') as tf:
        add(tf, 'wmt16/train', b'a man runs\tein mann rennt\na dog runs fast\tein hund rennt schnell\nthe man\tder mann\n')
        add(tf, 'wmt16/test', b'a man\tein mann\n')
        add(tf, 'wmt16/val', b'dog runs\thund rennt\n')
    # conll05
    w = "The\ncat\nsat\non\nmats\n\nDogs\nbark\n\n"
    p = ("-\t(A0*\t*\n-\t*)\t*\nsat\t(V*)\t(A1*)\non\t(AM-LOC*\t(V*)\n-\t*)\t*\n\n"
         "-\t(A0*)\nbark\t(V*)\n\n")
    with tarfile.open(os.path.join(root, 'conll05st-tests.tar.gz'), 'w:gz') as tf:
        add(tf, 'conll05st-release/test.wsj/words/test.wsj.words.gz', gzip.compress(w.encode()))
        add(tf, 'conll05st-release/test.wsj/props/test.wsj.props.gz', gzip.compress(p.encode()))
    open(os.path.join(root, 'wordDict.txt'), 'w').write('<unk>\nThe\ncat\nsat\non\nmats\nbos\neos\nDogs\n')
    open(os.path.join(root, 'verbDict.txt'), 'w').write('sat\nbark\non\n')
    open(os.path.join(root, 'targetDict.txt'), 'w').write('B-A0\nI-A0\nB-A1\nI-A1\nB-V\nI-V\nB-AM-LOC\nI-AM-LOC\nO\n')
    open(os.path.join(root, 'emb'), 'w').write('')


if __name__ == '__main__':
    build(sys.argv[1])
