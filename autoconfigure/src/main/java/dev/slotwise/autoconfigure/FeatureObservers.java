package dev.slotwise.autoconfigure;

import dev.slotwise.internal.keyspace.ScanObserver;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.pipeline.PipelineObserver;
import dev.slotwise.internal.pubsub.PubSubObserver;
import dev.slotwise.internal.transaction.TransactionObserver;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The observers of each feature for one client: every source the application has
 * (Slotwise's meters, its observations), as one.
 */
final class FeatureObservers {

	private FeatureObservers() {
	}

	static MultiKeyObserver multiKey(ObjectProvider<MultiKeyObserver.Source> sources, String client) {
		return MultiKeyObserver.of(sources.orderedStream().map((source) -> source.forClient(client)).toList());
	}

	static PipelineObserver pipeline(ObjectProvider<PipelineObserver.Source> sources, String client) {
		return PipelineObserver.of(sources.orderedStream().map((source) -> source.forClient(client)).toList());
	}

	static ScanObserver scan(ObjectProvider<ScanObserver.Source> sources, String client) {
		ScanObserver.Source available = sources.getIfAvailable();
		return (available != null) ? available.forClient(client) : ScanObserver.NONE;
	}

	static TransactionObserver transaction(ObjectProvider<TransactionObserver.Source> sources, String client) {
		return TransactionObserver.of(sources.orderedStream().map((source) -> source.forClient(client)).toList());
	}

	static PubSubObserver pubSub(ObjectProvider<PubSubObserver.Source> sources, String client) {
		PubSubObserver.Source available = sources.getIfAvailable();
		return (available != null) ? available.forClient(client) : PubSubObserver.NONE;
	}

}
