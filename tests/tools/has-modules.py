"""Exit 0 when every Python module named on the command line is installed.

The tests ask this of python3-rosbag and the message packages before they
start, to skip when they are missing: finding a module costs 20 ms, where
importing rosbag costs 0.3 s of CPU.

    python3 tests/tools/has-modules.py rosbag tf2_msgs.msg
"""
import importlib.util
import sys

try:
    sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)
except ImportError:  # the package holding a submodule is missing
    sys.exit(1)
