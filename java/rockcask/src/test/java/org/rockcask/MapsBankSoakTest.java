package org.rockcask;

/** {@link MapsBankTest} for longer: 120 s ({@code -Drockcask.test.bankSeconds}); run by {@code make soak}. */
public class MapsBankSoakTest extends MapsBankTest {
    @Override
    protected long seconds() {
        return Long.getLong("rockcask.test.bankSeconds", 120);
    }
}
