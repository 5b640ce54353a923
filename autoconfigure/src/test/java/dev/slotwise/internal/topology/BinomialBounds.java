package dev.slotwise.internal.topology;

/**
 * Acceptance bounds for how many of {@code n} uniform random choices among {@code k}
 * nodes land on one node.
 * <p>
 * Each node's count is Binomial(n, 1/k). The bounds are the widest range outside which
 * the probability mass, on both tails together and summed over all k nodes (union bound),
 * stays below {@code failureProbability}. So a correct uniform choice fails the test with
 * probability below {@code failureProbability}, while a client that always asks the same
 * node (or any node far more often than 1/k) fails it for sure.
 */
record BinomialBounds(int lower, int upper) {

	static BinomialBounds of(int n, int k, double failureProbability) {
		double p = 1.0 / k;
		double perTail = failureProbability / (2.0 * k);
		double[] pmf = new double[n + 1];
		pmf[0] = Math.pow(1 - p, n);
		for (int i = 0; i < n; i++) {
			pmf[i + 1] = pmf[i] * (n - i) / (i + 1) * p / (1 - p);
		}
		int lower = 0;
		double below = 0;
		while (below + pmf[lower] <= perTail) {
			below += pmf[lower];
			lower++;
		}
		int upper = n;
		double above = 0;
		while (above + pmf[upper] <= perTail) {
			above += pmf[upper];
			upper--;
		}
		return new BinomialBounds(lower, upper);
	}

}
