import re, sys, csv, math, statistics as st
lines = [l[l.index('round,'):] if 'round,' in l else l for l in open(sys.argv[1], errors='replace') if 'round,' in l or re.match(r'^\d+,[\d.]', l)]
rows = list(csv.reader(lines))
names = rows[0][1:]; data = {n: [float(r[i+1]) for r in rows[1:]] for i, n in enumerate(names)}
for n in names: print(f"  {n:18s} median of round medians {st.median(data[n]):8.1f} us")
def pair(a, b):
    lr = [math.log(x / y) for x, y in zip(data[a], data[b])]
    m = st.mean(lr); se = st.stdev(lr) / math.sqrt(len(lr))
    print(f"  {a} / {b}: geomean {math.exp(m):.3f} [95% {math.exp(m-2*se):.3f}-{math.exp(m+2*se):.3f}]  median of rounds {st.median([math.exp(x) for x in lr]):.3f}  n={len(lr)}")
for a, b in [('slotwise-lettuce','slotwise-jedis'), ('slotwise-lettuce','ideal'), ('slotwise-jedis','ideal'), ('slotwise-lettuce','ref-ideal'), ('slotwise-jedis','ref-ideal'), ('ideal','ref-ideal')]:
    if a in data and b in data: pair(a, b)
import random
random.seed(1)
def boot(a, b, B=2000):
    n = len(data[a]); idx = range(n)
    point = st.median(data[a]) / st.median(data[b])
    vals = []
    for _ in range(B):
        s = [random.randrange(n) for _ in idx]
        vals.append(st.median([data[a][i] for i in s]) / st.median([data[b][i] for i in s]))
    vals.sort()
    print(f"  ratio of medians {a} / {b}: {point:.3f} [bootstrap 95% {vals[int(.025*B)]:.3f}-{vals[int(.975*B)]:.3f}]")
pairs = [tuple(x.split('/')) for x in sys.argv[2:]] or [('slotwise-lettuce','slotwise-jedis'), ('slotwise-lettuce','ref-ideal'), ('slotwise-jedis','ref-ideal')]
for a, b in pairs:
    if a in data and b in data: boot(a, b)
