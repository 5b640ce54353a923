package dev.slotwise.samples;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample, bound from {@code sample.*}.
 *
 * @param products how many products the catalogue holds ({@code product:0} to
 * {@code product:<products-1>}); random reads pick among them
 */
@ConfigurationProperties("sample")
public record SampleProperties(int products) {

	public SampleProperties {
		if (products < 1) {
			throw new IllegalArgumentException("sample.products must be at least 1, was " + products);
		}
	}

}
