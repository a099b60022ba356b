"""Shared fixtures: where the test data are, and the bags python3-rosbag can read."""
import os
import glob

import pytest

SRC = os.environ.get('SRCDIR') or os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.path.join(SRC, 'tests', 'data')
FIX = os.path.join(DATA, 'fixtures')

# bags the real rosbag reads whole: the reference for messages, values, topics, counts and times
GOOD_BAGS = sorted(glob.glob(os.path.join(FIX, 'bags', '*.bag')) +
                   glob.glob(os.path.join(FIX, 'made', '*.bag')) +
                   [p for p in glob.glob(os.path.join(FIX, 'foreign', 'rosbag.js', '*.bag'))
                    if 'empty-file' not in p])


def bagscope_cli():
    """The bagscope program of this build tree."""
    return os.environ.get('BAGSCOPE') or os.path.join(SRC, 'src', 'bagscope')


@pytest.fixture(params=GOOD_BAGS, ids=lambda p: os.path.relpath(p, FIX))
def good_bag(request):
    return request.param
