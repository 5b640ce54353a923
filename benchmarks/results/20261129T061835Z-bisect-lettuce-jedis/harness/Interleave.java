package dev.slotwise.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Bisect helper: the JMH benchmark's own MultiGetTarget systems, measured round by round in rotation. */
public final class Interleave {

	public static void main(String[] args) throws Exception {
		int keys = Integer.parseInt(args[0]);
		int rounds = Integer.parseInt(args[1]);
		int calls = Integer.parseInt(args[2]);
		String[] names = args[3].split(",");
		List<java.util.function.Function<List<String>, List<String>>> targets = new ArrayList<>();
		List<MultiGetTarget> systems = new ArrayList<>();
		List<String> keySet = null;
		for (String name : names) {
			if (name.equals("ref-ideal")) {
				// The same hand-written pipeline at every commit, on a cluster filled by the commit's own MultiGetTarget.
				MultiGetTarget host = new MultiGetTarget("lettuce-async", keys);
				systems.add(host);
				java.lang.reflect.Field f = MultiGetTarget.class.getDeclaredField("cluster");
				f.setAccessible(true);
				RefIdeal ideal = new RefIdeal((dev.slotwise.test.cluster.RedisTestCluster) f.get(host));
				targets.add((ks) -> ideal.multiGet(ks));
			}
			else {
				MultiGetTarget t = new MultiGetTarget(name, keys);
				systems.add(t);
				targets.add(t::multiGet);
			}
		}
		long sink = 0;
		for (int w = 0; w < 1500 / calls; w++) {
			for (int j = 0; j < targets.size(); j++) {
				for (int i = 0; i < calls; i++) {
					sink += targets.get(j).apply(systems.get(j).nextKeys()).size();
				}
			}
		}
		double[][] med = new double[names.length][rounds];
		long[] lap = new long[calls];
		for (int r = 0; r < rounds; r++) {
			for (int k = 0; k < names.length; k++) {
				int j = (r + k) % names.length;
				java.util.function.Function<List<String>, List<String>> t = targets.get(j);
				for (int i = 0; i < calls; i++) {
					List<String> ks = systems.get(j).nextKeys();
					long s = System.nanoTime();
					sink += t.apply(ks).size();
					lap[i] = System.nanoTime() - s;
				}
				Arrays.sort(lap);
				med[j][r] = lap[calls / 2] / 1000.0;
			}
		}
		StringBuilder sb = new StringBuilder("round");
		for (String n : names) sb.append(',').append(n);
		System.out.println(sb);
		for (int r = 0; r < rounds; r++) {
			sb = new StringBuilder(Integer.toString(r));
			for (int j = 0; j < names.length; j++) sb.append(',').append(String.format("%.1f", med[j][r]));
			System.out.println(sb);
		}
		System.err.println("sink " + sink);
		for (MultiGetTarget t : systems) {
			t.close();
		}
		System.exit(0);
	}

}
