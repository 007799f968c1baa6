package org.rockcask.flink.sink.internal;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;

/** A commit request that records how the committer answered it. */
final class CommitRequests {
    private CommitRequests() {}

    static final class Recorded implements CommitRequest<RockCaskCommittable> {
        final RockCaskCommittable committable;
        final List<String> answers = new ArrayList<>();
        Throwable failure;

        Recorded(RockCaskCommittable committable) {
            this.committable = committable;
        }

        @Override
        public RockCaskCommittable getCommittable() {
            return committable;
        }

        @Override
        public int getNumberOfRetries() {
            return 0;
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            answers.add("failedWithKnownReason");
            failure = t;
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            answers.add("failedWithUnknownReason");
            failure = t;
        }

        @Override
        public void retryLater() {
            answers.add("retryLater");
        }

        @Override
        public void updateAndRetryLater(RockCaskCommittable committable) {
            answers.add("updateAndRetryLater");
        }

        @Override
        public void signalAlreadyCommitted() {
            answers.add("alreadyCommitted");
        }
    }
}
