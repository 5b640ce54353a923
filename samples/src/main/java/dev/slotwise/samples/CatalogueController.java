package dev.slotwise.samples;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The catalogue's HTTP endpoints:
 * <ul>
 * <li>{@code POST /products/load?count=N} writes products {@code 0..N-1};</li>
 * <li>{@code GET /products?ids=1,2,3} returns those products, in order, with one
 * {@code multiGet};</li>
 * <li>{@code GET /products/random?count=N} reads N random products with one
 * {@code multiGet} and says how long it took and how many it found.</li>
 * </ul>
 */
@RestController
@RequestMapping("/products")
class CatalogueController {

	private final ProductCatalogue catalogue;

	CatalogueController(ProductCatalogue catalogue) {
		this.catalogue = catalogue;
	}

	@PostMapping("/load")
	Loaded load(@RequestParam int count) {
		long start = System.nanoTime();
		this.catalogue.load(count);
		return new Loaded(count, (System.nanoTime() - start) / 1_000_000);
	}

	@GetMapping
	List<String> get(@RequestParam int[] ids) {
		return this.catalogue.get(ids);
	}

	@GetMapping("/random")
	Fetched random(@RequestParam(defaultValue = "100") int count) {
		int[] ids = this.catalogue.randomIds(count);
		long start = System.nanoTime();
		List<String> products = this.catalogue.get(ids);
		long micros = (System.nanoTime() - start) / 1_000;
		long found = products.stream().filter(Objects::nonNull).count();
		long correct = 0;
		for (int i = 0; i < ids.length; i++) {
			if (ProductCatalogue.product(ids[i]).equals(products.get(i))) {
				correct++;
			}
		}
		return new Fetched(count, found, correct, micros, Arrays.stream(ids).limit(5).boxed().toList());
	}

	/**
	 * What a load did.
	 *
	 * @param products products written
	 * @param millis how long it took
	 */
	record Loaded(int products, long millis) {
	}

	/**
	 * What a random read found.
	 *
	 * @param requested products asked for
	 * @param found products that exist
	 * @param correct products whose value is the one written for their id
	 * @param micros how long the {@code multiGet} took
	 * @param firstIds the first few ids asked for
	 */
	record Fetched(int requested, long found, long correct, long micros, List<Integer> firstIds) {
	}

}
