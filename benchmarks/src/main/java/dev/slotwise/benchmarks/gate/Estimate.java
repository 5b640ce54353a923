package dev.slotwise.benchmarks.gate;

import org.apache.commons.math3.distribution.TDistribution;

/**
 * A positive quantity with its relative standard error and the degrees of freedom behind
 * it, so that ratios of measurements carry their uncertainty: relative errors add in
 * quadrature, degrees of freedom by Welch–Satterthwaite.
 *
 * @param value the value
 * @param relativeError the standard error relative to the value (infinite when unknown)
 * @param degreesOfFreedom the degrees of freedom (0 when the error is unknown)
 */
public record Estimate(double value, double relativeError, double degreesOfFreedom) {

	/** Two-sided confidence of the intervals the gate reports and tests against. */
	public static final double CONFIDENCE = 0.95;

	/**
	 * The speed of a row (higher is better) with the row's iteration error.
	 * @param row the row
	 * @return the estimate
	 */
	public static Estimate speedOf(Row row) {
		return new Estimate(row.speed(), row.relativeStandardError(), row.degreesOfFreedom());
	}

	/**
	 * This divided by another independent estimate.
	 * @param other the divisor
	 * @return the quotient
	 */
	public Estimate divide(Estimate other) {
		double a = this.relativeError * this.relativeError;
		double b = other.relativeError * other.relativeError;
		double error = Math.sqrt(a + b);
		double df = (this.degreesOfFreedom < 1 || other.degreesOfFreedom < 1 || Double.isInfinite(error)) ? 0
				: ((a + b) * (a + b)) / (a * a / this.degreesOfFreedom + b * b / other.degreesOfFreedom);
		if (a + b == 0) {
			df = Math.min(this.degreesOfFreedom, other.degreesOfFreedom);
		}
		return new Estimate(this.value / other.value, error, df);
	}

	/**
	 * Half-width of the {@link #CONFIDENCE} interval relative to the value (Student's t).
	 * @return the relative half-width, infinite when the error is unknown
	 */
	public double relativeHalfWidth() {
		if (this.degreesOfFreedom < 1 || Double.isInfinite(this.relativeError) || Double.isNaN(this.relativeError)) {
			return Double.POSITIVE_INFINITY;
		}
		double t = new TDistribution(this.degreesOfFreedom).inverseCumulativeProbability(0.5 + CONFIDENCE / 2);
		return t * this.relativeError;
	}

	/**
	 * Half-width of the {@link #CONFIDENCE} interval in the value's unit.
	 * @return the half-width
	 */
	public double halfWidth() {
		return relativeHalfWidth() * Math.abs(this.value);
	}

}
