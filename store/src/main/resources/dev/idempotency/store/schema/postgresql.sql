-- Idempotency store schema, version 2, for PostgreSQL.
-- ${table} is the configured table name (default idempotency_keys); ${name} is its unqualified part.
-- Version 2 added the ${table}_secret table; from version 1, running this file again upgrades (nothing else changed:
-- VARCHAR compares byte for byte here).
-- Run by hand where the application account has no DDL rights, then start the agent with schema=validate or none.
-- The three partition placeholders in the key table are empty, or, for a key table in time partitions
-- (idempotency.store.partitioning), its partition column, that column in the primary key and the PARTITION BY clause;
-- such a table needs the functions of postgresql-partitioned.sql, run before this file. The agent's "schema" command
-- prints both, in that order, with everything filled in.
CREATE TABLE IF NOT EXISTS ${table} (
    scope            VARCHAR(255) NOT NULL,
    idem_key         VARCHAR(255) NOT NULL,
    fingerprint      VARCHAR(128) NOT NULL,
    status           VARCHAR(16)  NOT NULL,
    owner_token      VARCHAR(36),
    lease_expires_at TIMESTAMPTZ,
    response_status  INTEGER,
    response_headers TEXT,
    response_body    BYTEA,
    attempts         INTEGER      NOT NULL,
    created_at       TIMESTAMPTZ  NOT NULL,
    updated_at       TIMESTAMPTZ  NOT NULL,
    expires_at       TIMESTAMPTZ  NOT NULL,${partitionColumn}
    PRIMARY KEY (scope, idem_key${partitionKey})
)${partitionBy};
-- Room on each page for the completion of the keys inserted there (a partitioned table: set on each partition).
${fillfactor}
-- No index names status or updated_at, the columns a completion changes (a completion leaves the lease as it was):
-- an update that changes no indexed column is heap-only (HOT), writing no index entry and leaving no dead one, so a
-- completion costs one row version instead of a row and an entry in every index.
-- The sweeper reads the leases that ran out since it last looked.
CREATE INDEX IF NOT EXISTS ${name}_lease_at_idx ON ${table} (lease_expires_at);
-- The purge reads keys past their expiry (and, once their ttl is over, in-flight keys no sweep saw).
CREATE INDEX IF NOT EXISTS ${name}_expires_at_idx ON ${table} (expires_at);
-- Earlier releases' partial indexes: their predicates named status, so no completion could be heap-only.
DROP INDEX IF EXISTS ${schemaPrefix}${name}_lease_idx;
DROP INDEX IF EXISTS ${schemaPrefix}${name}_expiry_idx;
DROP INDEX IF EXISTS ${schemaPrefix}${name}_unknown_idx;
-- One row (id 1): the installation secret every node sharing this table uses.
CREATE TABLE IF NOT EXISTS ${table}_secret (
    id         INTEGER NOT NULL PRIMARY KEY,
    secret     BYTEA NOT NULL,
    created_at TIMESTAMPTZ DEFAULT CURRENT_TIMESTAMP NOT NULL
);
-- Effect marks (idempotency.on-expired-lease=transaction): written for a key's owner inside the application's own
-- transactions, or before an effect that cannot be made atomic. After a crash, an owner without marks ran nothing that
-- lasted. The application's database user needs SELECT on ${table} and INSERT on this table.
CREATE TABLE IF NOT EXISTS ${table}_effects (
    scope       VARCHAR(255) NOT NULL,
    idem_key    VARCHAR(255) NOT NULL,
    owner_token VARCHAR(36)  NOT NULL,
    mark_id     VARCHAR(36)  NOT NULL,
    kind        VARCHAR(16)  NOT NULL,
    detail      VARCHAR(255) NOT NULL,
    marked_at   TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, idem_key, owner_token, mark_id)
);
CREATE TABLE IF NOT EXISTS ${table}_schema (
    version      INTEGER     NOT NULL PRIMARY KEY,
    installed_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO ${table}_schema (version) VALUES (2) ON CONFLICT (version) DO NOTHING;
