//! The records in which a store's figures cross to `org.rockcask.StoreMetrics` and
//! `org.rockcask.QueueMetrics` (their Java constants are in `org.rockcask.Wire`). Rates cross as
//! the bits of an IEEE double (`f64::to_bits`, `Double.longBitsToDouble`).

slots! {
    /// A store's own figures: these slots, then one `SummarySlot` block per `SummaryBlock`.
    pub enum MetricsSlot in "org/rockcask/Wire" as "METRICS_" {
        Counting = "COUNTING",
        UptimeMillis = "UPTIME_MILLIS",
        Commits = "COMMITS",
        CommitsPerSecond = "COMMITS_PER_SECOND",
        Queues = "QUEUES",
        QueuedItems = "QUEUED_ITEMS",
        ObjectsEstimate = "OBJECTS_ESTIMATE",
        DiskBytes = "DISK_BYTES",
        LiveSstBytes = "LIVE_SST_BYTES",
        WalBytes = "WAL_BYTES",
        MemtableBytes = "MEMTABLE_BYTES",
        BlockCacheBytes = "BLOCK_CACHE_BYTES",
        TableReaderBytes = "TABLE_READER_BYTES",
        PayloadBytes = "PAYLOAD_BYTES",
        StoredPayloadBytes = "STORED_PAYLOAD_BYTES",
        DelayedWriteRate = "DELAYED_WRITE_RATE",
        WriteStopped = "WRITE_STOPPED",
        WriteStallDelays = "WRITE_STALL_DELAYS",
        WriteStallStops = "WRITE_STALL_STOPS",
        MapCacheBytes = "MAP_CACHE_BYTES",
        MapCacheHits = "MAP_CACHE_HITS",
        MapCacheMisses = "MAP_CACHE_MISSES",
        ObjectCacheBytes = "OBJECT_CACHE_BYTES",
        ObjectCacheHits = "OBJECT_CACHE_HITS",
        ObjectCacheMisses = "OBJECT_CACHE_MISSES",
        QueueCacheBytes = "QUEUE_CACHE_BYTES",
    }
}

slots! {
    /// The order of the summaries after the `MetricsSlot` values.
    pub enum SummaryBlock in "org/rockcask/Wire" as "SUMMARY_OF_" {
        CommitLatency = "COMMIT_LATENCY",
        SyncedWrite = "SYNCED_WRITE",
        GroupCommitSize = "GROUP_COMMIT_SIZE",
    }
}

slots! {
    /// One summary of a histogram (`org.rockcask.Distribution`).
    pub enum SummarySlot in "org/rockcask/Wire" as "SUMMARY_" {
        Count = "COUNT",
        Sum = "SUM",
        P50 = "P50",
        P90 = "P90",
        P99 = "P99",
        P999 = "P999",
        Max = "MAX",
    }
}

slots! {
    /// One queue's figures. `OldestEntryAgeMillis` is -1 for an empty queue.
    pub enum QueueSlot in "org/rockcask/Wire" as "QUEUE_" {
        Depth = "DEPTH",
        Available = "AVAILABLE",
        Claimed = "CLAIMED",
        Enqueued = "ENQUEUED",
        EnqueuedPerSecond = "ENQUEUED_PER_SECOND",
        Polled = "POLLED",
        PolledPerSecond = "POLLED_PER_SECOND",
        Consumed = "CONSUMED",
        ConsumedPerSecond = "CONSUMED_PER_SECOND",
        Returned = "RETURNED",
        DeadLettered = "DEAD_LETTERED",
        OldestEntryAgeMillis = "OLDEST_ENTRY_AGE_MILLIS",
        OldestAgeIsLowerBound = "OLDEST_AGE_IS_LOWER_BOUND",
    }
}
