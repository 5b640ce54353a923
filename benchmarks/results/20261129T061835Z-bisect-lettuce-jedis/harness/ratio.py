import json, sys, statistics as st, math
def median_hist(h):
    n = sum(c for v, c in h); half = n / 2; acc = 0
    for v, c in sorted(h):
        acc += c
        if acc >= half: return v
res = {}
for r in json.load(open(sys.argv[1])):
    t = r['params']['target']; k = r['params']['keys']
    meds = [median_hist(it) for fork in r['primaryMetric']['rawDataHistogram'] for it in fork]
    res[(k, t)] = meds
def est(m): return st.mean(m), st.stdev(m) / math.sqrt(len(m))
for (k, t), m in sorted(res.items()):
    mu, se = est(m); print(f"  keys={k} {t:20s} median/iter mean {mu:8.1f} us  se {100*se/mu:4.1f}%  n={len(m)} spread {100*st.stdev(m)/mu:4.1f}%")
keys = sorted({k for k, t in res})
for k in keys:
    for a, b in [('slotwise-lettuce', 'slotwise-jedis'), ('slotwise-lettuce', 'ideal'), ('slotwise-jedis', 'ideal')]:
        if (k, a) in res and (k, b) in res:
            ma, sa = est(res[(k, a)]); mb, sb = est(res[(k, b)])
            r = ma / mb; rel = math.sqrt((sa/ma)**2 + (sb/mb)**2)
            print(f"  keys={k} {a} / {b} = {r:.3f} ± {1.96*rel*r:.3f} (95%)")
