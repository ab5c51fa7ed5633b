"""Only the optional compiled fast paths of the Redactor (src/sluicegate/redaction/_native.c, _wholec.c) are
declared here; everything else is in pyproject.toml. `optional=True`: without a C compiler the install goes on
and the pure Python path, which gives the same output, is used."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("sluicegate.redaction._native", ["src/sluicegate/redaction/_native.c"], optional=True),
        # whole.py's and normalize.py's small helpers (issue 27): the same answers as the Python beside them.
        Extension("sluicegate.redaction._wholec", ["src/sluicegate/redaction/_wholec.c"], optional=True),
    ]
)
