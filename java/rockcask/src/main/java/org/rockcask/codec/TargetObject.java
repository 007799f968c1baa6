package org.rockcask.codec;

import java.util.Arrays;

/** The seed benchmark's object: {@code TargetObjectProto { repeated int32 ia; repeated string sa; }}. */
public final class TargetObject {
    private final int[] ia;
    private final String[] sa;

    public TargetObject(int[] ia, String[] sa) {
        if (ia == null || sa == null) {
            throw new NullPointerException("ia and sa must not be null");
        }
        this.ia = ia;
        this.sa = sa;
    }

    public int[] ia() {
        return ia;
    }

    public String[] sa() {
        return sa;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TargetObject && Arrays.equals(ia, ((TargetObject) o).ia) && Arrays.equals(sa, ((TargetObject) o).sa);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(ia) + Arrays.hashCode(sa);
    }

    @Override
    public String toString() {
        return "TargetObject[" + ia.length + " ints, " + sa.length + " strings]";
    }
}
