-- Idempotency store schema, version 2, for MariaDB and MySQL (InnoDB).
-- ${table} is the configured table name (default idempotency_keys); ${name} is its unqualified part.
-- Scopes, keys, fingerprints, tokens and statuses are VARBINARY holding UTF-8 bytes: they compare byte for byte.
-- (utf8mb4_bin and ascii_bin are PAD SPACE collations, under which "abc " equals "abc"; version 1 used them.)
-- Timestamps are DATETIME in UTC, written with UTC_TIMESTAMP(3).
-- Upgrading a version 1 table by hand: run mysql-upgrade-1-to-2.sql first, then this file.
-- No secondary index names a column a completion changes (status, updated_at, the response; a completion leaves the
-- lease as it was), so InnoDB changes only the row itself for a completion. Tables made by earlier releases have three
-- indexes led by status, which every completion rewrote; schema=create replaces them, and by hand:
--   ALTER TABLE ${table} ADD INDEX ${name}_lease_at_idx (lease_expires_at), ADD INDEX ${name}_expires_at_idx (expires_at),
--     DROP INDEX ${name}_lease_idx, DROP INDEX ${name}_expiry_idx, DROP INDEX ${name}_updated_idx;
CREATE TABLE IF NOT EXISTS ${table} (
    scope            VARBINARY(1020) NOT NULL,
    idem_key         VARBINARY(1020) NOT NULL,
    fingerprint      VARBINARY(512)  NOT NULL,
    status           VARBINARY(16)   NOT NULL,
    owner_token      VARBINARY(36)   NULL,
    lease_expires_at DATETIME(3) NULL,
    response_status  INT NULL,
    response_headers MEDIUMTEXT CHARACTER SET utf8mb4 NULL,
    response_body    LONGBLOB NULL,
    attempts         INT NOT NULL,
    created_at       DATETIME(3) NOT NULL,
    updated_at       DATETIME(3) NOT NULL,
    expires_at       DATETIME(3) NOT NULL,
    PRIMARY KEY (scope, idem_key),
    -- The sweeper reads the leases that ran out since it last looked.
    INDEX ${name}_lease_at_idx (lease_expires_at),
    -- The purge reads keys past their expiry (and, once their ttl is over, in-flight keys no sweep saw).
    INDEX ${name}_expires_at_idx (expires_at)
) ENGINE = InnoDB;
-- One row (id 1): the installation secret every node sharing this table uses.
CREATE TABLE IF NOT EXISTS ${table}_secret (
    id         INT NOT NULL PRIMARY KEY,
    secret     VARBINARY(64) NOT NULL,
    created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE = InnoDB;
-- Effect marks (idempotency.on-expired-lease=transaction): written for a key's owner inside the application's own
-- transactions, or before an effect that cannot be made atomic. After a crash, an owner without marks ran nothing that
-- lasted. The application's database user needs SELECT on ${table} and INSERT on this table.
CREATE TABLE IF NOT EXISTS ${table}_effects (
    scope       VARBINARY(1020) NOT NULL,
    idem_key    VARBINARY(1020) NOT NULL,
    owner_token VARBINARY(36)   NOT NULL,
    mark_id     VARBINARY(36)   NOT NULL,
    kind        VARBINARY(16)   NOT NULL,
    detail      VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,
    marked_at   DATETIME(3) NOT NULL,
    PRIMARY KEY (scope, idem_key, owner_token, mark_id),
    INDEX ${name}_effects_token_idx (owner_token)
) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS ${table}_schema (
    version      INT NOT NULL PRIMARY KEY,
    installed_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
) ENGINE = InnoDB;
INSERT IGNORE INTO ${table}_schema (version) VALUES (2);
