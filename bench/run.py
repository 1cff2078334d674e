#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmark driver: `make bench` runs this.  See bench/driver/__init__.py for
how it works and `bench/run.py --help` for its options.

usage: bench/run.py --build BUILD [--quick] [--only SECTION ...] [--threads 1,2,4]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from driver.main import SECTIONS, main  # noqa: E402  (the path is set just above)
from rcu.rcu_section import kfree_rcu_section  # noqa: E402  (bench/rcu/)

# The "kfree_rcu vs kfree" section (bench/rcu/): registered here, after the others.
SECTIONS.append(("kfree_rcu", kfree_rcu_section))

if __name__ == "__main__":
    sys.exit(main())
