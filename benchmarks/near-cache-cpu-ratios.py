#!/usr/bin/env python3
"""CPU per call of NearCacheBenchmark (near-cache-cpu.csv): application, servers and total per workload, client and
near=on/off (mean of the measurement iterations), and off/on as a speed ratio with its 95% interval (standard errors of
the iteration means added in quadrature, Student's t with Welch's degrees of freedom), as gate.Estimate does."""
import csv, math, sys
from collections import defaultdict

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}

def t975(df):
    df = max(1, int(df))
    keys = sorted(T975)
    for k in keys:
        if df <= k:
            return T975[k]
    return 1.96

rows = defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        rows[(r['benchmark'], r['client'], r['near'])].append(
            (float(r['app_cpu_us_per_call']), float(r['server_cpu_us_per_call'])))

def stats(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else float('nan')
    return mean, math.sqrt(var / n), n

print('| workload | client | CPU µs per call, on: app + servers | off: app + servers | off ÷ on (95%) |')
print('|---|---|---|---|---|')
for (bench, client, near) in sorted(rows):
    if near != 'on' or (bench, client, 'off') not in rows:
        continue
    on = rows[(bench, client, 'on')]
    off = rows[(bench, client, 'off')]
    m_on, se_on, n_on = stats([a + s for a, s in on])
    m_off, se_off, n_off = stats([a + s for a, s in off])
    ratio = m_off / m_on
    r_on, r_off = se_on / m_on, se_off / m_off
    rel = math.sqrt(r_on ** 2 + r_off ** 2)
    # Welch-Satterthwaite on the relative errors
    df = rel ** 4 / ((r_on ** 4) / max(1, n_on - 1) + (r_off ** 4) / max(1, n_off - 1))
    half = t975(df) * rel
    app_on = sum(a for a, _ in on) / len(on); srv_on = sum(s for _, s in on) / len(on)
    app_off = sum(a for a, _ in off) / len(off); srv_off = sum(s for _, s in off) / len(off)
    print(f'| {bench} | {client} | {app_on:.1f} + {srv_on:.1f} = {m_on:.1f} | {app_off:.1f} + {srv_off:.1f} = {m_off:.1f} '
          f'| **{ratio:.2f}x** ± {100 * half:.0f}% |')
