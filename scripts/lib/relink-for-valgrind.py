#!/usr/bin/env python3
"""Links the release daemon again, from the objects of the last release build, the way valgrind 3.19 can load
it: without RELR relocations (`-z pack-relative-relocs`) and without scripts/rodata-readonly.ld. valgrind
dies with SIGSEGV loading a binary linked with either. Relinking reuses the build's own link command
(SwiftPM's <scratch>/release.yaml), so no module is compiled again: changing those flags for
`swift build` would rebuild every module, since SwiftPM keys the build on its flags.

    scripts/lib/relink-for-valgrind.py SCRATCH_PATH OUTPUT
"""
import json
import re
import subprocess
import sys

scratch, output = sys.argv[1], sys.argv[2]
manifest = open(f"{scratch}/release.yaml").read().split("\n")
args = None
for index, line in enumerate(manifest):
    # The daemon's link, not marketalertd-bench's or marketalertd-fuzz's: C.marketalertd-<arch>-<triple>-release.exe
    if re.match(r'^  "C\.marketalertd-[^-]+-unknown-linux-gnu-release\.exe":', line):
        for following in manifest[index:index + 10]:
            if following.strip().startswith("args:"):
                args = json.loads(following.strip()[len("args:"):])
                break
        break
if args is None:
    sys.exit(f"relink-for-valgrind: no link command for marketalertd in {scratch}/release.yaml")

relinked = []
skip = 0
for position, arg in enumerate(args):
    if skip:
        skip -= 1
        continue
    # -Xlinker -z -Xlinker pack-relative-relocs, and -Xlinker -T -Xlinker <script>
    following = args[position + 1:position + 4]
    if arg == "-Xlinker" and following[:1] == ["-z"] and following[2:3] == ["pack-relative-relocs"]:
        skip = 3
        continue
    if arg == "-Xlinker" and following[:1] == ["-T"]:
        skip = 3
        continue
    relinked.append(arg)
relinked[relinked.index("-o") + 1] = output
result = subprocess.run(relinked)
sys.exit(result.returncode)
