-- Idempotency store schema, version 2, for H2 2.x.
-- ${table} is the configured table name (default idempotency_keys); ${name} is its unqualified part.
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
CREATE INDEX IF NOT EXISTS ${name}_lease_idx ON ${table} (status, lease_expires_at);
CREATE INDEX IF NOT EXISTS ${name}_expiry_idx ON ${table} (status, expires_at);
CREATE INDEX IF NOT EXISTS ${name}_updated_idx ON ${table} (status, updated_at);
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
