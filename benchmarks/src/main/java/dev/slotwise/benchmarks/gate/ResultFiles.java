package dev.slotwise.benchmarks.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

/**
 * Reads JMH JSON results: one file, or every {@code *.json} of a run folder written by
 * {@code run.sh} (its {@code machine.json} aside).
 */
public final class ResultFiles {

	private ResultFiles() {
	}

	/**
	 * Reads a file or a run folder.
	 * @param path a JMH JSON file or a folder of them
	 * @return the rows by {@link Row#key()}, in file order
	 * @throws BadInputException when the path is missing, a file is not JMH JSON, or
	 * there is no result at all
	 */
	public static Map<String, Row> read(Path path) {
		if (!Files.exists(path)) {
			throw new BadInputException("No such file or folder: " + path);
		}
		List<Path> files = new ArrayList<>();
		if (Files.isDirectory(path)) {
			try (Stream<Path> list = Files.list(path)) {
				list.filter((p) -> p.getFileName().toString().endsWith(".json"))
					.filter((p) -> !p.getFileName().toString().equals("machine.json"))
					.sorted()
					.forEach(files::add);
			}
			catch (IOException ex) {
				throw new BadInputException("Cannot list " + path + ": " + ex.getMessage());
			}
		}
		else {
			files.add(path);
		}
		Map<String, Row> rows = new LinkedHashMap<>();
		for (Path file : files) {
			for (Row row : readFile(file)) {
				rows.put(row.key(), row);
			}
		}
		if (rows.isEmpty()) {
			throw new BadInputException("No JMH result in " + path
					+ (Files.isDirectory(path) ? " (no *.json besides machine.json, or only empty ones)" : ""));
		}
		return rows;
	}

	private static List<Row> readFile(Path file) {
		String text;
		try {
			text = Files.readString(file);
		}
		catch (IOException ex) {
			throw new BadInputException("Cannot read " + file + ": " + ex.getMessage());
		}
		if (text.isBlank()) {
			// JMH creates the file before the run and leaves it empty when every trial
			// failed.
			return List.of();
		}
		JsonElement json;
		try {
			json = JsonParser.parseString(text);
		}
		catch (JsonParseException ex) {
			throw new BadInputException("Not JSON: " + file + " (" + ex.getMessage() + ")");
		}
		if (!json.isJsonArray()) {
			throw new BadInputException("Not a JMH result (expected a JSON array of runs): " + file);
		}
		List<Row> rows = new ArrayList<>();
		for (JsonElement run : json.getAsJsonArray()) {
			try {
				rows.add(Row.of(run.getAsJsonObject()));
			}
			catch (RuntimeException ex) {
				throw new BadInputException("Not a JMH result: " + file + ": " + ex.getMessage());
			}
		}
		return rows;
	}

}
