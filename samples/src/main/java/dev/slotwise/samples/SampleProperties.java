package dev.slotwise.samples;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample, bound from {@code sample.*}.
 *
 * @param keys how many product keys the catalogue holds
 */
@ConfigurationProperties("sample")
public record SampleProperties(int keys) {

	public SampleProperties {
		if (keys < 1) {
			throw new IllegalArgumentException("sample.keys must be at least 1, was " + keys);
		}
	}

}
