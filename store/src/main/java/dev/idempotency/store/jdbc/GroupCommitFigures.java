package dev.idempotency.store.jdbc;

/** How much one kind of write was shared: batches run, items they carried, the largest batch. */
public final class GroupCommitFigures {
    private final long batches;
    private final long items;
    private final int largestBatch;

    GroupCommitFigures(long batches, long items, int largestBatch) {
        this.batches = batches;
        this.items = items;
        this.largestBatch = largestBatch;
    }

    public long batches() { return batches; }

    public long items() { return items; }

    public int largestBatch() { return largestBatch; }

    @Override
    public String toString() {
        return batches + " batches, " + items + " items, largest " + largestBatch;
    }
}
