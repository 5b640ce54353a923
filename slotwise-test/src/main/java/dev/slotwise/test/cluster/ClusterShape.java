package dev.slotwise.test.cluster;

/**
 * How many nodes a test cluster has.
 *
 * @param masters number of masters, each owning an equal share of the 16384 hash slots
 * @param replicasPerMaster number of replicas that follow each master
 */
public record ClusterShape(int masters, int replicasPerMaster) {

	/**
	 * Three masters with one replica each: the shape Redis recommends as the smallest
	 * production cluster.
	 */
	public static final ClusterShape DEFAULT = new ClusterShape(3, 1);

	public ClusterShape {
		if (masters < 1) {
			throw new IllegalArgumentException("'masters' must be at least 1, was " + masters);
		}
		if (replicasPerMaster < 0) {
			throw new IllegalArgumentException("'replicasPerMaster' must not be negative, was " + replicasPerMaster);
		}
	}

	/**
	 * Returns the total number of {@code redis-server} processes.
	 * @return masters plus replicas
	 */
	public int size() {
		return this.masters * (1 + this.replicasPerMaster);
	}

}
