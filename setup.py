"""Only the optional compiled fast path of the Redactor (src/sluicegate/redaction/_native.c) is declared here;
everything else is in pyproject.toml. `optional=True`: without a C compiler the install goes on and the pure
Python path, which gives the same output, is used."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("sluicegate.redaction._native", ["src/sluicegate/redaction/_native.c"], optional=True),
    ]
)
