package org.rockcask.bench.graph;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one contender's JVM measured, as one line of its output: {@value #PREFIX} then
 * tab-separated {@code name=value} fields, or an {@code error} field when it failed.
 */
final class GraphRunResult {
    static final String PREFIX = "graph-result";
    static final String ERROR = "error";

    final Map<String, String> fields;

    GraphRunResult(Map<String, String> fields) {
        this.fields = fields;
    }

    static GraphRunResult failed(String error) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put(ERROR, error);
        return new GraphRunResult(f);
    }

    static GraphRunResult failed(Throwable t) {
        return failed(t.getClass().getName() + ": " + t.getMessage());
    }

    String error() {
        return fields.get(ERROR);
    }

    double number(String name) {
        String v = fields.get(name);
        if (v == null) {
            throw new IllegalStateException("result has no field " + name + ": " + fields);
        }
        return Double.parseDouble(v);
    }

    String text(String name) {
        return fields.getOrDefault(name, "");
    }

    String line() {
        StringBuilder b = new StringBuilder(PREFIX);
        fields.forEach((k, v) -> b.append('\t').append(k).append('=').append(v.replace('\t', ' ').replace('\n', ' ')));
        return b.toString();
    }

    /** The result in a line of the child's output, or null if the line is not one. */
    static GraphRunResult parse(String line) {
        if (!line.startsWith(PREFIX + "\t")) {
            return null;
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (String field : line.substring(PREFIX.length() + 1).split("\t")) {
            int eq = field.indexOf('=');
            f.put(field.substring(0, eq), field.substring(eq + 1));
        }
        return new GraphRunResult(f);
    }
}
