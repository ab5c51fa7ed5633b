"""Real services for the tests, started on loopback by fixtures and stopped after (redis-server, nginx, chromium).

Why here: several parts (budget, lifecycle, the SSE server, the replay report) need the same servers; one
module starts each of them, so every suite runs against the same real processes. A missing binary is an
error, never a skip: `.ci/run` installs them from Debian.
"""
