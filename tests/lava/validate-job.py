#!/usr/bin/python3
"""Validate LAVA job definitions with LAVA's own job schema (lava_common,
Debian's lava-common package), as lava-server does on submission:

    validate-job.py FILE...

Each FILE a job's YAML. Prints "FILE: ok" or "FILE: <LAVA's message>" and
exits 1 when any is refused.
"""
import sys

import yaml
from lava_common.schemas import validate
from voluptuous import Invalid

bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            validate(yaml.safe_load(f), strict=True)
        print("%s: ok" % path)
    except (Invalid, yaml.YAMLError) as e:
        print("%s: %s" % (path, str(e).replace("\n", " ")))
        bad = 1
sys.exit(bad)
