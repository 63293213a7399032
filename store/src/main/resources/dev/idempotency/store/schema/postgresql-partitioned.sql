-- Idempotency store, PostgreSQL, key table in time partitions (idempotency.store.partitioning): the functions such a
-- table needs, run after postgresql.sql made the table with its partition column part_at.
-- ${table} is the configured table name; ${partitionSeconds} the partitions' width in seconds.
-- A key lives in the partition of the moment it was last given a ttl (part_at, filled in by its default): every write
-- that gives a key a new ttl moves it to the current partition, so a partition whose keys all expired can be dropped
-- whole. The store creates partitions ahead and drops expired ones itself: its user must own the table.
-- The width the partitions were made with: every node must use the same.
CREATE OR REPLACE FUNCTION ${table}_partition_seconds() RETURNS INTEGER LANGUAGE sql IMMUTABLE AS 'SELECT ${partitionSeconds}';
-- Whether no partition holds the key, decided under a transaction-scoped lock on the key: a unique index cannot span
-- partitions, so two first requests for one key in different partitions (either side of a boundary) would both get in.
-- The check runs after the lock was granted, with a fresh snapshot (a volatile function's own query takes one), so it
-- sees the row of a competitor that held the lock and committed. Every first insert of a key calls it.
CREATE OR REPLACE FUNCTION ${table}_vacant(p_scope VARCHAR, p_key VARCHAR) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('${table}'), hashtext(p_scope || '/' || p_key));
    RETURN NOT EXISTS (SELECT 1 FROM ${table} WHERE scope = p_scope AND idem_key = p_key);
END
$$;
