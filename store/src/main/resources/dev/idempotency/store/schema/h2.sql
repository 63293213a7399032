-- Idempotency store schema, version 2, for H2 2.x.
-- ${table} is the configured table name (default idempotency_keys); ${name} is its unqualified part and
-- ${schemaPrefix} its schema with the dot (empty when the name has none).
-- Version 2 added the ${table}_secret table; from version 1, running this file again upgrades (nothing else changed:
-- VARCHAR compares byte for byte here).
CREATE TABLE IF NOT EXISTS ${table} (
    scope            VARCHAR(255) NOT NULL,
    idem_key         VARCHAR(255) NOT NULL,
    fingerprint      VARCHAR(128) NOT NULL,
    status           VARCHAR(16)  NOT NULL,
    owner_token      VARCHAR(36),
    lease_expires_at TIMESTAMP WITH TIME ZONE,
    response_status  INTEGER,
    response_headers CHARACTER LARGE OBJECT,
    response_body    BINARY LARGE OBJECT,
    attempts         INTEGER NOT NULL,
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, idem_key)
);
-- One secondary index: H2 has no partial indexes, and every commit writes each index its statements changed to the
-- file, so each index costs every reservation and every completion. Led by status, it serves them all: the sweep and
-- the purges read only the keys of one status (in flight: as many as requests running), and past the ttl by range.
CREATE INDEX IF NOT EXISTS ${name}_expiry_idx ON ${table} (status, expires_at);
-- Earlier releases also indexed (status, lease_expires_at) and (status, updated_at): a completion moved its row in all three.
DROP INDEX IF EXISTS ${schemaPrefix}${name}_lease_idx;
DROP INDEX IF EXISTS ${schemaPrefix}${name}_updated_idx;
-- One row (id 1): the installation secret every node sharing this table uses.
CREATE TABLE IF NOT EXISTS ${table}_secret (
    id         INTEGER NOT NULL PRIMARY KEY,
    secret     BINARY VARYING(64) NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL
);
-- Effect marks (idempotency.on-expired-lease=transaction): written for a key's owner inside the application's own
-- transactions, or before an effect that cannot be made atomic. After a crash, an owner without marks ran nothing that
-- lasted.
CREATE TABLE IF NOT EXISTS ${table}_effects (
    scope       VARCHAR(255) NOT NULL,
    idem_key    VARCHAR(255) NOT NULL,
    owner_token VARCHAR(36)  NOT NULL,
    mark_id     VARCHAR(36)  NOT NULL,
    kind        VARCHAR(16)  NOT NULL,
    detail      VARCHAR(255) NOT NULL,
    marked_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, idem_key, owner_token, mark_id)
);
CREATE TABLE IF NOT EXISTS ${table}_schema (
    version      INTEGER NOT NULL PRIMARY KEY,
    installed_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL
);
MERGE INTO ${table}_schema (version) KEY (version) VALUES (2);
