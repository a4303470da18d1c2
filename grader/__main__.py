"""Entry point: ``python3 -m grader``."""

import sys

from grader import cpus
from grader.cli import main

# CPUs kept for timed runs, before any thread or child starts: they inherit the rest
# (grader.cpus). Here, not in cli.main, which tests call inside a pytest process.
cpus.reserve()
sys.exit(main())
