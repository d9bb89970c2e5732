"""The edgemt package as the Python tests import it: from PYTHONPATH (the
build tree), and a visible skip when a build has no Python module."""
import unittest


def import_edgemt():
    """The package; raises unittest.SkipTest when it is not importable."""
    try:
        import edgemt
    except ImportError as e:  # a build without EDGEMT_PYTHON
        raise unittest.SkipTest("the edgemt package is not importable (%s): build with -DEDGEMT_PYTHON=ON" % e)
    return edgemt
