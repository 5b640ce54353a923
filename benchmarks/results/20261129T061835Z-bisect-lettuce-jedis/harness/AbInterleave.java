import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Bisect helper: MultiGetTarget systems of two commits' benchmarks.jar in one JVM (one class loader per jar), measured
 * round by round in rotation, so that two commits' paths see the same load. Args: keys rounds calls label=jar:target ...
 */
public final class AbInterleave {

	public static void main(String[] args) throws Exception {
		int keys = Integer.parseInt(args[0]);
		int rounds = Integer.parseInt(args[1]);
		int calls = Integer.parseInt(args[2]);
		int n = args.length - 3;
		String[] labels = new String[n];
		Object[] systems = new Object[n];
		Method[] next = new Method[n];
		Method[] get = new Method[n];
		ClassLoader[] loaders = new ClassLoader[n];
		java.util.Map<String, ClassLoader> byJar = new java.util.HashMap<>();
		for (int i = 0; i < n; i++) {
			String spec = args[3 + i];
			labels[i] = spec.substring(0, spec.indexOf('='));
			String rest = spec.substring(spec.indexOf('=') + 1);
			String jar = rest.substring(0, rest.lastIndexOf(':'));
			String target = rest.substring(rest.lastIndexOf(':') + 1);
			ClassLoader loader = byJar.computeIfAbsent(jar, (j) -> {
				try {
					return new URLClassLoader(new URL[] { Path.of(j).toUri().toURL() }, ClassLoader.getPlatformClassLoader());
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			loaders[i] = loader;
			Thread.currentThread().setContextClassLoader(loader);
			Class<?> type = Class.forName("dev.slotwise.benchmarks.MultiGetTarget", true, loader);
			Constructor<?> c = type.getDeclaredConstructor(String.class, int.class);
			c.setAccessible(true);
			systems[i] = c.newInstance(target, keys);
			next[i] = type.getDeclaredMethod("nextKeys");
			next[i].setAccessible(true);
			get[i] = type.getDeclaredMethod("multiGet", List.class);
			get[i].setAccessible(true);
		}
		long sink = 0;
		for (int w = 0; w < 1500 / calls; w++) {
			for (int j = 0; j < n; j++) {
				Thread.currentThread().setContextClassLoader(loaders[j]);
				for (int i = 0; i < calls; i++) {
					sink += ((List<?>) get[j].invoke(systems[j], next[j].invoke(systems[j]))).size();
				}
			}
		}
		double[][] med = new double[n][rounds];
		long[] lap = new long[calls];
		for (int r = 0; r < rounds; r++) {
			for (int k = 0; k < n; k++) {
				int j = (r + k) % n;
				Thread.currentThread().setContextClassLoader(loaders[j]);
				for (int i = 0; i < calls; i++) {
					Object ks = next[j].invoke(systems[j]);
					long s = System.nanoTime();
					sink += ((List<?>) get[j].invoke(systems[j], ks)).size();
					lap[i] = System.nanoTime() - s;
				}
				Arrays.sort(lap);
				med[j][r] = lap[calls / 2] / 1000.0;
			}
		}
		StringBuilder sb = new StringBuilder("\nround");
		for (String l : labels) sb.append(',').append(l);
		System.out.println(sb);
		for (int r = 0; r < rounds; r++) {
			sb = new StringBuilder(Integer.toString(r));
			for (int j = 0; j < n; j++) sb.append(',').append(String.format("%.1f", med[j][r]));
			System.out.println(sb);
		}
		System.err.println("sink " + sink);
		for (int j = 0; j < n; j++) {
			Thread.currentThread().setContextClassLoader(loaders[j]);
			((AutoCloseable) systems[j]).close();
		}
		System.exit(0);
	}

}
