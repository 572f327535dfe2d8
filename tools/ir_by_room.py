#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Instructions of a callgrind profile summed by the room (source directory) of each function.

  valgrind --tool=callgrind --callgrind-out-file=P <command>
  tools/ir_by_room.py P [--root DIR] [--per-calls FUNCTION | --per N] [--top K]

Each function's own instructions (its self cost, calls excluded) go to the directory of the
file that defines it, relative to --root (the repository by default): firmware, hw/func,
hal... Code inlined into a function counts for that function, so a firmware function's inlined
std::vector code counts for firmware. Functions of other files go to their object (libc.so.6,
librte_net.so.23.0), out-of-line C++ library templates to "(C++ library templates)".

--per-calls F divides each sum by the number of calls to the function named F (exact name as
callgrind writes it, e.g. "nicsim::hw::dpdk::DpdkPort::Send(nicsim::hw::Frame, unsigned long)",
or a prefix of it ending in "("): the instructions per frame, per event. --per N divides by N.
Exit 2 with the file and line on input that is not a callgrind profile.
"""
import argparse
import collections
import os
import re
import sys

NAME_LINE = re.compile(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(?:\((\d+)\))?\s?(.*)$")


class ProfileError(Exception):
    pass


def parse(path):
    """Self Ir per (object, defining file) and call counts per callee name."""
    names = {key: {} for key in ("ob", "fl", "fn")}
    kinds = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
             "cfl": "fl", "fn": "fn", "cfn": "fn"}
    positions = 1
    ir_column = None
    current = {"ob": "", "fl": ""}  # the object and file a following fn= is defined in
    function_place = ("", "")
    callee = ""
    skip_next_cost = False
    self_ir = collections.Counter()
    calls = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("positions:"):
                positions = len(line.split()[1:])
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                if "Ir" not in events:
                    raise ProfileError(f"{path}:{number}: events: has no Ir column")
                ir_column = positions + events.index("Ir")
                continue
            m = NAME_LINE.match(line)
            if m:
                key, ident, name = m.groups()
                table = names[kinds[key]]
                if ident is not None and name:
                    table[ident] = name
                elif ident is not None:
                    if ident not in table:
                        raise ProfileError(f"{path}:{number}: {key}=({ident}) before its name")
                    name = table[ident]
                if key in current:
                    current[key] = name
                elif key == "fn":
                    function_place = (current["ob"], current["fl"])
                elif key == "cfn":
                    callee = name
                continue
            if line.startswith("calls="):
                fields = line[len("calls="):].split()
                if not fields or not fields[0].isdigit():
                    raise ProfileError(f"{path}:{number}: calls= without a count")
                calls[callee] += int(fields[0])
                skip_next_cost = True
                continue
            if line[0].isdigit() or line[0] in "+-*":
                if ir_column is None:
                    raise ProfileError(f"{path}:{number}: a cost line before the events: line")
                if skip_next_cost:  # the inclusive cost of the call just named
                    skip_next_cost = False
                    continue
                fields = line.split()
                if len(fields) > ir_column:
                    if not fields[ir_column].isdigit():
                        raise ProfileError(f"{path}:{number}: an Ir count that is not a number")
                    self_ir[function_place] += int(fields[ir_column])
                continue
            # Header and other lines (version:, cmd:, part:, totals:, jump=...) carry no cost.
    if ir_column is None:
        raise ProfileError(f"{path}: no events: line (not a callgrind profile)")
    return self_ir, calls


def room(place, root):
    obj, source = place
    if source.startswith("/usr/include/c++/"):
        return "(C++ library templates)"
    absolute = os.path.normpath(source) if os.path.isabs(source) else ""
    if absolute and absolute.startswith(root + os.sep):
        directory = os.path.dirname(os.path.relpath(absolute, root))
        return directory or "(top)"
    return os.path.basename(obj) if obj else "(unknown)"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--per-calls", metavar="FUNCTION")
    group.add_argument("--per", type=float)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    try:
        self_ir, calls = parse(args.profile)
    except OSError as e:
        print(f"ir_by_room: {args.profile}: {e.strerror}", file=sys.stderr)
        return 2
    except ProfileError as e:
        print(f"ir_by_room: {e}", file=sys.stderr)
        return 2
    per = args.per
    if args.per_calls:
        if args.per_calls.endswith("("):
            per = sum(n for name, n in calls.items() if name.startswith(args.per_calls))
        else:
            per = calls.get(args.per_calls, 0)
        if per == 0:
            print(f"ir_by_room: {args.profile}: no calls to {args.per_calls}", file=sys.stderr)
            return 2
    if per is not None and per <= 0:
        print("ir_by_room: --per: must be above 0", file=sys.stderr)
        return 2
    rooms = collections.Counter()
    root = os.path.normpath(args.root)
    for place, ir in self_ir.items():
        rooms[room(place, root)] += ir
    total = sum(rooms.values())
    unit = f"Ir per unit ({per:.0f} units)" if per else ""
    print(f"{'room':<32} {'Ir':>14} {'share':>7}  {unit}")
    for name, ir in rooms.most_common(args.top):
        share = 100.0 * ir / total if total else 0.0
        each = f"{ir / per:.0f}" if per else ""
        print(f"{name:<32} {ir:>14,} {share:>6.1f}%  {each}")
    each = f"{total / per:.0f}" if per else ""
    print(f"{'total':<32} {total:>14,} {100.0:>6.1f}%  {each}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
