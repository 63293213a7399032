-- Idempotency store, PostgreSQL, key table in time partitions (idempotency.store.partitioning): the functions such a
-- table needs, run before postgresql.sql makes the table with its partition column part_at.
-- ${table} is the configured table name; ${partitionSeconds} the partitions' width in seconds.
-- A key lives in the partition of the moment it was last given a ttl (part_at, filled in by its default): every write
-- that gives a key a new ttl moves it to the current partition, so a partition whose keys all expired can be dropped
-- whole. The store creates partitions ahead and drops expired ones itself: its user must own the table.
-- The width the partitions were made with: every node must use the same.
CREATE OR REPLACE FUNCTION ${table}_partition_seconds() RETURNS INTEGER LANGUAGE sql IMMUTABLE AS 'SELECT ${partitionSeconds}';
-- The start of the partition of a moment: part_at's default, of the clock at the write (not the transaction's start,
-- which may lie before a wait): a write never lands in a partition older than the moment it is made.
CREATE OR REPLACE FUNCTION ${table}_partition_start(at TIMESTAMPTZ) RETURNS TIMESTAMPTZ LANGUAGE sql IMMUTABLE
    AS 'SELECT to_timestamp(floor(extract(epoch FROM $1) / ${partitionSeconds}) * ${partitionSeconds})';
-- Whether no partition holds the key, decided under a transaction-scoped lock on the key: a unique index cannot span
-- partitions, so two first requests for one key in different partitions (either side of a boundary) would both get in.
-- The check runs after the lock was granted, with a fresh snapshot (a volatile function's own query takes one), so it
-- sees the row of a competitor that held the lock and committed. Every first insert of a key calls it.
-- Under repeatable read the check would read a snapshot taken before the wait and miss the competitor's row: refused.
CREATE OR REPLACE FUNCTION ${table}_vacant(p_scope VARCHAR, p_key VARCHAR) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF current_setting('transaction_isolation') = 'repeatable read' THEN
        RAISE EXCEPTION 'the idempotency store needs read committed (or serializable) for a first insert into %, not repeatable read', '${table}'
            USING ERRCODE = '0A000';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('${table}'), hashtext(p_scope || '/' || p_key));
    RETURN NOT EXISTS (SELECT 1 FROM ${table} WHERE scope = p_scope AND idem_key = p_key);
END
$$;
