package dev.slotwise.samples;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;
import org.springframework.util.Assert;

/**
 * The catalogue: products stored as JSON strings under {@code product:<id>}, read many at
 * a time with one {@code multiGet}, as an application's product listing would. The keys
 * land in different hash slots, so each read is a cross-slot multi-key call: Spring Data
 * Redis alone splits it into per-key commands, Slotwise into one batch per master.
 */
@Service
class ProductCatalogue {

	private static final int WRITE_CHUNK = 5_000;

	private final StringRedisTemplate template;

	private final SampleProperties properties;

	ProductCatalogue(StringRedisTemplate template, SampleProperties properties) {
		this.template = template;
		this.properties = properties;
	}

	/**
	 * Writes products {@code 0} to {@code count - 1}.
	 * @param count how many
	 */
	void load(int count) {
		Assert.isTrue(count > 0, () -> "'count' must be positive, was " + count);
		for (int first = 0; first < count; first += WRITE_CHUNK) {
			Map<String, String> chunk = new HashMap<>();
			for (int id = first; id < Math.min(count, first + WRITE_CHUNK); id++) {
				chunk.put(key(id), product(id));
			}
			this.template.opsForValue().multiSet(chunk);
		}
	}

	/**
	 * Reads products by id with one {@code multiGet}.
	 * @param ids the ids, in the order wanted
	 * @return the products in the same order, {@code null} where none exists
	 */
	List<String> get(int... ids) {
		List<String> keys = Arrays.stream(ids).mapToObj(ProductCatalogue::key).toList();
		List<String> values = this.template.opsForValue().multiGet(keys);
		return (values != null) ? values : new ArrayList<>();
	}

	/**
	 * Picks distinct random ids among the catalogue's products.
	 * @param count how many, at most {@code sample.products}
	 * @return the ids
	 */
	int[] randomIds(int count) {
		int products = this.properties.products();
		Assert.isTrue(count > 0 && count <= products,
				() -> "'count' must be between 1 and sample.products (" + products + "), was " + count);
		return ThreadLocalRandom.current().ints(0, products).distinct().limit(count).toArray();
	}

	static String key(int id) {
		return "product:" + id;
	}

	static String product(int id) {
		return "{\"id\":" + id + ",\"name\":\"Product " + id + "\",\"price\":" + (100 + id % 900) + "}";
	}

}
