"""Synthetic stand-ins for the paddle.dataset readers used by Paddle's book tests.

Each function returns a reader creator (a callable returning a generator) that yields samples of
the same structure, shapes and dtypes as the real dataset, from a fixed seed, so the ported tests
never download anything and always see the same numbers. The data is made learnable (labels depend
on the inputs) so that the book tests' early-stop thresholds are reached in a few steps.
"""
import numpy as np


# ---- uci_housing: (13 float32 features, 1 float32 price) -------------------------------------
def _uci(n, seed):
    rng = np.random.RandomState(seed)
    w = np.random.RandomState(7).normal(0.0, 0.5, size=(13,)).astype('float32')
    x = rng.normal(0.0, 3.0, size=(n, 13)).astype('float32')
    y = (x @ w + 1.0 + rng.normal(0.0, 0.1, size=(n,))).astype('float32')
    return x, y.reshape(n, 1)


def uci_housing_train(n=200):
    def reader():
        x, y = _uci(n, 1)
        for i in range(n):
            yield x[i], y[i]
    return reader


def uci_housing_test(n=40):
    def reader():
        x, y = _uci(n, 2)
        for i in range(n):
            yield x[i], y[i]
    return reader


# ---- mnist: (784 float32 pixels in [-1, 1], int label 0..9) -----------------------------------
def _mnist(n, seed):
    rng = np.random.RandomState(seed)
    protos = np.random.RandomState(11).uniform(-1, 1, size=(10, 784)).astype('float32')
    labels = rng.randint(0, 10, size=n)
    imgs = protos[labels] * 0.8 + rng.uniform(-0.2, 0.2, size=(n, 784)).astype('float32')
    return np.clip(imgs, -1.0, 1.0).astype('float32'), labels


def mnist_train(n=640):
    def reader():
        x, y = _mnist(n, 3)
        for i in range(n):
            yield x[i], int(y[i])
    return reader


def mnist_test(n=128):
    def reader():
        x, y = _mnist(n, 4)
        for i in range(n):
            yield x[i], int(y[i])
    return reader


# ---- imikolov: n-gram tuples of int word ids --------------------------------------------------
IMIKOLOV_DICT_SIZE = 100


def imikolov_build_dict():
    return {f'w{i}': i for i in range(IMIKOLOV_DICT_SIZE)}


def imikolov_train(word_dict, n_gram, n=640):
    size = len(word_dict)

    def reader():
        rng = np.random.RandomState(5)
        for _ in range(n):
            first = int(rng.randint(0, size))
            # the next word is a function of the previous ones: learnable
            yield tuple((first + k) % size for k in range(n_gram))
    return reader


# ---- cifar10: (3072 float32 pixels in [0, 1], int label 0..9) ---------------------------------
def _cifar(n, seed, cyclic=False):
    rng = np.random.RandomState(seed)
    protos = np.random.RandomState(13).uniform(0, 1, size=(10, 3072)).astype('float32')
    # the test set cycles through the classes, so every test batch holds each class
    labels = np.arange(n) % 10 if cyclic else rng.randint(0, 10, size=n)
    imgs = 0.7 * protos[labels] + 0.3 * rng.uniform(0, 1, size=(n, 3072))
    return imgs.astype('float32'), labels


def cifar_train10(n=64):
    def reader():
        x, y = _cifar(n, 6)
        for i in range(n):
            yield x[i], int(y[i])
    return reader


def cifar_test10(n=32):
    def reader():
        x, y = _cifar(n, 7, cyclic=True)
        for i in range(n):
            yield x[i], int(y[i])
    return reader


# ---- movielens: user/movie features, category and title id sequences, float score ------------
MOVIELENS_MAX_USER_ID = 6040
MOVIELENS_MAX_MOVIE_ID = 3952
MOVIELENS_MAX_JOB_ID = 20
MOVIELENS_AGE_TABLE = [1, 18, 25, 35, 45, 50, 56]
MOVIELENS_CATEGORIES = 18
MOVIELENS_TITLE_DICT_SIZE = 5175


def movielens_train(n=512, seed=8):
    def reader():
        rng = np.random.RandomState(seed)
        for _ in range(n):
            uid = int(rng.randint(1, MOVIELENS_MAX_USER_ID + 1))
            gender = int(rng.randint(0, 2))
            age = int(rng.randint(0, len(MOVIELENS_AGE_TABLE)))
            job = int(rng.randint(0, MOVIELENS_MAX_JOB_ID + 1))
            mid = int(rng.randint(1, MOVIELENS_MAX_MOVIE_ID + 1))
            cats = list(rng.randint(0, MOVIELENS_CATEGORIES, size=rng.randint(1, 4)))
            title = list(rng.randint(0, MOVIELENS_TITLE_DICT_SIZE, size=rng.randint(1, 6)))
            score = float((uid + mid) % 5 + 1)
            yield [uid], [gender], [age], [job], [mid], cats, title, [score]
    return reader


def movielens_test(n=256):
    return movielens_train(n, seed=9)


# ---- imdb: (variable-length list of int word ids, int label 0/1) ------------------------------
IMDB_DICT_SIZE = 200


def imdb_word_dict():
    return {f'w{i}': i for i in range(IMDB_DICT_SIZE)}


def imdb_train(word_dict, n=512):
    size = len(word_dict)

    def reader():
        rng = np.random.RandomState(10)
        for _ in range(n):
            label = int(rng.randint(0, 2))
            length = int(rng.randint(5, 15))
            # positive reviews use the lower half of the vocabulary, negative ones the upper half
            lo, hi = (0, size // 2) if label else (size // 2, size)
            yield list(rng.randint(lo, hi, size=length)), label
    return reader


# ---- wmt14: (source ids, target ids starting with <s>, target ids ending with <e>) -----------
WMT14_START, WMT14_END, WMT14_UNK = 0, 1, 2  # paddle.dataset.wmt14's reserved ids


def wmt14_train(dict_size, n=64):
    """Sentence pairs of 3-8 words; each target word is a fixed function of the source word at
    its position, so a model can learn the translation."""
    def reader():
        rng = np.random.RandomState(12)
        for _ in range(n):
            src = list(rng.randint(3, dict_size, size=int(rng.randint(3, 9))))
            trg = [3 + (w * 7 + 5) % (dict_size - 3) for w in src]
            yield ([WMT14_START] + src + [WMT14_END], [WMT14_START] + trg, trg + [WMT14_END])
    return reader


def wmt14_get_dict(dict_size, reverse=True):
    """(source dict, target dict), the reserved words first, as wmt14.get_dict: id -> word
    (reverse=True, its default) or word -> id."""
    words = ['<s>', '<e>', '<unk>'] + [f'w{i}' for i in range(3, dict_size)]
    table = dict(enumerate(words)) if reverse else {w: i for i, w in enumerate(words)}
    return table, dict(table)
