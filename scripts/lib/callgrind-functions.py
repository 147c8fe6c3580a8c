#!/usr/bin/env python3
"""Functions of one binary that ran in a callgrind profile, most instructions first, one per line.

    callgrind-functions.py CALLGRIND_OUT BINARY_NAME

Used by scripts/link-order: every function that ran (callgrind counts every one, where a sampling profiler
sees only the frequent ones), so that the linker can lay out together all the code a phase of the daemon
touches. Callers and callees are both taken (`fn=` and `cfn=` lines); callgrind's recursion suffix ('2) is
dropped.
"""
import collections
import re
import sys


def main(path, binary):
    objects, functions = {}, {}
    cost = collections.Counter()
    ran = set()
    current_object = current_function = called_object = None

    def name(table, text):
        match = re.match(r"\((\d+)\)(?:\s+(.*))?$", text)
        if not match:
            return text
        if match.group(2) is not None:
            table[match.group(1)] = match.group(2)
        return table.get(match.group(1))

    def ours(obj):
        return obj is not None and obj.endswith(binary)

    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("ob="):
            current_object = name(objects, line[3:])
        elif line.startswith("cob="):
            called_object = name(objects, line[4:])
        elif line.startswith("fn="):
            current_function = name(functions, line[3:])
            called_object = None
            if ours(current_object):
                ran.add(current_function)
        elif line.startswith("cfn="):
            function = name(functions, line[4:])
            if ours(called_object or current_object):
                ran.add(function)
            called_object = None
        elif line[:1].isdigit() and current_function:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                cost[current_function] += int(parts[1])

    seen = set()
    for function in sorted(ran, key=lambda f: -cost[f]):
        bare = re.sub(r"'\d+$", "", function)
        if bare not in seen:
            seen.add(bare)
            print(bare)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
