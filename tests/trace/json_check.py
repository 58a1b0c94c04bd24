#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Test helper: parses a JSON file and prints the values the test asks for.

    json_check.py FILE EXPR...   each EXPR is a Python expression over `d` (the document)

Prints one line per expression (its value as JSON); exits 1 if the file is not valid JSON.
"""
import json
import sys

try:
    with open(sys.argv[1], encoding="utf-8") as f:
        d = json.load(f)
except (OSError, ValueError) as e:
    print(f"invalid: {e}")
    sys.exit(1)
for expr in sys.argv[2:]:
    print(json.dumps(eval(expr, {"d": d})))  # expressions come from the test itself
