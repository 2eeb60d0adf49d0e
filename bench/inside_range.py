#!/usr/bin/env python3
"""Whether a whole run fell inside the range its estimate printed (docs/estimate.md#the-range).

  inside_range.py ESTIMATE_JSON WORLD RUN_SECONDS LABEL [WIDTH] [DECIMALS]

Prints one row: the label, the size, the predicted total with its range, the run, and
"inside", "outside" or "no range", then "unsteady" where the estimate said so. The accuracy
benchmarks count the rows that say "inside".
"""
import json
import sys

estimate, world, run_s, label = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
width = int(sys.argv[5]) if len(sys.argv) > 5 else 6
decimals = int(sys.argv[6]) if len(sys.argv) > 6 else 1
e = json.load(open(estimate))
size = e["sizes"][world - 1]
low, high = size.get("total_s_low"), size.get("total_s_high")
verdict = "no range" if low is None else ("inside" if low <= run_s <= high else "outside")
shown = "-" if low is None else f"{low:.{decimals}f}-{high:.{decimals}f}"
print(f"{label:<{width}} {world:<9} {size['total_s']:9.{decimals}f}s ({shown}) "
      f"{run_s:9.{decimals}f}s  {verdict:<8} {'unsteady' if (e.get('range') or {}).get('unsteady') else ''}")
