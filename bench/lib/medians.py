"""Medians of interleaved timed rounds, and their ratios.

usage: medians.py RESULTS A/B...   RESULTS has lines "round name wall user sys maxrss-KiB
[load-before load-after]" (lib/rounds.sh's timed, prefixed with the round); each A/B prints
the medians of the per-round ratios of A to B, skipped when either never ran.
"""
import statistics as st
import sys

rounds = {}
loads = {}
for line in open(sys.argv[1]):
    k, n, e, u, s, m, *load = line.split()
    rounds.setdefault(k, {})[n] = (float(e), float(u) + float(s), int(m) / 1024)
    if load:
        loads.setdefault(n, []).extend(float(v) for v in load)
names = list(next(iter(rounds.values())))
for n in names:
    rs = [r[n] for r in rounds.values() if n in r]
    ls = loads.get(n)
    print(f"{n:8s} wall {st.median([x[0] for x in rs]):7.1f} s  cpu {st.median([x[1] for x in rs]):7.1f} s  "
          f"peak RSS {st.median([x[2] for x in rs]):6.0f} MiB  ({len(rs)} runs" +
          (f", load {min(ls):.1f}-{max(ls):.1f})" if ls else ")"))
for pair in sys.argv[2:]:
    a, b = pair.split("/")
    ps = [(r[a], r[b]) for r in rounds.values() if a in r and b in r]
    if not ps:
        continue
    w, c, m = (st.median([x[i] / y[i] for x, y in ps]) for i in range(3))
    print(f"{a}/{b}: wall {w:.2f}x  cpu {c:.2f}x  peak RSS {m:.2f}x  (median of per-round ratios)")
