package org.rockcask.codec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A dense data frame: named columns, each a list of one element type ({@code int[]},
 * {@code long[]}, {@code float[]}, {@code double[]}, {@code String[]} or {@code byte[][]}).
 * Names may repeat, as in the protobuf message.
 *
 * @param <C> the column type
 */
public final class DataFrame<C> {
    private final List<String> names = new ArrayList<>();
    private final List<C> columns = new ArrayList<>();

    /** An empty frame. */
    public DataFrame() {}

    /** Adds a column at the end; returns this frame. */
    public DataFrame<C> add(String name, C column) {
        if (name == null || column == null) {
            throw new NullPointerException("name and column must not be null");
        }
        names.add(name);
        columns.add(column);
        return this;
    }

    public List<String> names() {
        return Collections.unmodifiableList(names);
    }

    public List<C> columns() {
        return Collections.unmodifiableList(columns);
    }

    public int size() {
        return names.size();
    }
}
