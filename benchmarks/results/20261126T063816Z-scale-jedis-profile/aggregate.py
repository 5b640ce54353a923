import re,collections,sys
txt=open(sys.argv[1]).read()
evs=txt.split('jdk.ExecutionSample {')[1:]
groups=collections.Counter(); paths=collections.defaultdict(collections.Counter)
def short(n): 
    p=n.split('.'); return p[-2]+'.'+p[-1]
for e in evs:
    t=re.search(r'sampledThread = "([^"]+)"',e); t=t.group(1) if t else '?'
    names=re.findall(r'^\s+([\w$.<>/]+)\(',e,re.M)
    if not names: continue
    if any('IdealMultiGet' in n for n in names):
        g='ideal (caller thread)'
        key=[n for n in names if 'IdealMultiGet' not in n][:1]
    elif t.startswith('slotwise-multikey'):
        g='slotwise-jedis: executor threads (node batches)'
    elif 'dev.slotwise.benchmarks.MultiGetTarget.multiGet' in names:
        g='slotwise-jedis: caller thread'
    else:
        g='other ('+re.sub(r'-?\d+$','',t)+')'
    groups[g]+=1
    # attribute to the first frame (from the top) in a recognisable layer
    layer='other'
    for n in names:
        if n.startswith('redis.clients.jedis.Protocol') or n.startswith('redis.clients.jedis.util.Redis') or 'sendCommand' in n or 'getMany' in n or 'getOne' in n or 'getUnflushedObject' in n: layer='Jedis protocol (write/read)'; break
        if n.startswith('org.apache.commons.pool2') or 'JedisBatchGuard.borrow' in n or 'Connection.close' in n: layer='pool borrow/return'; break
        if n.startswith('java.util.concurrent') : layer='executor/futures (java.util.concurrent)'; break
        if 'SlotHash' in n: layer='key hashing'; break
        if 'StringRedisSerializer' in n or 'SerializationUtils' in n: layer='Spring serialization'; break
        if 'SlotCommand.plan' in n or 'SlotPlan' in n: layer='planner'; break
        if n.startswith('dev.slotwise.internal.multikey'): layer='engine ('+short(n)+')'; break
        if n.startswith('org.springframework'): layer='Spring template/connection'; break
        if n.startswith('dev.slotwise.benchmarks.IdealMultiGet'): layer='ideal own loops'; break
    paths[g][layer]+=1
for g,c in groups.most_common():
    print(f'{g}: {c} samples')
    for l,k in paths[g].most_common(12): print(f'    {k:5d}  {l}')
